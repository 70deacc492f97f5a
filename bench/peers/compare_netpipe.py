#!/usr/bin/env python3
"""wb-net's ping-pong against NetPIPE (NPmpich2) on the same machine, in alternating runs.

Both measure half a round trip between 2 MPI ranks. NetPIPE reports, per size, the best of its
trials (each trial averages many round trips); wb-net reports the median over its samples (each
sample averages a batch of round trips) and the 5th percentile. Runs alternate (NetPIPE, wb-net,
NetPIPE, ...) so that drift on a shared machine hits both alike; the figures are the medians over
the rounds. Usage: compare_netpipe.py WB_NET_BINARY [--rounds N]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path

SIZES = {"8B": 8, "4MiB": 4 << 20}


def netpipe(size: int, workdir: Path):
    out = workdir / "np.out"
    subprocess.run(["mpiexec", "-n", "2", "NPmpich2", "-l", str(size), "-u", str(size), "-p", "0",
                    "-o", str(out)], check=True, capture_output=True, cwd=workdir)
    fields = out.read_text().split()
    # np.out: bytes, throughput in Mbps (10^6 bits/s), time in seconds (half round trip)
    bytes_, mbps, seconds = int(fields[0]), float(fields[1]), float(fields[2])
    assert bytes_ == size, out.read_text()
    return seconds * 1e6, mbps / 8 / 1000  # us, GB/s


def wb_net(binary: str, size: int, workdir: Path):
    run_dir = workdir / "wb"
    subprocess.run(["mpiexec", "-n", "2", binary, "--tests", "latency", "--sizes", str(size),
                    "--run-dir", str(run_dir), "--benchmark_min_time=0.5"], check=True, capture_output=True)
    row = list(csv.DictReader((run_dir / "results.csv").open()))[-1]
    return float(row["time_us"]), float(row["time_us_p05"]), float(row["algbw_GBps"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wb_net")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for name, size in SIZES.items():
            np_us, np_gbps, wb_us, wb_p05, wb_gbps = [], [], [], [], []
            for _ in range(args.rounds):
                t, bw = netpipe(size, workdir)
                np_us.append(t)
                np_gbps.append(bw)
                t, p05, bw = wb_net(args.wb_net, size, workdir)
                wb_us.append(t)
                wb_p05.append(p05)
                wb_gbps.append(bw)
            m = statistics.median
            print(f"{name}: NetPIPE {m(np_us):.3f} us {m(np_gbps):.3f} GB/s | wb-net median {m(wb_us):.3f} us "
                  f"(p05 {m(wb_p05):.3f}) {m(wb_gbps):.3f} GB/s | time ratio wb/NetPIPE {m(wb_us) / m(np_us):.3f}, "
                  f"p05 ratio {m(wb_p05) / m(np_us):.3f}, bandwidth ratio {m(wb_gbps) / m(np_gbps):.3f} "
                  f"({args.rounds} alternating rounds)")
            print(f"  NetPIPE us per round: {[round(x, 3) for x in np_us]}")
            print(f"  wb-net  us per round: {[round(x, 3) for x in wb_us]}")


if __name__ == "__main__":
    main()
