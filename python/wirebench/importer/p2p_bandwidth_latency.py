"""The CUDA samples' p2pBandwidthLatencyTest text: `Device: N, NAME, pciBusID: ...` lines, the P2P
Connectivity Matrix (1: CUDA lets the pair access each other as peers), then matrices of GB/s and of
microseconds: unidirectional and bidirectional copies with peer access off (staged through the
host) and on (P2P writes; reads with --p2p_read), and the latency of a 16-byte copy. A row per GPU
pair (the diagonal, a GPU's copy to itself, is left out): a P2P copy is judged against the pair's
link, a staged copy and a latency against their siblings. The sample copies numElems ints
(40,000,000: 160 MB), which it does not print: --bytes."""
import re

from ..report.input_files import InputError
from .lines import cut_note, lines_of
from .rows import number, row
from .registry import Importer

SAMPLE = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]"
DEFAULT_BYTES = 40_000_000 * 4
LATENCY_BYTES = 16  # one int4
DEVICE = re.compile(r"^Device: (\d+), (.+?), pciBusID:")
# title -> (case, direction, how a row's GPU relates to a column's, unit)
TITLES = {
    "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)": ("staged/write", "uni", "writes", "GB/s"),
    "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)": ("p2p/write", "uni", "writes", "GB/s"),
    "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)": ("p2p/read", "uni", "reads", "GB/s"),
    "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)": ("staged/bidir", "bidir", "writes", "GB/s"),
    "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)": ("p2p/bidir", "bidir", "writes", "GB/s"),
    "P2P=Disabled Latency Matrix (us)": ("staged/latency", "uni", "writes", "us"),
    "P2P=Enabled Latency (P2P Writes) Matrix (us)": ("p2p/write_latency", "uni", "writes", "us"),
    "P2P=Enabled Latency (P2P Reads) Matrix (us)": ("p2p/read_latency", "uni", "reads", "us"),
}
HEADER = re.compile(r"^\s*(D\\D|GPU|CPU)((?:\s+\d+)+)\s*$")
CELLS = re.compile(r"^\s*(\d+)((?:\s+-?[\d.]+)+)\s*$")


def looks_like(text):
    return SAMPLE in text


def parse(path, text, host="", bytes_=None, link_class=""):
    bytes_ = bytes_ or DEFAULT_BYTES
    title = columns = clock = None
    access, names, rows, notes = {}, {}, [], []
    for line in lines_of(text):
        where = f"{path}:{line.number}"
        stripped = line.text.strip()
        if DEVICE.match(line.text):
            names[int(DEVICE.match(line.text).group(1))] = DEVICE.match(line.text).group(2)
            continue
        if stripped == "P2P Connectivity Matrix":
            title, columns = "connectivity", None
            continue
        if stripped in TITLES:
            title, columns, clock = stripped, None, None
            continue
        header = HEADER.match(line.text)
        if header and title:
            columns, clock = [int(c) for c in header.group(2).split()], header.group(1)
            continue
        cells = CELLS.match(line.text)
        if not (title and columns is not None and cells):
            if title and columns is not None and stripped and line.last_and_cut:
                notes.append(cut_note(where))
            elif title and columns is not None and stripped and not stripped.startswith(("NOTE", "***")):
                raise InputError(f"{where}: not a line of p2pBandwidthLatencyTest's matrix: {stripped[:80]!r}")
            continue
        if line.last_and_cut:
            notes.append(cut_note(where, kept=False))
            continue
        index, values = int(cells.group(1)), cells.group(2).split()
        if len(values) != len(columns):
            raise InputError(f"{where}: {len(values)} figures for {len(columns)} GPUs in p2pBandwidthLatencyTest's matrix")
        if title == "connectivity":
            access.update({(index, c): v == "1" for c, v in zip(columns, values)})
            continue
        if clock == "CPU":  # the latency as the host's clock saw it (launch included): the GPU's is kept
            continue
        for column, value in zip(columns, values):
            if column != index:
                rows.append(_row(where, title, index, column, float(value), access.get((index, column)), host,
                                 bytes_, link_class))
    if not rows:
        notes.append(f"{path}: no p2pBandwidthLatencyTest matrix: nothing was measured")
    no_peer = sorted({(r["src"], r["dst"]) for r in rows if "peer_access=no" in r["extra"]})
    if no_peer:
        notes.append(f"{path}: {len(no_peer)} GPU pair(s) without peer access (P2P Connectivity Matrix 0): their "
                     "'P2P=Enabled' copies went through the host")
    return rows, notes


def _row(where, title, index, column, figure, peer_access, host, bytes_, link_class):
    case, direction, relation, unit = TITLES[title]
    # writes: the row's GPU sends to the column's; reads: the row's GPU reads from the column's
    src, dst = (index, column) if relation == "writes" else (column, index)

    def name(gpu):
        return f"{host}/gpu{gpu}" if host else f"gpu{gpu}"
    items = {} if peer_access is None else {"peer_access": "yes" if peer_access else "no"}
    common = dict(bench="p2p", case=case, backend="cuda", link_class=link_class, src=name(src), dst=name(dst),
                  direction=direction, op="copy", dtype="uint8", ranks=1, nodes=1, items=items,
                  rerun="p2pBandwidthLatencyTest" + (" --p2p_read" if relation == "reads" else ""))
    if unit == "us":
        return row(where, "p2pBandwidthLatencyTest", None, bytes=LATENCY_BYTES, time_us=number(figure),
                   judged="time_us@each:siblings", **common)
    time_us = bytes_ * (2 if direction == "bidir" else 1) / (figure * 1e3) if figure > 0 else None
    # a staged copy goes through host memory, not over the pair's link: its siblings judge it. A
    # P2P copy of a pair without peer access went through the host too, and is held against the
    # pair's link all the same: that the pair cannot use it is what is wrong.
    judged = "algbw_GBps@largest:siblings" if case.startswith("staged") else "algbw_GBps@largest:ceiling"
    return row(where, "p2pBandwidthLatencyTest", None, bytes=bytes_, time_us=number(time_us),
               algbw_GBps=number(figure), busbw_GBps=number(figure), judged=judged, **common)


IMPORTER = Importer(tool="p2pBandwidthLatencyTest", known_by="its '[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]' banner",
                    looks_like=looks_like,
                    parse=lambda path, text, o: parse(path, text, o.hosts[0], o.bytes, o.link_class))
