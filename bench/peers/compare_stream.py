#!/usr/bin/env python3
"""wb-net's streaming bandwidth (--tests bw) against osu_bw's posting pattern in a bare loop
(bare_osu_bw.c: a window of 64 MPI_Isend from one buffer into 64 MPI_Irecv into one buffer, a
4-byte acknowledgement), in alternating runs on 2 ranks. wb-net runs in both window modes:
--window osu (the same pattern, the default) and --window slots (a checked buffer per message).

wb-net reports the median over its samples (each a batch of windows), the loop the mean over its
windows; the ratios are medians of the per-round ratios (neighbours in time share the machine's
state). Usage: compare_stream.py WB_NET [--rounds 9] [--size 4194304]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path


def bare(binary, size, iters):
    out = subprocess.run(["mpiexec", "-n", "2", binary, str(size), str(iters)], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[1])


def wb_net(binary, size, window, workdir):
    run_dir = workdir / "wb"
    subprocess.run(["mpiexec", "-n", "2", binary, "--tests", "bw", "--sizes", str(size), "--window", window,
                    "--run-dir", str(run_dir), "--benchmark_min_time=0.5"], check=True, capture_output=True)
    return float(list(csv.DictReader((run_dir / "results.csv").open()))[-1]["algbw_GBps"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wb_net")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--size", type=int, default=4 << 20)
    parser.add_argument("--iters", type=int, default=8, help="windows of the bare loop per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        loop = workdir / "bare_osu_bw"
        subprocess.run(["mpicc", "-O2", str(Path(__file__).with_name("bare_osu_bw.c")), "-o", str(loop)], check=True)
        m = statistics.median
        bare_bw, osu_bw, slots_bw = [], [], []
        for _ in range(args.rounds):
            bare_bw.append(bare(str(loop), args.size, args.iters))
            osu_bw.append(wb_net(args.wb_net, args.size, "osu", workdir))
            slots_bw.append(wb_net(args.wb_net, args.size, "slots", workdir))
        ratio = lambda ours: m([w / b for w, b in zip(ours, bare_bw)])
        print(f"{args.size} B streaming bandwidth, 2 ranks, {args.rounds} alternating rounds: bare osu_bw loop "
              f"{m(bare_bw):.3f} GB/s, wb-net --window osu {m(osu_bw):.3f} GB/s ({ratio(osu_bw):.3f}x), "
              f"--window slots {m(slots_bw):.3f} GB/s ({ratio(slots_bw):.3f}x)")
        print(f"  bare  GB/s: {[round(x, 3) for x in bare_bw]}")
        print(f"  osu   GB/s: {[round(x, 3) for x in osu_bw]}")
        print(f"  slots GB/s: {[round(x, 3) for x in slots_bw]}")


if __name__ == "__main__":
    main()
