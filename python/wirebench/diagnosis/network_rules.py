"""Rules over the network NCCL chose between hosts (registry.py): sockets where RDMA is there, a device list
that mixes fabrics or adapters, InfiniBand's completion errors, CollNet/SHARP, GPUDirect RDMA, a plugin that does
not fit the NICs. Mostly of scope network: said only where the log shows the network carried data."""
import re

from .error_lines import CHAIN  # NCCL's error chain line, as the error finder reads it
from .log_facts import SETTING, first_setting, jobs, old_networks, printed_on, turned_on
from .log_reader import IB_LIST  # the reader's own pattern of NCCL's IB device list
from .registry import rule
from .sources import ENV_DOCS, TROUBLESHOOTING, VERBS


SOCKET_NETWORK = re.compile(r"^Using network Socket\b")
SOCKET_DEVICES = re.compile(r"^NET/Socket : Using ")
SOCKET_CHANNEL = re.compile(r"via NET/Socket/")
# an RDMA device named in one of NCCL's lines: Mellanox/NVIDIA HCAs (mlx5_0, NCCL 2.3's `NET/IB: [0] mlx5_0:1/IB`),
# AWS EFA (the OFI plugin's `Selected provider is efa`, its rdmap devices). NCCL's `NET/Plugin : No plugin
# found (libnccl-net.so)` / `Could not find: libnccl-net.so` is no such evidence: it says only that no
# external plugin is installed, on every host without one (NVIDIA/nccl#226: 64 AWS hosts without RDMA).
RDMA_NAMED = re.compile(r"\bmlx[45]_\w+|\befa\b|\brdmap\w+")
# libfabric's own log line from its EFA provider (`libfabric:PID:TIMESTAMP::efa:SUBSYSTEM:function():LINE<level> ...`):
# the node has an EFA device whatever NCCL then chose (aws/aws-k8s-tester#473: on a bad AMI the provider could not
# register CUDA buffers, the OFI plugin was not used and NCCL sent via NET/Socket at about 1 GB/s)
EFA_PROVIDER_LINE = re.compile(r"\blibfabric:\d+:\d+::efa:\w+:")
EFA_FIX = ("NCCL reaches EFA through AWS's OFI plugin (aws-ofi-nccl): check that it loads (NCCL's `NET/OFI` lines, "
           "NCCL_NET_PLUGIN, the library path) and that libfabric's EFA provider can register GPU memory (its FI_HMEM "
           "warning: the image's EFA driver and GPUDirect RDMA support, DMA-BUF or nvidia-peermem); `fi_info -p efa` "
           "lists the devices")


@rule("socket-fallback", "FAIL", "network",
      "`Using network Socket` (an older log: `NET/Socket : Using ...`) with evidence of RDMA: `NET/IB : Using [0]...` "
      "devices, an mlx5 or EFA device named in NCCL's lines (or libfabric's EFA provider logging: `libfabric:P:T::efa:...`), "
      "the node's topology listing NICs (NCCL's `No plugin found "
      "(libnccl-net.so)` is none: no external plugin is installed); `NCCL_IB_DISABLE set by environment` or `NCCL_NET` "
      "forced is the job's choice, added to that evidence, and alone said as not a finding",
      "inter-node data over TCP, many times slower than RDMA; the evidence says why",
      "unset NCCL_IB_DISABLE and NCCL_NET=Socket; check ibv_devinfo on the node (rdma-core, the HCA's driver); give "
      "NCCL the RDMA devices with NCCL_IB_HCA; install the network plugin the cluster uses",
      f"{ENV_DOCS}: NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA; NVIDIA/nccl#952, NVIDIA/nccl-tests#188; aws/aws-k8s-tester#473 "
      "(EFA's provider could not register CUDA buffers on a bad AMI: NET/Socket at about 1 GB/s)")
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
    evidence, fix = [], None
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
            fix = EFA_FIX if named[1] == "efa" or named[1].startswith("rdmap") else None  # AWS's: the OFI plugin's path
        else:
            provider = next((o for o in log.others if EFA_PROVIDER_LINE.search(o.text)), None)
            if provider is not None:
                evidence.append(f"libfabric's EFA provider logs on the job's nodes (line {provider.line}: "
                                f"{provider.text.strip()})")
                fix = EFA_FIX
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
                     "NCCL fell back to TCP sockets, many times slower than RDMA: " + "; ".join(evidence), fix)


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
