"""Rules over the transports between the GPUs of one node (registry.py): P2P or SHM turned off, a
topology file, a pair sent through host memory or the NIC though NCCL's own topology (or the node's wiring)
joins it, an intra-node transport to another host, P2P refused by the hardware, NVLS off."""
import re

from .log_facts import first_setting, gpu_models, no_gpu_pair_on_a_host, one_rank_a_host, printed_on, text_at, turned_on
from .log_reader import bus_id  # the reader's own spelling of a bus id
from .registry import rule
from .sources import ENV_DOCS, TROUBLESHOOTING


# GeForce RTX 40 series: NVIDIA's driver gives them no peer-to-peer access (an NVIDIA representative on its developer
# forums, 2022, after Puget Systems' tests of RTX 4090s; NVIDIA/nccl-tests#117: 4 RTX 4090s ran with NCCL_P2P_DISABLE=1)
NO_P2P_MODEL = re.compile(r"NVIDIA GeForce RTX 40\d0(?: Ti| SUPER)?")


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
