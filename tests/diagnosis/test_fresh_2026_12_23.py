"""Session 38's six blind sets (tests/data/nccl-fresh-2026-12-23, -23-b, -24, -24-b, -25, -25-b: measured once before
anything was written from them, bench/MEASUREMENTS.md) and what was written from their misses: an error cut after its
colon read with the line below, compute-sanitizer's reports read as errors, PyTorch 1.x's spelling of an invalid device
ordinal, a 1-element all-reduce timing out past the first collectives."""
from pathlib import Path

from diagnosis_helpers import found
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def test_a_barrier_some_ranks_skipped_is_read_from_the_watchdogs_line_and_the_one_below():
    """alan-turing-institute/autocast#381: `[Rank 0] Watchdog caught collective operation timeout:` and, on the next
    line, `WorkNCCL(..., OpType=ALLREDUCE, NumelIn=1, ...)`; the fix (PR #386): trainer.save_checkpoint, a collective,
    was called under `if trainer.is_global_zero:`. Quoted before as the first line alone (its work not read)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-24" / "autocast-381.log"))
    assert [f.id for f in said][:1] == ["scalar-allreduce-timeout"]
    assert "WorkNCCL(..., OpType=ALLREDUCE, NumelIn=1, NumelOut=1" in said[0].what
    # one of the job's first collectives is the dataset's barrier, as before; a collective of many elements is neither
    early = ("[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, "
             "NumelOut=1, Timeout(ms)=1800000) ran for 1800090 milliseconds before timing out.\n")
    assert [f.id for f in found(early)] == ["first-barrier-timeout"]
    late = early.replace("SeqNum=2,", "SeqNum=4711,")
    assert [f.id for f in found(late)] == ["scalar-allreduce-timeout"]
    assert "scalar-allreduce-timeout" not in [f.id for f in found(late.replace("NumelIn=1, NumelOut=1",
                                                                              "NumelIn=4096, NumelOut=4096"))]


def test_a_heading_or_another_error_below_a_colon_is_not_read_as_its_end():
    heading = "RuntimeError: NCCL error in: x.cpp:12, unhandled system error, NCCL version 2.21.5\nError output:\nfoo\n"
    assert found(heading)[0].what.endswith('NCCL version 2.21.5"')
    cut = "[Rank 0] Watchdog caught collective operation timeout:\nsrun: error: node3: task 2: Exited with exit code 1\n"
    assert '"[Rank 0] Watchdog caught collective operation timeout:"' in found(cut)[0].what


def test_compute_sanitizers_report_is_an_error_with_the_kernel_and_the_address_it_missed():
    """ggml-org/llama.cpp#24489: llama.cpp's tensor split over NCCL under `compute-sanitizer --tool memcheck`: NCCL's
    all-reduce kernel writing out of bounds (llama.cpp's memory pool gave only the owning GPU access: the reporter's
    fix, #24491). The file has no line of NCCL's: refused before (exit 3), its error never said."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-24-b" / "llama.cpp-24489.log"))
    assert [f.id for f in said] == ["error-not-in-catalogue"]
    assert "Invalid __global__ write of size 16 bytes / at ncclDevFunc_AllReduce_Sum_bf16_RING_SIMPLE()" in said[0].what
    assert "Address 0x1bc00031d0 is out of bounds / and is 34,357,653,969 bytes after" in said[0].what
    assert said[0].why.startswith("invalid memory access (compute-sanitizer)")
    # its summary of no errors is a run that passed, with NCCL's lines or alone
    assert found("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n") == []
    assert found("n:1:1 [0] NCCL INFO Init COMPLETE\n========= ERROR SUMMARY: 0 errors\n") == []
    assert [f.id for f in found("n:1:1 [0] NCCL INFO Init COMPLETE\n========= ERROR SUMMARY: 2 errors\n")] == \
        ["error-not-in-catalogue"]


def test_pytorch_1_s_cuda_runtime_error_10_is_an_invalid_device_ordinal():
    """HRNet/HRNet-Semantic-Segmentation#171: `--nproc_per_node` above the GPUs: `RuntimeError: cuda runtime error (10)
    : invalid device ordinal` at torch.cuda.set_device (CUDA 9/10 numbered it 10; the entry read only 101)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-23" / "HRNet-Semantic-Segmentation-171.log"))
    assert "invalid-device-ordinal" in [f.id for f in said]


def test_ib_asked_for_is_not_said_on_this_sessions_healthy_logs():
    for path in sorted(DATA.glob("nccl-fresh-2026-12-2[345]*/healthy/*.log")):
        try:
            said = diagnose(read_log(path))
        except InputError:  # refused: nothing of NCCL's to read
            continue
        assert all(f.id not in ("rdma-asked-none-found", "scalar-allreduce-timeout") for f in said), path


def test_pdshs_host_before_each_line_is_the_lines_node_not_its_text():
    """NVIDIA/nccl#1029: DeepSpeed's multi-node launcher (pdsh) puts `rdma-test-gpu-worker-1: ` before each line of the
    worker's output; PyTorch's `Last error:` and NCCL's `Cuda failure 'initialization error'` under it were not read
    together behind it, and the error named no node."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-25-b" / "nccl-1029.log"))
    assert "on rdma-test-gpu-worker-1" in said[0].what
    assert "\"torch.distributed.DistBackendError: NCCL error in:" in said[0].what
    assert said[0].what.endswith("NCCL version 2.18.3 / Last error: Cuda failure 'initialization error'\"")
    # a name on a few lines of many is the lines' own text (a launcher's `srun: error:` is not a host, nor a prose line)
    error = "node-3: RuntimeError: NCCL error: unhandled system error\nnode-3: again\n"
    text = "".join(f"n1:7:7 [0] NCCL INFO line {i}\n" for i in range(8)) + error
    assert [f.what for f in found(text)] == ['an error the catalogue does not know: "node-3: RuntimeError: NCCL error: '
                                             'unhandled system error"']
    text = "".join(f"node-3: n1:7:7 [0] NCCL INFO line {i}\n" for i in range(8)) + error
    assert [f.what for f in found(text)] == ['an error the catalogue does not know on node-3: "RuntimeError: NCCL error: '
                                             'unhandled system error"']
    assert all("on srun" not in f.what for f in found("srun: error: a\nsrun: error: b\nsrun: error: c\n"))


def test_cuda_not_starting_behind_pdshs_prefix_is_the_environment_deepspeeds_launcher_passed():
    """NVIDIA/nccl#1029: DeepSpeed over pdsh on Kubernetes pods, `Cuda failure 'initialization error'` under PyTorch's
    `Last error:` on rdma-test-gpu-worker-1; the reporter: the launcher did not pass the CUDA variables and PATH to the
    workers (DeepSpeed's runner exports only NCCL*, PYTHON*, UCX*, MV2*, MLFLOW* and .deepspeed_env)."""
    text = (DATA / "nccl-fresh-2026-12-25-b" / "nccl-1029.log").read_text()
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-25-b" / "nccl-1029.log"))
    assert [f.id for f in said] == ["pdsh-worker-environment"]
    assert said[0].what.startswith("CUDA did not start on rdma-test-gpu-worker-1, a node DeepSpeed's launcher reached")
    assert ".deepspeed_env" in said[0].fix
    # the same lines without pdsh's prefix (one node's own output): the error, its cause not said
    bare = text.replace("rdma-test-gpu-worker-1: ", "")
    assert [f.id for f in found(bare)] == ["error-not-in-catalogue"]
    # behind pdsh's prefix, an error that is not CUDA failing to start is not the environment's
    other = text.replace("Cuda failure 'initialization error'", "Cuda failure 'out of memory'")
    assert "pdsh-worker-environment" not in [f.id for f in found(other)]
