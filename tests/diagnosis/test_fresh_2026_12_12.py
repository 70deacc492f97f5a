"""The sixteenth fresh set's misses (tests/data/nccl-fresh-2026-12-12-b, measured blind in session 35, written from in
36): TensorRT-LLM's `NCCL error ...: 'unknown result code'` (NVIDIA/TensorRT-LLM#1131), which only a code from another
NCCL than the translating one gives; UCX's shared-memory transport without room in /dev/shm (NVIDIA/ai-cloud-validation#643).
NCCL 1.x's own test (NVIDIA/nccl#104) is test_stopped_on_one_node.py's."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

SIXTEENTH = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-12-b"


def test_an_unknown_result_code_is_two_nccl_libraries_in_one_process():
    said = diagnose(read_log(SIXTEENTH / "TensorRT-LLM-1131.log"))
    assert ids(said) == ["nccl-unknown-result-code:FAIL@11"], ids(said)
    assert "'unknown result code'" in said[0].what and "allreducePlugin.cpp:183" in said[0].what
    assert "another libnccl was loaded first" in said[0].why and "torch.cuda.nccl.version()" in said[0].fix
    # the words of a known code are not it
    assert "nccl-unknown-result-code" not in " ".join(ids(found_in_text(
        "Failed, NCCL error /src/allreducePlugin.cpp:183 'unhandled system error'\n")))


def test_ucxs_shared_memory_transport_without_room_in_dev_shm():
    """NVIDIA/ai-cloud-validation#643: nccl-tests' MPIJob with no /dev/shm volume; UCX's words posted bare, then its
    crash (error-not-in-catalogue before: only the crash was read). UCX's own log line (openucx/ucx#5280) reads the same."""
    said = diagnose(read_log(SIXTEENTH / "ai-cloud-validation-643.log"))
    assert ids(said) == ["ucx-shm-fifo-failed:FAIL@2", "error-not-in-catalogue:FAIL@4"], ids(said)
    assert "could not allocate in /dev/shm" in said[0].what and "emptyDir of medium Memory" in said[0].fix
    line = ("[1591868130.001133] [orion1072:15407:0]            sys.c:762  UCX  ERROR shmget(size=262144 flags=0x7b0) "
            "for user allocation failed: No space left on device, please check shared memory limits by 'ipcs -l'\n")
    assert ids(found_in_text(line)) == ["ucx-shm-fifo-failed:FAIL@1"]
    # another UCX error is an error line, quoted, not this entry's
    other = "[1665438955.1] [node-1:27306:0]  ib_iface.c:1011 UCX  ERROR ibv_create_cq(cqe=4096) failed: Cannot allocate memory\n"
    assert [i.split(":")[0] for i in ids(found_in_text(other))] == ["error-not-in-catalogue"]
