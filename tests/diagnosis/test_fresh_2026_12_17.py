"""The twenty-fifth and twenty-sixth fresh sets (tests/data/nccl-fresh-2026-12-17 and -17-b: healthy logs only,
measured blind in session 36, bench/MEASUREMENTS.md) and what was written from them: SkyPilot's prefix before each line
(`(head, rank=0, pid=3808) [1,0]<stdout>:`) hid nccl-tests' rows, so a whole run read as a test that stopped after its
header; Nebius' reference log sets NCCL_TOPO_FILE to NCCL's own default (the VM's topology daemon's file), read WARN
topology-file."""
from pathlib import Path

from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def test_skypilots_prefix_is_read_like_rays():
    assert ids(diagnose(read_log(DATA / "nccl-fresh-2026-12-17" / "healthy" / "skypilot-gcp_gpu_direct_tcpx.log"))) == []


def test_the_topology_daemons_file_set_by_the_job_is_ncclS_default():
    log = read_log(DATA / "nccl-fresh-2026-12-17-b" / "healthy" / "nebius-soperator-mlperf-sd-reference.log")
    assert ids(diagnose(log)) == []
