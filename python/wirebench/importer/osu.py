"""The OSU micro-benchmarks' text output (osu_latency, osu_bw, osu_bibw, osu_allreduce and the other
collectives' latency tests, 5.x to 7.x): a title line `# OSU MPI ... Test vX`, a column header
`# Size ...`, then a line per size. OSU prints MB/s as 10^6 bytes/s; a latency in microseconds (the
point-to-point one is half a round trip, as wb-net's)."""
import re

from .. import collectives
from ..contracts.input_files import InputError
from .lines import Aside, as_paste, cut_note, cut_row
from ..report.judging import declare, small_message_latency
from .rows import BUSBW, number, row
from .importer import Importer
from . import nodes

TITLE = re.compile(r"^#\s*OSU (MPI(?:-CUDA|-ROCM)?|NCCL|RCCL|XCCL) (.+?) Test v?(\S+)")
DATA = re.compile(r"^\s*(\d+)\s+([-+\d.eE]+)(\s+.*)?$")
POINT_TO_POINT = {"Latency": ("pingpong", "uni", "latency"), "Bandwidth": ("stream_bw", "uni", "bw"),
                  "Bi-Directional Bandwidth": ("bidir_bw", "bidir", "bibw")}
def looks_like(paste):
    """Its title on any line: a job's log puts Slurm's, a module system's or a script's lines before it."""
    return any(TITLE.match(line.text) for line in paste.lines)


def _kind(title, where):
    name = title.replace(" Latency", "").strip()
    if title in POINT_TO_POINT:
        return ("net",) + POINT_TO_POINT[title]
    op = collectives.canonical(name) or collectives.in_name(name)  # OSU: All-to-All Personalized Exchange
    if op in collectives.BUSBW:
        return ("coll", op)
    raise InputError(f"{where}: OSU's '{title}' test is not one wirebench imports (latency, bw, bibw and the "
                     f"collectives' latency tests: {', '.join(sorted(collectives.BUSBW))})")


def parse(path, source, hosts=("", ""), ranks=None, link_class=""):
    """(rows, notes). The table is found among whatever else the paste holds (lines.py): a script's
    banners between runs, UCX's or MPI's settings, the command line. Several tables of the same test
    in one file (a script looping over pairs) are kept apart: each row says its table (block=N)."""
    paste = as_paste(source)
    lines = paste.lines
    title = next(((TITLE.match(l.text), l) for l in lines if TITLE.match(l.text)), None)
    if title is None:
        raise InputError(f"{path}:1: no OSU title line ('# OSU MPI ... Test vX')")
    (found, title_line) = title
    name, version = found.group(2).strip(), found.group(3).rstrip(".")
    backend = "nccl" if found.group(1) in ("NCCL", "RCCL", "XCCL") else "mpi"  # osu_xccl_*: NCCL's (or RCCL's) calls
    kind = _kind(name, f"{path}:{title_line.number}")
    titles = [l for l in lines if TITLE.match(l.text)]
    if any(TITLE.match(l.text).group(2).strip() != name for l in titles):
        other = next(l for l in titles if TITLE.match(l.text).group(2).strip() != name)
        raise InputError(f"{path}:{other.number}: a second OSU test ('{TITLE.match(other.text).group(2).strip()}') "
                         f"after '{name}': import each test's output on its own")
    rows, notes, aside, block = [], [], Aside(path, "OSU"), 0
    # OSU prints no host: the launcher's tags name each rank's, or --hosts does
    tagged = paste.rank_hosts()
    hosts = nodes.by_rank(path, tagged, hosts, notes)
    ranks = ranks or (len(tagged) if tagged and kind[0] == "coll" else None)
    last_sized = _last_data_like(lines)
    for line in lines:
        if TITLE.match(line.text):
            block += 1
            continue
        if line.text.startswith("#") or not line.text.strip():
            continue
        where = f"{path}:{line.number}"
        data = DATA.match(line.text)
        lone = re.match(r"^\s*(\d+)\s*$", line.text)  # a size without its figure: the output stopped there
        if line.last_and_cut or (lone and rows and block and line is last_sized):
            # its sweep did not finish: an ERROR at its size, so no smaller size stands for it
            notes.append(cut_note(where))
            size = re.match(r"\s*(\d+)", line.text)
            if size and rows:
                rows.append(cut_row(rows[-1], size.group(1), where))
            continue
        if data is None or not block:
            aside.add(line)
            continue
        size, figure = int(data.group(1)), float(data.group(2))
        if kind[0] == "net":
            r = _point_to_point(where, version, kind, size, figure, hosts, link_class, backend)
        else:
            r = _collective(where, version, kind[1], size, figure, ranks, link_class, backend, hosts)
        if len(titles) > 1:
            r["extra"] = f"{r['extra']};block={block}"
        rows.append(r)
    aside.refuse(rows, "line of OSU's table (size, then its figure)")
    notes += aside.notes(rows)
    if len(titles) > 1 and rows:
        notes.append(f"{path}: {len(titles)} tables of OSU's {name} test in one file: each is kept as its own "
                     "(block=1..N); their endpoints are those --hosts names, the same for each")
    if not rows:
        notes.append(f"{path}: no line of OSU's table: nothing was measured")
    elif not hosts:
        notes.append(nodes.unnamed_note(path, "OSU", rows))
    return rows, notes


def _last_data_like(lines):
    """The last line that starts with a size (a line of the table, whole or not)."""
    return next((l for l in reversed(lines) if re.match(r"^\s*\d+", l.text)), None)


def _point_to_point(where, version, kind, size, figure, hosts, link_class, backend="mpi"):
    _, case, direction, test = kind
    if case == "pingpong":
        time_us = figure
        algbw = size / (time_us * 1e3) if size and time_us > 0 else None
    else:  # MB/s, 10^6 bytes/s; bibw counts both directions, as wb-net's bidir rows
        algbw = figure / 1e3
        time_us = size * (2 if direction == "bidir" else 1) / (algbw * 1e3) if algbw > 0 else None
    a, b = (list(hosts) + ["", ""])[:2]
    binary = "osu_xccl_" if backend == "nccl" else "osu_"
    return row(where, "osu", version, bench="net", case=case, backend=backend, link_class=link_class,
               src=f"{a}/rank0" if a else "rank0", dst=f"{b}/rank1" if b else "rank1", direction=direction,
               op="send_recv", dtype="uint8", bytes=size, ranks=2, nodes=len({a, b} - {""}) or "",
               time_us=number(time_us), algbw_GBps=number(algbw), busbw_GBps=number(algbw),
               judged=declare("algbw_GBps" if algbw else None,
                              latency=small_message_latency(size) if case == "pingpong" else ()),
               rerun=f"mpiexec -n 2 {binary}{'latency' if case == 'pingpong' else test} -m {size}:{size}")


def _collective(where, version, op, size, figure, ranks, link_class, backend="mpi", hosts=()):
    algbw = size / (figure * 1e3) if size and figure > 0 else None
    busbw = algbw * BUSBW[op](ranks) if algbw and ranks else None
    judged = declare("busbw_GBps" if busbw else None)
    osu_name = {"all_reduce": "allreduce", "all_gather": "allgather", "broadcast": "bcast",
                "all_to_all": "alltoall"}.get(op, op)
    return row(where, "osu", version, bench="coll", case="out_of_place", backend=backend, link_class=link_class,
               src=nodes.communicator(hosts), direction="uni", op=op, dtype="float32", bytes=size, ranks=ranks or "",
               nodes=len(set(hosts) - {""}) or "",
               time_us=number(figure), algbw_GBps=number(algbw), busbw_GBps=number(busbw), judged=judged,
               rerun=f"mpiexec -n {ranks or 'N'} {'osu_xccl_' if backend == 'nccl' else 'osu_'}{osu_name} -m {size}:{size}")


IMPORTER = Importer(tool="osu", known_by="its '# OSU MPI ... Test' title", looks_like=looks_like,
                    parse=lambda path, text, o: parse(path, text, o.hosts, o.ranks, o.link_class))
