"""perftest's text output (ib_write_bw, ib_read_bw, ib_send_bw; ib_write_lat, ib_send_lat,
ib_read_lat): a test title (`RDMA_Write BW Test`), `Link type : IB|Ethernet` and `Device : mlx5_0`
in its settings, then a table under ` #bytes #iterations ...`. perftest's MB/sec are 2^20 bytes/s
(its help says MiB); where the MsgRate[Mpps] column is printed the bandwidth is bytes x messages a
second, which needs no unit. The _lat tools' t_typical: half a round trip for write and send (a
ping-pong), a whole one for read."""
import re

from ..contracts.input_files import InputError
from .lines import as_paste, cut_note, cut_row
from . import nodes
from ..report.judging import declare, small_message_latency
from .rows import number, row
from .importer import Importer

TITLE = re.compile(r"^\s*(RDMA_Write|RDMA_Read|Send|Atomic\S*) (?:(Bidirectional) )?(?:Post List )?(BW|Latency) Test\s*$")
LINK = re.compile(r"Link type\s*:\s*(\w+)")
DEVICE = re.compile(r"Device\s*:\s*(\S+)")
VERSION = re.compile(r"^\s*(?:perftest )?[Vv]ersion\s*:?\s*(\d[\w.]*)")
HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+(.*)$")
DATA = re.compile(r"^\s*(\d+)\s+(\d+)\s+(.*)$")
WARNINGS = ("Conflicting CPU frequency", "CPU Frequency is not max", "Requested mtu is higher")
TOOLS = {("RDMA_Write", "BW"): "ib_write_bw", ("RDMA_Read", "BW"): "ib_read_bw", ("Send", "BW"): "ib_send_bw",
         ("RDMA_Write", "Latency"): "ib_write_lat", ("RDMA_Read", "Latency"): "ib_read_lat",
         ("Send", "Latency"): "ib_send_lat"}


def looks_like(paste):
    return any(TITLE.match(line.text) for line in paste.lines) and "#bytes" in paste.text


def _columns(header):
    """Column names of perftest's header: 'BW peak[MB/sec]', '99% percentile[usec]' are one each."""
    return re.findall(r"[^\s\[]+(?: [^\s\[]+)*\[[^\]]+\]|\S+", header)


# perftest's options that take a value (perftest's README): the server's name is the positional after them
VALUED = {"-d", "-i", "-s", "-n", "-D", "-p", "-m", "-x", "-q", "-u", "-t", "-I", "-g", "-M", "-c", "-l", "-L", "-S",
          "-T", "-w", "-W", "-r", "-E", "-j", "-k", "-K", "-y", "-P", "-v", "-Q"}
PERFTEST = re.compile(r"(?:^|[\s/])ib_\w+_(?:bw|lat)\b")


def client_and_server(paste):
    """(client, server) the pasted command names: the host of the shell prompt it was typed at
    (`root@node1:~# ...`) and the server it connects to (its positional argument, `ib_write_bw -d
    mlx5_0 node2`); '' for what it does not name. A server's own run has no server argument."""
    for number, command in paste.commands:
        if not PERFTEST.search(command):
            continue
        words = command.split()
        tail = words[words.index(next(w for w in words if PERFTEST.search(" " + w))) + 1:]
        server = tail[-1] if tail and not tail[-1].startswith("-") and (len(tail) < 2 or tail[-2] not in VALUED) else ""
        client = next((host for at, host in paste.prompts if at == number), "")
        return (client, server) if server else ("", "")
    return "", ""


def parse(path, source, hosts=("", ""), link_class=""):
    title = tool = link = device = version = columns = None
    bidirectional = False
    rows, notes = [], []
    paste = as_paste(source)
    named = client_and_server(paste)
    hosts = nodes.by_rank(path, [h for h in named if h] if all(named) else [], hosts, notes,
                          "its prompt and command line")
    if not all(named) and named[1] and not [h for h in hosts if h]:
        hosts = ["", named[1]]  # the server alone: the client's node is not named
    for line in paste.lines:
        where = f"{path}:{line.number}"
        if any(w in line.text for w in WARNINGS):
            continue
        if TITLE.match(line.text):
            verb, both, kind = TITLE.match(line.text).groups()
            title, bidirectional = (verb, kind), bool(both)
            tool, columns = TOOLS.get(title), None
            continue
        for pattern, name in ((LINK, "link"), (DEVICE, "device")):
            found = pattern.search(line.text)
            if found and title:
                if name == "link":
                    link = found.group(1)
                else:
                    device = found.group(1)
        if VERSION.match(line.text):
            version = VERSION.match(line.text).group(1)
        if HEADER.match(line.text):
            columns = _columns(HEADER.match(line.text).group(1))
            continue
        if columns is None or not line.text.strip() or line.text.strip().startswith("-"):
            continue
        data = DATA.match(line.text)
        figures = data.group(3).split() if data else []
        if data is None or len(figures) < 1:
            if line.last_and_cut:
                notes.append(cut_note(where))
                continue
            columns = None  # the table ended (perftest prints its settings and tables again per run)
            continue
        if line.last_and_cut:
            notes.append(cut_note(where))
            if rows:
                rows.append(cut_row(rows[-1], data.group(1), where))
            continue
        if tool is None:
            raise InputError(f"{where}: a perftest table without the test's title above it (RDMA_Write BW Test ...)")
        values = dict(zip(columns, figures))
        rows.append(_row(where, version, title, tool, int(data.group(1)), int(data.group(2)), values, hosts,
                         link_class or {"IB": "ib", "Ethernet": "roce"}.get(link or "", ""), device, bidirectional))
    if not rows:
        notes.append(f"{path}: no perftest table: nothing was measured")
    elif not all((list(hosts) + ["", ""])[:2]):
        notes.append(f"{path}: perftest prints no host and neither a pasted prompt and command line (user@CLIENT:~$ "
                     "ib_write_bw ... SERVER) nor --hosts CLIENT,SERVER name both ends: the unnamed end is 'client' or "
                     "'server', no node")
    return rows, notes


def _row(where, version, title, tool, size, iterations, values, hosts, link_class, device, bidirectional=False):
    op, kind = title
    a, b = (list(hosts) + ["", ""])[:2]
    # each end a rank of its node (schema/endpoints.csv): the client rank 0, the server rank 1
    common = dict(bench="net", backend="rdma", link_class=link_class, src=f"{a}/rank0" if a else "client",
                  dst=f"{b}/rank1" if b else "server",
                  op=op.lower(), dtype="uint8", bytes=size, ranks=2, nodes=len({a, b} - {""}) or "", iters=iterations,
                  items={"device": device} if device else {}, rerun=f"{tool} -s {size}" + (f" -d {device}" if device else "")
                  + (" -b" if bidirectional else "") + (f" {b}" if b else " SERVER"))
    if kind == "BW":
        rate = values.get("MsgRate[Mpps]")
        try:
            GBps = size * float(rate) * 1e6 / 1e9 if rate else float(values["BW average[MB/sec]"]) * 2 ** 20 / 1e9
        except (KeyError, ValueError):
            raise InputError(f"{where}: no BW average[MB/sec] in perftest's line") from None
        # -b: perftest's figures are both directions' sum, as wb-net's and osu_bibw's bidir rows
        time_us = size * (2 if bidirectional else 1) / (GBps * 1e3) if GBps > 0 else None
        return row(where, "perftest", version, case="bidir_bw" if bidirectional else "stream_bw",
                   direction="bidir" if bidirectional else "uni", time_us=number(time_us),
                   algbw_GBps=number(GBps), busbw_GBps=number(GBps),
                   judged=declare("algbw_GBps" if GBps > 0 else None), **common)
    try:
        time_us = float(values.get("t_typical[usec]") or values["t_avg[usec]"])
    except (KeyError, ValueError):
        raise InputError(f"{where}: no t_typical[usec] in perftest's line") from None
    judged = declare(latency=small_message_latency(size, half_round_trip=op != "RDMA_Read"))  # ib_read_lat: a whole round trip
    return row(where, "perftest", version, case="pingpong" if op != "RDMA_Read" else "read_latency", direction="uni",
               time_us=number(time_us), judged=judged, **common)


# --out_json (--out_json_file=F; perftest 4.5-0.20 on): one object per run, of the last size it
# measured (perftest rewrites the file for each size): {"test_info": {"test": "RDMA_Write_BW_Test",
# "Device", "Link_type", ...}, "results": {"MsgSize", "n_iterations", "BW_peak", "BW_average",
# "MsgRate"} or, for latency, {"t_min", "t_max", "t_typical", "t_avg", ...}}.
JSON_TEST = re.compile(r"^(RDMA_Write|RDMA_Read|Send|Atomic)(?:_imm)?_(?:\w+?_)?(Bidirectional_)?(?:Post_List_)?"
                       r"(BW|Latency)_")
JSON_COLUMNS = {"MsgRate": "MsgRate[Mpps]", "BW_average": "BW average[MB/sec]", "t_typical": "t_typical[usec]",
                "t_avg": "t_avg[usec]"}


def looks_like_json(doc):
    return isinstance(doc, dict) and isinstance(doc.get("test_info"), dict) and "results" in doc


def parse_json(path, doc, hosts=("", ""), link_class=""):
    info, results = doc["test_info"], doc.get("results")
    test = JSON_TEST.match(str(info.get("test", "")))
    if test is None or (test.group(1), test.group(3)) not in TOOLS:
        raise InputError(f"{path}:1: perftest's test {info.get('test')!r} is not one wirebench imports "
                         "(RDMA_Write, RDMA_Read, Send; BW or Latency)")
    if not isinstance(results, dict) or "MsgSize" not in results:
        raise InputError(f"{path}:1: perftest's results hold no MsgSize (perftest --output=bandwidth or latency writes "
                         "the figure alone): run without --output")
    title = (test.group(1), test.group(3))
    values = {JSON_COLUMNS.get(k, k): str(v) for k, v in results.items()}
    link = info.get("Link_type", "")
    return [_row(f"{path}:results", None, title, TOOLS[title], int(results["MsgSize"]),
                 int(results.get("n_iterations") or 0), values, hosts,
                 link_class or {"IB": "ib", "Ethernet": "roce"}.get(link, ""), info.get("Device"),
                 bool(test.group(2)))], []


IMPORTER = Importer(
    tool="perftest", known_by="its 'RDMA_Write BW Test' (...) title", looks_like=looks_like,
    parse=lambda path, text, o: parse(path, text, o.hosts, o.link_class), looks_like_json=looks_like_json,
    parse_json=lambda path, doc, o, cut: parse_json(path, doc, o.hosts, o.link_class))
