"""What several rules read from a whole log, each found one way: the NCCL_* settings it shows (NCCL's ENV
lines, a command line, an export), the jobs a paste holds, whether a host runs several ranks, the networks an NCCL
before 2.6 chose, the GPU models the program names. Read, not judged: the rules (network_rules.py,
transport_rules.py, init_rules.py, agreement.py, settings.py ...) judge."""
import bisect
import ipaddress
import re
from dataclasses import dataclass

from ..importer.nccl_tests import RANK as NCCL_TESTS_RANK  # nccl-tests' device lines, as its importer reads them
from ..importer.paste import COMMAND, EXPORT, NCCL_SETTING, NCCL_SETTING_SAID  # the paste reader's spellings


SETTING = NCCL_SETTING_SAID  # the paste reader's: one spelling of NCCL's line, the importer reads it too


@dataclass(frozen=True)
class Setting:
    line: int
    host: str   # the host whose NCCL line says it; "" where a command line or an export in the log sets it
    value: str


def settings(log):
    """{name: [Setting]} of every NCCL_* the log shows set, in the log's order: NCCL's own `NCCL_X set by
    environment to V` line, and a command line, an export or a line of `env` the log holds (`mpirun -x
    NCCL_X=V`, `srun --export=...,NCCL_X=V`, `export NCCL_X=V`), which say it where NCCL's ENV lines
    are not printed (NCCL_DEBUG_SUBSYS without ENV, NCCL_DEBUG=WARN). Found once per log (log.once): read, not
    changed, by its callers."""
    return log.once("settings", _settings)


def _settings(log):
    found = []
    for m in log.messages:
        said = SETTING.match(m.text)
        if said:
            found.append((m.line, said.group(1), Setting(m.line, m.host, said.group(2))))
    for other in log.others:
        text = other.text.strip()
        if COMMAND.match(text) or EXPORT.match(text):
            found += [(other.line, name, Setting(other.line, "", value)) for name, value in NCCL_SETTING.findall(text)]
    out = {}
    for _, name, setting in sorted(found, key=lambda item: item[0]):
        out.setdefault(name, []).append(setting)
    return out


def jobs(log):
    """{host: job}: the paste's runs, split at each command line it shows (a launch, `kubectl logs`, `docker run` ...),
    joined where they share a host. A paste of two runs on different nodes is two jobs, whose hosts are not compared
    (aws-samples/aws-do-eks' Karpenter README: nccl-tests over sockets on one node group, then over EFA on another,
    read as one job whose hosts chose different networks)."""
    cuts = sorted(o.line for o in log.others if COMMAND.match(o.text.strip()))
    hosts_of_run = {}
    for m in log.messages:
        if m.host:
            hosts_of_run.setdefault(bisect.bisect_right(cuts, m.line), set()).add(m.host)
    job_of = {}
    for run, hosts in sorted(hosts_of_run.items()):
        joined = {job_of[h] for h in hosts if h in job_of}
        job = min(joined, default=run)
        for h, j in list(job_of.items()):
            if j in joined:
                job_of[h] = job
        for h in hosts:
            job_of[h] = job
    return job_of


def text_at(log, line):
    """The log's line `line` as the file has it (an NCCL line's launcher tag off)."""
    return next((m.raw for m in log.messages if m.line == line), None) or next(
        (o.text.strip() for o in log.others if o.line == line), "")


def first_setting(log, name, meant=lambda value: True):
    """The first Setting of `name` in the log whose value is `meant`, or None."""
    return next((s for s in settings(log).get(name, []) if meant(s.value)), None)


LOCAL_RANKS = re.compile(r"\bnNodes \d+ localRanks (\d+)")  # NCCL 2.19 on: the ranks of this rank's node
NRANKS = re.compile(r"\brank \d+ nranks (\d+)\b", re.I)        # an init line: the communicator's ranks


def one_rank_a_host(log):
    """Whether the log shows every host running one rank, so no two GPUs of one node talk (P2P and
    SHM, NVLS are never used): NCCL's `localRanks 1` on every line that says it, a communicator of N
    ranks on N hosts, or nccl-tests' Rank lines one a host. False where it does not show it."""
    local = [int(found.group(1)) for m in log.messages if (found := LOCAL_RANKS.search(m.text))]
    if local:
        return all(n == 1 for n in local)
    sizes = {int(found.group(1)) for m in log.messages if (found := NRANKS.search(m.text))}
    if len(sizes) == 1 and next(iter(sizes)) == len(log.hosts()) > 1:
        return True
    hosts = [found.group(3) for o in log.others if (found := NCCL_TESTS_RANK.match(o.text.strip()))]
    return len(hosts) > 1 and len(set(hosts)) == len(hosts)


def no_gpu_pair_on_a_host(log):
    """Whether the log shows no two GPUs of one host in the job: one rank a host (one_rank_a_host), or one rank in all
    (`nranks 1`, nccl-tests' one Rank line: dusty-nv/jetson-containers#1636's Jetson Orin). Transports between GPUs of
    a host (P2P, SHM, NVLS) then serve nothing."""
    if one_rank_a_host(log):
        return True
    sizes = {int(found.group(1)) for m in log.messages if (found := NRANKS.search(m.text))}
    if sizes:
        return sizes == {1}
    ranks = [o for o in log.others if NCCL_TESTS_RANK.match(o.text.strip())]
    return len(ranks) == 1


def turned_on(value):
    """An NCCL switch's value that turns it on (NCCL reads a number: 1, 2 ...; 0 is off)."""
    return value.strip().isdigit() and int(value) > 0


OLD_IB_USING = re.compile(r"^NET/IB ?: Using \[\d+\]")
OLD_IB_NONE = re.compile(r"^NET/IB ?: No device found")


def old_networks(log):
    """{host: (network, line)} in a log of NCCL before 2.6, which prints no `Using network X`: IB where the host's
    NET/IB lists devices; Socket where its NET/IB found none, where NCCL_IB_DISABLE was set on it, or where its
    channels go via NET/Socket. 2.4 prints `NET/Socket : Using ...` on every host (its bootstrap network) before
    NET/IB's line: a host whose paste holds that line alone has not said its network (horovod/horovod#1523's
    excerpt, cut before the second node's NET/IB line, read as that node on sockets)."""
    out = {}
    for m in log.messages:
        if not m.host:
            continue
        setting = SETTING.match(m.text)
        if OLD_IB_USING.match(m.text):
            out.setdefault(m.host, ("IB", m.line))
        elif OLD_IB_NONE.match(m.text) or (setting and setting.group(1) == "NCCL_IB_DISABLE" and turned_on(
                setting.group(2))):
            out.setdefault(m.host, ("Socket", m.line))
    for ch in log.channels:
        if ch.host and ch.transport == "NET/Socket":
            out.setdefault(ch.host, ("Socket", ch.line))
    return out


def printed_on(m):
    """` on HOST` of an NCCL line; nothing where the line lost NCCL's `host:pid:tid` prefix (pasted from an
    issue's title, or as `[4] NCCL WARN ...`, whose `[4]` may be a launcher's rank as well as NCCL's device)."""
    return f" on {m.host}" if m.host else ""


# The GPUs a log names: nccl-tests' device list (`#  Rank  0 Group  0 Pid 587622 on HOST device  0 [0x21] NVIDIA GeForce
# RTX 4090`), PyTorch's collect_env (`GPU 0: NVIDIA GeForce RTX 4090`), nvidia-smi's table
GPU_MODEL = re.compile(r"\bNVIDIA (?:GeForce |Quadro |TITAN |Tesla )?(?:RTX |GTX )?[A-Z]?\d{3,4}\w*(?: Ti| SUPER)?\b|"
                       r"\bNVIDIA [A-Z]\d{2,3}\w*(?:-\w+)*\b|\bTesla [A-Z]\d{2,3}\w*")


def gpu_models(log):
    """The GPU models the program's lines name (nvidia-smi, nccl-tests' device list), sorted."""
    return sorted({found.group(0) for o in log.others for found in GPU_MODEL.finditer(o.text)})


VERSION = re.compile(r"^NCCL version (\S+)")


def ip_of(said):
    """The IP address of an address as NCCL and PyTorch print it (`10.0.1.75`, `fe80::1%eth0`: its scope left
    off), or None where it is none."""
    try:
        return ipaddress.ip_address(said.split("%", 1)[0])
    except ValueError:
        return None


def loopback(said):
    """Whether an address as NCCL prints it (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) is the host's own loopback."""
    ip = ip_of(said)
    return ip is not None and (ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None
                                                  and ip.ipv4_mapped.is_loopback))
