"""What the diagnosis tests share (imported by name: `from diagnosis_helpers import found, ids`; a module named
conftest would be another folder's when several test folders run in one pytest session)."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.diagnosis import diagnose, parse, read_log, wiring  # noqa: E402,F401  (names the tests take from here)

DATA = ROOT / "tests" / "data" / "nccl"
# A line NCCL 2.19 on prints at init: the job spans two nodes, so its network carries data.
TWO_NODES = "n:1:1 [0] NCCL INFO comm 0x5581c0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"


def found(text, topology=None, source="job.log"):
    return diagnose(parse(text, source), topology)


def ids(findings):
    return [f"{f.id}:{f.verdict}@{f.line}" for f in findings]
