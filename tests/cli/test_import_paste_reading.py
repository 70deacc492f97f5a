"""What wirebench import reads from real pastes the reader got wrong (issue 55; each paste's origin is
in tests/data/imports/real/ORIGINS.md): a command continued with a trailing backslash, an nccl-tests
table without its banner whose NCCL lines name the ranks and nodes, and the note of a run's NCCL
settings. ctest label: unit."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.importer import nccl_tests  # noqa: E402
from wirebench.importer.__main__ import parse_args, read_file  # noqa: E402
from wirebench.importer.paste import Paste  # noqa: E402

REAL = ROOT / "tests" / "data" / "imports" / "real"


def imported(name, *options):
    """(tool, rows, notes) of a real paste."""
    path = REAL / name
    tool, (rows, notes) = read_file(path, parse_args(["wirebench import", str(path), *options]))
    return tool, rows, notes


def test_a_command_continued_with_a_backslash_is_one_command():
    """ROCm/rccl#1490: `srun ... --label \\` then `    -- all_gather_perf -b 64K ...` in its own fence,
    the table under `srun --label`'s ` 0: `. Before: refused, exit 3, asking for --op."""
    tool, rows, notes = imported("rccl-1490-srun-label-continued-command.md")
    assert tool == "nccl-tests" and len(rows) == 34 and {r["op"] for r in rows} == {"all_gather"}
    assert [r["busbw_GBps"] for r in rows if r["bytes"] == 4294967296] == ["92.66", "92.74"]
    assert f"{REAL / 'rccl-1490-srun-label-continued-command.md'}:9: the collective, all_gather, from the command " \
           "line pasted with the table" in notes
    # the joined command, at its first line's number; a blank line ends a continuation
    paste = Paste.of("$ mpirun -np 8 \\\n  -x NCCL_DEBUG=INFO \\\n  ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1\n"
                     "echo done \\\n\n# nThread 1 nGpus 1\n")
    assert paste.commands == [(1, "mpirun -np 8 -x NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 1")]
    assert [(l.number, l.text) for l in paste.lines][1:] == [(4, "echo done \\"), (5, ""), (6, "# nThread 1 nGpus 1")]


def test_a_table_without_its_banner_takes_ranks_and_nodes_from_nccls_lines():
    """An AWS g7e two-node EFA all_reduce pasted from the column header down: no banner, no Rank
    lines, but NCCL's INFO lines of both hosts between the header and the rows and after them, with
    `rank 1 nranks 2` and `rank 0 nranks 2`. Before: its rows named `world`, -np N."""
    tool, rows, notes = imported("efa-g7e-two-nodes-from-column-header.md")
    assert tool == "nccl-tests" and len(rows) == 56 and {r["op"] for r in rows} == {"all_reduce"}
    assert {(r["src"], r["ranks"], r["nodes"]) for r in rows} == {("gpu-st-ml-1,gpu-st-ml-2", 2, 2)}
    assert rows[-1]["rerun"] == ("mpirun -np 2 -N 1 -x NCCL_PROTO=simple all_reduce_perf -b 1073741824 -e 1073741824 "
                                 "-d float -o sum")
    assert any("its 2 rank(s) on gpu-st-ml-1, gpu-st-ml-2 from NCCL's lines" in n for n in notes)
    # the binary from nccl-tests' closing `# Collective test concluded: all_reduce_perf`, not guessed from columns
    assert not any("from the table's columns" in n for n in notes)


def test_nccl_lines_that_do_not_account_for_every_rank_name_no_node():
    """NCCL's lines of one rank of two (the others' lines not pasted) say nothing of the other's
    node: the rows keep `world`, as a table alone does (NVIDIA/nccl-tests#176)."""
    text = (REAL / "efa-g7e-two-nodes-from-column-header.md").read_text()
    one_rank = "\n".join(line for line in text.splitlines() if not line.startswith("gpu-st-ml-1:")) + "\n"
    rows, notes = nccl_tests.parse(Path("one-rank.md"), Paste.of(one_rank))
    assert {(r["src"], r["ranks"]) for r in rows} == {("world", "")}
    assert any("how many ranks ran on which nodes is not said" in n for n in notes)


def test_the_settings_note_names_an_algorithm_only_where_nccl_algo_is_set():
    """NVIDIA/nccl-tests#249 ran with NCCL_SOCKET_IFNAME and NCCL_SOCKET_FAMILY: settings, no
    algorithm; the note said "judged against that algorithm's expectation"."""
    _, _, notes = imported("nccl-tests-249-ssh-warning-one-gpu.txt")
    said = [n for n in notes if "ran with" in n]
    assert len(said) == 1 and said[0].endswith(
        "ran with NCCL_SOCKET_FAMILY=AF_INET, NCCL_SOCKET_IFNAME=eth0 (its command line, an export or NCCL's log): "
        "rerun with these settings")
    assert "algorithm" not in said[0]
    _, _, notes = imported("nccl-tests-290-two-nodes-ring-export.md")  # NCCL_ALGO=RING: its expectation
    assert any("judged against NCCL_ALGO=RING's expectation, rerun with these settings" in n for n in notes)
    _, _, notes = imported("nccl-tests-293-nccl-info-interleaved.txt")  # settings of the path, no algorithm
    assert any("NCCL_NET_GDR_LEVEL, NCCL_SHM_DISABLE named on its rows" in n and "algorithm" not in n for n in notes)


def test_fences_around_no_text_do_not_hide_the_lines_around_them():
    """A paste that lost its first opening fence and its last closing one: two blocks' lines with an
    empty-looking ``` / ``` between them (as ultralytics/ultralytics#1439's watchdog lines were posted). Its
    fences enclose nothing, so it is no Markdown note: every line is read. A note whose block holds text
    still reads its block alone."""
    lost = Paste.of("[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout\n```\n```\n"
                    "[E ProcessGroupNCCL.cpp:461] To avoid data inconsistency, we are taking the entire process down.\n")
    assert [l.number for l in lost.lines] == [1, 4]
    note = Paste.of("It hangs here:\n```\n# size count type\n```\nany idea?\n")
    assert [l.text for l in note.lines] == ["# size count type"]
