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
    return "nvbandwidth Version" in text or bool(re.search(r"^Running \w+_(ce|sm)\.$", text, re.M))


def parse(path, text, host="", bytes_=None, link_class=""):
    bytes_ = bytes_ or DEFAULT_BYTES
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
        rows += _cells(where, version, test, title, index, zip(columns, values), host, bytes_, link_class)
    if not rows:
        notes.append(f"{path}: no nvbandwidth matrix: nothing was measured")
    return rows, notes


def _cells(where, version, test, title, index, columns_and_values, host, bytes_, link_class):
    """The rows of one matrix row: N/A cells and a GPU's copy to itself (0.00 on the diagonal of
    versions before 0.5) are left out."""
    rows = []
    for column, value in columns_and_values:
        if value == "N/A" or (title[1] == title[3] and index == column):
            continue
        try:
            GBps = float(value)
        except ValueError:
            raise InputError(f"{where}: {value!r} is not one of nvbandwidth's figures (GB/s or N/A)") from None
        rows.append(_row(where, version, test, title, index, column, GBps, host, bytes_, link_class))
    return rows


# nvbandwidth -j (0.5 on): {"nvbandwidth": {version, "GPU Device list": ["0: NAME: (HOST)"],
# testcases: [{name, status, bandwidth_description, bandwidth_matrix: [["N/A", "392.1", ...]], sum}]}}
DEVICE_HOST = re.compile(r"\(([^()]+)\)\s*$")


def looks_like_json(doc):
    return isinstance(doc, dict) and isinstance(doc.get("nvbandwidth"), dict)


def parse_json(path, doc, host="", bytes_=None, link_class=""):
    bytes_ = bytes_ or DEFAULT_BYTES
    body = doc["nvbandwidth"]
    version = str(body.get("version") or "").lstrip("v") or None
    if not host:  # 0.8 on name the node in each device's entry: "0: NVIDIA H100 ...: (dgx01)"
        named = {DEVICE_HOST.search(d).group(1) for d in body.get("GPU Device list") or []
                 if isinstance(d, str) and DEVICE_HOST.search(d)}
        host = named.pop() if len(named) == 1 else ""
    rows, notes = [], []
    if body.get("error"):
        notes.append(f"{path}: nvbandwidth said: {body['error']}")
    for index, case in enumerate(body.get("testcases") or []):
        where = f"{path}:testcases[{index}]"
        test, status = case.get("name", ""), case.get("status", "")
        if status != "Passed":
            notes.append(f"{where}: {test} {status or 'without a status'}{': ' + case['error'] if case.get('error') else ''}")
            if status == "Error":
                rows.append(row(where, "nvbandwidth", version, bench="p2p", case=test, backend="cuda",
                                link_class=link_class, src=host, op="copy", dtype="uint8", bytes=bytes_, status="ERROR",
                                reason=f"nvbandwidth: {case.get('error') or 'the testcase ended in an error'}",
                                rerun=f"nvbandwidth -t {test}", items={"nvbandwidth_test": test}))
            continue
        title = TITLE.match(case.get("bandwidth_description", ""))
        if title is None:  # a latency matrix (ns), or a multinode Read1/Read2 one: not imported
            notes.append(f"{where}: {test}: '{case.get('bandwidth_description', '')}' is not a bandwidth matrix "
                         "wirebench imports; passed by")
            continue
        for r, cells in enumerate(case.get("bandwidth_matrix") or []):
            rows += _cells(f"{where}.bandwidth_matrix[{r}]", version, test, title.groups(), r, enumerate(cells), host,
                           bytes_, link_class)
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
    # not told apart from the text; the wiring given with the import, where it says C2C, replaces it)
    return row(where, "nvbandwidth", version, bench="p2p" if gpu_pair else "host", case=case, backend="cuda",
               link_class=link_class if gpu_pair else "pcie", src=name(src), dst=name(dst), direction="bidir" if bidir else "uni", op="copy",
               dtype="uint8", bytes=bytes_, ranks=1, nodes=1, time_us=number(time_us), algbw_GBps=number(GBps),
               busbw_GBps=number(GBps), judged="algbw_GBps@largest:ceiling",
               rerun=f"nvbandwidth -t {test} -b {bytes_ // (1024 * 1024)}", items={"nvbandwidth_test": test})
