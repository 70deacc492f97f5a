"""What the report tests share (imported by name: a module named conftest would be another folder's when several
test folders run in one pytest session)."""
import sys
from pathlib import Path

# the reporter package lives in python/
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))


def nccl_tests_scaled(text, factor, time_format=".2f"):
    """An nccl-tests output as a link `factor` times as fast printed it: in each row of its table
    (size, count, type, redop, [root,] then time, algbw, busbw, #wrong per placement) every time
    divided by `factor`, every bandwidth multiplied by it. The imports' tests make other nights and
    other nodes of one real paste with it."""
    out = []
    for line in text.split("\n"):
        cells = line.split()
        if len(cells) in (12, 13) and cells[0].isdigit():
            for time in (len(cells) - 8, len(cells) - 4):
                cells[time] = format(float(cells[time]) / factor, time_format)
                cells[time + 1], cells[time + 2] = (f"{float(cells[i]) * factor:.2f}" for i in (time + 1, time + 2))
            line = "  ".join(cells)
        out.append(line)
    return "\n".join(out)
