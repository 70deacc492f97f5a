"""A tool's output as its lines: each with its number in the file, without a launcher's prefix
(mpirun --tag-output's `[1,0]<stdout>:`, srun -l's `0: `), NCCL's own INFO and WARN lines set apart,
and as pasted into Markdown: the code block's fences (```) and its indentation left aside."""
import re
from dataclasses import dataclass

PREFIX = re.compile(r"^(\[\d+,\d+\]<std(?:out|err)>:|\d+: )")
NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Line:
    number: int
    text: str
    last_and_cut: bool = False  # the file ends in this line without a line break (cut short)


def lines_of(text):
    """The lines a tool printed, without launcher prefixes, Markdown fences and indentation, and
    without NCCL's log lines."""
    out = []
    raw = text.split("\n")
    cut = not text.endswith("\n")
    fenced = any(FENCE.match(line) for line in raw)  # a Markdown note: only its code blocks are the tool's
    inside = False
    for index, line in enumerate(raw if cut else raw[:-1]):
        line = PREFIX.sub("", line.rstrip("\r"))
        if FENCE.match(line):
            inside = not inside
            continue
        if NCCL_LINE.search(line) or (fenced and not inside):
            continue
        out.append(Line(index + 1, line.expandtabs(8) if line.startswith("\t") else line,
                        cut and index == len(raw) - 1))
    # indented as a Markdown code block (or a quote in a ticket): every line's common indentation goes
    indents = [len(l.text) - len(l.text.lstrip(" ")) for l in out if l.text.strip()]
    common = min(indents, default=0)
    if common:
        for l in out:
            l.text = l.text[common:]
    return out
