#!/usr/bin/env python3
"""wb-net's ping-pong against NetPIPE (NPmpich2) and a bare MPI_Send/MPI_Recv loop
(bare_pingpong.c, one buffer per rank) on the same machine, in alternating runs. wb-net runs
checked (default: echoes into the buffer they were sent from, each batch's last echo into a
checked second buffer) and with --check 0.

All three measure half a round trip between 2 MPI ranks. NetPIPE reports, per size, the best of its
trials (each trial averages many round trips); wb-net reports the median over its samples (each
sample averages a batch of round trips). Runs alternate (NetPIPE, wb-net,
bare, NetPIPE, ...) so that drift on a shared machine hits all alike; the figures are medians over
the rounds, and the ratios are medians of the per-round ratios (neighbours in time share the
machine's state). Usage: compare_pingpong.py WB_NET_BINARY [--rounds N] [--bind]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path

SIZES = {"8B": 8, "4MiB": 4 << 20}
LAUNCHER = []  # extra mpiexec arguments, e.g. -bind-to core


def netpipe(size: int, workdir: Path):
    out = workdir / "np.out"
    subprocess.run(["mpiexec", *LAUNCHER, "-n", "2", "NPmpich2", "-l", str(size), "-u", str(size), "-p", "0",
                    "-o", str(out)], check=True, capture_output=True, cwd=workdir)
    fields = out.read_text().split()
    # np.out: bytes, throughput in Mbps (10^6 bits/s), time in seconds (half round trip)
    assert int(fields[0]) == size, out.read_text()
    return float(fields[2]) * 1e6


def bare_loop(binary: str, size: int, layout: str):
    iters = 200000 if size < 65536 else 400
    out = subprocess.run(["mpiexec", *LAUNCHER, "-n", "2", binary, str(size), str(iters), layout], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[1])


def wb_net(binary: str, size: int, workdir: Path, check: str):
    run_dir = workdir / "wb"
    subprocess.run(["mpiexec", *LAUNCHER, "-n", "2", binary, "--tests", "latency", "--sizes", str(size),
                    "--check", check, "--run-dir", str(run_dir), "--benchmark_min_time=0.5"], check=True,
                   capture_output=True)
    row = list(csv.DictReader((run_dir / "results.csv").open()))[-1]
    return float(row["time_us"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wb_net")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bind", action="store_true", help="pin each rank to a core (mpiexec -bind-to core)")
    args = parser.parse_args()
    if args.bind:
        LAUNCHER.extend(["-bind-to", "core"])
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        bare = workdir / "bare_pingpong"
        subprocess.run(["mpicc", "-O2", str(Path(__file__).with_name("bare_pingpong.c")), "-o", str(bare)], check=True)
        m = statistics.median
        for name, size in SIZES.items():
            np_us, bare_us, wb_us, wb0_us = [], [], [], []
            for _ in range(args.rounds):
                np_us.append(netpipe(size, workdir))
                wb_us.append(wb_net(args.wb_net, size, workdir, "1"))
                wb0_us.append(wb_net(args.wb_net, size, workdir, "0"))
                bare_us.append(bare_loop(str(bare), size, "one"))
            ratio = lambda ours, peer: m([w / p for w, p in zip(ours, peer)])
            print(f"{name} half round trip, medians over {args.rounds} alternating rounds"
                  f"{' (ranks bound to cores)' if args.bind else ''}: NetPIPE {m(np_us):.3f} us, bare loop "
                  f"{m(bare_us):.3f} us, wb-net {m(wb_us):.3f} us (checked) {m(wb0_us):.3f} us (--check 0); "
                  f"checked: /NetPIPE {ratio(wb_us, np_us):.3f}, /bare {ratio(wb_us, bare_us):.3f}; "
                  f"--check 0: /NetPIPE {ratio(wb0_us, np_us):.3f}, /bare {ratio(wb0_us, bare_us):.3f} "
                  f"(bandwidth ratios are the inverses)")
            print(f"  NetPIPE   us: {[round(x, 3) for x in np_us]}")
            print(f"  bare      us: {[round(x, 3) for x in bare_us]}")
            print(f"  wb-net    us: {[round(x, 3) for x in wb_us]}")
            print(f"  wb-net -c0 us: {[round(x, 3) for x in wb0_us]}")


if __name__ == "__main__":
    main()
