"""IMB-MPI1's text output (Intel MPI Benchmarks 2018 on): blocks `# Benchmarking NAME` with
`# #processes = N`, then a table under a `#bytes #repetitions ...` header. Times are microseconds;
PingPong's t[usec] is half a round trip (as wb-net's ping-pong); Sendrecv and Exchange (each rank
sends and receives at once) are bidirectional rows, with IMB's t_max and its bandwidth factor. The bandwidth is computed from bytes
and time here (IMB's Mbytes/sec column changed units between versions)."""
import re

from ..contracts.input_files import InputError
from .lines import Aside, as_paste, cut_note, cut_row
from . import nodes
from ..report.judging import declare, small_message_latency
from .rows import BUSBW, number, row
from .importer import Importer

VERSION = re.compile(r"Intel ?\(R\) MPI Benchmarks (\S+?),? ")  # IMB 4.x printed "Intel (R)"
BLOCK = re.compile(r"^#\s*Benchmarking\s+(\S+)")
# a block named by hand in a paste (intel/mpi-benchmarks#37: "Sendrecv：" above its table)
LABEL = re.compile(r"^\s*(PingPong|Sendrecv|Exchange|Allreduce|Allgather|Alltoall|Bcast|Reduce|Reduce_scatter)\s*[:：]\s*$")
PROCESSES = re.compile(r"^#\s*#processes\s*=\s*(\d+)")
HEADER = re.compile(r"^\s*#bytes\s+#repetitions\s+(.*)$")
DATA = re.compile(r"^\s*(\d+)\s+(\d+)\s+(.*)$")
PARALLEL_TRANSFERS = {"Sendrecv": 2, "Exchange": 4}  # IMB's scale_bw: bytes each rank moves per call, in units of #bytes
COLLECTIVES = {"Allreduce": "all_reduce", "Allgather": "all_gather", "Alltoall": "all_to_all", "Bcast": "broadcast",
               "Reduce": "reduce", "Reduce_scatter": "reduce_scatter"}


def looks_like(paste):
    text = paste.text
    return "MPI Benchmarks" in text and "Intel" in text or "# Benchmarking " in text or \
        bool(re.search(r"^\s*#bytes\s+#repetitions\s", text, re.M))


def _number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def parse(path, source, hosts=("", ""), link_class=""):
    version, name, processes, columns, rows, notes = None, None, None, None, [], []
    aside = Aside(path, "IMB-MPI1")
    paste = as_paste(source)
    tagged = paste.rank_hosts()
    hosts = nodes.by_rank(path, tagged, hosts, notes)  # IMB prints no host: the tags' or --hosts
    a, b = (list(hosts) + ["", ""])[:2]
    for line in paste.lines:
        where = f"{path}:{line.number}"
        found = VERSION.search(line.text)
        if found and version is None:
            version = found.group(1)
        if BLOCK.match(line.text) or LABEL.match(line.text):
            name, processes, columns = (BLOCK.match(line.text) or LABEL.match(line.text)).group(1), None, None
            continue
        if PROCESSES.match(line.text):
            processes = int(PROCESSES.match(line.text).group(1))
            continue
        if HEADER.match(line.text):
            columns = HEADER.match(line.text).group(1).split()
            continue
        if line.text.startswith("#") or not line.text.strip() or columns is None:
            continue
        if name not in COLLECTIVES and name not in ("PingPong",) + tuple(PARALLEL_TRANSFERS):
            continue  # a benchmark wirebench does not import (PingPing, Gather, Barrier, ...): its lines pass by
        data = DATA.match(line.text)
        figures = data.group(3).split() if data else []
        if data and len(figures) > len(columns) and all(_number(f) for f in figures[:len(columns)]):
            figures = figures[:len(columns)]  # a note written after the row ("<- drops from here")
        if line.last_and_cut or data is None or len(figures) != len(columns):
            if line.last_and_cut:
                notes.append(cut_note(where))
                if data and rows:
                    rows.append(cut_row(rows[-1], data.group(1), where))
                continue
            aside.add(line)  # mpirun's words, a warning between two sizes: left aside, said once
            continue
        size, repetitions = int(data.group(1)), int(data.group(2))
        values = dict(zip(columns, figures))
        time_key = "t[usec]" if "t[usec]" in values else "t_max[usec]" if name in PARALLEL_TRANSFERS else "t_avg[usec]"
        try:
            time_us = float(values[time_key])
        except (KeyError, ValueError):
            raise InputError(f"{where}: no time ({time_key}) in IMB's {name} line") from None
        algbw = size / (time_us * 1e3) if size and time_us > 0 else None
        common = dict(iters=repetitions, time_us=number(time_us), algbw_GBps=number(algbw), link_class=link_class,
                      bytes=size, backend="mpi", direction="uni")
        if name == "PingPong":
            rows.append(row(where, "imb", version, bench="net", case="pingpong", src=f"{a}/rank0" if a else "rank0",
                            dst=f"{b}/rank1" if b else "rank1", op="send_recv", dtype="uint8", ranks=2,
                            nodes=len({a, b} - {""}) or "", busbw_GBps=number(algbw),
                            judged=declare("algbw_GBps" if algbw else None, latency=small_message_latency(size)),
                            rerun=f"mpiexec -n 2 IMB-MPI1 PingPong -msglog {size.bit_length() - 1}:{size.bit_length() - 1}"
                                  if size else "mpiexec -n 2 IMB-MPI1 PingPong", **common))
        elif name in PARALLEL_TRANSFERS:
            # IMB's bandwidth: scale x bytes / t_max, each rank's sends and receives at once, as a
            # bidirectional row (held against both directions' ceiling)
            scale = PARALLEL_TRANSFERS[name]
            algbw = scale * size / (time_us * 1e3) if size and time_us > 0 else None
            two = processes == 2
            rows.append(row(where, "imb", version, bench="net", case=name.lower(), src=f"{a}/rank0" if a and two else
                            "rank0" if two else "world", dst=(f"{b}/rank1" if b else "rank1") if two else "",
                            op="send_recv", dtype="uint8", ranks=processes or "", nodes=len({a, b} - {""}) if two and a
                            else "", busbw_GBps=number(algbw),
                            judged=declare("algbw_GBps" if algbw else None, "ceiling" if two else "siblings"),
                            rerun=f"mpiexec -n {processes or 2} IMB-MPI1 {name} -npmin {processes or 2}"
                                  + (f" -msglog {size.bit_length() - 1}:{size.bit_length() - 1}" if size else ""),
                            items={"rank_time": "max"}, **{**common, "algbw_GBps": number(algbw), "direction": "bidir"}))
        else:
            op = COLLECTIVES[name]
            busbw = algbw * BUSBW[op](processes) if algbw and processes else None
            # IMB runs a block of N processes on MPI_COMM_WORLD's first N: their nodes, where the tags name each rank's
            members = hosts[:processes] if tagged and processes and len(hosts) >= processes else hosts
            rows.append(row(where, "imb", version, bench="coll", case="out_of_place", src=nodes.communicator(members),
                            op=op, dtype="float32", ranks=processes or "", nodes=len(set(members) - {""}) or "",
                            busbw_GBps=number(busbw),
                            judged=declare("busbw_GBps" if busbw else None),
                            rerun=f"mpiexec -n {processes or 'N'} IMB-MPI1 {name} -npmin {processes or 2}"
                                  + (f" -msglog {size.bit_length() - 1}:{size.bit_length() - 1}" if size else ""),
                            items={"rank_time": "avg"}, **common))
    aside.refuse(rows, "line of an IMB table (#bytes #repetitions, then its times)")
    notes += aside.notes(rows)
    if not rows:
        notes.append(f"{path}: no table of PingPong or a collective IMB wirebench imports: nothing was measured")
    elif not hosts:
        notes.append(nodes.unnamed_note(path, "IMB-MPI1", rows))
    return rows, notes


IMPORTER = Importer(tool="imb", known_by="its '# Benchmarking ...' blocks", looks_like=looks_like,
                    parse=lambda path, text, o: parse(path, text, o.hosts, o.link_class))
