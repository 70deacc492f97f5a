"""nvbandwidth's text output (0.4 on): `Running TESTCASE.`, a title `memcpy CE GPU(row) <- GPU(column)
bandwidth (GB/s)` (or CPU(row) -> GPU(column), SM copies...), a matrix of GB/s (N/A on its diagonal),
then `SUM TESTCASE figure`. Each cell becomes a row like wb-p2p's (GPU pairs, a GPU's local copy) or
wb-host's GPU rows (the host and a GPU), its direction from the testcase (FLOWS), not the title;
nvbandwidth does not print its buffer size (-b, 512 MiB by default): --bytes."""
import re

from ..contracts.input_files import InputError
from ..report.judging import declare
from .lines import as_paste, cut_note
from .rows import number, row
from .importer import Importer
from . import nodes

VERSION = re.compile(r"^nvbandwidth Version:\s*v?(\S+)")
RUNNING = re.compile(r"^Running (\w+)\.")
SUM = re.compile(r"^SUM (\w+)\s+[\d.]+\s*$")  # the testcase's last line names it too
# "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)", "memcpy local GPU(column) bandwidth (GB/s)",
# "memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s)" (and its Read1/Read2, Write1/Write2)
TITLE = re.compile(r"^memcpy (?:(CE|SM) (CPU|GPU)\(row\) (->|<-|<->) |(local) )(CPU|GPU)\(column\) "
                   r"(?:(Total|Read1|Read2|Write1|Write2) )?bandwidth \(GB/s\)")
# its column header: integers alone (a row's cells are %.2f or N/A); its indentation may be lost to a paste
HEADER = re.compile(r"^\s*(\d+(?:\s+\d+)*)\s*$")
CELLS = re.compile(r"^\s*(\d+)((?:\s+(?:[\d.]+|N/A))+)\s*$")
DEFAULT_BYTES = 512 * 1024 * 1024

# Which way the data went, per testcase, as nvbandwidth's source does it (testcases_ce.cpp and
# testcases_sm.cpp at 66746a3): the titles' arrows do not say it for GPU pairs. read: value(row,
# column) = copy column -> row, the row's GPU pulling; write: value(row, column) = copy row ->
# column, the row's GPU pushing; yet read's title says "GPU(row) -> GPU(column)" and write's
# "GPU(row) <- GPU(column)". Host copies put the CPU in the (only) row. Ends: "host", "row",
# "column" (the GPU of that index), "all->" / "->all" (every other GPU, as wb-p2p names them).
# (bench, case, src, dst, direction); ENGINE is the copy's engine, ce or sm.
FLOWS = {
    "host_to_device_memcpy": ("host", "h2d_pinned", "host", "column", "uni"),
    "device_to_host_memcpy": ("host", "d2h_pinned", "column", "host", "uni"),
    # one way's figure while the other way runs beside it (not wb-host's bidir_pinned, the sum of both)
    "host_to_device_bidirectional_memcpy": ("host", "h2d_pinned/beside_d2h", "host", "column", "uni"),
    "device_to_host_bidirectional_memcpy": ("host", "d2h_pinned/beside_h2d", "column", "host", "uni"),
    # each GPU's figure while every GPU copies at once
    "host_to_all_memcpy": ("host", "h2d_pinned/all_at_once", "host", "column", "uni"),
    "all_to_host_memcpy": ("host", "d2h_pinned/all_at_once", "column", "host", "uni"),
    "host_to_all_bidirectional_memcpy": ("host", "h2d_pinned/all_at_once/beside_d2h", "host", "column", "uni"),
    "all_to_host_bidirectional_memcpy": ("host", "d2h_pinned/all_at_once/beside_h2d", "column", "host", "uni"),
    "device_to_device_memcpy_read": ("p2p", "ENGINE/read", "column", "row", "uni"),
    "device_to_device_memcpy_write": ("p2p", "ENGINE/write", "row", "column", "uni"),
    "device_to_device_bidirectional_memcpy_read": ("p2p", "ENGINE/read/bidir", "row", "column", "bidir"),
    "device_to_device_bidirectional_memcpy_write": ("p2p", "ENGINE/write/bidir", "row", "column", "bidir"),
    "all_to_one_write": ("p2p", "ENGINE/write/all_to_one", "column", "all->", "uni"),
    "all_to_one_read": ("p2p", "ENGINE/read/all_to_one", "column", "all->", "uni"),
    "one_to_all_write": ("p2p", "ENGINE/write/one_to_all", "column", "->all", "uni"),
    "one_to_all_read": ("p2p", "ENGINE/read/one_to_all", "column", "->all", "uni"),
    "device_local_copy": ("p2p", "ENGINE/write", "column", "column", "uni"),
}


def flow_of(test):
    """(bench, case, src, dst, direction) of an nvbandwidth testcase, or None for one this reader
    does not know (a newer nvbandwidth's)."""
    base, _, engine = test.rpartition("_")
    if engine not in ("ce", "sm"):
        base, engine = test, "ce"  # device_local_copy: a copy engine's (MemcpyInitiatorCE)
    found = FLOWS.get(base)
    if found is None:
        return None
    bench, case, src, dst, direction = found
    if bench == "host" and engine == "sm":
        case = case.replace("_pinned", "_pinned/sm", 1)
    return bench, case.replace("ENGINE", engine), src, dst, direction


def looks_like(paste):
    """Its version line, or a testcase it knows named on any line (`Running TESTCASE.` or the `SUM
    TESTCASE figure` after its matrix: a paste of the matrix alone), or a matrix's title."""
    return any(line.text.startswith("nvbandwidth Version") or TITLE.match(line.text) or
               any(found and flow_of(found.group(1)) for found in (RUNNING.match(line.text), SUM.match(line.text)))
               for line in paste.lines)


# 0.8 on print the node's name alone before "Device 0: NAME (PCI)" (output.cpp printGPUs: localHostname,
# gethostname's), and in --json each device's entry "0: NAME (PCI): (HOST)" (json_output.cpp)
HOSTNAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")


def the_node(path, printed, given, notes, said_by="its host line"):
    """The node the rows are keyed to: the one nvbandwidth names, checked against --hosts (the same
    node by another name: a note, the printed name kept; another node: exit 3 quoting both), else
    --hosts'; '' where neither names it."""
    found = nodes.by_rank(path, [printed] if printed else [], [given], notes, said_by)
    return found[0] if found else ""


def _host_line(lines):
    """The node's name on its own line before `Device 0: NAME (PCI)` (0.8 on), or None."""
    previous = ""
    for line in lines:
        if line.text.startswith("Device 0: ") and HOSTNAME.match(previous):
            return previous
        previous = line.text.strip() or previous
    return None


def _testcases(lines):
    """{line number of a matrix's title: its testcase} from the `SUM TESTCASE figure` line after it,
    for the titles no `Running TESTCASE.` line is before (nvbandwidth 0.8 pasted from the title on)."""
    named, waiting = {}, []
    for line in lines:
        if RUNNING.match(line.text):
            waiting = None  # its matrices are named by the Running line, until its SUM
        elif TITLE.match(line.text) and waiting is not None:
            waiting.append(line.number)
        elif SUM.match(line.text):
            named.update((number, SUM.match(line.text).group(1)) for number in waiting or [])
            waiting = []
    return named


def parse(path, source, host="", bytes_=None, link_class=""):
    bytes_ = bytes_ or DEFAULT_BYTES
    version, test, title, columns, rows, notes = None, None, None, None, [], []
    paste = as_paste(source)
    lines, named = paste.lines, _testcases(paste.lines)
    # its host line; under srun -l (`0: dgx01`) or -prepend-pattern the launcher's tag names it
    tagged = paste.rank_hosts()
    node = the_node(path, _host_line(lines) or (tagged[0] if len(tagged) == 1 else ""), host, notes)
    for line in lines:
        where = f"{path}:{line.number}"
        if VERSION.match(line.text):
            version = VERSION.match(line.text).group(1)
            continue
        if RUNNING.match(line.text):
            test, title, columns = RUNNING.match(line.text).group(1), None, None
            continue
        if TITLE.match(line.text):
            if line.number in named and named[line.number] != test:
                test = named[line.number]
                notes.append(f"{where}: the testcase, {test}, from its SUM line (no 'Running {test}.' line before it)")
            title, columns = _matrix(where, test, TITLE.match(line.text), notes), None
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
                    notes.append(cut_note(where))
                    continue
                raise InputError(f"{where}: not a line of nvbandwidth's {test} matrix: {line.text.strip()[:80]!r}")
            title = None if line.text.startswith("SUM ") or not line.text.strip() else title
            continue
        if line.last_and_cut:
            notes.append(cut_note(where, kept=False))
            continue
        index, values = int(cells.group(1)), cells.group(2).split()
        rows += _cells(where, version, test, title, index, zip(columns, values), node, bytes_, link_class)
    if not rows:
        notes.append(f"{path}: no nvbandwidth matrix: nothing was measured")
    elif not node:
        notes.append(f"{path}: names no node (nvbandwidth before 0.8 prints no host line) and --hosts names none: its "
                     "rows name GPUs, not a node's GPUs (give --hosts NODE)")
    return rows, notes


def _matrix(where, test, title, notes):
    """The flow of the matrix under `title` (see FLOWS), or None (with a note) for one not imported:
    a bidirectional pair's one-way parts (its Total is), a testcase this reader does not know."""
    part = title.group(6)
    if part and part != "Total":
        return None  # Read1/Read2, Write1/Write2: the Total beside them is the pair's figure
    flow = flow_of(test or "")
    if flow is None:
        notes.append(f"{where}: {test}: a testcase wirebench import does not know which way its data goes; passed by")
    return flow


def _cells(where, version, test, flow, index, columns_and_values, host, bytes_, link_class):
    """The rows of one matrix row: N/A cells and a GPU's copy to itself between two GPUs (0.00 on
    the diagonal of versions before 0.5) are left out."""
    rows = []
    for column, value in columns_and_values:
        if value == "N/A" or ({flow[2], flow[3]} == {"row", "column"} and index == column):
            continue
        try:
            GBps = float(value)
        except ValueError:
            raise InputError(f"{where}: {value!r} is not one of nvbandwidth's figures (GB/s or N/A)") from None
        rows.append(_row(where, version, test, flow, index, column, GBps, host, bytes_, link_class))
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
    rows, notes = [], []
    # 0.8 on name the node in each device's entry: "0: NVIDIA H100 ...: (dgx01)"
    named = {DEVICE_HOST.search(d).group(1) for d in body.get("GPU Device list") or []
             if isinstance(d, str) and DEVICE_HOST.search(d)}
    host = the_node(path, named.pop() if len(named) == 1 else "", host, notes, "its GPU Device list")
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
        flow = _matrix(where, test, title, notes) if title else None
        if title is None or (flow is None and title.group(6) not in (None, "Total")):
            # a latency matrix (ns), or a bidirectional pair's one-way part: not imported
            notes.append(f"{where}: {test}: '{case.get('bandwidth_description', '')}' is not a bandwidth matrix "
                         "wirebench imports; passed by")
            continue
        if flow is None:
            continue
        for r, cells in enumerate(case.get("bandwidth_matrix") or []):
            rows += _cells(f"{where}.bandwidth_matrix[{r}]", version, test, flow, r, enumerate(cells), host,
                           bytes_, link_class)
    if not rows:
        notes.append(f"{path}: no nvbandwidth matrix: nothing was measured")
    return rows, notes


def _row(where, version, test, flow, index, column, GBps, host, bytes_, link_class):
    bench, case, src, dst, direction = flow

    def name(end):
        if end in ("all->", "->all"):  # every other GPU, named as wb-p2p names it
            return end
        end = {"host": "numa0", "row": f"gpu{index}", "column": f"gpu{column}"}[end]
        return f"{host}/{end}" if host else end
    time_us = bytes_ * (2 if direction == "bidir" else 1) / (GBps * 1e3) if GBps > 0 else None
    items = {"nvbandwidth_test": test}
    if bench == "host":
        items["numa"] = "local"  # nvbandwidth places its host buffers by the GPU's CPU affinity (-d turns it off)
    # --link-class names the GPUs' link; a copy to or from the host is taken as PCIe (Grace's C2C is
    # not told apart from the text; the wiring given with the import, where it says C2C, replaces it)
    pair_class = "device" if src == dst else link_class
    return row(where, "nvbandwidth", version, bench=bench, case=case, backend="cuda",
               link_class=pair_class if bench == "p2p" else "pcie", src=name(src), dst=name(dst), direction=direction,
               op="copy", dtype="uint8", bytes=bytes_, ranks=1, nodes=1, time_us=number(time_us),
               algbw_GBps=number(GBps), busbw_GBps=number(GBps), judged=declare("algbw_GBps"),
               rerun=f"nvbandwidth -t {test} -b {bytes_ // (1024 * 1024)}", items=items)


IMPORTER = Importer(
    tool="nvbandwidth", known_by="its 'Running ...' testcases", looks_like=looks_like,
    parse=lambda path, text, o: parse(path, text, o.hosts[0], o.bytes, o.link_class),
    looks_like_json=looks_like_json,
    parse_json=lambda path, doc, o, cut: parse_json(path, doc, o.hosts[0], o.bytes, o.link_class))
