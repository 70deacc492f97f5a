"""A tool's output as its lines: each with its number in the file, without a launcher's prefix
(mpirun --tag-output's `[1,0]<stdout>:`, srun -l's `0: `), NCCL's own INFO and WARN lines set apart."""
import re
from dataclasses import dataclass

PREFIX = re.compile(r"^(\[\d+,\d+\]<std(?:out|err)>:|\d+: )")
NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b")


@dataclass
class Line:
    number: int
    text: str
    last_and_cut: bool = False  # the file ends in this line without a line break (cut short)


def lines_of(text):
    """The lines a tool printed, without launcher prefixes and without NCCL's log lines."""
    out = []
    raw = text.split("\n")
    cut = not text.endswith("\n")
    for index, line in enumerate(raw if cut else raw[:-1]):
        line = PREFIX.sub("", line.rstrip("\r"))
        if NCCL_LINE.search(line):
            continue
        out.append(Line(index + 1, line, cut and index == len(raw) - 1))
    return out
