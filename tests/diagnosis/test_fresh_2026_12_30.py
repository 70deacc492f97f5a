"""Session 39's second blind sets (tests/data/nccl-fresh-2026-12-30, -30-b, -31: measured once before anything was
written from them, bench/MEASUREMENTS.md) and what was written from their misses: an entry's finding quotes the line it
read; NCCL 2.31's words for no algorithm left; the OFI plugin's `Unexpected` as an error; NCCL_TIMEOUT, which NCCL
does not have, said as the framework's timeout and not as InfiniBand's."""
from pathlib import Path

from diagnosis_helpers import found
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def said_by(path):
    return {f.id: f for f in diagnose(read_log(path))}


def test_an_entrys_finding_quotes_the_line_it_read_where_no_error_of_it_was_quoted():
    """deepseek-ai/DeepEP#53: NCCL's `[Service thread] Accept failed No space left on device` comes first, then
    `misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-nyj24T ... No space left on device (28)`: the
    first is the paste's first error (both lines lost NCCL's host prefix), so shm-too-small's finding named the cause
    without the line that shows it."""
    f = said_by(DATA / "nccl-fresh-2026-12-30-b" / "DeepEP-53.log")["shm-too-small"]
    assert "failed to extend /dev/shm/nccl-nyj24T to 10486116 bytes, error: No space left on device (28)" in f.what
    # a line quoted as the error of its rank is quoted once
    one = ("node-3:4242:4310 [1] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment "
           "/dev/shm/nccl-x (size 9637888)\n")
    assert found(one)[0].what.count("Error while creating shared memory segment") == 1


def test_nccl_2_31s_words_for_no_algorithm_left_are_the_forced_algorithm():
    """vllm-project/vllm#58179: `No algorithm/protocol nor symKernelId available for function Broadcast with datatype
    ncclInt8.` under `NCCL_ALGO was set to allreduce:tree. NCCL_PROTO was set to Simple.` (NCCL 2.31); NCCL's master
    says `No algorithm/protocol available for function ...` (src/enqueue.cc), which the entry did not read either."""
    said = said_by(DATA / "nccl-fresh-2026-12-31" / "vllm-58179.log")
    assert "algo-forced-unavailable" in said and said["algo-forced-unavailable"].verdict == "FAIL"
    master = "h:1:2 [0] enqueue.cc:2063 NCCL WARN No algorithm/protocol available for function AllGather with datatype ncclInt8.\n"
    assert [f.id for f in found(master)] == ["algo-forced-unavailable"]


def test_the_ofi_plugins_unexpected_rail_count_is_an_error_line():
    """NVIDIA/nccl#1921: `NET/OFI Unexpected number of remote rails for dev 0. Expected 3 but got 2`, pasted without
    NCCL's prefix, was read as nothing."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-30-b" / "nccl-1921.log"))
    assert any('"NET/OFI Unexpected number of remote rails for dev 0. Expected 3 but got 2"' in f.what for f in said)
    # the plugin's INFO words stay none
    assert found("NET/OFI Using transport protocol RDMA\n") == []


def test_nccl_timeout_is_said_as_the_frameworks_timeout_not_as_infinibands():
    """mlfoundations/open_clip#1087 exported NCCL_TIMEOUT=7200 and its ALLGATHER timed out at PyTorch's 1,800,000 ms;
    the closest known name, NCCL_IB_TIMEOUT, is InfiniBand's retransmission exponent (1-31): the hint misled."""
    f = said_by(DATA / "nccl-fresh-2026-12-30" / "open_clip-1087.log")["unknown-setting"]
    assert "NCCL has no timeout setting" in f.what and "did you mean" not in f.what
    assert "init_process_group(timeout=" in f.fix and "not this" in f.fix
    # another misspelling keeps its closest name
    typo = found("export NCCL_SOCKET_IFNAMES=eth0\nh:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")
    assert any("did you mean NCCL_SOCKET_IFNAME?" in f.what for f in typo)


def test_pytorchs_nccl_error_cut_after_its_comma_is_read_with_its_class():
    """pytorch/pytorch#188567: `DistBackendError: NCCL error in: .../NCCLSymmetricMemory.cu:174,` over `invalid argument
    (run with NCCL_DEBUG=WARN for details), NCCL version 2.29.7`: read whole, its class is said (it was a bare WARN)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-30-b" / "pytorch-188567.log"))
    assert [f.id for f in said] == ["error-not-in-catalogue"] and said[0].verdict == "FAIL"
    assert "NCCLSymmetricMemory.cu:174, invalid argument (run with NCCL_DEBUG=WARN" in said[0].what
    assert said[0].why.startswith("ncclInvalidArgument")
    # a line below in upper case after a comma is no part of it: the error stands alone
    alone = found("torch.distributed.DistBackendError: NCCL error in: x.cpp:1,\nTraceback (most recent call last):\n")
    assert alone and "Traceback" not in alone[0].what


def test_the_reason_pytorch_gives_under_its_nccl_version_is_quoted_with_the_error():
    """pytorch/pytorch#188567: c10d's C10D_NCCL_CHECK throws `NCCL error in: FILE:LINE, <NCCL's string>, NCCL version
    X`, a newline and getNcclErrorDetailStr(): the process group's reason (`Failed to window register segment ...`),
    which is what says what failed; it was left out of the finding. PyTorch's words for the class alone (`ncclInvalidUsage:
    This usually reflects ...`, said by the finding's why already) and its `Last error:` (read as its own part) are not
    taken as the reason."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-30-b" / "pytorch-188567.log"))
    assert said[0].what.endswith("NCCL version 2.29.7 / Failed to window register segment with ptr 0x..., size 20971520 "
                                 'on rank 0"'), said[0].what
    error = ("torch.distributed.DistBackendError: NCCL error in: ../ProcessGroupNCCL.cpp:1691, invalid usage (run with "
             "NCCL_DEBUG=WARN for details), NCCL version 2.19.3\n")
    classed = found(error + "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n")
    assert classed and "This usually" not in classed[0].what, classed[0].what
    prose = found(error.replace("2.19.3", "2.19.3'") + "When I run two scripts at once, what happens?\n")
    assert prose and "When I run" not in prose[0].what, prose[0].what  # not PyTorch's line: the version is quoted


def test_a_healthy_one_host_log_without_host_prefixes_reads_healthy():
    """NVIDIA/nccl#1190 (a blind healthy log of session 39): two processes of one host, NCCL's lines without their
    host prefix, both bootstrapping on lo:127.0.0.1, the paste cut inside `via direct shared m`. The cut channel was
    read as NET (the network carried data) and the job as one across hosts: FAIL address-unreachable for lo and WARN
    libibverbs-missing on a run that worked."""
    path = DATA / "nccl-fresh-2027-01-02" / "healthy" / "nccl-1190.log"
    log = read_log(path)
    assert [c.transport for c in log.channels] == ["SHM", "SHM", "SHM"]
    assert diagnose(log) == []
    # lo across two hosts the log shows is still the failure it is
    two = "a:1:1 [0] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\nb:2:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
    assert "address-unreachable" in [f.id for f in found(two)]
