#!/usr/bin/env python3
"""The short table ci/gpu-check prints: per GPU, pinned H2D and D2H on its own NUMA node, the
device-local copy, GPU-to-host and device memory latency, and the percent of the ceiling that
`wirebench topo` derived for the GPU's PCIe link.

Usage: gpu_check_table.py RUN_DIR   (reads RUN_DIR/results.csv and RUN_DIR/topology.json)
"""
import csv
import json
import re
import sys
from pathlib import Path


def load(run_dir: Path):
    rows = list(csv.DictReader((run_dir / "results.csv").open()))
    topology = json.loads((run_dir / "topology.json").read_text()) if (run_dir / "topology.json").exists() else {}
    ceilings = {}
    for node in topology.get("nodes", []):
        for link in node.get("links", []):
            if link["b"] == "host" and link.get("ceiling_GBps"):
                ceilings[link["a"]] = link["ceiling_GBps"]
    return rows, ceilings


def gpu_of(name):
    match = re.search(r"gpu(\d+)$", name or "")
    return int(match.group(1)) if match else None


def table(rows, ceilings):
    measured = [r for r in rows if r["status"] == "OK"]
    gpus = sorted({g for r in measured for g in (gpu_of(r["src"]), gpu_of(r["dst"])) if g is not None})
    if not gpus:
        skipped = [r for r in rows if r["status"] == "SKIP"]
        reason = skipped[0]["reason"] if skipped else "no GPU rows"
        return f"no GPU measured: {reason}\n"

    def pick(case, src_gpu=None, dst_gpu=None, extra=None):
        for r in measured:
            if r["case"] != case:
                continue
            if src_gpu is not None and gpu_of(r["src"]) != src_gpu:
                continue
            if dst_gpu is not None and gpu_of(r["dst"]) != dst_gpu:
                continue
            if extra and extra not in r["extra"]:
                continue
            return r
        return None

    def bandwidth(r):
        return float(r["algbw_GBps"]) if r and r["algbw_GBps"] else None

    def percent(value, ceiling):
        return f"{100 * value / ceiling:5.1f}%" if value and ceiling else "    -"

    lines = [f"{'GPU':<5} {'H2D GB/s':>9} {'of PCIe':>8} {'D2H GB/s':>9} {'of PCIe':>8} {'local copy':>11} "
             f"{'host lat us':>12} {'dev lat us':>11} {'errors':>7}"]
    for g in gpus:
        h2d = bandwidth(pick("h2d_pinned", dst_gpu=g, extra="numa=local"))
        d2h = bandwidth(pick("d2h_pinned", src_gpu=g, extra="numa=local"))
        local = bandwidth(pick("ce/write", src_gpu=g, dst_gpu=g))
        host_latency = pick("gpu_host_latency", src_gpu=g)
        device_latency = pick("latency", src_gpu=g, dst_gpu=g)
        ceiling = ceilings.get(f"gpu{g}")
        errors = sum(int(r["errors"]) for r in measured if r["errors"] and g in (gpu_of(r["src"]), gpu_of(r["dst"])))
        fmt = lambda v, w: f"{v:{w}.2f}" if v is not None else " " * (w - 1) + "-"
        lines.append(f"gpu{g:<2} {fmt(h2d, 9)} {percent(h2d, ceiling):>8} {fmt(d2h, 9)} {percent(d2h, ceiling):>8} "
                     f"{fmt(local, 11)} {fmt(float(host_latency['time_us']) if host_latency else None, 12)} "
                     f"{fmt(float(device_latency['time_us']) if device_latency else None, 11)} {errors:>7}")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 3
    rows, ceilings = load(Path(argv[1]))
    sys.stdout.write(table(rows, ceilings))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
