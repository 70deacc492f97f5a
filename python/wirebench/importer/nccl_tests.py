"""nccl-tests' text output (all_reduce_perf and the other *_perf binaries) as people paste it: the
header's ranks and hosts, then a line per size with the out-of-place and in-place columns (time,
algbw, busbw, #wrong), found among whatever else the paste holds (lines.py): the command line, a
shell prompt, ssh's warnings, NCCL's INFO lines, the header with its `#` lost to Markdown, rows of
versions before 2.11 without the root column. The collective: nccl-tests 2.16 on print their
binary; else the file's name (all_reduce_perf.txt), the command line pasted with it, or --op."""
import re

from ..contracts.input_files import InputError
from .. import collectives
from ..report.extra import encode_items, parse as parse_items
from ..report.judging import declare
from .lines import Aside, as_paste, cut_note, cut_row
from .paste import NCCL_PREFIX, NCCL_SETTING, NCCL_SETTING_SAID
from .rows import number, row
from .importer import Importer

OPS = collectives.NAMES
DTYPES = {"float": "float32", "half": "float16", "double": "float64", "bfloat16": "bfloat16", "int8": "int8",
          "uint8": "uint8", "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64",
          "int": "int32", "char": "int8"}
DATA = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+(-?\d+)((?:\s+\S+){4,})\s*$")
# before 2.11 (NVIDIA/nccl#583's paste): no root column; #wrong printed as 0e+00
DATA_NO_ROOT = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\w+)\s+(\w+)((?:\s+[\d.e+-]+|\s+N/A){4,})\s*$")
# `#  Rank  0 Group  0 Pid 3740409 on fengyun416 device  0 [0x01] NVIDIA RTX A6000`: rank, pid, host,
# device and (group 5) the one byte of the PCI bus id nccl-tests prints; the NCCL diagnosis reads it too
RANK = re.compile(r"^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
                  r"(?:\s+\[(0x[0-9a-fA-F]+)\])?")
VERSION = re.compile(r"nccl-tests version (\S+)(?:.*nccl-library=(\d+))?")
COUNTS = re.compile(r"nThread (\d+) nGpus (\d+)")  # threads a process, GPUs a thread (-t, -g)
# nccl-tests 2.16 on name their binary, at the start and the end (a paste from the table on keeps the end)
PROGRAM = re.compile(r"^#\s*Collective test (?:starting|concluded):\s*(\S+)")
# nccl-tests' own header and footer lines, with or without their `#`
HEADER = re.compile(r"^#|^\s*(nThread\s|Using devices|Rank\s+\d+|out-of-place|size\s+count|\(B\)|Avg bus bandwidth|"
                    r"Out of bounds|Blocking Enabled|Collective test|nccl-tests version|Device\s+\d+\s+\[)")
COMMAND_OP = re.compile(r"\b(\w+?)_perf(?:_mpi)?\b")
# NCCL's init (or destroy) line of a rank: `ncclCommInitRank comm 0x.. rank 1 nranks 2 cudaDev 0 ...` (2.19
# on), `comm 0x.. rank 15 nranks 64 cudaDev 0 nvmlDev 0 - Init COMPLETE` before it, `... - Destroy COMPLETE`
NCCL_RANK = re.compile(r"\brank (\d+) nranks (\d+) cudaDev \d+")


# the table's column header, where a paste starts at the table (its `#` lost to Markdown or not)
COLUMNS = re.compile(r"^#?\s*size\s+count\s+type\s+redop\b", re.M)


def looks_like(paste):
    """The header's first line, also of a run that died before its table, or the table's column
    header where a paste starts there (NVIDIA/nccl-tests#176); `#` may be lost to Markdown."""
    return bool(re.search(r"nThread \d+ nGpus \d+", paste.text) or COLUMNS.search(paste.text))


def op_from(name, given):
    """The collective: --op's (any tool's spelling), else the one a binary's or file's name holds."""
    if given:
        return collectives.canonical(given) or given
    return collectives.in_name(name)


def nccl_version(code):
    """NCCL's version code (22005 = 2.20.5; before 2.9, 2704 = 2.7.4) as NCCL writes it."""
    if not code:
        return None
    code = int(code)
    return f"{code // 10000}.{code // 100 % 100}.{code % 100}" if code >= 10000 else \
        f"{code // 1000}.{code // 100 % 10}.{code % 100}"


def placement_row(where, version, op, launch, size, dtype, redop, root, placement, figures, wrong, link_class,
                  nccl=None, command=None):
    """One placement's row (out_of_place, in_place) of one size: figures are (time us, algbw,
    busbw), None where nccl-tests printed N/A; `launch` the run's ranks, nodes and processes."""
    items = {}
    if redop != "none":
        items["redop"] = redop
    if root >= 0:
        items["root"] = str(root)
    if nccl:
        items["nccl_version"] = nccl
    if command:
        items["command_line"] = command
    n = launch.ranks
    fields = dict(bench="coll", case=placement, backend="nccl", link_class=link_class, src=launch.communicator(),
                  direction="uni", op=op, dtype=DTYPES.get(dtype, dtype), bytes=size, ranks=n,
                  nodes=max(len(launch.hosts), 1) if n is not None else (len(launch.hosts) or None),
                  time_us=number(figures[0]), algbw_GBps=number(figures[1]), busbw_GBps=number(figures[2]), errors=wrong, items=items,
                  judged=declare("busbw_GBps" if size > 0 else None),
                  rerun=launch.rerun(f"{collectives.NCCL_TESTS_BINARY.get(op, op)}_perf -b {size} -e {size} -d {dtype}"
                                     f"{' -o ' + redop if redop != 'none' else ''}{' -r ' + str(root) if root >= 0 else ''}"))
    if n == 1:
        fields.update(status="SKIP", reason="one GPU: nccl-tests measured no communication between GPUs")
    elif None in figures:
        fields.update(status="SKIP", reason="nccl-tests printed N/A for this size")
    return row(where, "nccl-tests", version, **fields)


class Launch:
    """How the run was started, as its output shows it: its ranks' nodes in rank order (the Rank
    lines, or --hosts where it prints none), its processes (a rank's host and pid: -g G puts G ranks
    in one process) and nccl-tests' -t / -g. Its rerun starts as many processes, as many a node."""

    def __init__(self, ranks=None, threads=1, gpus=1, hosts=(), banner=True):
        ranks = ranks or {}  # {rank: (host, pid)}
        if not banner and not ranks:  # a paste from the table on: how many ranks ran is not said
            self.ranks = self.processes = None
            self.hosts, self.threads, self.gpus = list(hosts), threads, gpus
            return
        self.ranks = max(len(ranks), 1)
        self.hosts = [h for h in dict.fromkeys(host for _, (host, _) in sorted(ranks.items())) if h] or list(hosts)
        self.processes = len({started for started in ranks.values()}) or max(self.ranks // max(threads * gpus, 1), 1)
        self.threads, self.gpus = threads, gpus

    def communicator(self):
        """The row's src: the communicator's nodes (schema/endpoints.csv: `dgx01`, `dgx01,dgx02`), or
        `world` where the output names none."""
        return ",".join(self.hosts) or "world"

    def rerun(self, tool):
        per_node = (f" -N {self.processes // len(self.hosts)}"
                    if len(self.hosts) > 1 and self.processes % len(self.hosts) == 0 else "")
        counts = (f" -g {self.gpus}" if self.gpus > 1 else "") + (f" -t {self.threads}" if self.threads > 1 else "")
        return f"mpirun -np {self.processes or 'N'}{per_node} {tool}{counts}"


def parse(path, source, op=None, link_class="", hosts=()):
    """(rows, notes) of a Paste (or a text): the rows of results.csv, and sentences about the file
    (cut, nothing measured, lines left aside, where the collective came from, --hosts against the
    Rank lines)."""
    paste = as_paste(source)
    notes = []
    program = next((PROGRAM.match(l.text).group(1) for l in paste.lines if PROGRAM.match(l.text)), None)
    op = op_from(program or path.name, op)
    if op is None:  # the command line pasted with the table names the binary
        for number_, command in paste.commands:
            found = COMMAND_OP.search(command)
            op = op_from(found.group(0), None) if found else None
            if op:
                notes.append(f"{path}:{number_}: the collective, {op}, from the command line pasted with the table")
                break
    op_unknown = op is None
    op = op or "all_reduce"  # for now: the table's columns decide below, or the file is refused
    version, nccl, ranks, rows, width = None, paste.nccl_version(), {}, [], 4
    threads, gpus, launch, banner = 1, 1, None, False
    aside, starts, has_root, shapes = Aside(path, "nccl-tests"), {}, True, []
    for line in paste.lines:
        where = f"{path}:{line.number}"
        if HEADER.match(line.text):
            if re.search(r"\bsize\s+count\s+type\s+redop\b", line.text):
                has_root = "root" in line.text  # before 2.11: no root column (a large time reads as one)
            found = VERSION.search(line.text)
            if found:
                version, nccl = found.group(1), nccl_version(found.group(2)) or nccl
            found = COUNTS.search(line.text)
            if found:
                threads, gpus, banner = int(found.group(1)), int(found.group(2)), True
            found = RANK.match(line.text.lstrip("# "))
            if found:
                rank, pid, host, device = int(found.group(1)), found.group(2), found.group(3), int(found.group(4))
                starts.setdefault(rank, set()).add((host, pid))
                ranks[rank] = (host, pid)
            if "i_min" in line.text:  # -I 1: each placement adds i_min i_max i_p99 i_cv%
                width = 8
            continue
        if not line.text.strip():
            continue
        found = DATA.match(line.text) if has_root else None
        if found:
            size, count, dtype, redop, root, rest = found.groups()
        else:
            old = DATA_NO_ROOT.match(line.text)
            if old is None:
                if line.last_and_cut and rows:  # its sweep did not finish: an ERROR at its size
                    notes.append(cut_note(where))
                    rows += _cut_rows(rows, line.text, where)
                else:
                    aside.add(line)
                continue
            (size, count, dtype, redop, rest), root = old.groups(), "-1"
        if line.last_and_cut:
            notes.append(cut_note(where))
            rows += _cut_rows(rows, line.text, where)
            continue
        columns = rest.split()
        shapes.append((int(size), int(count), dtype, redop, int(root), (columns[:4], columns[width:width + 4])))
        if len(columns) not in (width, 2 * width, 2 * width + 2):  # + 2: -T's timestamp, a date and a time
            raise InputError(f"{where}: {len(columns)} figures after the root; nccl-tests prints {width} per placement")
        if launch is None:  # the Rank lines are all above the table
            said_by = "its Rank lines"
            if not banner and not ranks:  # a paste from the table on: NCCL's lines in it may say the ranks
                ranks = ranks_from_nccl(paste)
                processes = len(set(ranks.values()))
                if ranks and len(ranks) % processes == 0:
                    gpus, said_by = len(ranks) // processes, "NCCL's lines"
            launch = Launch(ranks, threads, gpus, named_hosts(path, [h for h, _ in ranks.values()], hosts, notes,
                                                              said_by), banner)
            if launch.ranks is None:
                notes.append(f"{where}: the paste starts at nccl-tests' table, without its header (nThread ..., the "
                             "Rank lines): how many ranks ran on which nodes is not said; the rerun says -np N")
            elif not banner:
                notes.append(f"{where}: the paste starts at nccl-tests' table, without its header: its {launch.ranks} "
                             f"rank(s) on {', '.join(launch.hosts)} from NCCL's lines in it (their host:pid and "
                             "`rank R nranks N`)")
        for placement, (time_us, algbw, busbw, wrong) in zip(("out_of_place", "in_place"),
                                                              (columns[i:i + 4] for i in range(0, min(len(columns), 2 * width), width))):
            try:
                figures = [None if v == "N/A" else float(v) for v in (time_us, algbw, busbw)]
            except ValueError:
                raise InputError(f"{where}: '{time_us} {algbw} {busbw}' are not nccl-tests' figures") from None
            rows.append(placement_row(where, version, op, launch, int(size), dtype, redop, int(root), placement,
                                      figures, "" if wrong == "N/A" else wrong, link_class, nccl))
    settings = nccl_settings([c for _, c in paste.commands] + [l.text for l in paste.lines], [l.text for l in paste.nccl])
    if settings and rows:
        apply_settings(rows, settings)
        notes.append(f"{path}: " + ran_with(settings, "its command line, an export or NCCL's log"))
    if op_unknown:
        op, why = _op_from_columns(shapes, max(len(ranks), 1))
        if op is None:
            raise InputError(f"{path}:1: nccl-tests does not print its collective, and neither the file's name, a command "
                             f"line in it nor its columns say it ({why}): give --op ({', '.join(OPS)}) or name the "
                             "file after the binary (all_reduce_perf.txt ...)")
        notes.append(f"{path}: the collective, {op}, from the table's columns ({why}); no command line or file name "
                     "said it")
        for r in rows:
            _rename_op(r, op)
    aside.refuse(rows, "line of nccl-tests' table (size count type redop root, then time algbw busbw #wrong per "
                       "placement)")
    notes += aside.notes(rows)
    alone = {rank: sorted(h for h, _ in started) for rank, started in starts.items() if len(started) > 1}
    if alone and rows:
        # nccl-tests built without MPI=1 and started by mpirun: every process runs the test on its own,
        # as rank 0 of a world of one, and prints its own header and table (NVIDIA/nccl-tests#107)
        hosts = alone.get(0) or next(iter(alone.values()))
        reason = (f"each process ran alone: rank 0 started {len(hosts)} times ({', '.join(hosts)}); nccl-tests was built "
                  "without MPI (make MPI=1), so the launcher started separate one-GPU tests and nothing crossed between "
                  "them")
        for r in rows:
            if r["status"] == "OK" or r["status"] == "SKIP":
                r.update(status="SKIP", reason=reason)
        notes.append(f"{path}: {reason}")
    if not rows:
        notes.append(f"{path}: no line of nccl-tests' table: nothing was measured")
    return rows, notes


# NCCL settings of the run, from a command line (mpirun -x, mpiexec -genv, srun --export, an
# `export` or a prefix) or NCCL's own `NCCL_ALGO set by environment to Ring`: every one goes into
# the rerun; those that change the path taken (wb-coll's, bench/harness/run_metadata.cpp
# path_settings_extra) also name the item, and NCCL_ALGO the expectation it is held to
# (ceilings.for_collective).
SETTING = NCCL_SETTING
PATH_SETTINGS = ("NCCL_ALGO", "NCCL_PROTO", "NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL",
                 "NCCL_IB_DISABLE")


def nccl_settings(commands=(), log_lines=()):
    """{NCCL_ALGO: Ring, ...} the commands and NCCL's log lines set; the log's, where both say."""
    found = {}
    for command in commands:
        found.update(dict(SETTING.findall(command)))
    for text in log_lines:
        match = NCCL_SETTING_SAID.search(text)
        if match and not re.search(r"\s", match.group(2)):  # a value with a space (NCCL_NET=AWS Libfabric) no -x carries
            found[match.group(1)] = match.group(2)
    return found


def ran_with(settings, said_by):
    """The note of a run's NCCL settings: each one, and what judging and the rerun make of it. Only
    NCCL_ALGO names an algorithm, whose expectation the rows are held to; the other settings of
    the path name the rows' item; every one goes into the rerun (NCCL_SOCKET_IFNAME is a setting,
    no algorithm)."""
    said = [f"judged against NCCL_ALGO={settings['NCCL_ALGO']}'s expectation"] if "NCCL_ALGO" in settings else []
    path = [k for k in sorted(settings) if k in PATH_SETTINGS and k != "NCCL_ALGO"]
    if path:
        said.append(f"{', '.join(path)} named on its rows (the path its data takes)")
    said.append("rerun with these settings")
    return (f"ran with {', '.join(f'{k}={v}' for k, v in sorted(settings.items()))} ({said_by}): "
            + ", ".join(said))


def apply_settings(rows, settings):
    """The run's NCCL settings on its rows: the path's as items (the algorithm decides the
    expectation), all of them in the rerun as `-x NAME=VALUE` (Open MPI's, which mpirun passes to
    every rank), so that it measures what was judged."""
    for r in rows:
        set_items(r, {k: v for k, v in settings.items() if k in PATH_SETTINGS})
        have = dict(re.findall(r" -x (NCCL_[A-Z0-9_]+)=(\S+)", r["rerun"]))
        exports = "".join(f" -x {k}={v}" for k, v in sorted(settings.items()) if k not in have)
        r["rerun"] = re.sub(r"^(mpirun -np \d+(?: -N \d+)?)", lambda m: m.group(1) + exports, r["rerun"], count=1)


def named_hosts(path, printed, given, notes, said_by="its Rank lines"):
    """The nodes --hosts names for a run whose output names none; where both name them, the output's
    stand: a note where --hosts says the same nodes by other names (dgx01 and dgx01.cluster), an
    InputError where they are other nodes (which ran it cannot be told)."""
    given = [h for h in given if h]
    printed = list(dict.fromkeys(printed))
    if not given or not printed:
        return given
    short = lambda host: host.split(".", 1)[0]
    if sorted(map(short, printed)) == sorted(map(short, given)):
        if sorted(printed) != sorted(given):
            notes.append(f"{path}: {said_by} name {', '.join(printed)}; --hosts {','.join(given)} names the same "
                         f"node(s): the names of {said_by.replace('its ', '')} are kept")
        return given
    raise InputError(f"{path}: {said_by} say it ran on {', '.join(printed)}, --hosts says {','.join(given)}: "
                     "give the nodes it ran on, or leave --hosts out")


def ranks_from_nccl(paste):
    """{rank: (host, pid)} of a paste without nccl-tests' Rank lines, from NCCL's own lines in it:
    each process's `host:pid:tid [dev]` prefix (a rank: its host, pid and device; -g puts several in
    one process) and the rank its init or destroy line names (`rank R nranks N cudaDev D`), the
    ranks no line names given to the processes no line names, in the order their lines come. {}
    unless they account for every rank: one N said, as many ranks shown as it says, none twice."""
    seen, sizes = {}, set()  # (host, pid, device) -> its rank, or None; in the order of their first line
    for line in paste.nccl:
        found = NCCL_PREFIX.match(line.text)
        if not found:
            continue
        said = NCCL_RANK.search(line.text)
        if said is None:
            seen.setdefault(found.groups(), None)
            continue
        sizes.add(int(said.group(2)))
        if seen.get(found.groups()) not in (None, int(said.group(1))):
            return {}  # one rank of several communicators: not nccl-tests' one
        seen[found.groups()] = int(said.group(1))
    named = [rank for rank in seen.values() if rank is not None]
    if len(sizes) != 1 or len(seen) != next(iter(sizes)) or len(set(named)) != len(named) or \
            any(rank >= len(seen) for rank in named):
        return {}
    free = iter(sorted(set(range(len(seen))) - set(named)))
    return {(next(free) if rank is None else rank): (host, pid) for (host, pid, _), rank in seen.items()}


ELEMENT_BYTES = {"int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "float32": 4, "int32": 4, "uint32": 4,
                 "float64": 8, "int64": 8, "uint64": 8}


def _op_from_columns(shapes, ranks):
    """(op, why): the collective a table without a name can only be, else (None, why not). shapes:
    (size, count, dtype, redop, root, (out-of-place, in-place) figures) of each line. nccl-tests (src/*.cu) prints a redop
    and root -1 with the whole size as each rank's count for all_reduce and for sendrecv alike
    (reduce_scatter's count is the size over the ranks; all_gather and alltoall print redop none;
    reduce and broadcast a root); sendrecv checks no in-place result (its #wrong N/A there) and its
    busbw is its algbw, all_reduce's algbw x 2(n-1)/n."""
    if not shapes:
        return None, "no line of its table"
    reduction = all(redop != "none" and root == -1 for _, _, _, redop, root, _ in shapes)
    whole = all(count * ELEMENT_BYTES.get(DTYPES.get(dtype, dtype), 0) == size for size, count, dtype, _, _, _ in shapes)
    if not (reduction and whole):
        return None, "only a reduction without a root whose count is the whole size can be read from the columns"
    placed = [p for *_, p in shapes]  # (out-of-place, in-place): time algbw busbw #wrong each
    checked = [in_place for out, in_place in placed if len(in_place) == 4 and out[3] != "N/A"]
    if checked and all(in_place[3] == "N/A" for in_place in checked):
        return "send_recv", "a reduction's columns whose in-place results nccl-tests does not check: sendrecv's"
    if checked and all(in_place[3] != "N/A" for in_place in checked):
        return "all_reduce", "a reduction without a root, each rank's count the whole size, its in-place results checked"
    ratios = sorted(float(out[2]) / float(out[1]) for out, _ in placed
                    if "N/A" not in out[1:3] and float(out[1]) >= 1.0)
    if ranks > 2 and ratios:
        ratio, ring = ratios[len(ratios) // 2], 2 * (ranks - 1) / ranks
        if abs(ratio - ring) < 0.02 * ring:
            return "all_reduce", f"busbw = algbw x 2(n-1)/n on {ranks} ranks: all_reduce's"
        if abs(ratio - 1) < 0.02:
            return "send_recv", "busbw = algbw: sendrecv's"
    return None, (f"all_reduce and sendrecv print the same columns on {ranks} rank(s) when results are not checked"
                  if ranks <= 2 else "its busbw is neither all_reduce's nor sendrecv's share of algbw")


def set_items(r, items):
    """Adds `items` to a row's extra (those it has stay)."""
    have = parse_items(r["extra"])
    r["extra"] = encode_items(have | {k: v for k, v in items.items() if k not in have})


def _rename_op(r, op):
    r["op"] = op
    r["rerun"] = re.sub(r"\b\w+_perf\b", f"{collectives.NCCL_TESTS_BINARY.get(op, op)}_perf", r["rerun"])


def _cut_rows(rows, text, where):
    """The ERROR rows (each placement) of a size whose line the file ends in."""
    size = re.match(r"\s*(\d+)\s", text)
    if not (size and rows):
        return []
    return [{**cut_row(next((r for r in reversed(rows) if r["case"] == placement), rows[-1]), size.group(1), where),
             "case": placement} for placement in ("out_of_place", "in_place")]


# nccl-tests' -J FILE.json (2.17 on, JSON format version 3): {version, args, nccl_version, config:
# {..., devices: [{rank, hostname, device, ...}]}, results: [{size, count, type, redop, root,
# out_of_place: {time, alg_bw, bus_bw, nwrong}, in_place: {...}}], ...}. A figure nccl-tests could
# not compute is "nan"; a run killed part way leaves the file without its closing brackets.
JSON_VERSIONS = (3,)


def looks_like_json(doc):
    return isinstance(doc, dict) and isinstance(doc.get("results"), list) and "config" in doc


def parse_json(path, doc, op=None, link_class="", cut=False, hosts=()):
    """(rows, notes) of nccl-tests' -J output; `cut`: the file ended before its closing brackets
    (partial_json read what was whole)."""
    if doc.get("version") not in JSON_VERSIONS:
        raise InputError(f"{path}:1: nccl-tests JSON version {doc.get('version')!r}; wirebench import reads version "
                         f"{', '.join(map(str, JSON_VERSIONS))}")
    args = doc.get("args") or []
    program = str(args[0]).rsplit("/", 1)[-1] if args else None
    op = op_from(program or path.name, op)
    if op is None:
        raise InputError(f"{path}:1: the JSON's args do not name the binary (all_reduce_perf ...): give --op "
                         f"({', '.join(OPS)})")
    devices = (doc.get("config") or {}).get("devices") or []
    rows, notes = [], []
    ranks = {d.get("rank", index): (str(d.get("hostname", "")), str(d.get("pid", index)))
             for index, d in enumerate(devices) if isinstance(d, dict)}
    config = doc.get("config") or {}
    counts = [config.get(k) if isinstance(config.get(k), int) and config.get(k) > 0 else 1 for k in ("nthreads", "ngpus")]
    launch = Launch(ranks, *counts, named_hosts(path, [h for h, _ in ranks.values()], hosts, notes))
    nccl = nccl_version(doc.get("nccl_version"))
    results = doc["results"]
    if cut and results and isinstance(results[-1], dict) and "actual_iterations" not in results[-1]:
        results = results[:-1]  # its last result was being written: not whole
    for index, result in enumerate(results):
        where = f"{path}:results[{index}]"
        if not isinstance(result, dict) or not isinstance(result.get("size"), int):
            raise InputError(f"{where}: not a result of nccl-tests (size, type, redop, out_of_place, in_place)")
        for placement in ("out_of_place", "in_place"):
            figures = result.get(placement)
            if figures is None:  # nccl-tests writes null where it ran only in place
                continue
            values = [figures.get("cpu_time", figures.get("time")), figures.get("alg_bw"), figures.get("bus_bw")]
            values = [None if v in (None, "nan") else float(v) for v in values]
            wrong = figures.get("nwrong")
            rows.append(placement_row(where, None, op, launch, result["size"], str(result.get("type", "")),
                                      str(result.get("redop", "none")), int(str(result.get("root", "-1")).strip()),
                                      placement, values, "" if wrong is None else f"{float(wrong):g}", link_class,
                                      nccl, " ".join(map(str, args)) or None))
    if cut:
        notes.append(f"{path}: the JSON ends before its closing brackets (cut short); its {len(results)} whole "
                     "result(s) are kept")
        size = max((int(r["bytes"]) for r in rows), default=0)
        meant = (doc.get("config") or {}).get("maximum_bytes")
        if rows and isinstance(meant, int) and meant > size:
            # an ERROR at the largest size the sweep was meant to reach: no smaller size stands for it
            for placement in ("out_of_place", "in_place"):
                last = next((r for r in reversed(rows) if r["case"] == placement), None)
                if last is not None:
                    rows.append({**last, "bytes": str(meant), "time_us": "", "algbw_GBps": "", "busbw_GBps": "",
                                 "errors": "", "status": "ERROR", "reason": f"{path}: the JSON ends after the "
                                 f"{size}-byte result (cut short); the sweep was to reach {meant} bytes"})
    if not rows:
        notes.append(f"{path}: no result in nccl-tests' JSON: nothing was measured")
    return rows, notes


IMPORTER = Importer(
    tool="nccl-tests", known_by="its '# nThread' header",
    looks_like=looks_like, parse=lambda path, text, o: parse(path, text, o.op, o.link_class, o.hosts),
    looks_like_json=looks_like_json,
    parse_json=lambda path, doc, o, cut: parse_json(path, doc, o.op, o.link_class, cut, o.hosts), reads_cut_json=True)
