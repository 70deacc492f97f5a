"""The twenty-first and twenty-second fresh sets (tests/data/nccl-fresh-2026-12-15 and -15-b: healthy logs only,
measured blind in session 36, bench/MEASUREMENTS.md) and what was written from them. hubutui/pytorch-examples' Slurm
log of a two-node DDP run that trained: NCCL_TOPO_DUMP_FILE, set for the whole job, is said by rank 0's host alone
(only the dumping rank reads it), and read as a setting that differs between hosts."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

TWENTY_SECOND = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-15-b"
LOG = TWENTY_SECOND / "healthy" / "pytorch-examples-minGPT-ddp-slurm-not-set.log"


def test_what_nccl_prints_or_dumps_is_no_setting_that_must_agree():
    said = ids(diagnose(read_log(LOG)))
    assert not any(s.startswith("settings-differ") for s in said), said
    # a setting of how NCCL runs, said by one host of the two that both finished their init, still differs
    text = LOG.read_text().replace("NCCL INFO NCCL_TOPO_DUMP_FILE set by environment to 0.not-set.topo.xml",
                                   "NCCL INFO NCCL_IB_HCA set by environment to mlx5_1")
    said = [f for f in found_in_text(text) if f.id == "settings-differ"]
    assert said and "NCCL_IB_HCA" in said[0].what, ids(found_in_text(text))
