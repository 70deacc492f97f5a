"""A tool's output as its lines, as people paste it: each with its number in the file, without a
launcher's tags (mpirun --tag-output's `[1,0]<stdout>:` at a line's start or inside it where two
ranks' output interleaved, srun -l's `0: `, `[0]` / `[0]:` of other launchers), without Markdown's
quote marks (`> `) and code fences and the code block's indentation; NCCL's own INFO and WARN
lines, and its `NCCL version` banner, set apart. The lines left are the tool's table and whatever
else the paste holds (shell prompts, the command line, ssh's warnings, the tool's header with its
`#` lost to Markdown): each reader takes its table's lines and leaves the others aside (`Aside`),
refusing a file only when no table is there (`Aside.refuse`)."""
import re
from dataclasses import dataclass, field

from ..contracts.input_files import InputError

TAG = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")  # mpirun --tag-output, anywhere in the line
# a tag starting a line goes with the indentation before it (a test log indenting a launcher's output)
LEADING_TAG = re.compile(r"^\s*\[\d+,\d+\]<std(?:out|err)>:")
PREFIX = re.compile(r"^(\d+: |\[\d+\]:? ?)")  # srun -l, [N] / [N]: of pdsh-like launchers, mpirun -prepend-rank
# A tag naming the rank's host: MPICH/Intel MPI's `-prepend-pattern "[%h:%r] "` (or `%r@%h`), [HOST:RANK]
HOST_TAG = re.compile(r"^\[(?P<host>[A-Za-z][\w.-]*):(?P<rank>\d+)\]:? ?")
# srun -l hostname (or `mpirun ... hostname`) in the job's script: a rank's label and its host alone
HOST_LINE = re.compile(r"^\s*(?:(?P<rank>\d+): |\[(?P<tagged>\d+)\]:? ?)(?P<host>[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)\s*$")
QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")  # Markdown's quote, nested or not
NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b|^NCCL version \d")
FENCE = re.compile(r"^\s*(`{3,4}|~{3,4})(?![`~])\s*[\w+-]*\s*$")  # a longer run of ~ is a separator line
# A command as pasted: a shell prompt (user@host:dir$, root@host:~#, $, #) before a launcher or a tool.
COMMAND = re.compile(r"^(?:\S+@\S+:\S*[$#]\s*|[$#]\s+)?((?:\S+=\S+\s+)*(?:mpirun|mpiexec|srun|salloc|sbatch|"
                     r"torchrun|kubectl|docker|\S*_perf\S*|\S*p2pBandwidthLatencyTest|\S*osu_\w+|\S*IMB-\w+|\S*nvbandwidth|\S*ib_\w+_(?:bw|lat))\b.*)$")
PROMPT = re.compile(r"^[\w.-]+@([A-Za-z][\w.-]*):\S*[$#]")  # user@HOST:dir$ before a command: where it ran
# its banner alone (`NCCL version 2.21.5+cuda12.4`) or as an INFO line (`host:pid:tid [0] NCCL INFO NCCL version ...`)
NCCL_VERSION = re.compile(r"(?:^|\bNCCL INFO )NCCL version (\d+\.\d+\.\d+)")


@dataclass
class Line:
    number: int
    text: str
    last_and_cut: bool = False  # the file ends in this line without a line break (cut short)


def lines_of(text):
    """The lines a tool printed, without launcher tags, Markdown quotes, fences and indentation, and
    without NCCL's log lines."""
    return read(text).lines


@dataclass
class Paste:
    lines: list                                       # the tool's lines and the rest of the paste
    nccl: list = field(default_factory=list)          # NCCL's INFO/WARN lines and its version banner
    commands: list = field(default_factory=list)      # (number, command) of each command line
    hosts: dict = field(default_factory=dict)         # {rank: host} the launcher's tags name
    prompts: list = field(default_factory=list)       # (number, host) of each shell prompt before a command

    def rank_hosts(self):
        """The ranks' hosts in rank order as the launcher's tags name them ([] where none do, or
        where a rank is named twice with other names, or ranks are missing)."""
        if not self.hosts or any(len(h) != 1 for h in self.hosts.values()) or sorted(self.hosts) != list(range(len(self.hosts))):
            return []
        return [next(iter(self.hosts[rank])) for rank in sorted(self.hosts)]

    def nccl_version(self):
        """NCCL's version from its banner or its INFO line, or None."""
        return next((found.group(1) for found in map(NCCL_VERSION.search, (l.text for l in self.nccl)) if found), None)


def read(text):
    """The paste's lines (see the module's text), NCCL's apart, its command lines noted."""
    paste = Paste([])
    raw = text.split("\n")
    cut = not text.endswith("\n")
    fenced = any(FENCE.match(QUOTE.sub("", line)) for line in raw)  # a Markdown note: only its code blocks are the tool's
    raw = _without_line_numbers(raw, fenced)
    inside = False
    for index, line in enumerate(raw if cut else raw[:-1]):
        line = QUOTE.sub("", line.rstrip("\r"), count=1)
        line = TAG.sub("", LEADING_TAG.sub("", line, count=1))
        named = HOST_LINE.match(line) or HOST_TAG.match(line)
        if named:
            paste.hosts.setdefault(int(named["rank"] or named.groupdict().get("tagged") or 0), set()).add(named["host"])
            if HOST_LINE.match(line):  # the launcher saying where a rank runs: not the tool's
                continue
            line = line[named.end():]
        line = PREFIX.sub("", line, count=1)
        if FENCE.match(line):
            inside = not inside
            continue
        if fenced and not inside:
            found = COMMAND.match(line.strip().strip("`"))  # a command quoted in the note's prose
            if found:
                paste.commands.append((index + 1, found.group(1)))
            continue
        if NCCL_LINE.search(line):
            paste.nccl.append(Line(index + 1, line.strip()))
            continue
        found = COMMAND.match(line.strip())
        if found:
            paste.commands.append((index + 1, found.group(1)))
            prompt = PROMPT.match(line.strip())
            if prompt:
                paste.prompts.append((index + 1, prompt.group(1)))
        paste.lines.append(Line(index + 1, line.expandtabs(8) if line.startswith("\t") else line,
                                cut and index == len(raw) - 1))
    # indented as a Markdown code block (or a quote in a ticket): every line's common indentation goes
    indents = [len(l.text) - len(l.text.lstrip(" ")) for l in paste.lines if l.text.strip()]
    common = min(indents, default=0)
    if common:
        for l in paste.lines:
            l.text = l.text[common:]
    return paste


LINE_NUMBER = re.compile(r"^\s*(\d+)(?: |$)")


def _without_line_numbers(raw, fenced):
    """The lines without an editor's or `cat -n`'s numbers (NVIDIA/cuda-samples#230 pasted from vim):
    numbered where every line of the paste (of its code blocks, in a Markdown note) starts with a
    number that counts up with the line (an empty line numbered or not). A table's row numbers
    alone never do: its titles and headers are not numbered."""
    inside, numbered = False, []
    for index, line in enumerate(raw):
        line = QUOTE.sub("", line.rstrip("\r"), count=1)
        if FENCE.match(line):
            inside = not inside
        elif line.strip() and (inside or not fenced):
            numbered.append((index, line, LINE_NUMBER.match(line)))
    if len(numbered) < 3 or not all(found for _, _, found in numbered):
        return raw
    if len({int(found.group(1)) - index for index, _, found in numbered}) != 1:
        return raw
    lines = list(raw)
    for index, line, found in numbered:
        lines[index] = line[found.end():]
    return lines


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
