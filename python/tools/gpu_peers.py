#!/usr/bin/env python3
"""wirebench's GPU paths beside the real peers on the same GPU, in alternating rounds (peer, then
wirebench, per pair, each round): nvbandwidth for the device-local copy and the pinned host copies
(copy engine), nccl-tests' all_reduce_perf for an NCCL all_reduce. The peers' outputs are read with
wirebench import (its nvbandwidth and nccl-tests readers), so both sides are rows of one schema.
A figure is the median over rounds; the ratio wirebench / peer is the median of per-round ratios
(bandwidth: above 1 is wirebench faster). Writes RUN_DIR/peers/ and prints the table for
bench/MEASUREMENTS.md.

Usage: gpu_peers.py BUILD_BIN PEERS_BIN RUN_DIR [--rounds 3] [--ranks 1]
"""
import argparse
import csv
import statistics
import subprocess
import sys
from pathlib import Path

SIZE_MIB = 512  # nvbandwidth's default buffer; the same size on every side


def run(command, log):
    with log.open("a") as out:
        out.write("$ " + " ".join(map(str, command)) + "\n")
        out.flush()
        return subprocess.run([str(c) for c in command], stdout=out, stderr=subprocess.STDOUT, timeout=600).returncode


def rows_of(results_csv):
    return list(csv.DictReader(results_csv.open())) if results_csv.exists() else []


def imported(tool_output, bin_dir, work, *args):
    """The rows wirebench import reads from a peer's output (its figures, as that tool printed them)."""
    out = work / (tool_output.stem + "-imported")
    subprocess.run([str(bin_dir / "wirebench"), "import", str(tool_output), "--out", str(out), *args],
                   capture_output=True, text=True, timeout=300)
    return rows_of(out / "results.csv")


def bandwidth(rows, pick):
    """The first OK row pick() accepts: its algbw (GB/s)."""
    for r in rows:
        if r.get("status", "OK") == "OK" and pick(r) and r.get("algbw_GBps"):
            return float(r["algbw_GBps"])
    return None


PAIRS = [
    # (path, peer tool, peer command builder, wirebench command builder, peer row pick, wirebench row pick)
    ("device-local copy (CE)", "nvbandwidth",
     lambda peers, out: [peers / "nvbandwidth", "-t", "device_local_copy", "-b", SIZE_MIB],
     lambda bins, out: [bins / "wb-p2p", "--patterns", "ce/write", "--tests", "copy", "--sizes", f"{SIZE_MIB}MiB",
                        "--benchmark_filter=gpu0->gpu0", "--benchmark_min_time=0.2", "--run-dir", out],
     lambda r: r["src"].endswith("gpu0") and r["dst"].endswith("gpu0"),
     lambda r: r["src"].endswith("gpu0") and r["dst"].endswith("gpu0")),
    ("host to device, pinned (CE)", "nvbandwidth",
     lambda peers, out: [peers / "nvbandwidth", "-t", "host_to_device_memcpy_ce", "-b", SIZE_MIB],
     lambda bins, out: [bins / "wb-host", "--tests", "gpu", "--sizes", f"{SIZE_MIB}MiB", "--benchmark_min_time=0.2",
                        "--benchmark_filter=host/h2d/pinned/gpu0/local", "--run-dir", out],
     lambda r: "numa" in r["src"] and r["dst"].endswith("gpu0"),
     lambda r: r["case"] == "h2d_pinned" and r["dst"].endswith("gpu0") and "numa=local" in r["extra"]),
    ("device to host, pinned (CE)", "nvbandwidth",
     lambda peers, out: [peers / "nvbandwidth", "-t", "device_to_host_memcpy_ce", "-b", SIZE_MIB],
     lambda bins, out: [bins / "wb-host", "--tests", "gpu", "--sizes", f"{SIZE_MIB}MiB", "--benchmark_min_time=0.2",
                        "--benchmark_filter=host/d2h/pinned/gpu0/local", "--run-dir", out],
     lambda r: r["src"].endswith("gpu0") and "numa" in r["dst"],
     lambda r: r["case"] == "d2h_pinned" and r["src"].endswith("gpu0") and "numa=local" in r["extra"]),
]


def nccl_pair(ranks, mpiexec):
    launch = [mpiexec, "-n", str(ranks)]
    return ("NCCL all_reduce, out of place", "nccl-tests all_reduce_perf",
            lambda peers, out: [*launch, peers / "all_reduce_perf", "-b", f"{SIZE_MIB}M", "-e", f"{SIZE_MIB}M", "-g", "1"],
            lambda bins, out: [*launch, bins.parent / "libexec" / "wirebench" / "nccl-tests" / "all_reduce_perf",
                               "--backend", "nccl", "-b", f"{SIZE_MIB}M", "-e", f"{SIZE_MIB}M", "-g", "1",
                               "--run-dir", out],
            lambda r: r["case"] == "out_of_place",
            lambda r: r["case"] == "out_of_place")


def main(argv):
    parser = argparse.ArgumentParser(prog="gpu_peers.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("bins", type=Path)
    parser.add_argument("peers", type=Path)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--mpiexec", default="mpiexec")
    args = parser.parse_args(argv[1:])
    work = args.run_dir / "peers"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "peers.log"
    pairs = list(PAIRS) + ([nccl_pair(args.ranks, args.mpiexec)] if (args.peers / "all_reduce_perf").exists() else [])
    lines = [f"| path | peer | peer GB/s | wirebench GB/s | wirebench / peer (median of {args.rounds} rounds) |",
             "|---|---|---|---|---|"]
    for name, peer_name, peer_command, ours_command, peer_pick, ours_pick in pairs:
        peer_figures, ours_figures, ratios = [], [], []
        for round_ in range(1, args.rounds + 1):
            tag = f"{name.split()[0]}-{round_}".replace("/", "_")
            peer_out = work / f"{tag}-peer.txt"
            with peer_out.open("w") as out:
                subprocess.run([str(c) for c in peer_command(args.peers, work)], stdout=out, stderr=subprocess.STDOUT,
                               timeout=600)
            ours_dir = work / f"{tag}-wirebench"
            run(ours_command(args.bins, ours_dir), log)
            peer = bandwidth(imported(peer_out, args.bins, work, "--hosts", "local"), peer_pick)
            ours = bandwidth(rows_of(ours_dir / "results.csv"), ours_pick)
            if peer is not None:
                peer_figures.append(peer)
            if ours is not None:
                ours_figures.append(ours)
            if peer and ours:
                ratios.append(ours / peer)
        median = (lambda xs: f"{statistics.median(xs):.4g}" if xs else "none")
        lines.append(f"| {name} | {peer_name} | {median(peer_figures)} | {median(ours_figures)} | "
                     f"{f'{statistics.median(ratios):.4f}' if ratios else 'none (see peers/peers.log)'} |")
    table = "\n".join(lines)
    (work / "peers.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
