"""The seventeenth and eighteenth fresh sets (tests/data/nccl-fresh-2026-12-13 and -13-b, measured blind in session 36,
bench/MEASUREMENTS.md) and what was written from their misses. A healthy excerpt's device list cut after the second
host's first rank (aws/aws-ofi-nccl#65) read as hosts with different ranks per node: a list is counted only whole."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

SEVENTEENTH = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-13"


def test_a_device_list_cut_short_does_not_count_ranks_per_host():
    # mpirun -n ${NUM_PROCS}: the count unsaid; the excerpt ends in the list (8 ranks on one host, 1 on the next)
    said = ids(diagnose(read_log(SEVENTEENTH / "healthy" / "aws-ofi-nccl-65.log")))
    assert not any(s.startswith("gpus-per-node-differ") for s in said), said
    text = (SEVENTEENTH / "healthy" / "aws-ofi-nccl-65.log").read_text()
    # the same list with the launch saying its 9 processes (nThread 1 nGpus 1 each): whole, and uneven (8 and 1)
    whole = text.replace("-n ${NUM_PROCS}", "-n 9").rstrip("`\n") + "\n#\n"
    assert any(s.startswith("gpus-per-node-differ") for s in ids(found_in_text(whole)))


def test_a_result_table_with_a_first_column_of_its_own_is_nccl_tests_not_an_error():
    """NVIDIA/nccl#527: all_reduce_perf's rows for 1-4 p4dn nodes, the node count as a first column (`p4dn`) and the
    old header's `error` columns: its column header was quoted as an error no catalogue knows (a FAIL on a healthy
    table). Read as nccl-tests' header and rows now: no finding."""
    assert ids(diagnose(read_log(SEVENTEENTH / "healthy" / "nccl-527.log"))) == []
    # the same rows cut after the header: a test that stopped there, as any nccl-tests header without rows
    text = (SEVENTEENTH / "healthy" / "nccl-527.log").read_text().splitlines(keepends=True)
    assert ids(found_in_text("".join(text[:4]))) == ["nccl-tests-stopped-before-first-size:FAIL@3"]


EIGHTEENTH = SEVENTEENTH.parent / "nccl-fresh-2026-12-13-b"


def test_the_network_librarys_own_lines_are_read_and_named():
    """aws/aws-ofi-nccl#879: `fi_info -p efa` in a container answering `fi_getinfo: -61 (No data available)` (the EFA
    devices not passed in): read before only as the prose line above it. #107: the EFA provider's ENOMEM in a
    container (memlock). Both are libfabric's lines, of the class "network library error"."""
    said = diagnose(read_log(SEVENTEENTH / "aws-ofi-nccl-879.log"))
    assert ids(said) == ["ofi-no-efa-device:FAIL@3"], ids(said)
    said = diagnose(read_log(SEVENTEENTH / "aws-ofi-nccl-107.log"))
    assert ids(said) == ["efa-provider-enomem:FAIL@4"], ids(said)
    assert "memlock=-1" in said[0].fix
    # another libfabric error: quoted with its class's words
    other = "[0]:rxr_ep_progress failed. err: Input/output error (-5) prov_errno: Unknown error (-5) prov/efa/src/rxr.c:1\n"
    [generic] = found_in_text(other)
    assert generic.id == "error-not-in-catalogue" and "network library error" in generic.why, generic.why


def test_ncclS_kernels_missing_for_the_gpu_say_named_symbol_not_found():
    """NVIDIA/nccl#1372: NCCL built for sm_80 only, on an H100: `enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not
    found'` (error-not-in-catalogue before)."""
    said = diagnose(read_log(EIGHTEENTH / "nccl-1372.log"))
    assert ids(said) == ["no-kernel-image-for-gpu:FAIL@2"], ids(said)
    # CUDA's same words elsewhere than NCCL's kernel launch are not this entry's
    elsewhere = "host:1:1 [0] misc/cudawrap.cc:99 NCCL WARN Cuda failure 'named symbol not found'\n"
    assert "no-kernel-image-for-gpu" not in " ".join(ids(found_in_text(elsewhere)))
    # an NCCL that printed no location (PyTorch 2.0's, pytorch/pytorch#152077 on an RTX 5090) is read as the launch's
    bare = "4d1a2ae696c8:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
    assert ids(found_in_text(bare)) == ["no-kernel-image-for-gpu:FAIL@1"]
