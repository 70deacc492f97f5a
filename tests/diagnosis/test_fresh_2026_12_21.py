"""The thirty-first and thirty-second fresh sets (tests/data/nccl-fresh-2026-12-21, healthy logs only, and -21-b,
measured blind in session 37, bench/MEASUREMENTS.md) and what was written from their misses."""
from pathlib import Path

from diagnosis_helpers import found, ids
from wirebench.diagnosis import diagnose, read_log

SET_AD = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-21-b"


def test_an_error_wrapped_after_its_colon_is_read_whole():
    """pytorch/ci-infra#541: NCCL's NVLS message as the PR quotes it, wrapped after `... Multicast memory of size
    2097152:` with `CUDA error 401 '...'` on the next line (the Fabric Manager not running): only the CUDA line was read,
    an error no entry knew."""
    said = diagnose(read_log(SET_AD / "ci-infra-541.log"))
    assert ids(said) == ["nvls-multicast-bind-failed:FAIL@3"]
    assert "Multicast memory of size 2097152: CUDA error 401" in said[0].what
    # a heading above an error is not its start, nor is a line two lines up
    for above in ("Error log:\n", "Traceback (most recent call last):\n", "Failed to bind NVLink SHARP (NVLS):\n\n"):
        text = above + "CUDA error 401 'the operation cannot be performed in the present state'.\n"
        assert [f.id for f in found(text)] != ["nvls-multicast-bind-failed"], above
