"""A tool's output as its lines, as people paste it: each with its number in the file, without a
launcher's tags (mpirun --tag-output's `[1,0]<stdout>:` at a line's start or inside it where two
ranks' output interleaved, srun -l's `0: `, `[0]` / `[0]:` of other launchers), without Markdown's
quote marks (`> `) and code fences and the code block's indentation; NCCL's own INFO and WARN
lines, and its `NCCL version` banner, set apart. The lines left are the tool's table and whatever
else the paste holds (shell prompts, the command line, ssh's warnings, the tool's header with its
`#` lost to Markdown): each reader takes its table's lines and leaves the others aside (`Aside`),
refusing a file only when no table is there (`Aside.refuse`). The reading itself is paste.py's
(Paste); lines_of and read are kept over it."""
from ..contracts.input_files import InputError
# The paste's reader lives in paste.py (one Paste that detection and parsing both read); its names
# stay importable from here, as they were.
from .paste import (COMMAND, FENCE, HOST_LINE, HOST_TAG, INLINE_SPAN, LEADING_TAG, LINE_NUMBER, NCCL_LINE,  # noqa: F401
                    NCCL_VERSION, PROMPT, QUOTE, TAG, Line, Paste)
from .paste import RANK_PREFIX as PREFIX  # noqa: F401


def lines_of(text):
    """The lines a tool printed, without launcher tags, Markdown quotes, fences and indentation, and
    without NCCL's log lines (a Paste's lines; a Paste is taken as it is)."""
    return as_paste(text).lines


def read(text):
    """The paste's lines (see paste.py), NCCL's apart, its command lines noted: Paste.of(text)."""
    return as_paste(text)


def as_paste(source):
    """A Paste of `source`, a text or a Paste already built (built once per input: wirebench import
    hands the same Paste to each importer's detection and parse)."""
    return source if isinstance(source, Paste) else Paste.of(source)


class Aside:
    """The lines of a paste that are not the tool's table (a prompt, ssh's warning, a note): left
    aside and said once; a file where the reader found no table at all is refused, naming the first
    line that stopped it."""

    def __init__(self, path, tool):
        self.path, self.tool, self.lines = path, tool, []

    def add(self, line):
        if line.text.strip():
            self.lines.append(line)

    def notes(self, rows):
        if not self.lines or not rows:
            return []
        first = self.lines[0]
        return [f"{self.path}:{first.number}: {len(self.lines)} line(s) not of {self._owner()} output left aside, the first: "
                f"{first.text.strip()[:80]!r}"]

    def _owner(self):
        return self.tool + ("'" if self.tool.endswith("s") else "'s")

    def refuse(self, rows, what):
        """InputError when nothing of the table was read but other lines were there."""
        if not rows and self.lines:
            first = self.lines[0]
            raise InputError(f"{self.path}:{first.number}: no {what} found; the first line that is not {self._owner()}: "
                             f"{first.text.strip()[:80]!r}")


def cut_note(where, kept=True):
    """The note on the line a file ends in without its line break (a killed run, a paste cut short)."""
    return (f"{where}: the file ends in the middle of this line (cut short); "
            + ("the rows before it are kept" if kept else "it is left out"))


def cut_row(last, size, where):
    """The ERROR row of the size whose line the output ends in, like `last`: a sweep that did not
    finish has no largest size, so no smaller size is judged as if it were."""
    return {**last, "bytes": str(size), "time_us": "", "algbw_GBps": "", "busbw_GBps": "", "errors": "",
            "status": "ERROR", "reason": f"the output ends in the middle of this size's line ({where})"}
