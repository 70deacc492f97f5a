"""The CUDA samples' p2pBandwidthLatencyTest text: `Device: N, NAME, pciBusID: ...` lines, the P2P
Connectivity Matrix (1: CUDA lets the pair access each other as peers), then matrices of GB/s and of
microseconds: unidirectional and bidirectional copies with peer access off (staged through the
host) and on (P2P writes; reads with --p2p_read), and the latency of a 16-byte copy. A row per GPU
pair (the diagonal, a GPU's copy to itself, is left out): a P2P copy is judged against the pair's
link, a staged copy and a latency against their siblings. The sample copies numElems ints
(40,000,000: 160 MB), which it does not print: --bytes."""
import re

from ..contracts.input_files import InputError
from .lines import Aside, as_paste, cut_note
from .rows import number, row
from ..report.extra import encode_items, parse as parse_items
from ..report.judging import LATENCY_EACH_AGAINST_SIBLINGS, declare
from .importer import Importer

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


def looks_like(paste):
    """Its banner, or one of its matrices' titles on a line of its own (a paste of part of it)."""
    return SAMPLE in paste.text or any(line.text.strip() in TITLES for line in paste.lines)


# The sample's options, which it does not print: read where a paste says them (its command line, a
# note such as `# With --sm_copy` before its matrices).
SM_COPY = re.compile(r"(?<![\w-])--sm_copy\b")
WITHOUT = re.compile(r"\b(?:without|no|w/o)\s+--sm_copy\b", re.I)  # `# Without --sm_copy`
NUM_ELEMS = re.compile(r"--numElems[= ](\d+)")


def parse(path, source, host="", bytes_=None, link_class=""):
    """(rows, notes). A paste holding the sample's matrices twice holds two runs (a title seen
    again starts the next): each run's rows carry its number (`run=2`) and what its command line or
    note said (`engine=sm` on the P2P copies of a --sm_copy run)."""
    paste = as_paste(source)
    said = {number_: command for number_, command in paste.commands}
    title = columns = clock = None
    access, rows, notes, runs, seen = {}, [], [], [], set()
    aside = Aside(path, "p2pBandwidthLatencyTest")
    options = {"sm_copy": False, "bytes": None}
    for line in paste.lines:
        where = f"{path}:{line.number}"
        stripped = line.text.strip()
        if line.number in said or stripped.startswith("#"):  # the run's command line, or a note on the run
            options = {"sm_copy": bool(SM_COPY.search(stripped)) and not WITHOUT.search(stripped),
                       "bytes": int(NUM_ELEMS.search(stripped).group(1)) * 4 if NUM_ELEMS.search(stripped) else None}
            continue
        if DEVICE.match(line.text) or stripped in (SAMPLE, "") or stripped.startswith(("Device=", "NOTE", "***", "So you")):
            continue
        if stripped == "P2P Connectivity Matrix" or stripped in TITLES:
            if not runs or stripped in seen:
                runs.append(dict(options))
                seen = set()
            seen.add(stripped)
            title, columns, clock = ("connectivity" if stripped == "P2P Connectivity Matrix" else stripped), None, None
            continue
        header = HEADER.match(line.text)
        if header and title:
            columns, clock = [int(c) for c in header.group(2).split()], header.group(1)
            continue
        cells = CELLS.match(line.text)
        if not (title and columns is not None and cells):
            if title and columns is not None and line.last_and_cut:
                notes.append(cut_note(where))
            else:
                aside.add(line)
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
        run = runs[-1]
        # --sm_copy makes the P2P copies a kernel's; a staged copy stays cudaMemcpyPeerAsync's
        items = {"engine": "sm"} if run["sm_copy"] and not TITLES[title][0].startswith("staged") else {}
        items["run"] = str(len(runs))  # dropped below where the file holds one run
        for column, value in zip(columns, values):
            if column != index:
                rows.append(_row(where, title, index, column, float(value), access.get((index, column)), host,
                                 bytes_ or run["bytes"] or DEFAULT_BYTES, link_class, items))
    if len(runs) == 1:
        for r in rows:
            r["extra"] = encode_items({k: v for k, v in parse_items(r["extra"]).items() if k != "run"})
    aside.refuse(rows, "matrix of p2pBandwidthLatencyTest (a title, `D\\D 0 1 ...`, a row per GPU)")
    notes += aside.notes(rows)
    if len(runs) > 1:
        notes.append(f"{path}: {len(runs)} runs of the sample (its matrices' titles repeat)"
                     + (": the --sm_copy run's rows are engine=sm" if any(r["sm_copy"] for r in runs) else ""))
    if not rows:
        notes.append(f"{path}: no p2pBandwidthLatencyTest matrix: nothing was measured")
    notes += _slower_than_staged(path, rows)
    no_peer = sorted({(r["src"], r["dst"]) for r in rows if "peer_access=no" in r["extra"]})
    if no_peer:
        notes.append(f"{path}: {len(no_peer)} GPU pair(s) without peer access (P2P Connectivity Matrix 0): their "
                     "'P2P=Enabled' copies went through the host")
    return rows, notes


def _slower_than_staged(path, rows):
    """A note where a pair's P2P copy is slower than its copy staged through host memory: the peer
    path works but loses to the host (a PCIe root complex that forwards peer traffic slowly,
    NVIDIA/nccl#814), which NCCL's P2P transport would suffer too."""
    staged = {(r["src"], r["dst"], _run(r)): float(r["algbw_GBps"]) for r in rows
              if r["case"] == "staged/write" and r["algbw_GBps"]}
    slower = [(r, staged[(r["src"], r["dst"], _run(r))]) for r in rows if r["case"] == "p2p/write" and r["algbw_GBps"]
              and staged.get((r["src"], r["dst"], _run(r)), 0) > float(r["algbw_GBps"])]
    if not slower:
        return []
    worst, through_host = min(slower, key=lambda pair: float(pair[0]["algbw_GBps"]) / pair[1])
    return [f"{path}: {len(slower)} GPU pair(s) copy slower peer to peer than through host memory, the worst "
            f"{worst['src']} -> {worst['dst']}: {float(worst['algbw_GBps']):g} GB/s P2P vs {through_host:g} GB/s staged "
            "(P2P=Disabled): the peer path loses to the host (a PCIe root complex forwarding peer traffic slowly); "
            "NCCL's P2P transport would too (NCCL_P2P_LEVEL / NCCL_P2P_DISABLE=1 let it go through the host)"]


def _run(r):
    items = parse_items(r["extra"])
    return items.get("run", "")


def _row(where, title, index, column, figure, peer_access, host, bytes_, link_class, run_items):
    case, direction, relation, unit = TITLES[title]
    # writes: the row's GPU sends to the column's; reads: the row's GPU reads from the column's
    src, dst = (index, column) if relation == "writes" else (column, index)

    def name(gpu):
        return f"{host}/gpu{gpu}" if host else f"gpu{gpu}"
    items = dict(run_items) | ({} if peer_access is None else {"peer_access": "yes" if peer_access else "no"})
    common = dict(bench="p2p", case=case, backend="cuda", link_class=link_class, src=name(src), dst=name(dst),
                  direction=direction, op="copy", dtype="uint8", ranks=1, nodes=1, items=items,
                  rerun="p2pBandwidthLatencyTest" + (" --p2p_read" if relation == "reads" else "")
                  + (" --sm_copy" if run_items.get("engine") == "sm" else ""))
    if unit == "us":
        return row(where, "p2pBandwidthLatencyTest", None, bytes=LATENCY_BYTES, time_us=number(figure),
                   judged=declare(latency=[LATENCY_EACH_AGAINST_SIBLINGS]), **common)
    time_us = bytes_ * (2 if direction == "bidir" else 1) / (figure * 1e3) if figure > 0 else None
    # a staged copy goes through host memory, not over the pair's link: its siblings judge it. A
    # P2P copy of a pair without peer access went through the host too, and is held against the
    # pair's link all the same: that the pair cannot use it is what is wrong.
    judged = declare("algbw_GBps", "siblings" if case.startswith("staged") else "ceiling")
    return row(where, "p2pBandwidthLatencyTest", None, bytes=bytes_, time_us=number(time_us),
               algbw_GBps=number(figure), busbw_GBps=number(figure), judged=judged, **common)


IMPORTER = Importer(tool="p2pBandwidthLatencyTest", known_by="its '[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]' banner",
                    looks_like=looks_like,
                    parse=lambda path, text, o: parse(path, text, o.hosts[0], o.bytes, o.link_class))
