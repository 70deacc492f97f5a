"""What a note's prose quotes, outside its code blocks (ctest label: unit): NCCL's words between backticks that a FAIL
entry of the catalogue reads, and, where the code blocks say nothing, the prose's own error line. Other prose is the
reporter's, not the run's: it is not read (a log's code blocks are)."""
from pathlib import Path

import pytest

from diagnosis_helpers import found
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log
from wirebench.diagnosis.errors import plain

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def test_nccls_words_quoted_inline_in_a_notes_prose_are_read_by_the_catalogue():
    """jax-ml/jax#39167: "With `NCCL_DEBUG=INFO`, NCCL reports `Error: corrupted comm object detected` on every call",
    the note's code block holding the reproduction's Python only. It was refused (no line of NCCL's, no error line)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-27" / "jax-39167.log"))
    assert [f.id for f in said] == ["corrupted-comm-object"], said
    assert said[0].what.endswith(': "Error: corrupted comm object detected"'), said[0].what
    assert said[0].line == 18


def test_an_inline_span_no_fail_entry_reads_and_prose_beside_a_log_are_not_read(tmp_path):
    note = ("With `NCCL_DEBUG=INFO` I see `unhandled system error` sometimes.\n\n```\n"
            "h1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n```\n")
    with pytest.raises(InputError):  # NCCL_DEBUG=INFO and a bare class name: no entry's words
        written = tmp_path / "note.log"
        written.write_text(note.replace("h1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", "x = 1\n"))
        diagnose(read_log(written))
    assert found(note) == []  # the code block is the run's log: the prose's words are not
    beside = "Before the fix I got:\nRuntimeError: NCCL error in: x.cpp:1, unhandled system error, NCCL version 2.7.8\n"
    assert found(beside + note.split("\n\n", 1)[1]) == []  # an error line in prose beside a log is the reporter's


def test_the_prose_error_line_is_read_where_the_code_blocks_say_nothing():
    """NVIDIA/caffe#492: "I get the following error:" over `_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled
    cuda _error_` (Markdown's underscores as posted), the code block below holding NVCaffe's version lines only. It was
    refused; it is an error the catalogue does not know, quoted as posted, with its class (a CUDA error)."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-27" / "caffe-492.log"))
    assert [f.id for f in said] == ["error-not-in-catalogue"] and said[0].verdict == "FAIL"
    assert '"_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled cuda _error_"' in said[0].what
    assert said[0].why.startswith("CUDA error")


def test_markdowns_underscores_around_a_word_go_but_not_those_inside_a_name():
    assert plain("_Check_ failed: unhandled cuda _error_") == "Check failed: unhandled cuda error"
    assert plain("NCCL_IB_HCA=mlx5_0 set in /etc/nccl_conf/_x") == "NCCL_IB_HCA=mlx5_0 set in /etc/nccl_conf/_x"


def test_two_bare_lines_two_entries_read_are_two_findings():
    """NCCL's words without its prefix (a code block of WARN texts, the program's output) were folded into one error
    of the program's output: only the first entry's cause was said. Each entry that reads one is a cause of its own."""
    block = ("```\nDuplicate GPU detected : rank 0 and rank 1 both on CUDA device 3b000\nstep 1\n"
             "Error: corrupted comm object detected\nDuplicate GPU detected : rank 2 and rank 3 both on CUDA device 3b000\n```\n")
    said = found(block)
    assert [f.id for f in said] == ["duplicate-gpu", "corrupted-comm-object"], [f.id for f in said]
    assert '"Error: corrupted comm object detected"' in said[1].what
