"""The diagnosis tests' fixtures; their shared helpers are diagnosis_helpers.py's."""
import json

import pytest
from diagnosis_helpers import DATA

from wirebench.diagnosis import wiring


@pytest.fixture(scope="session")
def h100():
    """8 H100 on NVSwitches (NV18 every pair), a mlx5 NIC on each GPU's switch: `wirebench topo --json
    --nvidia-smi-topo tests/data/topo/h100-8gpu-8nic.txt` (tests/data/nccl/ORIGINS.md)."""
    return wiring.from_topology(json.loads((DATA / "h100-8gpu-8nic.topology.json").read_text()))
