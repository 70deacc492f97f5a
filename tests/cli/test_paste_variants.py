"""One reader of pasted text (issue 55): every way people paste a tool's output, as a transform of
the text, applied to every tool's fixture in tests/data/imports (the team's, in the tools' printf
formats, and real/, reconstructed from public threads: real/ORIGINS.md), must give the same rows as
the fixture itself, or the same refusal where the fixture is refused. The rows are compared without
their `source` item (FILE:LINE), since a fence or a wrap moves the lines. ctest label: unit."""
import re
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.contracts.input_files import InputError  # noqa: E402
from wirebench.importer.__main__ import parse_args, read_file  # noqa: E402
from wirebench.importer.paste import read_text  # noqa: E402
from wirebench.report.extra import encode_items, parse as parse_items  # noqa: E402

DATA = ROOT / "tests" / "data" / "imports"
# every pasted text of a tool (the JSON outputs are files a tool wrote, not pastes; NCCL's logs alone
# hold no tool's table)
NCCL_LOGS = ("torchrun-tee-nccl-1504-info.log", "ray-nccl-1212-worker-prefix.log")
FIXTURES = sorted(p for p in list(DATA.glob("*")) + list((DATA / "real").glob("*"))
                  if p.suffix in (".txt", ".md", ".log") and p.name not in ("ORIGINS.md",) + NCCL_LOGS)

SLURM = ("srun: job 48211 queued and waiting for resources\n"
         "srun: job 48211 has been allocated resources\n"
         "cpu-bind=MASK - worker-1, task  0  0 [4980]: mask 0xff00000000000000ff set\n"
         "Lmod has detected the following error: These module(s) exist but cannot be loaded as requested\n"
         "Loading openmpi/4.1.5\n"
         "Loading cuda/12.4\n"
         "+ export UCX_TLS=rc,sm\n"
         "+ module list\n")


def each_line(prefix):
    return lambda text: "".join(prefix + line for line in text.splitlines(keepends=True))


def in_pieces(text):
    """-prepend-rank's `[0]` before each piece a rank wrote: the line's start and each run of
    spaces between columns (nccl-tests prints a row in three printf calls, each flushed to the
    launcher on its own); NCCL's own lines, written whole, have it at their start only."""
    return "".join("[0] " + (line if "NCCL INFO" in line or "NCCL WARN" in line else re.sub(r"(?<=\S)(?=  )", "[0]", line))
                   for line in text.splitlines(keepends=True))


def wrapped(width):
    """A terminal's hard wrap: every line longer than the width cut into pieces of the width."""
    def wrap(text):
        out = []
        for line in text.splitlines():
            out += [line[i:i + width] for i in range(0, max(len(line), 1), width)] or [""]
        return "\n".join(out) + ("\n" if text.endswith("\n") else "")
    return wrap


def fenced(text):
    return "Our run last night on the cluster:\n\n```text\n" + text + ("" if text.endswith("\n") else "\n") + "```\n"


def list_block(text):
    return "- the output, as it came:\n\n  ```\n" + textwrap.indent(text, "  ") + "  ```\n"


VARIANTS = {
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "kubectl --timestamps": each_line("2024-08-01T12:00:00.123456789Z "),
    "ts(1)": each_line("Aug 01 12:00:00 "),
    "bracketed time": each_line("[2024-08-01 12:00:00] "),
    "kubectl --prefix": each_line("[pod/nccl-test-worker-0/worker] "),
    "docker compose": each_line("worker-1  | "),
    "srun --label": each_line("0: "),
    "srun --label, padded": each_line(" 0: "),
    "-prepend-rank": each_line("[0] "),
    "mpirun --tag-output": each_line("[1,0]<stdout>:"),
    "torchrun": each_line("[default0]:"),
    "skypilot": each_line("(head, rank=0, pid=3808) "),
    "pdsh (DeepSpeed's multi-node launcher)": each_line("gpu-worker-1: "),
    "timestamps and srun --label": each_line("2024-08-01T12:00:00Z 0: "),
    "markdown quote": each_line("> "),
    "list bullets": each_line("* "),
    "indented": each_line("    "),
    "[0] in each piece": in_pieces,
    "wrapped at 80": wrapped(80),
    "slurm before the title": lambda text: SLURM + text,
    # its line breaks lost (a rendered page's copy: awslabs/awsome-distributed-ai#192), srun's label before each
    "flattened under srun --label": lambda text: " ".join("0: " + line for line in text.rstrip("\n").split("\n")) + (
        "\n" if text.endswith("\n") else ""),
    "fenced": fenced,
    "a fence under a list item": list_block,
}
# a Markdown note is fenced already: a fence around its fences turns its code into prose; and a file
# cut in the middle of its last line is no longer cut once a fence closes after it
FENCES = {"fenced", "a fence under a list item"}


# a wrap comes last: a terminal wraps what the launcher tagged, so a wrapped paste is not tagged piece by
# piece, nor wrapped again
# (a flattened paste has no width; pdsh prefixes each line the remote node wrote, a wrap of the local terminal's cuts
# what it prefixed: no piece of a wrapped line starts with the host)
AFTER_A_WRAP = {"[0] in each piece", "wrapped at 80", "flattened under srun --label",
                "pdsh (DeepSpeed's multi-node launcher)"}


def applies(variant, path):
    if variant in AFTER_A_WRAP and "wrapped" in path.name:
        return False
    if variant == "flattened under srun --label":
        # a Markdown note flattened loses its blocks; a text that says ` 0: ` itself (nvbandwidth's `Device 0: NVIDIA
        # H200`) cannot be told from the label where its line breaks are gone
        return path.suffix != ".md" and " 0: " not in read_text(path)
    return variant not in FENCES or (path.suffix != ".md" and path.read_bytes().endswith(b"\n"))


def read(path, *options):
    """The rows of a file, or "refused" where it is refused; without their `source` item, and a
    reason's FILE:LINE as the file's name alone (a copy is elsewhere, its lines moved)."""
    try:
        _, (rows, _) = read_file(path, parse_args(["wirebench import", str(path), *options]))
    except InputError:
        return "refused"
    where = re.compile(re.escape(str(path)) + r"(:\d+)?")
    return [{**{k: where.sub(path.name, v) if isinstance(v, str) else v for k, v in r.items()},
             "extra": encode_items({k: v for k, v in parse_items(r["extra"]).items() if k != "source"})}
            for r in rows]


@pytest.fixture(scope="module")
def expected():
    return {path: read(path) for path in FIXTURES}


def test_every_fixture_is_read(expected):
    """The fixtures themselves: all but the one that is refused on purpose give rows."""
    assert sorted(p.name for p, rows in expected.items() if rows in ("refused", [])) == ["not-a-tool.txt"]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_a_variant_of_every_fixture_gives_its_rows(tmp_path, expected, variant):
    failed = []
    for path in FIXTURES:
        if not applies(variant, path):
            continue
        text = read_text(path)
        copy = tmp_path / path.name  # the same name: nccl-tests' collective may come from it
        copy.write_text(VARIANTS[variant](text), newline="")
        if read(copy) != expected[path]:
            failed.append(path.name)
    assert failed == []


def test_a_utf16_file_gives_the_same_rows(tmp_path, expected):
    """PowerShell's `>` (Out-File) writes UTF-16LE with its byte-order mark; without one it is told
    by the zero byte beside each ASCII one."""
    failed = []
    for path in FIXTURES:
        for encoding in ("utf-16", "utf-16-le"):
            copy = tmp_path / path.name
            copy.write_bytes(read_text(path).encode(encoding))
            if read(copy) != expected[path]:
                failed.append((path.name, encoding))
    assert failed == []
