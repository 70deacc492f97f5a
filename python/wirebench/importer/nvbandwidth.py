"""nvbandwidth's text output (0.4 on): `Running TESTCASE.`, a title `memcpy CE GPU(row) <- GPU(column)
bandwidth (GB/s)` (or CPU(row) -> GPU(column), SM copies...), a matrix of GB/s (N/A on its diagonal),
then `SUM TESTCASE figure`. Each cell becomes a row like wb-p2p's (GPU pairs) or wb-host's GPU rows
(the host and a GPU); nvbandwidth does not print its buffer size (-b, 512 MiB by default): --bytes."""
import re

from ..report.input_files import InputError
from .lines import lines_of
from .rows import number, row

VERSION = re.compile(r"^nvbandwidth Version:\s*v?(\S+)")
RUNNING = re.compile(r"^Running (\w+)\.")
TITLE = re.compile(r"^memcpy (CE|SM) (CPU|GPU)\(row\) (->|<-|<->) (CPU|GPU)\(column\) bandwidth \(GB/s\)")
HEADER = re.compile(r"^\s+(\d+(?:\s+\d+)*)\s*$")
CELLS = re.compile(r"^\s*(\d+)((?:\s+(?:[\d.]+|N/A))+)\s*$")
DEFAULT_BYTES = 512 * 1024 * 1024


def looks_like(text):
    return "nvbandwidth Version" in text or bool(re.search(r"^Running \w+_memcpy_(ce|sm)\.", text, re.M))


def parse(path, text, host="", bytes_=DEFAULT_BYTES, link_class=""):
    version, test, title, columns, rows, notes = None, None, None, None, [], []
    for line in lines_of(text):
        where = f"{path}:{line.number}"
        if VERSION.match(line.text):
            version = VERSION.match(line.text).group(1)
            continue
        if RUNNING.match(line.text):
            test, title, columns = RUNNING.match(line.text).group(1), None, None
            continue
        if TITLE.match(line.text):
            title, columns = TITLE.match(line.text).groups(), None
            continue
        if title and columns is None and HEADER.match(line.text):
            columns = [int(c) for c in HEADER.match(line.text).group(1).split()]
            continue
        if not (title and columns is not None):
            continue
        cells = CELLS.match(line.text)
        if cells is None:
            if line.text.strip() and not line.text.startswith("SUM "):
                if line.last_and_cut:
                    notes.append(f"{where}: the file ends in the middle of this line (cut short); the rows before it are kept")
                    continue
                raise InputError(f"{where}: not a line of nvbandwidth's {test} matrix: {line.text.strip()[:80]!r}")
            title = None if line.text.startswith("SUM ") or not line.text.strip() else title
            continue
        if line.last_and_cut:
            notes.append(f"{where}: the file ends in the middle of this line (cut short); it is left out")
            continue
        index, values = int(cells.group(1)), cells.group(2).split()
        for column, value in zip(columns, values):
            if value == "N/A":
                continue
            rows.append(_row(where, version, test, title, index, column, float(value), host, bytes_, link_class))
    if not rows:
        notes.append(f"{path}: no nvbandwidth matrix: nothing was measured")
    return rows, notes


def _row(where, version, test, title, index, column, GBps, host, bytes_, link_class):
    engine, row_kind, arrow, column_kind = title
    row_end = f"{row_kind.lower()}{index}"
    column_end = f"{column_kind.lower()}{column}"
    # the arrow says which way the data went: row -> column, or row <- column (a read)
    src, dst = (row_end, column_end) if arrow in ("->", "<->") else (column_end, row_end)

    def name(end):
        if end.startswith("cpu"):
            end = "numa" + end[3:]  # nvbandwidth's CPU: the host memory the copy used
        return f"{host}/{end}" if host else end
    bidir = "bidirectional" in test or arrow == "<->"
    gpu_pair = row_kind == column_kind == "GPU"
    case = f"{engine.lower()}/{'read' if '_read_' in test or arrow == '<-' else 'write'}" if gpu_pair else test
    time_us = bytes_ * (2 if bidir else 1) / (GBps * 1e3) if GBps > 0 else None
    # --link-class names the GPUs' link; a copy to or from the host is taken as PCIe (Grace's C2C is
    # not told apart from the text)
    return row(where, "nvbandwidth", version, bench="p2p" if gpu_pair else "host", case=case, backend="cuda",
               link_class=link_class if gpu_pair else "pcie", src=name(src), dst=name(dst), direction="bidir" if bidir else "uni", op="copy",
               dtype="uint8", bytes=bytes_, ranks=1, nodes=1, time_us=number(time_us), algbw_GBps=number(GBps),
               busbw_GBps=number(GBps), judged="algbw_GBps@largest:ceiling",
               rerun=f"nvbandwidth -t {test} -b {bytes_ // (1024 * 1024)}", items={"nvbandwidth_test": test})
