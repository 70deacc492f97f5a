"""A failed connection to an address in Docker's default bridge subnet (172.17.0.0/16: docker0 is 172.17.0.1 on
every host, its containers 172.17.0.2 on) from a job whose hosts the log shows on other addresses: a process in a
container on another host's default bridge advertised its container address, which no other host routes to
(OpenRLHF/OpenRLHF#265: `(RayWorkerVllm pid=207931, ip=10.0.1.75) ... The client socket has timed out after
1800s while trying to connect to (172.17.0.2, 44737)`). Kubernetes pod networks may use 172.17.x too (NVIDIA/nccl#733's
peer 172.17.127.143), so only where the log shows the dialling process' node (Ray's ip=) or the hosts' own NCCL
addresses outside 172.17.0.0/16, and the target among none of them."""
import ipaddress
import re

from .agreement import ADDRESS, ADDRESS_LINE, ENV_DOCS
from .log_facts import ip_of
from .registry import rule

DOCKER_BRIDGE = ipaddress.ip_network("172.17.0.0/16")  # Docker's default bridge network (docker0)
# PyTorch's c10d (torch/csrc/distributed/c10d/socket.cpp, SocketConnectOp): `The client socket has timed out after
# {} while trying to connect to ({}, {}).` and `The client socket has failed to connect to any network address of
# ({}, {}).`; NCCL's `Connect to ADDR<port> failed : REASON` (misc/socket.cc)
DIALLED = re.compile(r"\bThe client socket has (?:timed out after \S+ while trying to connect to|failed to connect to "
                     r"any network address of) \(([\d.]+)|\bConnect to ([\d.]+)<\d+> failed\b")


def _in_bridge(said):
    address = ip_of(said)
    return address is not None and address in DOCKER_BRIDGE


def _elsewhere(said):
    """An address that shows a host on a network of its own: routable, outside Docker's default bridge."""
    address = ip_of(said)
    return address is not None and not (address.is_loopback or address.is_link_local or address in DOCKER_BRIDGE)


@rule("docker-bridge-address-dialled", "FAIL", "any",
      "a connection that timed out or failed (PyTorch c10d's `The client socket has timed out after Ns while trying to "
      "connect to (ADDR, PORT)`, NCCL's `Connect to ADDR<port> failed`) to an address in 172.17.0.0/16, where the log "
      "shows the dialling node (Ray's `ip=`) or the hosts' NCCL addresses outside it",
      "the address looks like a container's on Docker's default bridge (docker0, 172.17.0.0/16) of another host: the "
      "process there advertised its container address, which no other host routes to",
      "to tell: on the target host `ip -4 addr show docker0` shows 172.17.0.1/16 and `docker network inspect bridge` "
      "lists the container at that address; run the containers with the host's network (docker run --network=host; "
      "Kubernetes' pod network or KubeRay), or make the processes advertise the host's address (MASTER_ADDR, Ray's "
      "--node-ip-address, NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME naming the host's interface)",
      f"Docker documentation, bridge network driver (the default bridge, docker0, 172.17.0.0/16); PyTorch "
      f"torch/csrc/distributed/c10d/socket.cpp (SocketConnectOp's timeout); {ENV_DOCS}: NCCL_SOCKET_IFNAME; "
      "OpenRLHF/OpenRLHF#265 (wuxibin89: the nodes have two networks, 10.0.0.0 and 172.17.0.0, and the vLLM actor "
      "tries to connect via 172.17.0.2: use the host's network)")
def docker_bridge_address_dialled(r, c):
    lines = sorted([(m.line, m.text) for m in c.log.messages] + [(o.line, o.text) for o in c.log.others])
    # the hosts' own addresses: NCCL's first bootstrap or socket address of each, and the nodes Ray's prefixes name
    hosts = {ADDRESS.search(found.group(1)).group(2) for m in c.log.messages
             if (found := ADDRESS_LINE.search(m.text)) and ADDRESS.search(found.group(1))}
    hosts |= set(c.log.origins.values())
    for number, text in lines:
        found = DIALLED.search(text)
        target = (found.group(1) or found.group(2)) if found else None
        if not target or not _in_bridge(target) or target in hosts:
            continue
        origin = c.log.origins.get(number)
        outside = sorted(a for a in hosts if _elsewhere(a))
        if origin and _in_bridge(origin):
            continue  # the dialling node is on 172.17 itself: a network of that range, not a bridge seen from outside
        if not outside:
            continue  # nothing shows the hosts elsewhere (a pod network in 172.17.0.0/16 reads the same)
        shown = f"the dialling node is {origin}" if origin else f"the hosts' own addresses are {', '.join(outside)}"
        return r.finding(number, f"a connection to {target} failed, an address that looks like Docker's default bridge "
                                 f"(172.17.0.0/16), while {shown}",
                         f"{target} is in docker0's subnet, which every Docker host has for its own containers: "
                         "another host does not route to it, so the connection times out (or reaches a container of "
                         "its own bridge)")
    return None
