#!/usr/bin/env python3
"""wb-coll's all_reduce against a bare MPI_Allreduce loop (bare_allreduce.c), alternating runs.

Both: float32 sum, out of place, blocking MPI_Allreduce (wb-coll -z 1), same ranks, same sizes,
the slowest rank's time (wb-coll -a 3). wb-coll reports the median over its samples (each a batch
of -n calls), the loop the mean over its calls; the ratio is the median of the per-round ratios.
Usage: compare_allreduce.py WB_COLL [--ranks 2] [--rounds 9] [--small-iters 20000]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path

SIZES = {"8B": 8, "64KiB": 64 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20, "64MiB": 64 << 20}


def bare(binary, ranks, size, small_iters):
    iters = small_iters if size < 65536 else (2000 if size <= 1 << 20 else 20)
    out = subprocess.run(["mpiexec", "-n", str(ranks), binary, str(size), str(iters)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[1])


def wb_coll(binary, ranks, size, workdir):
    run_dir = workdir / "wb"
    subprocess.run(["mpiexec", "-n", str(ranks), binary, "--collective", "all_reduce", "--sizes", str(size), "--in-place",
                    "no", "-z", "1", "-a", "3", "--console", "plain", "--run-dir", str(run_dir),
                    "--benchmark_min_time=0.5"], check=True,
                   capture_output=True)
    rows = list(csv.DictReader((run_dir / "results.csv").open()))
    return float(rows[-1]["time_us"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wb_coll")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--small-iters", type=int, default=20000,
                        help="calls of the bare loop at 8 B (fewer with more ranks than cores)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        loop = workdir / "bare_allreduce"
        subprocess.run(["mpicc", "-O2", str(Path(__file__).with_name("bare_allreduce.c")), "-o", str(loop)], check=True)
        m = statistics.median
        for name, size in SIZES.items():
            bare_us, wb_us = [], []
            for _ in range(args.rounds):
                bare_us.append(bare(str(loop), args.ranks, size, args.small_iters))
                wb_us.append(wb_coll(args.wb_coll, args.ranks, size, workdir))
            ratio = m([w / b for w, b in zip(wb_us, bare_us)])
            print(f"{name} all_reduce on {args.ranks} ranks, {args.rounds} alternating rounds: bare loop "
                  f"{m(bare_us):.3f} us, wb-coll {m(wb_us):.3f} us, wb-coll/bare {ratio:.3f}")
            print(f"  bare    us: {[round(x, 3) for x in bare_us]}")
            print(f"  wb-coll us: {[round(x, 3) for x in wb_us]}")


if __name__ == "__main__":
    main()
