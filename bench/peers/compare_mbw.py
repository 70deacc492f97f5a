#!/usr/bin/env python3
"""wb-host's memcpy bandwidth (NUMA node to the same node) against mbw's memcpy test, alternating.

Both copy one array of SIZE MiB with memcpy and report bytes copied per second (mbw's "Copy"
column, MiB/s, converted to GB/s). mbw reports the mean of its runs; wb-host the median of its
samples. The ratio is the median of per-round ratios.
Usage: compare_mbw.py WB_HOST [--mib 256] [--rounds 7]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path


def mbw(mib):
    out = subprocess.run(["mbw", "-q", "-n", "10", "-t0", str(mib)], check=True, capture_output=True, text=True).stdout
    avg = [line for line in out.splitlines() if line.startswith("AVG")][0]
    mib_per_s = float(avg.split("Copy:")[1].split()[0])
    return mib_per_s * 1024 * 1024 / 1e9


def wb_host(binary, mib, workdir):
    run_dir = workdir / "wb"
    subprocess.run([binary, "--tests", "numa_copy", "--sizes", f"{mib}MiB", "--run-dir", str(run_dir),
                    "--benchmark_min_time=0.5"], check=True, capture_output=True)
    return float(list(csv.DictReader((run_dir / "results.csv").open()))[-1]["algbw_GBps"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wb_host")
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mbw_gbps, wb_gbps = [], []
        for _ in range(args.rounds):
            mbw_gbps.append(mbw(args.mib))
            wb_gbps.append(wb_host(args.wb_host, args.mib, Path(tmp)))
        m = statistics.median
        ratio = m([w / b for w, b in zip(wb_gbps, mbw_gbps)])
        print(f"memcpy {args.mib} MiB, {args.rounds} alternating rounds: mbw {m(mbw_gbps):.3f} GB/s, wb-host "
              f"{m(wb_gbps):.3f} GB/s, wb-host/mbw {ratio:.3f}")
        print(f"  mbw     GB/s: {[round(x, 3) for x in mbw_gbps]}")
        print(f"  wb-host GB/s: {[round(x, 3) for x in wb_gbps]}")


if __name__ == "__main__":
    main()
