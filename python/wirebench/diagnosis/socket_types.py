"""NCCL's sockets say what they are for: a connection opens by sending its type (src/include/socket.h,
enum ncclSocketType), and the accepting side refuses one of another type with `socketFinalizeAccept:
wrong type A != B` (A the peer's, B its own; misc/socket.cc). Between NET/Socket (3) and NET/IB (4) that
is two ranks that chose different networks: the rule reads the printf's two numbers, whatever else the
log shows, so no thread's wording is needed."""
import re

from .registry import rule

WRONG_TYPE = re.compile(r"socketFinalizeAccept: wrong type (\d+) != (\d+)")
# ncclSocketType, NCCL 2.12 on (5, RAS, from 2.24)
SOCKET_TYPES = {0: "unknown", 1: "bootstrap", 2: "proxy", 3: "NET/Socket", 4: "NET/IB", 5: "RAS"}
NETWORKS = {3, 4}


@rule("network-differs-between-ranks", "FAIL", "any",
      "`socketFinalizeAccept: wrong type 4 != 3` (or `3 != 4`): NCCL's socket types (src/include/socket.h), the peer's "
      "first, this rank's second; 3 is NET/Socket, 4 NET/IB's out-of-band connection",
      "the ranks chose different networks: one connects over InfiniBand/RoCE, the other over TCP sockets, and NCCL "
      "cannot join them (IB usable on some nodes only: an HCA missing or named differently than NCCL_IB_HCA says, "
      "libibverbs or the network plugin missing from one node's environment, NCCL_IB_DISABLE or NCCL_NET set on some "
      "ranks only)",
      "give every rank the same network: check ibv_devinfo and the plugin on each node, pass the same NCCL_* settings "
      "and LD_LIBRARY_PATH to every rank (mpirun -x, srun --export), or set NCCL_IB_DISABLE=1 on every rank to run "
      "them all over sockets",
      "NCCL src/include/socket.h (ncclSocketType), src/misc/socket.cc (socketFinalizeAccept); "
      "NVIDIA/nccl-tests#188 (the maintainer: IB must work on both nodes, or NCCL_IB_DISABLE=1)")
def network_differs_between_ranks(r, c):
    m, found = c.log.first(WRONG_TYPE)
    if m is None:
        return None
    peer, own = int(found.group(1)), int(found.group(2))
    if {peer, own} != NETWORKS:
        return None  # another pair of kinds (bootstrap, proxy): a stray connection, for the error finder to say
    where = f" on {m.host}" if m.host else ""
    return r.finding(m.line, f"a rank{where} uses {SOCKET_TYPES[own]} and its peer connected with {SOCKET_TYPES[peer]}",
                     f"NCCL refused the peer's connection (socket type {peer}, {SOCKET_TYPES[peer]}, where this rank "
                     f"expects {own}, {SOCKET_TYPES[own]}): the two ranks chose different networks")
