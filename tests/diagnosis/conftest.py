import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.diagnosis import diagnose, parse, read_log, wiring  # noqa: E402

DATA = ROOT / "tests" / "data" / "nccl"
# A line NCCL 2.19 on prints at init: the job spans two nodes, so its network carries data.
TWO_NODES = "n:1:1 [0] NCCL INFO comm 0x5581c0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"


@pytest.fixture(scope="session")
def h100():
    """8 H100 on NVSwitches (NV18 every pair), a mlx5 NIC on each GPU's switch: `wirebench topo --json
    --nvidia-smi-topo tests/data/topo/h100-8gpu-8nic.txt` (tests/data/nccl/ORIGINS.md)."""
    return wiring.from_topology(json.loads((DATA / "h100-8gpu-8nic.topology.json").read_text()))


def found(text, topology=None, source="job.log"):
    return diagnose(parse(text, source), topology)


def ids(findings):
    return [f"{f.id}:{f.verdict}@{f.line}" for f in findings]
