"""Session 40's blind sets (tests/data/nccl-fresh-2027-01-03-b, -03-c, -04: measured once before anything was written
from them, bench/MEASUREMENTS.md) and what was written from them: a healthy socket-only cluster's libibverbs line, a
window deregistered as a buffer."""
from pathlib import Path

from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SETS = ("nccl-fresh-2027-01-03-b", "nccl-fresh-2027-01-03-c", "nccl-fresh-2027-01-04")


def test_a_window_deregistered_as_a_buffer_is_said_with_the_fix_that_closed_it():
    """pytorch/pytorch#181610: NCCL's `Deregister: Could not find handle` at PyTorch's abort (ncclCommDeregister on a
    buffer registered with ncclCommWindowRegister), fixed by pytorch/pytorch#181626; it was a bare WARN."""
    said = diagnose(read_log(DATA / "nccl-fresh-2027-01-04" / "pytorch-181610.log"))
    assert [(f.id, f.verdict) for f in said] == [("window-deregistered-as-buffer", "WARN")]
    assert "ncclCommWindowDeregister" in said[0].why and "181626" in said[0].fix


def test_an_nvls_bind_failure_is_named_with_nccl_nvls_enable_0():
    """aarora79/agentic-coding-harness-benchmarks#173 (p5en.48xlarge, TP=8): the opaque `unhandled cuda error` over
    NCCL's `Failed to bind NVLink SHARP (NVLS) Multicast memory ... CUDA error 401`; the PR's fix NCCL_NVLS_ENABLE=0.
    The entry names the bind failure and that fix (its cause, the Fabric Manager's state, the thread did not establish:
    counted a miss by the corpus' cause names)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2027-01-03-b" / "agentic-coding-harness-benchmarks-173.log"))
    named = [f for f in said if f.id == "nvls-multicast-bind-failed"]
    assert named and "NCCL_NVLS_ENABLE=0" in named[0].fix


def test_these_sets_healthy_logs_read_healthy():
    """Four healthy logs, among them aws-samples/aws-hpc-tutorials' 2 x g5 nccl-tests over eth0, which read WARN
    libibverbs-missing before the RDMA evidence (network_use.rdma_shown)."""
    paths = sorted(p for s in SETS for p in (DATA / s / "healthy").glob("*.log"))
    assert len(paths) == 4
    for path in paths:
        try:
            said = diagnose(read_log(path))
        except InputError as error:
            assert "no line of NCCL's" in str(error), path
            continue
        assert said == [], (path, [f.id for f in said])
