"""Rules over several ranks: what every host of one job must agree on (NCCL's and the driver's
versions, NCCL_* settings, the network chosen, the NICs and their rate and MTU, the GPUs per node,
the bootstrap addresses' family) and ranks mapped onto one GPU (PyTorch's watchdog reports:
watchdog_reports.py). Each host's first saying counts; a host that says nothing of a
thing is not compared on it, except settings: a host whose init the log shows whole and that sets
no NCCL_X where another sets it differs. A line without NCCL's host prefix is no host's."""
import re

from ..importer.nccl_tests import RANK as NCCL_TESTS_RANK  # nccl-tests' device lines, as its importer reads them
from .log_reader import BRACKETED, IB_LIST, NETWORK  # the reader's own patterns: one spelling of each line
from . import nccl_tests  # noqa: I100  (after the log reader, which imports it through errors.py)
from .registry import rule
from .log_facts import SETTING, jobs, loopback, old_networks, settings
from .sources import ENV_DOCS, TROUBLESHOOTING

DRIVER = re.compile(r"^cudaDriverVersion (\d+)")
# a host whose init the log shows whole: NCCL read its settings by then (a host whose paste stops after its first
# lines, cudaDriverVersion or Bootstrap, may have printed its ENV lines after the cut)
INIT_WHOLE = re.compile(r"\bInit COMPLETE\b|^Connected all (?:rings|trees)\b|^(?:Channel|Ring) \d+(?:/\d+)? : \d+.* via ")
# a device's rate: `NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 ...` (TRACE before 2.23), and the
# INFO line of each (virtual) device NCCL makes from 2.20, `NET/IB : Made virtual device [0] name=mlx5_0 speed=400000`
SPEED = re.compile(r"^NET/IB\w* ?: (?:\[\d+\] [\w.-]+:|Made virtual device \[\d+\] name=\S+ ).*?\bspeed=(\d+)")
MTU = re.compile(r"^NET/IB\w*: .*\bmtu (\d+)")
LOCAL_RANKS = re.compile(r"\bnNodes \d+ localRanks (\d+)")
# an init line (`ncclCommInitRank comm 0x.. rank R nranks N cudaDev D nvmlDev V busId B commId 0x.. - Init START`,
# 2.7's `... cudaDev D busId B - Init COMPLETE`, 2.4's `... cudaDev D nvmlDev V - Init COMPLETE` without the bus id)
RANK_GPU = re.compile(r"\brank (\d+) nranks (\d+) cudaDev (\d+) (?:nvmlDev (\d+) ?)?(?:busId ([0-9a-fA-F]+))?", re.I)
DUPLICATE = re.compile(r"Duplicate GPU detected")


def tool_rank(text):
    """nccl-tests' device line (`#  Rank  0 Group  0 Pid 3740409 on fengyun416 device  0 [0x01] ...`) with
    its bus byte, as importer/nccl_tests.py reads it: groups rank, pid, host, device, bus; else None."""
    found = NCCL_TESTS_RANK.match(text.strip())
    return found if found and found.group(5) else None


def _first_by_host(log, pattern, value=lambda found: found.group(1)):
    """{host: (value, line)} of each host's first line the pattern finds. A line that lost NCCL's
    `host:pid:tid` prefix names no host: it is no other host's saying (a paste mixing one host's
    prefixed and bare lines is one host)."""
    out = {}
    for m in log.messages:
        if not m.host or m.host in out:
            continue
        found = pattern.search(m.text)
        if found:
            out[m.host] = (value(found), m.line)
    return out


def _differ(r, c, said, thing, why):
    """One finding where the hosts of one job (log_facts.jobs) say more than one value: each value with its hosts."""
    if len({value for value, _ in said.values()}) < 2:
        return None  # every host says the same: no job to split (jobs() scans the log's lines)
    job_of = jobs(c.log)
    by_job = {}
    for host, (value, line) in sorted(said.items()):
        by_job.setdefault(job_of.get(host), {})[host] = (value, line)
    said = next((one for one in by_job.values() if len({value for value, _ in one.values()}) > 1), None)
    if said is None:
        return None
    values = {}
    for host, (value, _) in sorted(said.items()):
        values.setdefault(value, []).append(host)
    line = min(line for _, line in said.values())
    listed = "; ".join(f"{value} on {', '.join(hosts)}" for value, hosts in sorted(values.items()))
    return r.finding(line, f"the hosts differ in {thing}: {listed}", why)


@rule("driver-mismatch", "WARN", "any", "`cudaDriverVersion N` differing between hosts",
      "nodes on different GPU drivers: one job's ranks behave differently (CUDA features, NVLS, bugs fixed on some)",
      "install one driver version on every node of a partition", TROUBLESHOOTING, needs=("ranks",))
def driver_mismatch(r, c):
    return _differ(r, c, _first_by_host(c.log, DRIVER), "the CUDA driver (cudaDriverVersion)",
                   "nodes on different drivers run one job's ranks differently")


# Settings that change what NCCL prints or dumps, not how it runs; the dumps are read by one rank (NCCL_TOPO_DUMP_FILE_RANK,
# NCCL_GRAPH_DUMP_FILE_RANK: rank 0 by default), so only its host prints them (hubutui/pytorch-examples' Slurm log: the
# job's NCCL_TOPO_DUMP_FILE said by rank 0's host alone, read as set on one node and not the other)
REPORTING_ONLY = {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_DEBUG_TIMESTAMP_FORMAT",
                  "NCCL_DEBUG_TIMESTAMP_LEVELS", "NCCL_TOPO_DUMP_FILE", "NCCL_TOPO_DUMP_FILE_RANK", "NCCL_GRAPH_DUMP_FILE",
                  "NCCL_GRAPH_DUMP_FILE_RANK"}


@rule("settings-differ", "WARN", "any",
      "an `NCCL_X set by environment to V` that differs between hosts, or is set on some and not others (a host "
      "counts as not setting it only where the log shows its init whole: `Init COMPLETE`, its channels connected); "
      "not the settings of what NCCL prints or dumps (NCCL_DEBUG*, NCCL_TOPO_DUMP_FILE, NCCL_GRAPH_DUMP_FILE)",
      "the ranks run NCCL with different settings: a transport, an interface or a device list one rank uses and "
      "another does not, so rings do not connect or run at the slowest rank's pace",
      "set NCCL_* once for the whole job (mpirun -x, srun --export, the container's environment), not per node",
      f"{ENV_DOCS}", needs=("ranks",))
def settings_differ(r, c):
    whole = {m.host for m in c.log.messages if m.host and INIT_WHOLE.search(m.text)}
    by_host = {}
    for m in c.log.messages:
        found = SETTING.match(m.text) if m.host else None
        if found and found.group(1) not in REPORTING_ONLY:
            by_host.setdefault(found.group(1), {}).setdefault(m.host, (found.group(2), m.line))
    out = []
    for name, said in sorted(by_host.items()):
        said = dict(said)
        for host in whole - set(said):
            said[host] = ("(not set)", min(l for _, l in said.values()))
        found = _differ(r, c, said, name, f"{name} is not the same on every host: the ranks run NCCL differently")
        if found:
            out.append(found)
    return out


@rule("network-differs", "FAIL", "network", "`Using network X` differing between hosts (NCCL before 2.6, which prints "
      "none: `NET/IB : Using [0]...` on one host, `NET/Socket : Using ...` without IB devices on another)",
      "the ranks chose different networks (one IB, one Socket or a plugin): they cannot connect, or the job runs at "
      "the slower network's pace",
      "give every node the same RDMA stack and plugin (the same image), and the same NCCL_NET / NCCL_IB_DISABLE",
      f"{ENV_DOCS}: NCCL_NET, NCCL_IB_DISABLE", needs=("ranks",))
def network_differs(r, c):
    said = _first_by_host(c.log, NETWORK)
    # NCCL before 2.6 prints no `Using network X` (init.cc has it from 2.6): its IB transport is used where NET/IB lists
    # devices, its sockets where NET/IB found none or was disabled (NVIDIA/nccl#234, 2.4.6: one host on TCP, the other
    # on IB, init hangs); log_facts.old_networks reads it
    for host, said_here in old_networks(c.log).items():
        said.setdefault(host, said_here)
    return _differ(r, c, said, "the network NCCL chose",
                   "ranks on different transports cannot connect to each other, or run at the slower one's pace")


def _nics(found):
    devices = BRACKETED.findall(found.group(1))
    return f"{len(devices)} ({', '.join(sorted({d.split('/')[-1] for d in devices}))})"


@rule("nics-differ", "WARN", "network",
      "`NET/IB : Using ...` lists of another count or link layer on another host; NICs' `speed=` (`NET/IB: [0] "
      "mlx5_0:...`, 2.20's `NET/IB : Made virtual device [0] name=mlx5_0 speed=400000`) or `mtu` differing",
      "the nodes offer NCCL different NICs (a port down, another link layer, a slower rate or MTU): rings run at the "
      "slowest node's rate",
      "bring the missing or slower ports up (ibstat: State Active, the rate; the MTU on the switch and the host) or "
      "take the node out", f"{ENV_DOCS}: NCCL_IB_HCA; {TROUBLESHOOTING}", needs=("ranks",))
def nics_differ(r, c):
    out = [_differ(r, c, _first_by_host(c.log, IB_LIST, _nics), "the RDMA devices NCCL uses (count, link layer)",
                   "a node with fewer or other ports gives each ring less bandwidth, or a port its peers cannot reach")]
    out.append(_differ(r, c, _first_by_host(c.log, SPEED, lambda f: f"{int(f.group(1)) // 1000} Gb/s"),
                       "the NICs' rate", "rings run at the slowest port's rate"))
    out.append(_differ(r, c, _first_by_host(c.log, MTU), "the IB MTU (NCCL's mtu index)",
                       "a smaller MTU on one node cuts its messages' efficiency, or connections fail"))
    return [f for f in out if f is not None]


def ranks_by_host(log):
    """{host: {rank}} of the job's largest communicator where the log shows every one of its ranks
    (NCCL's init lines, `rank R nranks N`; nccl-tests' `Rank R ... on HOST` lines), else {}: a log
    that shows some ranks only cannot say how many each host runs."""
    comms = {}
    for m in log.messages:
        found = RANK_GPU.search(m.text)
        if found and m.host:
            comms.setdefault(int(found.group(2)), {}).setdefault(m.host, set()).add(int(found.group(1)))
    for o in log.others if nccl_tests.device_list_whole(log) else ():  # a list cut short shows some hosts' ranks
        found = tool_rank(o.text)
        if found:
            comms.setdefault("tool", {}).setdefault(found.group(3), set()).add(int(found.group(1)))
    if "tool" in comms:
        ranks = comms.pop("tool")
        comms.setdefault(sum(len(r) for r in ranks.values()), ranks)
    for size, hosts in sorted(comms.items(), key=lambda item: -item[0]):
        if len(set().union(*hosts.values())) == size:
            return hosts
    return {}


@rule("gpus-per-node-differ", "WARN", "any",
      "NCCL's `localRanks N` (2.19 on) differing between hosts, or the init lines' ranks per host (`rank R nranks N` on "
      "each host, nccl-tests' `Rank R ... on HOST device D` lines) where the log shows every rank",
      "the nodes run different numbers of ranks: the rings and trees are unbalanced, the busiest node sets the pace",
      "give every node the same number of ranks and GPUs (srun --ntasks-per-node, --gpus-per-node)",
      f"{TROUBLESHOOTING}", needs=("ranks",))
def gpus_per_node_differ(r, c):
    said = _first_by_host(c.log, LOCAL_RANKS)
    if said:
        return _differ(r, c, said, "the ranks per node (localRanks)",
                       "an unbalanced job: the node with more ranks carries more of each ring")
    hosts = ranks_by_host(c.log)
    if len(hosts) < 2:
        return None
    line = min((m.line for m in c.log.messages if RANK_GPU.search(m.text)),
               default=min((o.line for o in c.log.others if tool_rank(o.text)), default=0))
    return _differ(r, c, {host: (str(len(ranks)), line) for host, ranks in hosts.items()},
                   "the ranks per node (the init lines' ranks on each host)",
                   "an unbalanced job: the node with more ranks carries more of each ring")


@rule("ranks-share-gpu", "FAIL", "node", "two processes' init lines (`rank R nranks N cudaDev D busId B`; NCCL 2.4's "
      "`cudaDev D nvmlDev V` without the bus id) or nccl-tests' `Rank R ... Pid P on HOST device D [0xBUS]` lines "
      "naming one host and one GPU; where NCCL's own `Duplicate GPU detected` line is there, the catalogue's "
      "duplicate-gpu finding quotes it and this rule says nothing more; not with NCCL_MULTI_RANK_GPU_ENABLE set "
      "(NCCL 2.30 lets ranks share a GPU on purpose)",
      "two ranks mapped onto one GPU: NCCL refuses it (Duplicate GPU detected) or they share its memory and links",
      "one rank per GPU: set the device from the local rank (torch.cuda.set_device(local_rank), srun "
      "--gpus-per-task=1 --gpu-bind=closest), and check CUDA_VISIBLE_DEVICES per rank",
      "NCCL src/init.cc (Duplicate GPU detected); horovod/horovod#3929; NVIDIA/nccl#1241")
def ranks_share_gpu(r, c):
    if c.log.first(DUPLICATE)[0] is not None or any(DUPLICATE.search(o.text) for o in c.log.others):
        return None  # NCCL said it itself: the catalogue's duplicate-gpu entry quotes NCCL's line
    if "NCCL_MULTI_RANK_GPU_ENABLE" in settings(c.log):
        return None
    seen = {}
    places = [(m.line, m.host, m.pid, found.group(1), found.group(5) or (found.group(4) and "nvml" + found.group(4)))
              for m in c.log.messages if (found := RANK_GPU.search(m.text))]
    # nccl-tests prints one byte of the PCI bus id (`[0x%02x]`), 0x00 for every GPU on some machines
    # (NVIDIA/nccl#583's eight A100s, devices 0-7): a GPU there is its bus byte and its device index.
    places += [(o.line, found.group(3), found.group(2), found.group(1), f"{found.group(5)} (device {found.group(4)})")
               for o in c.log.others if (found := tool_rank(o.text))]
    for line, host, pid, rank, gpu in places:
        if not gpu or not host:
            continue
        # one process is a rank of several communicators (PyTorch's groups): two processes are the problem
        gpu = gpu.lower()
        first = seen.setdefault((host, gpu), (pid, rank, line))
        if first[0] != pid:
            named = f"nvmlDev {gpu[4:]}" if gpu.startswith("nvml") else f"busId {gpu}"
            return r.finding(line, f"two processes on {host} use one GPU ({named}): {host}:{first[0]} "
                                   f"(rank {first[1]}, line {first[2]}) and {host}:{pid} (rank {rank})",
                             "the launcher or the program maps two ranks to one device; NCCL's own `Duplicate GPU "
                             "detected` is not in the log (a log cut short, or NCCL_DEBUG below WARN)")
    return None


# the address a rank bootstraps on or moves socket data on: `Bootstrap : Using [0]eth0:10.0.0.1<0>` (2.4),
# `Bootstrap: Using enp39s0:10.0.10.221<0>` (2.29), `NET/Socket : Using [0]lo:127.0.0.1<0> [1]eth0:...`,
# NCCL 2.3's `NET : Using interface lo:127.0.0.1<0>`
ADDRESS_LINE = re.compile(r"^(?:Bootstrap ?: Using|NET/Socket ?: Using|NET : Using interface)\s+(.*)$")
ADDRESS = re.compile(r"(?:\[\d+\])?([\w.-]+):([0-9a-fA-F.:]+(?:%[\w.-]+)?)<\d+>")


# a bridge a container runtime or a hypervisor makes on each host for its own guests: Docker's default docker0 (NCCL
# leaves out only names starting `docker` and `lo`), a Docker network's br-<12 hex digits>, libvirt's virbr0, Podman's
# cni-podman0 / podman0 (NVIDIA/nccl-tests#217: `NET/Socket : Using [0]enp3s0f0:10.50.56.33<0> [1]br-50a6a39f12ff:...`)
HOST_BRIDGE = re.compile(r"^(?:docker\d+|br-[0-9a-f]{12}|virbr\d+|cni-podman\d+|podman\d+)$")


def _host_local(interface, address):
    """An address no other host reaches: the loopback, a container or VM bridge of this host (docker0's 172.17.0.1 is
    on every host)."""
    return interface == "lo" or bool(HOST_BRIDGE.match(interface)) or loopback(address)


@rule("address-unreachable", "FAIL", "network",
      "a rank of a job whose data crosses the network bootstrapping or moving socket data on a loopback interface "
      "(`Bootstrap : Using lo:127.0.0.1<0>`, `NET/Socket : Using [0]lo:...`, 2.3's `NET : Using interface lo:...`) "
      "or a container or VM bridge of the host (docker0, a Docker network's br-<hex>, virbr0, podman0), or two hosts on one "
      "address",
      "the other hosts cannot reach that address: NCCL's connections to it are refused or time out (or reach "
      "another host)",
      "set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on (=eth0), or leave the host-local ones "
      "out (^docker0,lo); in containers use the host's network (docker run --network=host)",
      f"{ENV_DOCS}: NCCL_SOCKET_IFNAME; horovod/horovod#700 (sjeaugey: NCCL_SOCKET_IFNAME=^docker0 may pick lo, set "
      "^docker0,lo); horovod/horovod#666 (solved so)", needs=("ranks",))
def address_unreachable(r, c):
    # said only where the network carries data (scope): one host reaches itself on any address
    seen = {}  # address -> (host, line) of its first use
    for m in c.log.messages:
        found = ADDRESS_LINE.search(m.text)
        if not found:
            continue
        for interface, address in ADDRESS.findall(found.group(1)):
            if _host_local(interface, address):
                return r.finding(m.line, f"{m.host or 'a rank'} uses {interface}:{address}, an address only its own "
                                         "host reaches, in a job across hosts",
                                 f"{interface} is host-local: the other hosts' connections to {address} reach "
                                 "themselves, not this host")
            first = seen.setdefault(address, (m.host, m.line))
            if m.host and first[0] and first[0] != m.host and not address.lower().startswith("fe80"):
                return r.finding(m.line, f"{first[0]} (line {first[1]}) and {m.host} both use {address} ({interface})",
                                 "two hosts on one address (containers on Docker's default bridge, or a NAT): a "
                                 "connection to it reaches one of them, not the rank meant")
    return None


# The address family of a rank's bootstrap or socket address as NCCL prints it (`Bootstrap : Using eth0:10.0.0.1<0>`:
# IPv4; `ib0:fe80::...%ib0<0>`: IPv6), and Gloo's enforce comparing two (`ss1.ss_family == ss2.ss_family. 2 vs 10`:
# AF_INET and AF_INET6, pytorch/gloo#399)
GLOO_FAMILIES = re.compile(r"\bss1\.ss_family == ss2\.ss_family\. (\d+) vs (\d+)")
FAMILIES = {"2": "AF_INET (IPv4)", "10": "AF_INET6 (IPv6)"}


def _family(address):
    return "IPv6" if ":" in address else "IPv4"


@rule("address-family-mismatch", "FAIL", "any",
      "hosts whose first bootstrap or socket address NCCL prints (`Bootstrap : Using eth0:10.0.0.1<0>`, `NET/Socket : "
      "Using [0]...`) are of different families, IPv4 on one and IPv6 on another; Gloo's `ss1.ss_family == "
      "ss2.ss_family. 2 vs 10` (PyTorch's Gloo compared an IPv4 address with an IPv6 one)",
      "the rendezvous resolves a host name to IPv4 on one side and to IPv6 on the other (a dual-stack host, /etc/hosts "
      "or DNS returning an AAAA record first): the ranks cannot connect to each other's addresses",
      "use one family: give MASTER_ADDR (and the rendezvous endpoint) as an IPv4 address, not a host name, or make the "
      "name resolve to one family on every node; NCCL_SOCKET_FAMILY=AF_INET (or AF_INET6) makes NCCL's sockets use one",
      f"{ENV_DOCS}: NCCL_SOCKET_FAMILY; pytorch/gloo#399 (c-p-i-o: Gloo's device.cc does not handle the two families "
      "together); pytorch/gloo#503 (d4l3k: the address family mismatch between resolution and listening, fixed)",
      needs=("ranks",))
def address_family_mismatch(r, c):
    for o in c.log.others:
        found = GLOO_FAMILIES.search(o.text)
        if found and found.group(1) != found.group(2):
            one, other = (FAMILIES.get(f, f"family {f}") for f in found.groups())
            return r.finding(o.line, f"PyTorch's Gloo compared addresses of two families: {one} and {other}",
                             "one rank's address is IPv4 and its peer's IPv6: the host names resolve to different "
                             "families on different hosts")
    first = {}  # host -> (address, interface, line) of its first bootstrap or socket address
    for m in c.log.messages:
        found = ADDRESS_LINE.search(m.text) if m.host and m.host not in first else None
        address = ADDRESS.search(found.group(1)) if found else None
        if address and not _host_local(*address.groups()):
            first[m.host] = (address.group(2), address.group(1), m.line)
    families = {}
    for host, (address, interface, line) in sorted(first.items()):
        families.setdefault(_family(address), []).append(f"{host} ({interface}:{address}, line {line})")
    if len(families) < 2:
        return None
    listed = "; ".join(f"{family} on {', '.join(hosts)}" for family, hosts in sorted(families.items()))
    return r.finding(min(line for _, _, line in first.values()),
                     f"the hosts bootstrap on addresses of different families: {listed}",
                     "an IPv4 host and an IPv6 host cannot connect to each other's bootstrap or socket addresses")
