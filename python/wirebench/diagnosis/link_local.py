"""A host bootstrapping (or moving socket data) on a link-local address in a job across hosts: NCCL lists the
interfaces it found (`Bootstrap : Using [0]ip6tnl0:fe80::e866:19ff:fe1e:a688%ip6tnl0<0> [1]veth0:2a02:...<0>`)
and its bootstrap root listens on the first (src/bootstrap.cc, bootstrapCreateRoot: interface 0); its socket
transport uses each listed one as a device. A link-local address (IPv6 fe80::/10, IPv4 169.254.0.0/16) is
reached only on its own link, through the interface its scope names (`%ip6tnl0`): a host on another link, or
behind a tunnel, cannot connect to it (NVIDIA/nccl#529). A WARN, not a FAIL: hosts on one Ethernet segment do
reach each other's link-local addresses."""
import re

from .agreement import ADDRESS, ADDRESS_LINE, ENV_DOCS
from .log_facts import ip_of
from .registry import rule

SOCKET_DEVICES = re.compile(r"^NET/Socket ?: Using\s+(.*)$")  # the devices of NCCL's socket transport


def link_local(address):
    """Whether an address as NCCL prints it (`fe80::1%eth0`, `169.254.3.4`) is link-local."""
    ip = ip_of(address)
    return ip is not None and ip.is_link_local


@rule("address-link-local", "WARN", "network",
      "a host's first bootstrap or socket address NCCL prints (`Bootstrap : Using [0]ip6tnl0:fe80::...%ip6tnl0<0>`, "
      "`NET/Socket : Using [0]...`), or any of its socket devices (`NET/Socket : Using [0]bond0:... [1]veth...:fe80::..."
      "`), is link-local (IPv6 fe80::/10, IPv4 169.254.0.0/16), in a job across hosts",
      "NCCL bootstraps on the first interface it lists; a link-local address is reached only on its own link with its "
      "interface's scope: a host on another link (or behind a tunnel) cannot connect to it, so the bootstrap or the "
      "socket connections time out",
      "set NCCL_SOCKET_IFNAME to the interface with a routable address that the hosts reach each other on (=eth0), or "
      "leave the link-local one out (^ip6tnl0)",
      f"{ENV_DOCS}: NCCL_SOCKET_IFNAME; NCCL src/bootstrap.cc (bootstrapCreateRoot listens on interface 0 of those it lists); "
      "RFC 4291 2.5.6 (fe80::/10, never forwarded by routers), RFC 3927 (169.254/16); NVIDIA/nccl#529 (sjeaugey: the "
      "important line is `Connect to fe80::...%ip6tnl0 failed : Connection timed out`: bootstrap on the ip6tnl0 "
      "tunnel's link-local address rather than veth0's); Oneflow-Inc/libai#415 (a Docker veth's fe80:: address second in "
      "NET/Socket's list: NCCL_SOCKET_IFNAME=bond0 fixed it)", needs=("ranks",))
def address_link_local(r, c):
    # scope network: said only where the job spans hosts (one host reaches its own link-local address)
    seen = set()
    for m in c.log.messages:
        found = ADDRESS_LINE.search(m.text)
        first = ADDRESS.search(found.group(1)) if found else None
        if first is None or m.host in seen:
            continue
        seen.add(m.host)  # the first address each host lists is the one it uses first
        interface, address = first.groups()
        if link_local(address):
            return r.finding(m.line, f"{m.host or 'a rank'} uses {interface}:{address} first, a link-local address, in "
                                     "a job across hosts",
                             f"{address} is reached only on {interface}'s own link: a host elsewhere cannot connect "
                             "to it, so NCCL's bootstrap or socket connections to it time out")
    # NCCL's socket transport takes each interface it lists as a device, not only the first: a link-local one anywhere in
    # the list is some channels' (its head too, where the host's first printed address was a routable bootstrap one;
    # Oneflow-Inc/libai#415: `NET/Socket : Using [0]bond0:172.27.231.79<0>
    # [1]veth8739016:fe80::...%veth8739016<0>`, fixed by NCCL_SOCKET_IFNAME=bond0)
    for m in c.log.messages:
        found = SOCKET_DEVICES.search(m.text)
        devices = list(ADDRESS.finditer(found.group(1))) if found else []
        unreachable = next((a for a in devices if link_local(a.group(2))), None)
        if unreachable is not None:
            interface, address = unreachable.groups()
            return r.finding(m.line, f"{m.host or 'a rank'} lists {interface}:{address}, a link-local address, among "
                                     "NCCL's socket devices, in a job across hosts",
                             f"NCCL's socket transport uses each interface it lists as a device: the channels given "
                             f"{interface} connect to {address}, which a host elsewhere cannot reach, and time out")
    return None
