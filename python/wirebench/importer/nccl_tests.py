"""nccl-tests' text output (all_reduce_perf and the other *_perf binaries, 2.13 and later): the
header's ranks and hosts, then a line per size with the out-of-place and in-place columns (time,
algbw, busbw, #wrong). The collective is not printed: the file's name says it
(all_reduce_perf.txt) or --op."""
import re

from ..report.input_files import InputError
from .lines import lines_of
from .rows import number, row

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv", "hypercube",
       "gather", "scatter")
DTYPES = {"float": "float32", "half": "float16", "double": "float64", "bfloat16": "bfloat16", "int8": "int8",
          "uint8": "uint8", "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64",
          "int": "int32", "char": "int8"}
DATA = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)((?:\s+\S+){4,8})\s*$")
RANK = re.compile(r"^#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)")
VERSION = re.compile(r"nccl-tests version (\S+)")


def looks_like(text):
    return "nThread" in text and ("Avg bus bandwidth" in text or "out-of-place" in text)


def op_from(name, given):
    if given:
        return given
    base = name.lower().replace("-", "_")
    for op in sorted(OPS, key=len, reverse=True):
        if op in base or op.replace("_", "") in base.replace("_", ""):
            return op
    return None


def parse(path, text, op=None, link_class=""):
    """(rows, notes): the rows of results.csv, and sentences about the file (cut, nothing measured)."""
    op = op_from(path.name, op)
    if op is None:
        raise InputError(f"{path}:1: nccl-tests does not print its collective and the file's name does not say it "
                         f"(all_reduce_perf.txt ...): give --op ({', '.join(OPS)})")
    version, ranks, rows, notes = None, {}, [], []
    for line in lines_of(text):
        where = f"{path}:{line.number}"
        if line.text.startswith("#"):
            version = version or (VERSION.search(line.text).group(1) if VERSION.search(line.text) else None)
            found = RANK.match(line.text)
            if found:
                ranks[int(found.group(1))] = (found.group(2), int(found.group(3)))
            continue
        if not line.text.strip():
            continue
        if line.last_and_cut:  # its sweep did not finish: an ERROR at its size, so no smaller size stands for it
            notes.append(f"{where}: the file ends in the middle of this line (cut short); the rows before it are kept")
            size = re.match(r"\s*(\d+)\s", line.text)
            if size and rows:
                for placement in ("out_of_place", "in_place"):
                    last = next(r for r in reversed(rows) if r["case"] == placement) if any(
                        r["case"] == placement for r in rows) else rows[-1]
                    rows.append({**last, "case": placement, "bytes": size.group(1), "time_us": "", "algbw_GBps": "",
                                 "busbw_GBps": "", "errors": "", "status": "ERROR",
                                 "reason": f"the output ends in the middle of this size's line ({where})"})
            continue
        found = DATA.match(line.text)
        if found is None:
            raise InputError(f"{where}: not a line of nccl-tests' table (size count type redop root, then time algbw "
                             f"busbw #wrong per placement): {line.text.strip()[:80]!r}")
        size, _, dtype, redop, root, rest = found.groups()
        columns = rest.split()
        if len(columns) not in (4, 8):
            raise InputError(f"{where}: {len(columns)} figures after the root; nccl-tests prints 4 per placement")
        n = max(len(ranks), 1)
        hosts = sorted({host for host, _ in ranks.values()})
        items = {}
        if redop != "none":
            items["redop"] = redop
        if int(root) >= 0:
            items["root"] = root
        for placement, (time_us, algbw, busbw, wrong) in zip(("out_of_place", "in_place"),
                                                              (columns[i:i + 4] for i in range(0, len(columns), 4))):
            try:
                figures = [None if v == "N/A" else float(v) for v in (time_us, algbw, busbw)]
            except ValueError:
                raise InputError(f"{where}: '{time_us} {algbw} {busbw}' are not nccl-tests' figures") from None
            fields = dict(bench="coll", case=placement, backend="nccl", link_class=link_class, src="world",
                          direction="uni", op=op, dtype=DTYPES.get(dtype, dtype), bytes=size, ranks=n,
                          nodes=max(len(hosts), 1), time_us=number(figures[0]), algbw_GBps=number(figures[1]),
                          busbw_GBps=number(figures[2]), errors="" if wrong == "N/A" else wrong, items=items,
                          judged="busbw_GBps@largest:ceiling" if int(size) > 0 else "time_us@smallest:siblings",
                          rerun=f"mpirun -np {n} {op}_perf -b {size} -e {size} -d {dtype}"
                                f"{' -o ' + redop if redop != 'none' else ''}")
            if n == 1:
                fields.update(status="SKIP", reason="one GPU: nccl-tests measured no communication between GPUs")
            elif None in figures:
                fields.update(status="SKIP", reason="nccl-tests printed N/A for this size")
            rows.append(row(where, "nccl-tests", version, **fields))
    if not rows:
        notes.append(f"{path}: no line of nccl-tests' table: nothing was measured")
    return rows, notes
