"""Reader of NCCL_DEBUG=INFO logs: NCCL's INFO and WARN lines (NCCL's `host:pid:tid [dev]` prefix,
the source location NCCL prints before `NCCL WARN`), wherever they sit in a line (after a
timestamp, mpirun --tag-output's `[1,0]<stdout>:`, srun -l's `0: `: importer/lines.py takes the
launchers' tags off), and every other line of the file, kept for the error finder (errors.py):
nccl-tests', PyTorch's and CUDA's errors carry no NCCL prefix. From the INFO lines: the transport
of every channel line (P2P over NVLink or PCIe, SHM, NET/IB with or without GPUDirect RDMA,
NET/Socket), the network NCCL chose, its HCAs, rings and trees, in the new (`Channel 00/0 : 2[2] ->
3[3] via ...`) and old (`Ring 00 : 3[3] -> 2[2] via ...`, bus ids in brackets) formats.

Repeated lines fold before anything is read (a 50 MB log of one channel line printed 680,894 times
is its distinct lines): each line is read once, at its first place, with the count of its repeats."""
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..contracts.input_files import InputError, readable_file
from ..importer import lines as paste_lines
from ..importer.paste import numbered_lines
from . import errors, nccl_tests
from .error_lines import LAST_ERROR, read_alone

# [anything before] host:pid:tid [dev] [file.cc:line] NCCL INFO|WARN message
PREFIX = re.compile(r"(?:^|[\s>\]:])([^:\s\[\]<>]+):(\d+):(\d+) \[(\d+)\] (?:(\S+:\d+) )?NCCL (INFO|WARN) (.*)$")
# NCCL's lines as some pastes have them: the `host:pid:tid` lost, `[dev]` alone (a launcher's `[3]`
# that importer/lines.py takes off), or the location alone: `include/shm.h:28 NCCL WARN ...`
LOOSE = re.compile(r"(?:^|[\s>\]:])(?:\[(\d+)\] )?(?:([\w./-]+\.(?:cc|cu|cpp|h):\d+) )?NCCL (INFO|WARN) (.*)$")
# NCCL before 2.3 printed `WARN` without `NCCL`, after its source location: `misc/ibvwrap.cu:61 WARN ...`
OLD_WARN = re.compile(r"^(?:([^:\s\[\]<>]+):(\d+):\d+ \[(\d+)\] )?([\w./-]+\.(?:cc|cu|cpp|h):\d+) WARN (.*)$")
# NCCL 2.0-2.2 (released as binaries only: the repository's history goes from v1.3.4 to v2.3.5, whose debug.h
# added `NCCL `) printed INFO after the prefix without `NCCL`: `learngpu060:3728589:3730445 [2] INFO Ring 00 : 2[2] ->
# 3[3] via P2P/IPC` (NVIDIA/nccl#187). The whole line is the prefix and INFO: a program's own `INFO` is not NCCL's.
OLD_INFO = re.compile(r"^([^:\s\[\]<>]+):(\d+):(\d+) \[(\d+)\] INFO (.*)$")
# NCCL 1.x (src/core.cu's WARN macro) printed `WARN` first, then its source location: `WARN src/core.cu:225
# failed to allocate 2101248 byte device buffer` (NVIDIA/nccl#33)
NCCL1_WARN = re.compile(r"^WARN ([\w./-]+\.(?:cc|cu|cpp|h):\d+) (.*)$")
# NCCL's text pasted without its prefix and without `NCCL`: `WARN NET/IB : Got completion from peer ...`, `INFO
# NET/Socket : Using [0]eth0:10.0.0.1<0>`, a chain's `INFO transport/net.cc:592 -> 2`: the line starts with NCCL's level
# word and one of its subsystems' tags (strict: another tool's `WARN:` or `INFO 01-19 03:55:24 ...` is not NCCL's, nor
# a logger's `2019-02-11 10:01:02,345 INFO Ring 00 : ...`: channel and ring lines count only with NCCL's prefix)
BARE = re.compile(r"^(INFO|WARN) ((?:NET/\w+|Bootstrap\b|Init\b|P2P\b|"
                  r"Using network\b|NCCL_[A-Z0-9_]+ set by environment\b|cudaDriverVersion\b|comm 0x|NVLS\b|"
                  r"(?:transport|misc|include|graph|proxy|plugin|device|register)/[\w./-]+|[\w-]+\.cc:\d+ -> \d).*)$")
# NCCL's last WARN as XLA (JAX, TensorFlow) quotes it in its error, from ncclGetLastError (the text of the last WARN
# NCCL printed): `NCCL operation %s failed: %s. Last NCCL warning(error) log entry (may be unrelated) '%s'.`
# (tensorflow/tensorflow third_party/xla/xla/service/gpu/runtime/nccl_api.cc, ToStatus; its allocator: `...: %s`),
# shortened in marin-community/marin#7018 to `Last NCCL warning(error): 'Bootstrap : no socket interface found'`.
# The quoted text is read as NCCL's WARN it is, without NCCL's prefix (the line's host and process are XLA's).
XLA_LAST_WARN = re.compile(r"\bLast NCCL warning\(error\)(?: log entry \(may be unrelated\))?:?\s*'([^']+)'")
# NCCL's last WARN as PyTorch quotes it in its error: ProcessGroupNCCL's getNcclErrorDetailStr appends
# `"\nLast error:\n" + ncclGetLastError(NULL)` (pytorch/pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp), so the
# line after a `Last error:` line alone is the text of the last WARN NCCL printed (`[rank0]: Bootstrap : no socket
# interface found`, EvolvingLMMs-Lab/open-r1-multimodal#7): read as that WARN, without NCCL's prefix and the
# `[rankN]:` PyTorch puts before each line. Only the next line: a flattened paste's inline `Last error: ...` is not split.
PYTORCH_RANK_TAG = re.compile(r"^\[rank\d+\]:\s*")
# NCCL 2.4's network lines name the ranks alone: `Ring 00 : 35 -> 34 [send] via NET/Socket/0` (NVIDIA/nccl#226)
CHANNEL = re.compile(r"^(Channel|Ring) (\d+)(?:/\d+)? : (\d+)(?:\[([0-9a-fA-Fx:.]+)\])? -> (\d+)(?:\[([0-9a-fA-Fx:.]+)\])?"
                     r"(?: \[(?:send|receive)\])? via (.+?)\s*$")
# a ring's rank order: `Channel 00/02 :    0   1` (2.7 on), `Ring 00 :    0   1   2` (before: NVIDIA/nccl#187's 2.2)
RING = re.compile(r"^(?:Channel (\d+)/(\d+)|Ring (\d+)) :((?:\s+\d+)+)\s*$")
TREES = re.compile(r"^Trees((?: \[\d+\] \S+)+)\s*$")
NETWORK = re.compile(r"^Using network (.+?)\s*$")
IB_LIST = re.compile(r"^NET/IB\w* : Using (.*?)(?:;|$)")  # NET/IB, NET/IBext_v8
BRACKETED = re.compile(r"\[\d+\]\s*(\S+)")
# NCCL 2.21's fused NICs: `[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_0:1/RoCE, [3] mlx5_1:1/RoCE}`
FUSED = re.compile(r"\[\d+\]\s*=\s*\{([^}]*)\}")


def ib_device_list(text):
    """NCCL's network devices in its index order (the n of a channel's NET/IB/n): `mlx5_0:1/IB`; a fused device's
    ports joined by `+` (`mlx5_2:1/RoCE+mlx5_3:1/RoCE`)."""
    if FUSED.search(text):
        return ["+".join(d.rstrip(",") for d in BRACKETED.findall(inner)) for inner in FUSED.findall(text)]
    return BRACKETED.findall(text)
NET_VIA = re.compile(r"^NET/([A-Za-z][A-Za-z0-9_]*)/(\d+)")
# NCCL's topology (NCCL_DEBUG_SUBSYS=GRAPH), graph/topo.cc's ncclTopoPrint and paths.cc's printNodePaths:
# `GPU/1B000 :GPU/1B000 (0/5000.000000/LOC) GPU/1C000 (1/40.000000/NVL) ...` (2.7-2.18: the bus id in hex) or
# `GPU/0-1b000 :GPU/0-1c000 (1/40.0/NVL) ...` (the system id before it); the dump's `GPU/1B000 (0)` (its rank)
# and the link lines under it, `+ NVL[40.0] - GPU/1C000` or to an NVSwitch, `+ NVL[480.0] - NVS/0`
DUMP_LINK = re.compile(r"NCCL INFO\s+\+ (?:NVL|C2C)\[")  # a dump's link line: its place says its GPU
TOPO_PATHS = re.compile(r"^GPU/([0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?) :(.*)$")
TOPO_PATH = re.compile(r"(\w+)/([0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?) \((\d+)/([\d.]+)/(\w+)\)")
TOPO_GPU = re.compile(r"(?:^|- )GPU/([0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?) \((\d+)\)")
TOPO_NODE = re.compile(r"(?:^|- )\w+/[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)? \(")
TOPO_NVL = re.compile(r"^\+ NVL\[[\d.]+\] - (GPU|NVS)/([0-9A-Fa-f]+(?:-[0-9A-Fa-f]+)?)")
# A paste cut right after NCCL's prefix of a line, its last (NVIDIA/nccl#529: the second host's first line is
# `NvYt-ae683c69ce53-...:84:206` and the paste ends): the prefix names a host whose lines the log had
CUT_PREFIX = re.compile(r"^([A-Za-z][\w.-]*):(\d+):(\d+)(?: \[\d+\])?$")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f]")


@dataclass
class Message:
    """An NCCL INFO or WARN line."""
    line: int
    host: str
    pid: str
    device: int
    warn: bool
    text: str          # after "NCCL INFO " / "NCCL WARN "
    location: str      # NCCL's source location before it, where printed: "transport/nvls.cc:254"
    raw: str           # the line as the file has it, the launcher's tag off
    repeats: int = 1
    quoted: bool = False  # NCCL's WARN text as a program quotes it (XLA's, PyTorch's `Last error:`): no line of NCCL's

    @property
    def rank(self):
        """The process that printed it: host:pid ("" where the line lost NCCL's prefix)."""
        return f"{self.host}:{self.pid}" if self.host else ""

    @property
    def said(self):
        return f"{self.location} {self.text}" if self.location else self.text


@dataclass
class Channel:
    line: int
    host: str
    device: int
    channel: int
    src_rank: int
    dst_rank: int
    src: str            # inside the brackets: a device index (new) or a bus id (old); "" where none (2.4's NET lines)
    dst: str
    transport: str      # P2P, SHM, NET/IB, NET/Socket, NET
    via: str            # everything after "via": "P2P/direct pointer/read", "NET/IB/0/GDRDMA"
    gdrdma: bool
    net_device: int     # n of NET/IB/<n>, else -1
    old_format: bool

    def as_json(self):
        return {"line": self.line, "host": self.host, "device": self.device, "channel": self.channel,
                "src_rank": self.src_rank, "dst_rank": self.dst_rank, "src": self.src, "dst": self.dst,
                "transport": self.transport, "via": self.via, "gdrdma": self.gdrdma, "net_device": self.net_device,
                "old_format": self.old_format}


@dataclass
class Other:
    """A line that is not NCCL's INFO/WARN: the program's, the launcher's, a traceback's."""
    line: int
    text: str
    repeats: int = 1


@dataclass
class NcclLog:
    source: str
    messages: list = field(default_factory=list)
    channels: list = field(default_factory=list)
    rings: list = field(default_factory=list)     # rank order per channel, as rank 0 prints it
    trees: list = field(default_factory=list)     # "1/-1/-1->0->-1" per tree channel
    network: str = None                           # "IB", "Socket", "AWS Libfabric", "IBext_v8"
    ib_devices: list = field(default_factory=list)  # "mlx5_0:1/IB", in NCCL's index order
    problems: list = field(default_factory=list)  # "log:7: channel line not understood: ..."
    others: list = field(default_factory=list)    # Other
    # NCCL's topology, per host: {host: {(bus, bus): "NVL"}} from the path lines (both ways), {host: {rank: bus}}
    # from the dump's GPU nodes, {host: {bus: {"GPU/bus" or "NVS/n"}}} the dump's NVLinks of each GPU
    gpu_paths: dict = field(default_factory=dict)
    gpu_ranks: dict = field(default_factory=dict)
    gpu_nvlinks: dict = field(default_factory=dict)
    dump_gpu: dict = field(default_factory=dict, repr=False)  # the dump's GPU each rank prints the links of now
    folded: int = 0                               # lines read once for their repeats
    # NCCL's bare WARNs that say nothing of this job, each (line, quote, why): diagnose.py fills it, the output says it
    explained: list = field(default_factory=list)
    cut_host: str = ""  # the host of NCCL's prefix the paste ends in, cut before the rest of its line (CUT_PREFIX)
    origins: dict = field(default_factory=dict)  # {line: node} a launcher's prefix names (Ray's ip=, pdsh's host)
    pdsh: dict = field(default_factory=dict)     # {line: host} of the lines pdsh's prefix named (a remote shell's)
    prose: list = field(default_factory=list)    # Other: the error lines of a note's prose, read where nothing else says one
    # what several rules ask of the whole log (errors.find, log_facts.settings, fixed_in_later_nccl.versions), each
    # found once: {name: ((messages, others) sizes it was found at, the answer)}; once() reads it
    kept: dict = field(default_factory=dict, repr=False, compare=False)

    def once(self, name, find):
        """find(self), found once while the log's lines stay as they are (a scan of every line, asked by several
        rules: a long log's distinct lines made that most of its diagnosis)."""
        sizes = (len(self.messages), len(self.others))
        held = self.kept.get(name)
        if held is None or held[0] != sizes:
            held = self.kept[name] = (sizes, find(self))
        return held[1]

    def first(self, pattern, warn_only=False):
        """(message, match) of the first message whose text matches, or (None, None)."""
        for m in self.messages:
            if warn_only and not m.warn:
                continue
            found = pattern.search(m.text)
            if found:
                return m, found
        return None, None

    def hosts(self):
        """The hosts NCCL's lines name (and the host of a prefix the paste was cut in: its job ran there too)."""
        return sorted({m.host for m in self.messages if m.host} | ({self.cut_host} if self.cut_host else set()))

    def nvlinked(self, host, a, b):
        """Whether NCCL's own topology of `host` puts GPUs of bus ids a and b on NVLink: the dump
        links one to the other or both to one NVSwitch (the wiring), or their path line says NVL
        (NCCL's route: with P2P off by a setting NCCL routes an NVLink pair through the CPU, PHB or
        SYS, so a path line alone never says there is no NVLink). None where it says nothing."""
        links = self.gpu_nvlinks.get(host, {})
        ends_a, ends_b = links.get(a, set()), links.get(b, set())
        if f"GPU/{b}" in ends_a or f"GPU/{a}" in ends_b or any(e.startswith("NVS/") for e in ends_a & ends_b):
            return True
        path = self.gpu_paths.get(host, {}).get((a, b))
        if path == "NVL":
            return True
        return False if (a in links and b in links) else None

    def path(self, host, a, b):
        """NCCL's route between two GPUs of `host` as its path line says it (NVL, PIX, PHB, SYS), or None."""
        return self.gpu_paths.get(host, {}).get((a, b))


def transport_of(via):
    """(transport, gdrdma, net device) of a channel's `via`."""
    gdrdma = "/GDRDMA" in via
    if via.startswith("P2P"):
        return "P2P", gdrdma, -1
    if via.startswith("SHM") or "shared memory" in via:
        return "SHM", gdrdma, -1
    found = NET_VIA.search(via)
    if found:
        device = int(found.group(2))
        if found.group(1).startswith("IB"):
            return "NET/IB", gdrdma, device
        if found.group(1) == "Socket":
            return "NET/Socket", gdrdma, device
        return "NET", gdrdma, device
    if via.startswith(("NET", "COLLNET", "CollNet")):
        return "NET", gdrdma, -1
    # a via the paste cut short (NVIDIA/nccl#1190's healthy one-host log ends in `via direct shared m`): the transport
    # its start names, never the network's (read as NET it made a one-host job's lo:127.0.0.1 one across hosts)
    return ("SHM" if "direct shared memory".startswith(via) else via.split("/")[0] or "unknown"), gdrdma, -1


def read_log(file):
    """The log of a file: an InputError naming it where it is not a readable file, is empty, is not
    text, or holds no line of NCCL's and no error line (errors.py says which count: a file without
    NCCL's lines that says an error is read, and its error lines are its findings). Its lines are read as they stream
    and decoded as every paste is (importer/paste.py): UTF-8, or UTF-16 as PowerShell's `>` writes
    it; another encoding is refused naming the line and the `iconv` that converts it. A repeated
    line is kept once with its count as it comes, so a long log of repeated lines is never held
    whole: what is held is its distinct lines."""
    file = readable_file(Path(file))
    log = _parse(numbered_lines(file), str(file))
    if log is None:
        raise InputError(f"{file}: empty: an NCCL_DEBUG=INFO log (or a job's output with NCCL's lines) was expected")
    # nccl-tests' header and nothing after it is read: the test stopped before its first size (nccl_tests.py's rule)
    if not log.messages and not nccl_tests.header(log) and not nccl_tests.results(log) and not errors.find(log) \
            and not read_alone(o.text for o in log.others):  # libibverbs' warning, NCCL's Python packages
        raise InputError(f"{file}: no line of NCCL's (`host:pid:tid [dev] NCCL INFO|WARN ...`, an NCCL or CUDA error "
                         "of nccl-tests or PyTorch, a launcher's error, nccl-tests' header or results) and no error "
                         "line: is NCCL_DEBUG=INFO set in the job?")
    return log


def parse(text, source):
    """The log of a text (its lines numbered from 1)."""
    return _parse(enumerate(text.split("\n"), 1), source) or NcclLog(source)


def _parse(numbered, source):
    """The log of (number, line) pairs, or None where no line holds text."""
    origins, pdsh, prose = {}, {}, []
    folded = _folded_lines(numbered, source, origins, pdsh, prose)
    if folded is None:
        return None
    log = NcclLog(source, origins=origins, pdsh=pdsh, prose=prose)
    after_last_error = False
    for number, line, repeats, nccl in _xla_quotes_joined(folded):
        m = _message(number, line, repeats, nccl)
        if m is None and after_last_error:
            m = Message(number, "", "", -1, True, PYTORCH_RANK_TAG.sub("", line.strip()), "", line, repeats, True)
        after_last_error = m is None and bool(LAST_ERROR.search(line))
        if m is None:
            log.others.append(Other(number, line, repeats))
            continue
        log.messages.append(m)
        if not m.warn:
            _read_info(log, m)
    _torn_hosts_mended(log)
    log.folded = sum(m.repeats - 1 for m in log.messages) + sum(o.repeats - 1 for o in log.others)
    last = log.others[-1] if log.others else None
    cut = CUT_PREFIX.match(last.text.strip()) if last and log.messages and last.line > log.messages[-1].line else None
    log.cut_host = cut.group(1) if cut else ""
    return log


def _torn_hosts_mended(log):
    """A host name torn where another process' output cut into its line (its start lost: `n0`; another line's end
    before it: `3x3207c0s25b1n0`, `x3207c0s25b1x3207c0s25b1n0`) is the host whose name it ends in or that ends in it,
    whose processes (pids) printed more and include every one of its own: argonne-lcf/alcf-nccl-tests' Polaris log,
    `n0:3804613:3804732 [1] NCCL INFO Channel 02/0 ...` among x3207c0s25b1n0:3804613's lines, read as a third host whose
    settings differed from the others'."""
    pids, count = {}, {}
    for m in log.messages:
        if m.host:
            pids.setdefault(m.host, set()).add(m.pid)
            count[m.host] = count.get(m.host, 0) + 1
    mend = {}
    for host, its in pids.items():
        whole = [h for h, theirs in pids.items() if h != host and (h.endswith(host) or host.endswith(h))
                 and its < theirs]
        if whole:
            mend[host] = max(whole, key=lambda h: count[h])
    for m in log.messages:
        m.host = mend.get(m.host, m.host)
    for ch in log.channels:
        ch.host = mend.get(ch.host, ch.host)
    for per_host in (log.gpu_paths, log.gpu_ranks, log.gpu_nvlinks):
        for torn, whole in mend.items():
            if torn in per_host:
                merged = per_host.pop(torn)
                per_host.setdefault(whole, {}).update(merged)


def _xla_quotes_joined(folded):
    """The lines, XLA's quote of NCCL's last WARN joined where a paste wrapped it (AI-Hypercomputer/xpk#492, a Markdown
    quote hard-wrapped: `... Last NCCL warning(error) log entry (may be unrelated)  'Error` / `while creating shared
    memory segment /dev/shm/nccl-TfciGV (size 31850880), error: No space` / `left on device (28)'.`): a quote opened
    and not closed on its line takes the next lines, up to 6, until one closes it, each at its first line's number."""
    out, at = [], 0
    while at < len(folded):
        number, line, repeats, nccl = folded[at]
        at += 1
        marker = line.find("Last NCCL warning")
        if marker >= 0 and line.count("'", marker) == 1:
            ahead = folded[at:at + 6]
            closing = next((k for k, item in enumerate(ahead) if "'" in item[1]), None)
            if closing is not None:
                words = [paste_lines.QUOTE.sub("", item[1]).strip() for item in ahead[:closing + 1]]
                line = " ".join([line.rstrip()] + words)
                at += closing + 1
        out.append((number, line, repeats, nccl))
    return out


def _message(number, line, repeats, nccl):
    """The NCCL line's Message, or None where the line is not NCCL's."""
    found = PREFIX.search(line) if nccl else None
    if found:
        host, pid, _, device, location, kind, message = found.groups()
        return Message(number, host, pid, int(device), kind == "WARN", message, location or "", line, repeats)
    found = LOOSE.search(line) if nccl else None
    if found:
        device, location, kind, message = found.groups()
        return Message(number, "", "", int(device) if device else -1, kind == "WARN", message, location or "", line,
                       repeats)
    found = OLD_WARN.search(line.strip()) if " WARN " in line else None
    if found:
        host, pid, device, location, message = found.groups()
        return Message(number, host or "", pid or "", int(device) if device else -1, True, message, location, line,
                       repeats)
    found = OLD_INFO.match(line.strip()) if " INFO " in line else None
    if found:
        host, pid, _, device, message = found.groups()
        return Message(number, host, pid, int(device), False, message, "", line, repeats)
    found = NCCL1_WARN.match(line.strip()) if "WARN " in line else None
    if found:
        location, message = found.groups()
        return Message(number, "", "", -1, True, message, location, line, repeats)
    found = BARE.match(line.strip()) if "WARN " in line or "INFO " in line else None
    if found:
        kind, message = found.groups()
        return Message(number, "", "", -1, kind == "WARN", message, "", line, repeats)
    found = XLA_LAST_WARN.search(line) if "Last NCCL warning" in line else None
    if found:
        return Message(number, "", "", -1, True, found.group(1).strip(), "", line, repeats, True)
    return None


def _read_info(log, m):
    message = m.text
    found = CHANNEL.match(message)
    if found:
        kind, channel, src_rank, src, dst_rank, dst, via = found.groups()
        transport, gdrdma, net_device = transport_of(via)
        log.channels.append(Channel(m.line, m.host, m.device, int(channel), int(src_rank), int(dst_rank), src or "",
                                    dst or "", transport, via, gdrdma, net_device, kind == "Ring"))
    elif (found := RING.match(message)):
        log.rings.append([int(token) for token in found.group(4).split()])
    elif (found := TREES.match(message)):
        log.trees += BRACKETED.findall(found.group(1))
    elif (found := NETWORK.search(message)):
        log.network = found.group(1)
    elif (found := IB_LIST.search(message)):
        log.ib_devices = ib_device_list(found.group(1))
    elif (found := TOPO_PATHS.match(message.strip())):
        here = log.gpu_paths.setdefault(m.host, {})
        src = bus_id(found.group(1))
        for kind, node, _, _, path in TOPO_PATH.findall(found.group(2)):
            if kind == "GPU" and bus_id(node) != src:
                here[(src, bus_id(node))] = here[(bus_id(node), src)] = path
    elif TOPO_GPU.search(message) or TOPO_NVL.match(message.strip()) or TOPO_NODE.search(message.strip()):
        _read_topology_dump(log, m, message.strip())
    elif (message.startswith("Channel") or message.startswith("Ring")) and " via " in message:
        log.problems.append(f"{log.source}:{m.line}: channel line not understood: {message}")


def bus_id(said):
    """A GPU's PCI bus id as one spelling: NCCL's topology ids (`1B000`, `0-1b000`: the system id
    before the dash) and its init lines' `busId 1b000` alike, lower case without leading zeros."""
    return said.rsplit("-", 1)[-1].lower().lstrip("0") or "0"


def _read_topology_dump(log, m, text):
    """A line of NCCL's topology dump: a GPU node (`GPU/1B000 (0)`, its rank) opens the GPU whose
    NVLink lines (`+ NVL[40.0] - GPU/1C000`, `- NVS/0`) follow it; another node closes it."""
    current = log.dump_gpu
    found = TOPO_GPU.search(text)
    if found:
        current[m.rank] = bus_id(found.group(1))
        log.gpu_ranks.setdefault(m.host, {})[int(found.group(2))] = bus_id(found.group(1))
        return
    found = TOPO_NVL.match(text)
    if found and current.get(m.rank):
        end = f"GPU/{bus_id(found.group(2))}" if found.group(1) == "GPU" else f"NVS/{found.group(2)}"
        log.gpu_nvlinks.setdefault(m.host, {}).setdefault(current[m.rank], set()).add(end)
    elif not found:
        current[m.rank] = None  # a CPU, PCI switch or NIC node: the GPU's links are behind


def _failures_quoted(prose):
    """The spans between backticks in a note's prose (outside its code blocks, which are read whole) that a FAIL entry
    of the catalogue reads: NCCL's words, quoted where the note's log was not posted (jax-ml/jax#39167: "NCCL reports
    `Error: corrupted comm object detected` on every call"). Other prose is the reporter's, not the run's."""
    return [span.strip() for span in paste_lines.INLINE_SPAN.findall(prose) if errors.catalogued(span.strip())]


def _folded_lines(numbered, source, origins=None, pdsh=None, prose=None):
    """(number, line, repeats, is NCCL's) of each distinct line at its first place, launchers' tags
    and terminal colours off (importer/lines.py's read()), read from (number, line) pairs as they
    come; None where no line holds text. Empty lines and Markdown fences never fold: the reader
    counts the fences to know what a code block holds; nor do the NVLink lines of NCCL's topology
    dump (`+ NVL[240.0] - NVS/0` under each GPU, the same text for each: which GPU it is under is
    their place). A control byte is an InputError naming
    its line: the file is not text. `prose` gets the error lines of a note's prose (Other)."""
    first, kept, numbers, repeats, text = {}, [], [], {}, False
    for number, line in numbered:
        bad = NOT_TEXT.search(line)
        if bad:
            raise InputError(f"{source}:{number}: not text: byte 0x{ord(bad.group()):02x}")
        line = ANSI.sub("", line)
        at = first.get(line)
        if at is not None:
            repeats[at] += 1
            continue
        if line.strip():
            text = True
            if not paste_lines.FENCE.match(paste_lines.QUOTE.sub("", line)) and not DUMP_LINK.search(line):
                first[line] = number
                repeats[number] = 1
        kept.append(line)
        numbers.append(number)
    if not text:
        return None
    paste = paste_lines.read("\n".join(kept) + "\n")
    if origins is not None:  # the node Ray's or pdsh's prefix named, by the file's line number
        origins.update({numbers[number - 1]: address for number, address in paste.origins.items()})
    if pdsh is not None:
        pdsh.update({numbers[number - 1]: host for number, host in paste.pdsh.items()})
    out = [(numbers[l.number - 1], l.text.strip(), True) for l in paste.nccl]
    out += [(numbers[l.number - 1], l.text, False) for l in paste.lines if l.text.strip()]
    out += [(numbers[l.number - 1], span, False) for l in paste.prose for span in _failures_quoted(l.text)]
    if prose is not None:
        prose += [o for l in paste.prose if errors.an_error(o := Other(numbers[l.number - 1], l.text))]
    out.sort(key=lambda item: item[0])
    return [(number, line, repeats.get(number, 1), nccl) for number, line, nccl in out]
