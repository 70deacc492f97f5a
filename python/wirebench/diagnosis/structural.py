"""The rules that need no one line's signature (registry.py): what several lines, several ranks or
the node's wiring show together. Each is registered with its id, verdict, scope, needs and words;
docs/nccl-diagnosis.md's tables are tested against these declarations."""
import bisect
import re
from dataclasses import dataclass

from ..importer.paste import COMMAND, EXPORT, NCCL_SETTING, NCCL_SETTING_SAID  # the paste reader's spellings
from ..importer.nccl_tests import RANK as NCCL_TESTS_RANK  # nccl-tests' device lines, as its importer reads them
from .error_lines import CHAIN  # NCCL's error chain line, as the error finder reads it
from .log_reader import IB_LIST, bus_id  # the reader's own pattern and spelling of a bus id
from .registry import rule

ENV_DOCS = "NCCL documentation, Environment Variables (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)"
TROUBLESHOOTING = ("NCCL documentation, Troubleshooting "
                   "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)")
VERBS = "libibverbs, enum ibv_wc_status (infiniband/verbs.h; man ibv_poll_cq)"

SETTING = NCCL_SETTING_SAID  # the paste reader's: one spelling of NCCL's line, the importer reads it too
SOCKET_NETWORK = re.compile(r"^Using network Socket\b")
SOCKET_DEVICES = re.compile(r"^NET/Socket : Using ")
SOCKET_CHANNEL = re.compile(r"via NET/Socket/")
# an RDMA device named in one of NCCL's lines: Mellanox/NVIDIA HCAs (mlx5_0, NCCL 2.3's `NET/IB: [0] mlx5_0:1/IB`),
# AWS EFA (the OFI plugin's `Selected provider is efa`, its rdmap devices). NCCL's `NET/Plugin : No plugin
# found (libnccl-net.so)` / `Could not find: libnccl-net.so` is no such evidence: it says only that no
# external plugin is installed, on every host without one (NVIDIA/nccl#226: 64 AWS hosts without RDMA).
RDMA_NAMED = re.compile(r"\bmlx[45]_\w+|\befa\b|\brdmap\w+")


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


@rule("socket-fallback", "FAIL", "network",
      "`Using network Socket` (an older log: `NET/Socket : Using ...`) with evidence of RDMA: `NET/IB : Using [0]...` "
      "devices, an mlx5 or EFA device named in NCCL's lines, the node's topology listing NICs (NCCL's `No plugin found "
      "(libnccl-net.so)` is none: no external plugin is installed); `NCCL_IB_DISABLE set by environment` or `NCCL_NET` "
      "forced is the job's choice, added to that evidence, and alone said as not a finding",
      "inter-node data over TCP, many times slower than RDMA; the evidence says why",
      "unset NCCL_IB_DISABLE and NCCL_NET=Socket; check ibv_devinfo on the node (rdma-core, the HCA's driver); give "
      "NCCL the RDMA devices with NCCL_IB_HCA; install the network plugin the cluster uses",
      f"{ENV_DOCS}: NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA; NVIDIA/nccl#952, NVIDIA/nccl-tests#188")
def socket_fallback(r, c):
    log = c.log
    if log.network:
        m, _ = log.first(SOCKET_NETWORK)
    else:  # before 2.6: a host that said sockets (old_networks), its NET/Socket line; else a log of channel lines only
        on_sockets = {host for host, (network, _) in old_networks(log).items() if network == "Socket"}
        m = next((m for m in log.messages if m.host in on_sockets and SOCKET_DEVICES.match(m.text)), None)
        if m is None and not any(m.host for m in log.messages if SOCKET_DEVICES.match(m.text)):
            m, _ = log.first(SOCKET_DEVICES)  # NCCL's lines without their host prefix: as the paste says it
        if m is None:
            m, _ = log.first(SOCKET_CHANNEL)
    if m is None:
        return None
    evidence = []
    if log.ib_devices:
        evidence.append("the log lists InfiniBand/RoCE devices (NET/IB : Using ...)")
    else:
        # a setting names what was asked for (NCCL_IB_HCA=mlx5_0), not what the node has
        job_of = jobs(log)
        same_job = [said for said in log.messages if not m.host or not said.host
                    or job_of.get(said.host) == job_of.get(m.host)]  # not another run's nodes
        named = next(((said, device) for said in same_job if not SETTING.match(said.text)
                      for device in RDMA_NAMED.findall(said.text)[:1]), None)
        if named:
            evidence.append(f"the log names an RDMA device, {named[1]} (line {named[0].line})")
    if c.wiring is not None and c.wiring.nics:
        evidence.append("the node's topology lists network devices (mlx5 ...)")
    # A setting says what the job chose, not what the nodes have: sockets chosen on nodes the log shows no RDMA
    # device of is said, not a finding (pytorch/pytorch#38702: two nodes over eth0 with NCCL_IB_DISABLE=1, the run
    # that worked; many Ethernet clusters set it to quiet libibverbs' warning)
    chosen = []
    disabled = first_setting(log, "NCCL_IB_DISABLE", turned_on)
    if disabled:
        chosen.append(f"NCCL_IB_DISABLE is set (line {disabled.line})")
    forced = first_setting(log, "NCCL_NET")
    if forced:
        chosen.append(f"NCCL_NET={forced.value} (line {forced.line})")
    if not evidence:
        if chosen:
            log.explained.append((m.line, m.raw, "socket-fallback: TCP sockets by the job's own choice (" +
                                  "; ".join(chosen) + ") on nodes whose RDMA devices the log does not show; where they "
                                  "have InfiniBand/RoCE, unset it"))
        return None
    evidence += chosen
    return r.finding(m.line, "NCCL moves inter-node data over TCP sockets (NET/Socket)",
                     "NCCL fell back to TCP sockets, many times slower than RDMA: " + "; ".join(evidence))


@rule("mixed-link-layers", "WARN", "network", "`NET/IB : Using [0]mlx5_0:1/IB ... [8]mlx5_bond_0:1/RoCE`",
      "one device list with InfiniBand and RoCE ports: a rank may use a port its peers cannot reach, or a slower one",
      "list only the fabric's ports in NCCL_IB_HCA (e.g. NCCL_IB_HCA=mlx5_0:1,mlx5_1:1,...; '^mlx5_bond_0' excludes one)",
      f"{ENV_DOCS}: NCCL_IB_HCA; NVIDIA/nccl#366")
def mixed_link_layers(r, c):
    devices = c.log.ib_devices
    if any(d.endswith("/IB") for d in devices) and any(d.endswith("/RoCE") for d in devices):
        m, _ = c.log.first(IB_LIST)
        return r.finding(m.line if m else 0, "NCCL's network devices mix InfiniBand and RoCE ports",
                         "a rank may pick a RoCE port (a bond, a management NIC) whose peers are on InfiniBand, or "
                         "share one slower port: rings run at the slowest port's rate, or do not connect")
    return None


# An RDMA device of NCCL's list and its adapter family, the driver's name before the index (mlx5_0, mlx5_bond_0 ->
# mlx5; i40iw0 -> i40iw; irdma1 -> irdma; bnxt_re0 -> bnxt_re; rxe0 -> rxe), in either list NCCL prints: `[0]mlx5_0:1/IB`
# and 2.21's fused NICs `[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE}`
RDMA_DEVICE = re.compile(r"\b([a-z][a-z0-9_]*?)(?:_bond)?_?\d+:\d+/(?:IB|RoCE)\b")


@rule("mixed-rdma-adapters", "WARN", "network",
      "`NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]i40iw0:1/RoCE`: NCCL's device list holds RDMA devices of more "
      "than one adapter family (mlx5 and Intel's i40iw or irdma, Broadcom's bnxt_re, soft RoCE's rxe)",
      "NCCL spreads its channels over every device it lists: a rank may use the onboard Ethernet adapter's RDMA port "
      "(iWARP or RoCE on another network) whose peers are on the fabric's adapters, and fail to connect or run at its "
      "rate",
      "list the fabric's adapters only in NCCL_IB_HCA (e.g. NCCL_IB_HCA=mlx5, or =^i40iw0 to exclude one); check "
      "ibv_devices on every node",
      f"{ENV_DOCS}: NCCL_IB_HCA; pytorch/pytorch#81628 (mlx5 RoCE ports listed beside the X722's i40iw0 on the node "
      "that failed)")
def mixed_rdma_adapters(r, c):
    m, _ = c.log.first(IB_LIST)
    families = sorted(set(RDMA_DEVICE.findall(m.text))) if m else []
    if len(families) < 2:
        return None
    return r.finding(m.line, f"NCCL's network devices are of {len(families)} adapter families: "
                     f"{', '.join(families)}",
                     "NCCL spreads its channels over every listed device: a rank may use a port on another adapter, "
                     "which its peers reach on another network or not at all")


def printed_on(m):
    """` on HOST` of an NCCL line; nothing where the line lost NCCL's `host:pid:tid` prefix (pasted from an
    issue's title, or as `[4] NCCL WARN ...`, whose `[4]` may be a launcher's rank as well as NCCL's device)."""
    return f" on {m.host}" if m.host else ""


COMPLETION = re.compile(r"Got completion (?:from peer (\S+) )?with (?:error |status=)(\d+)")
STATUSES = {
    1: "IBV_WC_LOC_LEN_ERR: a message longer than the receive buffer",
    2: "IBV_WC_LOC_QP_OP_ERR: a local queue pair error",
    4: "IBV_WC_LOC_PROT_ERR: a memory registration or protection error (GPUDirect RDMA's memory not registered: "
       "nvidia-peermem or DMA-BUF)",
    5: "IBV_WC_WR_FLUSH_ERR: the queue pair had already failed; an earlier error is the cause",
    9: "IBV_WC_REM_INV_REQ_ERR: the peer rejected the request",
    10: "IBV_WC_REM_ACCESS_ERR: the peer's memory key was refused",
    11: "IBV_WC_REM_OP_ERR: the peer could not complete the operation",
    12: "IBV_WC_RETRY_EXC_ERR: transport retries exhausted, the peer never acknowledged: the fabric does not connect "
        "the two nodes (a port down, another subnet or partition, a RoCE route or GID that does not reach, a cable)",
    13: "IBV_WC_RNR_RETRY_EXC_ERR: the peer had no receive posted in time"}


@rule("ib-completion-error", "FAIL", "any", "`NCCL WARN NET/IB : Got completion from peer P with error N` (or `status=N`)",
      "the status by number: 12 IBV_WC_RETRY_EXC_ERR (the peer never acknowledged: the fabric does not connect the "
      "nodes), 13 RNR retries, 4 local protection (GPUDirect RDMA's registration), 5 flush (an earlier error is the "
      "cause), 10 remote access, ...",
      "look at the first error of the job (a status 5 follows another); check the ports (ibstat) and GPUDirect RDMA's "
      "module",
      f"{VERBS}; {TROUBLESHOOTING}; NVIDIA/nccl#1664, NVIDIA/nccl#523; NVIDIA/nccl#733 (sjeaugey: error 12 is a "
      "timeout, the NICs can't talk to each other: are all of your IB NICs connected to the same network?)")
def ib_completion_error(r, c):
    m, found = c.log.first(COMPLETION, warn_only=True)
    if m is None:
        return None
    code = int(found.group(2))
    peer = f" from {found.group(1)}" if found.group(1) else ""  # older NCCL: `Got completion with error N, opcode ...`
    # NVIDIA/nccl#733: with every Mellanox NIC of the node given to the pods, some were on no network the peers reach
    fix = ("check both nodes' ports (ibstat: State Active, the same subnet; RoCE: the GID index, NCCL_IB_GID_INDEX, "
           "and the route), the cables and the switch between them (ibdiagnet); every NIC NCCL uses (NET/IB : Using, "
           "NCCL_IB_HCA) must be cabled to the network the peers' NICs are on") if code == 12 else None
    return r.finding(m.line, f"an InfiniBand completion error{printed_on(m)}{peer}: {code}",
                     STATUSES.get(code, f"status {code} (see ibv_wc_status)"), fix)


# NCCL's own words that CollNet is off (transport.cc, graph/tuning.cc, init.cc, 2.9 on) and the SHARP plugin's
# (sharp_plugin.c's `SHARP coll init error: Cannot create SHARP job(-11)`, NVIDIA/nccl-tests#311); not init.cc's
# `... less than CollNet node threshold N, disabling CollNet`, which is NCCL's choice on few nodes
COLLNET_OFF = re.compile(r"Cannot initialize CollNet|CollNet is not supported or fails to initialize|CollNet currently "
                         r"only supports up to \d+ GPUs|\b(?:SHARP|sharp|SHArP)\b.*(?:[Nn]o resource|failed|init error)"
                         r"|CollNet.*(?:disabled|not available)")
# NCCL goes on without CollNet (transport.cc): the job runs, the errors of CollNet's setup before it are recovered
COLLNET_FALLBACK = re.compile(r"Cannot initialize CollNet, using point-to-point network instead")
COLLNET_SETUP = re.compile(r"\b(?:SHARP|sharp|SHArP)\b|CollNet|coll_net\.cc:\d+ -> ")


@rule("collnet-unavailable", "WARN", "network",
      "NCCL's `Cannot initialize CollNet, using point-to-point network instead` (and the SHARP plugin's `SHARP coll "
      "init error` before it, with the `coll_net.cc:N -> 2` chains, quoted in it: NCCL recovered), `CollNet is not "
      "supported or fails to initialize`, a SHARP line with `No resource` or `failed`",
      "no in-network reduction: NCCL reduces on the GPUs",
      "check the SHARP aggregation manager (sharp_am) and its resource limits, the SHARP plugin (libnccl-net with "
      "SHARP), and NCCL_COLLNET_ENABLE=1; where the fabric offers no SHARP (many cloud InfiniBand fabrics), unset "
      "NCCL_COLLNET_ENABLE", f"{ENV_DOCS}: NCCL_COLLNET_ENABLE; NVIDIA/nccl-tests#311; NVIDIA/nccl#1050")
def collnet_unavailable(r, c):
    m, _ = c.log.first(COLLNET_OFF)
    if m is None:
        return None
    fallbacks = [f for f in c.log.messages if COLLNET_FALLBACK.search(f.text)]
    fallback = fallbacks[0] if fallbacks else None
    found = r.finding(m.line, "CollNet (SHARP in-network reduction) is not used",
                      f"the log says: {m.text}; NCCL then reduces on the GPUs over the network (ring or tree)")
    found.gives_way = True  # the catalogue's reading of the SHARP plugin's line (sharp-job-not-created) is exacter
    if fallback is not None:
        found.why += (f"; NCCL went on without it (line {fallback.line}: {fallback.text}): the errors of CollNet's "
                      "setup are quoted here, not failures of the job")
        # CollNet's setup errors: the SHARP plugin's and coll_net.cc's lines, and any rank's `-> N` chain before NCCL's
        # last fallback line (NCCL agrees on the fallback across ranks, so a rank that failed otherwise never got there:
        # nccl#1050's transport.cc:291 and init.cc:670 chains)
        last = fallbacks[-1].line
        found.absorbs = lambda error: bool(COLLNET_SETUP.search(error.said) or (CHAIN.match(error.said)
                                                                                 and error.line < last))
    return found


FASTSOCKET = re.compile(r"^Using network FastSocket\b|^NET/FastSocket : Using (.*)$")
IPOIB = re.compile(r"\[\d+\](ib[\w.-]*):")  # an IPoIB interface (ib0, ibs108, ibp12s0): InfiniBand underneath


@rule("tcp-plugin-on-rdma", "WARN", "network",
      "`Using network FastSocket` (or its `NET/FastSocket : Using [0]ibs108:...` device list) where RDMA devices exist: "
      "the log's NET/IB devices, the node's NICs, or FastSocket's own interfaces being IPoIB (ib*)",
      "Google Cloud's TCP plugin on an InfiniBand/RoCE node",
      "remove libnccl-net-fastsocket from the library path (or NCCL_NET_PLUGIN), or set NCCL_NET=IB",
      f"{ENV_DOCS}: NCCL_NET, NCCL_NET_PLUGIN; google/nccl-fastsocket README; stas00/ml-engineering network/debug "
      "(NET/FastSocket over ibs* interfaces: the wrong plugin on InfiniBand, very low inter-node speed)")
def tcp_plugin_on_rdma(r, c):
    m, found = c.log.first(FASTSOCKET)
    if m is None:
        return None
    ipoib = IPOIB.findall(found.group(1) or "") if found.group(1) is not None else []
    if (c.wiring and c.wiring.nics) or c.log.ib_devices:
        why = "the node has InfiniBand/RoCE devices"
    elif ipoib:
        why = f"its interfaces are IPoIB ({', '.join(ipoib[:3])}{', ...' if len(ipoib) > 3 else ''}): InfiniBand is there"
    else:
        return None
    return r.finding(m.line, "NCCL uses the FastSocket plugin (TCP) on a node with RDMA devices",
                     f"FastSocket is Google Cloud's TCP transport; {why}, and NCCL's IB transport or the IB plugin "
                     "carries the data without the host's CPU")


GDR_OFF = re.compile(r"GPU Direct RDMA Disabled for HCA (\d+) '([^']+)'(?: \(([^)]+)\))?")


# a GPU whose memory is the system's, where GPUDirect RDMA is not supported (DGX Spark's GB10: NVIDIA's developer forum,
# "DGX Spark GPUDirect RDMA"; nccl-tests' device list names it `NVIDIA GB10`)
WITHOUT_GPUDIRECT_RDMA = re.compile(r"\bNVIDIA GB10\b")


@rule("gdrdma-disabled", "WARN", "network", "`GPU Direct RDMA Disabled for HCA N 'mlx5_0' (reason)`; not on a DGX "
      "Spark's GB10 (`NVIDIA GB10` in nccl-tests' device list: its memory is the system's, GPUDirect RDMA unsupported)",
      "the network's data is staged through host memory; NCCL's reason is quoted",
      "load nvidia-peermem (or use DMA-BUF: a recent driver and kernel); check NCCL_NET_GDR_LEVEL and that the NIC "
      "and the GPU share a PCIe switch",
      f"{ENV_DOCS}: NCCL_NET_GDR_LEVEL, NCCL_DMABUF_ENABLE; NVIDIA/nccl#897, NVIDIA/nccl#1676")
def gdrdma_disabled(r, c):
    m, found = c.log.first(GDR_OFF)
    if m is None:
        return None
    soc = next((o for o in c.log.others if WITHOUT_GPUDIRECT_RDMA.search(o.text)), None) or next(
        (n for n in c.log.messages if WITHOUT_GPUDIRECT_RDMA.search(n.text)), None)
    if soc is not None:  # the GPU's memory is the system's: no GPUDirect RDMA to turn on
        c.log.explained.append((m.line, m.raw, f"gdrdma-disabled: the GPU (line {soc.line}) is a DGX Spark's GB10, whose "
                                "memory is the system's: GPUDirect RDMA is not supported there (NVIDIA's DGX Spark "
                                "forum: nvidia-peermem and dma-buf do not work), so NCCL registers host memory"))
        return None
    reason = f" (NCCL says: {found.group(3)})" if found.group(3) else ""
    return r.finding(m.line, f"GPUDirect RDMA is off for {found.group(2)}",
                     f"NCCL stages the network's data through host memory{reason}")


# The GPUs a log names: nccl-tests' device list (`#  Rank  0 Group  0 Pid 587622 on HOST device  0 [0x21] NVIDIA GeForce
# RTX 4090`), PyTorch's collect_env (`GPU 0: NVIDIA GeForce RTX 4090`), nvidia-smi's table
GPU_MODEL = re.compile(r"\bNVIDIA (?:GeForce |Quadro |TITAN |Tesla )?(?:RTX |GTX )?[A-Z]?\d{3,4}\w*(?: Ti| SUPER)?\b|"
                       r"\bNVIDIA [A-Z]\d{2,3}\w*(?:-\w+)*\b|\bTesla [A-Z]\d{2,3}\w*")
# GeForce RTX 40 series: NVIDIA's driver gives them no peer-to-peer access (an NVIDIA representative on its developer
# forums, 2022, after Puget Systems' tests of RTX 4090s; NVIDIA/nccl-tests#117: 4 RTX 4090s ran with NCCL_P2P_DISABLE=1)
NO_P2P_MODEL = re.compile(r"NVIDIA GeForce RTX 40\d0(?: Ti| SUPER)?")


def gpu_models(log):
    """The GPU models the program's lines name (nvidia-smi, nccl-tests' device list), sorted."""
    return sorted({found.group(0) for o in log.others for found in GPU_MODEL.finditer(o.text)})


@rule("transport-disabled", "WARN", "node", "`NCCL_P2P_DISABLE` or `NCCL_SHM_DISABLE set by environment to 1` "
      "(not where each host runs one rank: `localRanks 1`, N ranks on N hosts; NCCL_P2P_DISABLE alone not where every GPU "
      "the log names is a GeForce RTX 40 series, which NVIDIA's driver gives no P2P: said as not a finding)",
      "GPU pairs of a node through host memory or the network",
      "unset it (it is often left from debugging an ACS or IOMMU problem: fix that instead)",
      f"{ENV_DOCS}: NCCL_P2P_DISABLE, NCCL_SHM_DISABLE; {TROUBLESHOOTING}: PCI ACS; NVIDIA/nccl#2079")
def transport_disabled(r, c):
    off = [(s.line, name) for name in ("NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE")
           if (s := first_setting(c.log, name, turned_on))]
    if not off or no_gpu_pair_on_a_host(c.log):  # one GPU a node (or in all): no pair inside a node to send over
        return None
    line, name = min(off)
    models = gpu_models(c.log)
    if [n for _, n in off] == ["NCCL_P2P_DISABLE"] and models and all(NO_P2P_MODEL.fullmatch(m) for m in models):
        c.log.explained.append((line, text_at(c.log, line), f"transport-disabled: the log's GPUs ({', '.join(models)}) have no P2P under NVIDIA's driver (GeForce RTX 40 "
            "series), so NCCL_P2P_DISABLE=1 changes no path (a driver patched for P2P would)"))
        return None
    return r.finding(line, f"{name} is set",
                     "NCCL cannot use that transport inside a node: GPU pairs go through host memory or the network")


TOPO_LOADED = re.compile(r"^Loading topology file (\S+)")
TOPO_DEFAULT = "/var/run/nvidia-topologyd/virtualTopology.xml"  # NCCL's own default (a VM's topology daemon)
TOPO_UNOPENED = re.compile(r"Could not open XML topology file ")
# the AWS OFI plugin sets the file it ships for the instance type it runs on (aws/aws-ofi-nccl#889's p4d log)
# the AWS OFI plugin setting the file of its instance type: `Setting NCCL_TOPO_FILE environment variable to F`, and
# 1.9 on `Adding NCCL_TOPO_FILE=F to environment` (gnosia93/training-on-eks' p4d log, a healthy DeepSpeed run)
TOPO_BY_PLUGIN = re.compile(r"^NET/OFI .*?(?:Setting NCCL_TOPO_FILE environment variable to |Adding NCCL_TOPO_FILE=)(\S+)")


@rule("topology-file", "WARN", "node", "`NCCL_TOPO_FILE set by environment to F`, or NCCL's `Loading topology file F` "
      "(a setting of /etc/nccl.conf or ~/.nccl.conf prints no ENV line), F not NCCL's default "
      "/var/run/nvidia-topologyd/virtualTopology.xml nor the one the AWS OFI plugin sets for its instance type "
      "(`NET/OFI ... Setting NCCL_TOPO_FILE environment variable to F`, `Adding NCCL_TOPO_FILE=F to environment`); not "
      "where NCCL could not open F "
      "(setting-names-absent-file)",
      "NCCL does not discover the node; another machine's file makes wrong rings",
      "use the file written for this exact machine type, or unset NCCL_TOPO_FILE (look in /etc/nccl.conf and "
      "~/.nccl.conf too)",
      f"{ENV_DOCS}: NCCL_TOPO_FILE; NVIDIA/nccl#1008, NVIDIA/nccl-tests#86")
def topology_file(r, c):
    if c.log.first(TOPO_UNOPENED)[0] is not None:
        return None  # NCCL discovered the node after all: setting-names-absent-file says why
    by_plugin = {found.group(1) for m in c.log.messages if (found := TOPO_BY_PLUGIN.search(m.text))}
    given = first_setting(c.log, "NCCL_TOPO_FILE", lambda value: value not in by_plugin and value != TOPO_DEFAULT)
    if given is not None:
        return r.finding(given.line, f"NCCL's topology comes from a file: {given.value}",
                         "NCCL does not discover the node: a file from another machine type makes wrong rings and "
                         "paths")
    m, found = c.log.first(TOPO_LOADED)
    if m is None or found.group(1) == TOPO_DEFAULT or found.group(1) in by_plugin:
        return None
    return r.finding(m.line, f"NCCL's topology comes from a file: {found.group(1)}",
                     "NCCL loads a topology file no NCCL_TOPO_FILE line of the log names (/etc/nccl.conf or "
                     "~/.nccl.conf sets it): NCCL does not discover the node, and a file from another machine type "
                     "makes wrong rings and paths")


NO_INTERFACE = re.compile(r"no socket interface found")


@rule("bootstrap-interface", "FAIL", "any", "`NCCL WARN Bootstrap : no socket interface found` (also as XLA/JAX "
      "quotes NCCL's last WARN: `Last NCCL warning(error) ... 'Bootstrap : no socket interface found'`)",
      "NCCL_SOCKET_IFNAME names no interface of this node, or none is up (bootstrap.cc returns ncclInvalidUsage, "
      "`invalid usage`, from 2.2x)",
      "set NCCL_SOCKET_IFNAME to an interface every node has and the nodes reach each other on (ip -br addr), by name "
      "(NCCL_SOCKET_IFNAME=ib0 or =eth), rather than a list of exclusions (^lo,docker,...) that leaves none or the wrong "
      "one",
      f"{ENV_DOCS}: NCCL_SOCKET_IFNAME; NCCL src/bootstrap.cc (bootstrapNetInit: WARN `Bootstrap : no socket interface "
      "found`, ncclInvalidUsage); NVIDIA/nccl#210, NVIDIA/nccl#1837; XLA's quote of it: tensorflow/tensorflow "
      "third_party/xla/xla/service/gpu/runtime/nccl_api.cc (ToStatus), marin-community/marin#7018 (the issue's "
      "author: the cluster's exclusion pattern ^ibs,ibp,lo,docker,veth,cilium,lxc left non-routable interfaces beside "
      "the routable one and bootstrap failed; fine on one node)")
def bootstrap_interface(r, c):
    m, _ = c.log.first(NO_INTERFACE, warn_only=True)
    if m is None:
        return None
    return r.finding(m.line, "NCCL found no network interface to bootstrap on",
                     "NCCL_SOCKET_IFNAME names an interface this node does not have, its exclusion list leaves none, "
                     "or none is up")


CONNECT_FAILED = re.compile(r"Connect to (\S+) failed\s*:\s*(.+)$")


@rule("connection-failed", "FAIL", "any", "`NCCL WARN ... Connect to ADDR failed : REASON`",
      "the peer is not reachable on the chosen interface, or a firewall drops it",
      "choose an interface both reach (NCCL_SOCKET_IFNAME); check the route and the firewall between the nodes",
      f"{ENV_DOCS}: NCCL_SOCKET_IFNAME; {TROUBLESHOOTING}; NVIDIA/nccl#286, NVIDIA/nccl-tests#15")
def connection_failed(r, c):
    m, found = c.log.first(CONNECT_FAILED, warn_only=True)
    if m is None:
        return None
    return r.finding(m.line, f"{m.host or 'NCCL'} could not connect to {found.group(1)}",
                     f"{found.group(2)}: the peer's address is not reachable on the interface NCCL chose, or a "
                     "firewall drops it")


OOM = re.compile(r"out of memory|Failed to CUDA calloc|cudaMalloc.*failed", re.I)


@rule("out-of-memory", "FAIL", "any", "`NCCL WARN ... out of memory`, `Failed to CUDA calloc`",
      "NCCL could not allocate its GPU buffers",
      "leave room for NCCL's buffers (NCCL_BUFFSIZE, fewer channels) or the job's", f"{ENV_DOCS}: NCCL_BUFFSIZE")
def out_of_memory(r, c):
    m, _ = c.log.first(OOM, warn_only=True)
    if m is None:
        return None
    return r.finding(m.line, f"NCCL could not allocate GPU memory{printed_on(m)}", f"the log says: {m.text}")


VERSION = re.compile(r"^NCCL version (\S+)")


@rule("version-mismatch", "FAIL", "any", "`NCCL version X` differing between hosts (each host's first; one host's "
      "two versions are two runs pasted together, not two ranks)",
      "ranks on different NCCL versions: hangs or wrong results",
      "install one NCCL everywhere (the same container image, the same LD_LIBRARY_PATH)",
      f"{TROUBLESHOOTING}; NVIDIA/nccl#286", needs=("ranks",))
def version_mismatch(r, c):
    # each host's first version: a thread's paste of one host's failing run and its rerun after an upgrade shows
    # two versions of one host, which no rank of one job ran against another
    seen = {}
    for m in c.log.messages:
        found = VERSION.search(m.text) if m.host and m.host not in seen else None
        if found:
            seen[m.host] = (found.group(1), m.line)
    if len({version for version, _ in seen.values()}) < 2:
        return None
    said = ", ".join(f"{v} on {host}" for host, (v, _) in sorted(seen.items(), key=lambda item: item[1]))
    return r.finding(min(line for _, line in seen.values()), f"the ranks run different NCCL versions: {said}",
                     "NCCL's protocol between ranks is only defined for one version: hangs or wrong results")


INIT_GPU = re.compile(r"\brank (\d+) nranks \d+ cudaDev \d+ (?:nvmlDev \d+ ?)?busId ([0-9a-fA-F]+)", re.I)


def rank_gpus(log):
    """{rank: (host, bus id)} from NCCL's init lines (`rank R nranks N cudaDev D busId B`) and its
    topology dump's GPU nodes (`GPU/1B000 (R)`), where they say it."""
    out = {}
    for m in log.messages:
        found = INIT_GPU.search(m.text)
        if found and m.host:
            out.setdefault(int(found.group(1)), (m.host, bus_id(found.group(2))))
    for host, ranks in log.gpu_ranks.items():
        for rank, bus in ranks.items():
            out.setdefault(rank, (host, bus))
    return out


def channel_gpus(log, ch, gpus):
    """(bus, bus) of a channel's two GPUs on its host, or None: the ranks' own (rank_gpus), both on the
    channel's host; else the brackets where they hold bus ids (before 2.12: `0[1b000] -> 1[1c000]`;
    later ones hold device indices)."""
    a, b = gpus.get(ch.src_rank), gpus.get(ch.dst_rank)
    if a and b and a[0] == b[0] == ch.host:
        return a[1], b[1]
    hex_ids = any(x in "abcdefABCDEF" for x in ch.src + ch.dst) or ch.old_format
    if hex_ids and ch.src and ch.dst:
        return bus_id(ch.src), bus_id(ch.dst)
    return None


def _nccl_says_nvlink(log, ch, gpus):
    """Why NCCL's own topology says the channel's two GPUs are on NVLink ("" where it does not): the
    route it printed says whether NCCL took P2P away itself (PHB/SYS over an NVLink: NCCL_P2P_DISABLE
    or NCCL_P2P_LEVEL) or kept it and CUDA refused it (NVL: the IOMMU, ACS, the driver)."""
    pair = channel_gpus(log, ch, gpus)
    if pair is None or log.nvlinked(ch.host, *pair) is not True:
        return ""
    route = log.path(ch.host, *pair)
    if route and route != "NVL":
        return (f"NCCL's own topology in the log puts their GPUs on NVLink, and NCCL routes them through the CPU "
                f"({route}): a setting took P2P away (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL)")
    return "NCCL's own topology in the log puts their GPUs on NVLink"


@rule("shm-instead-of-p2p", "WARN", "node",
      "a `via SHM/...` channel between two GPUs that the topology puts on NVLink or one PCIe switch (PIX, PXB), that "
      "NCCL's own topology in the log puts on NVLink (NCCL_DEBUG_SUBSYS=GRAPH: the path line `GPU/1B000 :GPU/1C000 "
      "(1/40.0/NVL)`, or the dump's `+ NVL[40.0] - GPU/1C000` / a shared NVSwitch; the ranks' GPUs from the init "
      "lines' busId), or (without either) whose node's other pairs use P2P",
      "P2P is off between them: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL, or PCIe ACS / an IOMMU sending peer traffic "
      "through the root complex",
      "unset NCCL_P2P_DISABLE and NCCL_P2P_LEVEL; disable ACS on the PCIe switches (setpci) and the IOMMU's "
      "translation for the GPUs (iommu=pt), as NCCL's troubleshooting guide says; check nvidia-smi topo -p2p r",
      f"{TROUBLESHOOTING}: PCI Access Control Services (ACS); {ENV_DOCS}: NCCL_P2P_LEVEL; NVIDIA/nccl#304, "
      "NVIDIA/nccl#606")
def shm_instead_of_p2p(r, c):
    with_p2p = {ch.host for ch in c.log.channels if ch.transport == "P2P"}
    gpus = rank_gpus(c.log)
    for ch in c.log.channels:
        if ch.transport != "SHM":
            continue
        why = ""
        distance = _pair(c.wiring, ch)
        if distance is not None:
            if distance.startswith("NV") or distance in ("PIX", "PXB"):
                why = f"GPU{ch.src} and GPU{ch.dst} are {distance} (nvidia-smi topo -m)"
        elif (said := _nccl_says_nvlink(c.log, ch, gpus)):
            why = said
        elif ch.host in with_p2p:
            why = f"other GPU pairs on {ch.host} use P2P"
        if why:
            return r.finding(ch.line, f"rank {ch.src_rank} -> {ch.dst_rank} on {ch.host} goes through host memory "
                                      f"(SHM) although {why}",
                             "P2P between the two GPUs is off: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL, or PCIe ACS / an "
                             "IOMMU that redirects peer traffic through the CPU's root complex (NCCL then refuses P2P "
                             "or finds it slow)")
    return None


@rule("net-inside-node", "WARN", "node",
      "a `via NET/...` channel between two ranks of one host (the init lines' or the topology dump's ranks and bus ids) "
      "whose GPUs NCCL's own topology in the log puts on NVLink (the path line's NVL, the dump's NVLink or a shared "
      "NVSwitch)",
      "two GPUs joined by NVLink exchange data through the network card and back: P2P and SHM are both off "
      "(NCCL_P2P_DISABLE with NCCL_SHM_DISABLE, NCCL_P2P_LEVEL=LOC) or the two ranks' containers cannot see each "
      "other (another IPC namespace, no shared /dev/shm)",
      "unset NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_P2P_LEVEL; give the ranks of one node one IPC namespace and "
      "/dev/shm (docker --ipc=host, one pod per node)",
      f"{ENV_DOCS}: NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_P2P_LEVEL; {TROUBLESHOOTING}")
def net_inside_node(r, c):
    gpus = rank_gpus(c.log)
    for ch in c.log.channels:
        said = _nccl_says_nvlink(c.log, ch, gpus) if ch.transport.startswith("NET") else ""
        if said:
            return r.finding(ch.line, f"rank {ch.src_rank} -> {ch.dst_rank} on {ch.host} goes over the network "
                                      f"({ch.via}) although their GPUs are on NVLink",
                             f"{said}; two GPUs of one host joined by NVLink send through the NIC and back: P2P and "
                             "SHM are off between them, or the ranks cannot see each other's memory")
    return None


@rule("p2p-to-another-host", "FAIL", "node",
      "a `via P2P/...` or `via SHM/...` channel (printed by its sender, its GPU in brackets) to a rank whose GPU in "
      "brackets is another rank's of the sender's host (`6[6] -> 10[2] via P2P/IPC` where `2[2]` is the host's own): "
      "the receiver is on another host",
      "NCCL took two hosts for one and set up a transport that works only inside a node (CUDA IPC, shared memory) "
      "between them: NCCL before 2.4 compared hosts by the hostname up to its first dot, so hosts named "
      "learngpu060.a and learngpu060.b were one node",
      "give every host a distinct short hostname (up to the first dot) or use NCCL 2.4 or later, which tells hosts "
      "apart by their full name and boot id; check `hostname -s` on every node",
      "NVIDIA/nccl#187 (the reporter traced it to the hostnames' common prefix; comparing full hostnames, "
      "NVIDIA/nccl#198, fixed it on their cluster)")
def p2p_to_another_host(r, c):
    # a P2P or SHM line is its sender's (transport/p2p.cc, shm.cc: myInfo -> peerInfo): the sender's own GPU is in its
    # brackets, so each host's lines say which GPU each of its ranks has
    local = [ch for ch in c.log.channels if ch.transport in ("P2P", "SHM") and ch.host and ch.src and ch.dst]
    own = {}
    for ch in local:
        own.setdefault(ch.host, {}).setdefault(ch.src_rank, ch.src)
    told_apart = _names_nccl_told_apart(c.log, own)
    for ch in local:
        if ch.host in told_apart:
            continue
        gpus = own[ch.host]
        if len(set(gpus.values())) < len(gpus):
            continue  # brackets that repeat are not GPUs (CUDA_VISIBLE_DEVICES: every rank's device 0)
        holder = next((rank for rank, gpu in gpus.items() if gpu == ch.dst and rank != ch.dst_rank), None)
        if ch.dst_rank not in gpus and holder is not None:
            return r.finding(ch.line, f"rank {ch.src_rank} on {ch.host} sends to rank {ch.dst_rank} via {ch.via}, an "
                                      f"intra-node transport, but GPU [{ch.dst}] of {ch.host} is rank {holder}'s",
                             f"rank {ch.dst_rank} runs on another host that NCCL took for {ch.host}: CUDA IPC and "
                             "shared memory do not cross hosts, so the connection fails (an unhandled cuda error)")
    return None


def _names_nccl_told_apart(log, own):
    """Host names that stand for several machines NCCL itself told apart: a `via NET` channel printed on the
    name whose ranks are seen on no other name (NVIDIA/nccl-tests#188: two nodes both named `user`, NET/Socket
    between ranks 9 and 0, P2P inside each). A GPU index held by two of its ranks is then two machines' GPUs,
    not a rank of another host taken for this one."""
    elsewhere = {host: {rank for other, ranks in own.items() if other != host for rank in ranks} for host in own}
    return {ch.host for ch in log.channels
            if ch.transport.startswith("NET") and ch.host in own
            and ch.src_rank not in elsewhere[ch.host] and ch.dst_rank not in elsewhere[ch.host]}


def _pair(wiring, ch):
    """The wiring's distance between a channel's two GPUs (the new format's brackets hold CUDA
    device indices; the old one's hold bus ids, which it cannot map)."""
    if wiring is None or ch.old_format or not ch.src.isdigit() or not ch.dst.isdigit():
        return None
    return wiring.pair(int(ch.src), int(ch.dst))


@rule("gdrdma-unused", "WARN", "network", "`via NET/IB/N` without `/GDRDMA` where that HCA is PIX/PXB to the channel's GPU",
      "GPUDirect RDMA not used where NCCL uses it by default: staged through host memory",
      "load nvidia-peermem (lsmod | grep peermem) or use DMA-BUF; check NCCL_NET_GDR_LEVEL is not lowered",
      f"{ENV_DOCS}: NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ; NVIDIA/nccl#897", needs=("topology",))
def gdrdma_unused(r, c):
    for ch in c.log.channels:
        if ch.transport != "NET/IB" or ch.gdrdma or not 0 <= ch.net_device < len(c.log.ib_devices):
            continue
        hca = c.log.ib_devices[ch.net_device].split(":")[0]
        kind = c.wiring.nics.get(hca, {}).get(ch.device)
        if kind in ("PIX", "PXB"):
            return r.finding(ch.line, f"GPU{ch.device} on {ch.host} sends over {hca} without GPUDirect RDMA",
                             f"{hca} is {kind} to GPU{ch.device} (nvidia-smi topo -m), where NCCL uses GPUDirect RDMA "
                             f"by default: the channel says NET/IB/{ch.net_device} without /GDRDMA, so the data is "
                             "staged through host memory")
    return None


# NCCL's graph/paths.cc (ncclTopoCheckP2p), where NVML says a GPU pair the topology connects has no P2P: between
# NVLink-connected GPUs a WARN (`... NVLINK connected GPUs ... probably due to a hardware issue`) and
# ncclUnhandledCudaError, the job stops (older NCCL said it so for every connected pair: `This should not be the case
# given their connectivity`); between GPUs on PCIe an INFO (`... You can repress this message with
# NCCL_IGNORE_DISABLED_P2P=1.`) and NCCL goes on through host memory.
P2P_REFUSED = re.compile(r"P2P is disabled between (NVLINK )?connected GPUs (\d+) and (\d+)")


def _p2p_refused(log, stopping):
    """The first of NCCL's lines that say P2P is disabled between connected GPUs, of the kind that stops NCCL (or of
    the kind it goes on from), with its match."""
    for m in log.messages:
        found = P2P_REFUSED.search(m.text)
        if found and stopping == bool(found.group(1) or m.warn or "should not be the case" in m.text):
            return m, found
    return None, None


@rule("p2p-disabled-by-hardware", "FAIL", "node", "`P2P is disabled between NVLINK connected GPUs A and B` (NCCL's "
      "WARN, or an older NCCL's `... connected GPUs A and B. This should not be the case given their connectivity`)",
      "CUDA reports no peer access between GPUs the topology connects; NCCL stops unless NCCL_IGNORE_DISABLED_P2P=1",
      "check nvidia-smi topo -p2p r (and the fabric manager on NVSwitch systems: systemctl status "
      "nvidia-fabricmanager), ACS and the IOMMU; do not hide it with NCCL_IGNORE_DISABLED_P2P",
      f"{TROUBLESHOOTING}; NCCL src/graph/paths.cc (ncclTopoCheckP2p); NVIDIA/nccl#257, NVIDIA/nccl#2079")
def p2p_disabled_by_hardware(r, c):
    m, found = _p2p_refused(c.log, stopping=True)
    if m is None:
        return None
    return r.finding(m.line, f"NCCL found P2P disabled between {found.group(1) or ''}connected GPUs {found.group(2)} "
                             f"and {found.group(3)}{printed_on(m)}",
                     "CUDA reports no peer access between GPUs the topology connects: NCCL says this is probably a "
                     "hardware issue, and stops unless NCCL_IGNORE_DISABLED_P2P=1")


@rule("p2p-disabled-on-pcie", "WARN", "node", "NCCL's INFO `P2P is disabled between connected GPUs A and B. You can "
      "repress this message with NCCL_IGNORE_DISABLED_P2P=1.` (GPUs on PCIe that NVML gives no peer access)",
      "the pair goes through host memory (SHM), slower than P2P over their PCIe switch; NCCL goes on",
      "GeForce cards: NVIDIA's driver gives them no P2P, nothing to fix; datacenter GPUs: check nvidia-smi topo -p2p r, "
      "ACS on the PCIe switches and the IOMMU (NCCL's Troubleshooting: PCI Access Control Services), or a VM's "
      "passthrough",
      f"{TROUBLESHOOTING}; NCCL src/graph/paths.cc (ncclTopoCheckP2p: INFO where the path is PCIe, and p2p off); "
      "pytorch/pytorch#150734 (two RTX 5090: the INFO, channels via SHM, training went on)")
def p2p_disabled_on_pcie(r, c):
    m, found = _p2p_refused(c.log, stopping=False)
    if m is None:
        return None
    models = gpu_models(c.log)
    if models and all(model.startswith("NVIDIA GeForce") for model in models):
        c.log.explained.append((m.line, m.raw, f"p2p-disabled-on-pcie: the log's GPUs ({', '.join(models)}) are "
                                               "GeForce cards, which NVIDIA's driver gives no PCIe P2P: host memory is "
                                               "their path"))
        return None
    return r.finding(m.line, f"NVML gives no P2P between PCIe-connected GPUs {found.group(2)} and {found.group(3)}"
                             f"{printed_on(m)}: NCCL goes through host memory",
                     "NCCL found the pair connected on PCIe but NVML reports no peer access: it went on without P2P, "
                     "so the pair's data is copied through host memory (SHM)")


@rule("p2p-level", "WARN", "node", "`NCCL_P2P_LEVEL set by environment to LOC` (or 0), which NCCL also prints for "
      "NCCL_P2P_DISABLE=1 (graph/paths.cc's ncclGetLevel): where the log shows NCCL_P2P_DISABLE set, transport-disabled "
      "says it and this rule does not",
      "P2P never used: NCCL_P2P_LEVEL is how far apart two GPUs may be for P2P (NVL, PIX, PXB, PHB, SYS); LOC forbids it",
      "unset NCCL_P2P_LEVEL and NCCL_P2P_DISABLE (NCCL picks by the topology) or set the level the node's wiring allows",
      f"{ENV_DOCS}: NCCL_P2P_LEVEL, NCCL_P2P_DISABLE; NCCL src/graph/paths.cc (ncclGetLevel); NVIDIA/nccl#606")
def p2p_level(r, c):
    level = first_setting(c.log, "NCCL_P2P_LEVEL", lambda value: value.upper() in ("LOC", "0"))
    if level is None or one_rank_a_host(c.log) or first_setting(c.log, "NCCL_P2P_DISABLE", turned_on):
        return None  # NCCL_P2P_DISABLE=1 prints as NCCL_P2P_LEVEL LOC: transport-disabled names what was set
    return r.finding(level.line, f"NCCL_P2P_LEVEL={level.value}: P2P is never used (NCCL prints this for "
                                 "NCCL_P2P_DISABLE=1 too)",
                     "NCCL_P2P_LEVEL says how far apart two GPUs may be for P2P (NVL: NVLink only, PIX: one PCIe "
                     "switch, PXB: several switches, PHB: the CPU's root complex, SYS: across sockets); LOC forbids it "
                     "everywhere, so every pair inside the node goes through host memory")


NVLS_MISSING = re.compile(r"NVLS multicast support is not available")


@rule("nvls-unavailable", "WARN", "node",
      "`NVLS multicast support is not available` on GPUs that all sit on NVSwitches (NV18 every pair), or "
      "`NCCL_NVLS_ENABLE set by environment to 0` (with or without a topology)",
      "all_reduce runs at the ring's busbw, not NVLS's (about 370 against 480 GB/s on 8 H100)",
      "without NVLS an 8-GPU all_reduce reaches the ring's busbw, not NVLS's (about 370 against 480 GB/s on H100: "
      "NVIDIA/nccl-tests#212); unset NCCL_NVLS_ENABLE, check nvidia-fabricmanager and the driver",
      f"{ENV_DOCS}: NCCL_NVLS_ENABLE; NVIDIA/nccl-tests#212")
def nvls_unavailable(r, c):
    off = first_setting(c.log, "NCCL_NVLS_ENABLE", lambda value: value.strip() == "0")
    if off is not None and no_gpu_pair_on_a_host(c.log):
        c.log.explained.append((off.line, text_at(c.log, off.line), "nvls-unavailable: NCCL_NVLS_ENABLE=0 on a job "
                                "with no two GPUs of one host: NVLS, multicast among a host's NVSwitch-linked GPUs, "
                                "had nothing to serve"))
        return None
    if off is not None:
        return r.finding(off.line, f"NVLS (NVLink SHARP) is not used{' on ' + off.host if off.host else ''}",
                         "NCCL_NVLS_ENABLE=0 turns it off")
    if c.wiring is None or not c.wiring.nvswitch_with_nvls():
        return None
    m, _ = c.log.first(NVLS_MISSING)
    if m is None:
        return None
    return r.finding(m.line, f"NVLS (NVLink SHARP) is not used{printed_on(m)}",
                     "the GPUs sit on NVSwitches (every pair NV18) but NCCL says multicast is not available: the "
                     "fabric manager or the driver's multicast (IMEX on NVL72) is not up")


NETWORK_LINE = re.compile(r"^Using network ")


@rule("plugin-vs-nics", "WARN", "network", "`Using network AWS Libfabric` (or OFI) on a node whose NICs are mlx5",
      "EFA's plugin over libfabric's verbs provider, slower than NCCL's own IB transport",
      "remove the aws-ofi-nccl plugin from the library path (or NCCL_NET_PLUGIN), or set NCCL_NET=IB",
      f"{ENV_DOCS}: NCCL_NET, NCCL_NET_PLUGIN", needs=("topology",))
def plugin_vs_nics(r, c):
    network = c.log.network or ""
    if any(n.startswith("mlx5") for n in c.wiring.nics) and ("Libfabric" in network or "OFI" in network):
        m, _ = c.log.first(NETWORK_LINE)
        return r.finding(m.line if m else 0, f"NCCL uses the {network} plugin on a node whose NICs are "
                                             "Mellanox/NVIDIA (mlx5)",
                         "the OFI plugin is AWS EFA's; on mlx5 HCAs it goes through libfabric's verbs provider, "
                         "slower than NCCL's own IB transport")
    return None


@rule("ib-hca-excludes-ports", "WARN", "network",
      "`NCCL_IB_HCA set by environment to ...` and fewer devices in `NET/IB : Using` than the node has NICs",
      "the GPUs whose NIC is left out send over another GPU's: a fraction of the node's bandwidth",
      "list every fabric port in NCCL_IB_HCA, or unset it; exclude only ports off the fabric ('^mlx5_bond_0')",
      f"{ENV_DOCS}: NCCL_IB_HCA; NVIDIA/nccl#236, NVIDIA/nccl-tests#150", needs=("topology",))
def ib_hca_excludes_ports(r, c):
    hca = first_setting(c.log, "NCCL_IB_HCA")
    if hca is None or not c.log.ib_devices or len(c.log.ib_devices) >= len(c.wiring.nics):
        return None
    return r.finding(hca.line, f"NCCL uses {len(c.log.ib_devices)} of the node's {len(c.wiring.nics)} network devices "
                             f"(NCCL_IB_HCA={hca.value})",
                     "the GPUs whose NIC is left out send over another GPU's NIC: the node gets a fraction of its "
                     "bandwidth")
