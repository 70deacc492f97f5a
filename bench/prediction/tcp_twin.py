# The cliff probe's first exchange without MPI (issue 56; bench/MEASUREMENTS.md, session 37): node i swaps
# BYTES with node i^K over one plain TCP connection each way, every node starting at the same instant (the
# virtual nodes are namespaces of one host and share its clock, so there is no barrier and no skew). Prints,
# per node, each round's milliseconds; the slowest node of a round is what a collective's round waits for.
# K=0 chains recursive halving's exchanges as MPI would: partner i^1 with BYTES, then i^2 with BYTES/2, ...,
# each begun as soon as this node's last one ended (a round's time is then the whole chain's).
#   ci/vcluster up --nodes 8 --rate 200mbit
#   python3 bench/prediction/tcp_twin.py 8 1730000 6 1   (NODES BYTES ROUNDS K [RATE bit/s, for the wire's time:
#   200e6]; as root, outside the nodes)
import socket
import statistics
import subprocess
import sys
import threading
import time

PORT = 5600


def address(node):
    return f"10.77.0.{10 + node}"  # ci/vcluster's node_address


def exchange(out, inc, data, into, size):
    def receive():
        view, got = memoryview(into), 0
        while got < size:
            got += inc.recv_into(view[got:], size - got)

    rx = threading.Thread(target=receive)
    rx.start()
    out.sendall(memoryview(data)[:size])
    rx.join()


def node_main(me, nodes, size, rounds, k, start):
    steps = [k] if k else [1 << b for b in range(nodes.bit_length() - 1)]
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address(me), PORT))
    listener.listen(len(steps))
    time.sleep(1.0)  # every node listens before any connects
    outs, incs = {}, {}
    for step in steps:  # connect to each partner; accept whoever connects to us, who names itself
        outs[me ^ step] = socket.create_connection((address(me ^ step), PORT))
        outs[me ^ step].sendall(bytes([me]))
        inc, _ = listener.accept()
        incs[inc.recv(1)[0]] = inc
    data, into = bytes(size), bytearray(size)
    took = []
    for r in range(rounds):
        t0 = start + 2.0 + 0.5 * r
        while time.time() < t0:
            time.sleep(0.0005)
        part = size
        for step in steps:
            exchange(outs[me ^ step], incs[me ^ step], data, into, part)
            part //= 2
        took.append((time.time() - t0) * 1e3)
    print(me, *(f"{t:.1f}" for t in took), flush=True)


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: tcp_twin.py NODES BYTES ROUNDS K [RATE bit/s] (K=0: the chain of recursive halving)")
    if sys.argv[1] == "--node":
        me, size, rounds, k = (int(a) for a in sys.argv[2:6])
        return node_main(me, int(sys.argv[7]), size, rounds, k, float(sys.argv[6]))
    nodes, size, rounds, k = (int(a) for a in sys.argv[1:5])
    start = time.time()
    procs = [subprocess.Popen(["ip", "netns", "exec", f"wbnode{i}", sys.executable, __file__, "--node", str(i),
                               str(size), str(rounds), str(k), repr(start), str(nodes)], stdout=subprocess.PIPE, text=True)
             for i in range(nodes)]
    rows = [list(map(float, p.communicate()[0].split()[1:])) for p in procs]
    slowest = [max(col) for col in zip(*rows)]
    rate = sys.argv[5] if len(sys.argv) > 5 else "200e6"
    wire_ms = size * 8 / float(rate) * 1e3
    print(f"nodes {nodes} bytes {size}: per flow median {statistics.median(x for r in rows for x in r):.1f} ms, "
          f"slowest node per round {' '.join(f'{s:.1f}' for s in slowest)} (median {statistics.median(slowest):.1f}); "
          f"wire {wire_ms:.1f} ms at {rate} bit/s")


if __name__ == "__main__":
    main()
