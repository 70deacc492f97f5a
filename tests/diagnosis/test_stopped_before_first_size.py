"""nccl-tests' header and no result row, no error line: the test started and stopped before its first
size (a hang in its first collective, or the job killed during it). A FAIL finding, never healthy,
never refused."""
import subprocess
import sys

from diagnosis_helpers import ROOT, found, ids, read_log

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"

# NVIDIA/nccl#257 as its description posted it: all_reduce_perf on four GTX 1080 Ti "hangs with 100% volatile GPU
# usage"; NCCL 2.4.8's INFO lines and its libibverbs WARN (one host: no finding of its own), then nothing
NCCL_257 = """./build/all_reduce_perf -b 8 -e 256M -f 2 -g 4
# nThread 1 nGpus 4 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid  15833 on jupyter-vmarkovtsev device  0 [0x02] GeForce GTX 1080 Ti
#   Rank  1 Pid  15833 on jupyter-vmarkovtsev device  1 [0x03] GeForce GTX 1080 Ti
#   Rank  2 Pid  15833 on jupyter-vmarkovtsev device  2 [0x82] GeForce GTX 1080 Ti
#   Rank  3 Pid  15833 on jupyter-vmarkovtsev device  3 [0x83] GeForce GTX 1080 Ti
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO Bootstrap : Using [0]eth0:10.2.3.32<0>
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).

jupyter-vmarkovtsev:15833:15833 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.3.32<0>
NCCL version 2.4.8+cuda10.0
jupyter-vmarkovtsev:15833:15833 [3] NCCL INFO nranks 4
jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO Setting affinity for GPU 0 to ff00ff
jupyter-vmarkovtsev:15833:15833 [1] NCCL INFO Setting affinity for GPU 1 to ff00ff
"""


def test_a_header_without_nccls_lines_is_a_finding_not_a_refusal():
    """ROCm/rccl#1129 (train split): rccl-tests' header, its column header, nothing after (it hung; iommu=pt fixed
    it). Its two ranks on one host: the finding is the one-node rule's (test_stopped_on_one_node.py), standing on
    the column header; the module ends 1, as topo does for a FAIL."""
    said = diagnose_file(CORPUS / "rccl-1129.log")
    assert ids(said) == ["nccl-tests-stopped-on-one-node:FAIL@10"], ids(said)
    assert said[0].what.startswith("nccl-tests printed its header (line 2) and no result, its 2 ranks on one host")
    done = subprocess.run([sys.executable, "-m", "wirebench.diagnosis", str(CORPUS / "rccl-1129.log")],
                          capture_output=True, text=True, cwd=ROOT / "python")
    assert done.returncode == 1 and '"nccl-tests-stopped-on-one-node"' in done.stdout, done.stderr


def test_a_header_and_nccls_init_lines_and_no_result_is_not_healthy():
    said = found(NCCL_257)  # four ranks on one host: the one-node rule
    assert ids(said) == ["nccl-tests-stopped-on-one-node:FAIL@2"], ids(said)
    # the same ranks, two on each of two hosts, without the WARN of a missing libibverbs (across hosts a finding of
    # its own, which the fallback gives way to): the generic rule, its words
    across = "".join(line for line in NCCL_257.splitlines(keepends=True) if "libibverbs" not in line)
    for device in ("2", "3"):
        across = across.replace(f"Pid  15833 on jupyter-vmarkovtsev device  {device}",
                                f"Pid  15900 on jupyter-other device  {device}")
    said = found(across)
    assert ids(said) == ["nccl-tests-stopped-before-first-size:FAIL@2"], ids(said)
    assert said[0].what == ("nccl-tests printed its header (line 2) and no result: it stopped before its first size, or "
                            "the output was cut there")
    assert "NCCL_DEBUG=INFO" in said[0].fix and "stack of the stuck ranks" in said[0].fix


def test_the_banner_alone_is_a_test_that_stopped():
    """The banner's first lines as nccl-tests prints them (src/common.cu), the output cut after them."""
    said = found("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728\n#\n# Using devices\n")
    assert ids(said) == ["nccl-tests-stopped-before-first-size:FAIL@1"], ids(said)


def test_quiet_where_a_result_or_an_error_says_more():
    # the first size's row: the test ran (NVIDIA/nccl#257's header, a row of nccl-tests' format)
    ran = NCCL_257 + ("           8             2     float     sum    35.52    0.00    0.00  0e+00    35.41    0.00    "
                      "0.00  0e+00\n")
    assert "nccl-tests-stopped-before-first-size" not in " ".join(ids(found(ran)))
    # NVIDIA/nccl-tests#166's failure line after the header: the error is the finding
    failed = NCCL_257 + ("ubuntu: Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL "
                         "developers / '\n")
    said = ids(found(failed))
    assert said and "nccl-tests-stopped-before-first-size" not in " ".join(said), said


def diagnose_file(path):
    from wirebench.diagnosis import diagnose
    return diagnose(read_log(path))
