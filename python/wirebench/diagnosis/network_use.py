"""Whether a job's data crossed the network, as an NCCL log shows it: what a network finding needs (issue 55:
a network cause only where the network carried data), read by diagnose.py and by the rules that need it."""
import re

from . import log_facts, nccl_tests
from .registry import NETWORK_SCOPES

NODES = re.compile(r"\bnNodes (\d+)")
# the address a process bootstraps on or moves socket data on (its first)
BOOTSTRAP = re.compile(r"^(?:Bootstrap|NET/Socket) ?: Using (?:\[\d+\])?[\w.-]+:(\S+?)<\d+>")


# NCCL's error chain through its network transport (`transport/net.cc:515 -> 2`, `transport/net_socket.cc:368 -> 2`,
# `transport/net_ib.cc:...`): a connection over the network was being made, which NCCL does only for a channel between
# nodes (dmlc/xgboost#7982: one host's four processes in the log, their proxies failing `Connect from rank 3` through
# net_socket.cc to a Docker bridge's address)
NET_CHAIN = re.compile(r"\btransport/net(?:_socket|_ib|_v\d+)?\.cc:\d+ -> \d")


def net_transport_in_use(log):
    """Whether the log shows NCCL's network transport at work: a channel via NET, or an error chain through it."""
    return any(c.transport.startswith("NET") for c in log.channels) or any(NET_CHAIN.search(m.text) for m in log.messages)


def network_carries_data(log):
    """Whether the job's data crossed the network: NCCL says more than one node (`nNodes N`, 2.19
    on), the log holds more than one host's lines, or a channel goes via NET. A single host's log
    (NVLink, `NET/IB : No device found`, NET/Socket chosen) moved nothing over it."""
    for m in log.messages:
        found = NODES.search(m.text)
        if found:
            return int(found.group(1)) > 1
    return len(log.hosts()) > 1 or net_transport_in_use(log)


def one_host_shown(log):
    """Whether the log shows the whole job on one host: NCCL's `nNodes 1`, nccl-tests' device list
    naming one host for all its ranks (`-g 2`: two GPUs of one process, NVIDIA/nccl#428), or several
    processes of one host and no other host's line. A log of one process's line shows nothing of the kind."""
    for m in log.messages:
        found = NODES.search(m.text)
        if found:
            return int(found.group(1)) == 1
    if net_transport_in_use(log):
        return False  # NCCL connects through its network transport only to another node
    hosts = log.hosts()
    listed = nccl_tests.banner_hosts(log)
    if len(listed) > 1 and len(set(listed.values())) == 1 and set(hosts) <= set(listed.values()):
        return True
    addresses = {found.group(1) for m in log.messages if (found := BOOTSTRAP.search(m.text))}
    if len(hosts) <= 1 and addresses and all(log_facts.loopback(a) for a in addresses):
        return True  # every process bootstraps on lo, which reaches no other host (NVIDIA/nccl#1190: no host prefix)
    if len(hosts) != 1 or len({m.pid for m in log.messages if m.host}) < 2:
        return False
    # machines of one hostname (`ubuntu` twice, NVIDIA/nccl-tests#166) bootstrap on different addresses
    return len(addresses) <= 1


def unused_networks(log, one_host):
    """{scope: why its findings say nothing of this job}: the network scopes where the log shows the job on one
    host (`one_host`: one_host_shown's); ib also where NCCL_IB_DISABLE=1 chose sockets (NVIDIA/nccl-tests#82: two
    hosts over sockets, each printing that it cannot load libibverbs, which NCCL 2.12 on prints as INFO)."""
    if one_host:
        return dict.fromkeys(NETWORK_SCOPES, "the log shows the job on one host: no data crossed the network")
    disabled = log_facts.first_setting(log, "NCCL_IB_DISABLE", lambda value: value.strip() == "1")
    if disabled:
        return {"ib": f"NCCL_IB_DISABLE=1 (line {disabled.line}) chose sockets: InfiniBand's library and devices are "
                      "not used"}
    if sockets_chosen(log) and not rdma_shown(log):
        return {"ib": "the log shows NCCL on sockets and no RDMA device (no NET/IB or OFI line, no InfiniBand, RoCE or "
                      "EFA interface, no NCCL_IB_* setting): a host without one needs no libibverbs, and sockets are "
                      "its network"}
    return {}


SOCKETS_CHOSEN = re.compile(r"^(?:Using network Socket\b|NET/Socket ?: Using \[)")


def sockets_chosen(log):
    """Whether NCCL's lines show it went on over TCP sockets (`Using network Socket`, `NET/Socket : Using [0]...`)."""
    return any(SOCKETS_CHOSEN.match(m.said) for m in log.messages)


# What shows an RDMA device on the hosts, or the job meant one: NCCL's IB or OFI network in use, an InfiniBand, RoCE or
# EFA device or interface named (mlx5_0, ib0, ibp12s0, bnxt_re0, irdma0, rdmap16s27, efa), an NCCL_IB_* setting
# (NCCL_IB_DISABLE aside), libfabric's providers. `Failed to open libibverbs` itself is none: NCCL prints it on every
# host without rdma-core, cloud VMs without RDMA among them (aws-samples/aws-hpc-tutorials' 2 x g5 nccl-tests over
# eth0, a healthy run, read WARN libibverbs-missing).
RDMA_SHOWN = re.compile(r"NET/IB ?: (?:Using|\[\d)|\bNET/OFI\b|\bmlx\d_\d+|\bib(?:p\w+|s\d+|\d+)\b|\bbnxt_re\d|"
                        r"\birdma\d|\brdmap\w+|\bEFA\b|\befa(?:_\w+|\d)?\b|\bNCCL_IB_(?!DISABLE\b)\w+|\bRoCE\b|"
                        r"\bInfiniBand\b|\blibfabric\b|\bGPU ?Direct RDMA\b", re.I)


# what a line RDMA_SHOWN reads holds, in one spelling or another: a long job log's lines are searched only where one is
RDMA_LITERALS = ("IB", "ib", "mlx", "bnxt", "rdma", "RDMA", "EFA", "efa", "OFI", "RoCE", "InfiniBand", "fabric",
                 "Direct")


def rdma_shown(log):
    """Whether a line of the log shows an RDMA device on its hosts, or the job meant one (RDMA_SHOWN)."""
    return any(RDMA_SHOWN.search(text) for text in _texts(log) if any(literal in text for literal in RDMA_LITERALS))


def _texts(log):
    for m in log.messages:
        yield m.said
    for o in log.others:
        yield o.text
