"""The sixteenth fresh set's misses (tests/data/nccl-fresh-2026-12-12-b, measured blind in session 35, written from in
36): TensorRT-LLM's `NCCL error ...: 'unknown result code'` (NVIDIA/TensorRT-LLM#1131), which only a code from another
NCCL than the translating one gives. NCCL 1.x's own test (NVIDIA/nccl#104) is test_stopped_on_one_node.py's."""
from pathlib import Path

from conftest import found as found_in_text
from conftest import ids
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
