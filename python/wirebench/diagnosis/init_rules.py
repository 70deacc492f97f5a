"""Rules over NCCL's start (registry.py): no interface to bootstrap on, a peer not reached, GPU memory NCCL
could not allocate, hosts on different NCCL versions."""
import re

from .log_facts import VERSION, printed_on
from .registry import rule
from .sources import ENV_DOCS, TROUBLESHOOTING


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
