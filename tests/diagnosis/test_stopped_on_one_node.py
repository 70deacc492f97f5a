"""nccl-tests' header and no result, every rank of its device list on one host: the first collective crossed no
network, so the finding names the path it did cross, peer-to-peer over PCIe, and what blocks it (the IOMMU, ACS),
with NCCL_P2P_DISABLE=1 as the test that tells. Real pastes: NVIDIA/nccl#104 (NCCL 1.x's own test, ACS), NVIDIA/
nccl#1320 (ACS), ROCm/rccl#1129 (IOMMU, tests/data/nccl-corpus); quiet where peer-to-peer was off (NVIDIA/nccl-
tests#117's second run), where the list is cut (NVIDIA/nccl-tests#213) and where NCCL 1.x's test printed rows."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def found(path):
    return diagnose(read_log(path))


def test_nccl_1s_own_test_stalled_after_its_header_is_read_not_refused():
    """NVIDIA/nccl#104: all_reduce_test of NCCL 1.x on 8 Tesla M40, its `Rank N uses device N` list and its
    `bytes N type op` column header in a Markdown quote, then nothing (ACS, disabled on the maintainer's advice).
    Refused before (no line the reader knew)."""
    said = found(DATA / "nccl-fresh-2026-12-12-b" / "nccl-104.log")
    assert ids(said) == ["nccl-tests-stopped-on-one-node:FAIL@14"], ids(said)
    assert "its 8 ranks on one host" in said[0].what and "IOMMU or ACS" in said[0].why
    assert "NCCL_P2P_DISABLE=1" in said[0].fix and "acsctl" in said[0].fix and "iommu=pt" in said[0].fix
    assert "NVIDIA/nccl#104" in said[0].source


def test_a_current_nccl_tests_with_nccls_setup_lines_on_one_host():
    """NVIDIA/nccl#1320: all_reduce_perf -g 2 on one A100 host, NCCL's setup lines, then nothing (ACS)."""
    said = found(DATA / "nccl-fresh-2026-12-11" / "nccl-1320.log")
    assert ids(said) == ["nccl-tests-stopped-on-one-node:FAIL@8"]  # the banner: the paste ends in NCCL's setup, ids(said)
    assert "its 2 ranks on one host" in said[0].what


def test_quiet_where_peer_to_peer_was_off_or_the_list_is_cut():
    # NVIDIA/nccl-tests#117's run with NCCL_P2P_DISABLE=1 on its command line: P2P is not the path; the generic rule
    said = found(DATA / "nccl-fresh-2026-12-07-b" / "healthy" / "nccl-tests-117.log")
    assert ids(said) == ["nccl-tests-stopped-before-first-size:FAIL@3"], ids(said)
    # NVIDIA/nccl-tests#213: `mpirun -np 2` of `-g 8`, the excerpt cut at the first host's fourth rank: 4 of 16 listed
    text = (DATA / "nccl-fresh-2026-12-09" / "nccl-tests-213.log").read_text().splitlines(keepends=True)
    said = found_in_text("".join(text[:18] + text[21:]))
    assert ids(said) == ["nccl-tests-stopped-before-first-size:FAIL@16"], ids(said)


def test_nccl_1s_own_test_that_printed_rows_is_healthy():
    """NVIDIA/nccl#36: NCCL 1.x's all_reduce_test on two GTX TITAN X, its rows after the header: no finding."""
    assert ids(found(DATA / "nccl-fresh-2026-12-12-b" / "healthy" / "nccl-36.log")) == []


def test_one_rank_is_not_a_node_of_peers():
    """One GPU: nothing goes GPU to GPU; the generic rule (the banner's first lines of NVIDIA/nccl-tests#117's
    first run, `-g 1`)."""
    text = ("# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0\n#\n# Using devices\n"
            "#  Rank  0 Group  0 Pid 587622 on Fairfax4way08RTX4090 device  0 [0x21] NVIDIA GeForce RTX 4090\n")
    assert ids(found_in_text(text)) == ["nccl-tests-stopped-before-first-size:FAIL@1"]
