"""The detection curve of one slow node (docs/fabric.md): how often wirebench names it, how often it
names another node or path instead, and how often a healthy fleet reads anything but healthy.

  virtual  (root) ci/vcluster nodes at --rate, one node's link slowed by each of --slow percent (0: a
           healthy fleet), --runs times each, measured two ways:
             hand    what a FAIL's look-closer advises, with no ceiling known: `ci/vcluster exec wb-net
                     --pairs all ...` then `wirebench report` on the bare run directory;
             runner  `wirebench run` of the fabric suite's every-pair step on that many nodes
                     (the ceiling from the shaped rate, each FAIL measured again);
           a row per run is appended to --out as it ends (a killed run keeps the rows before it);
  simulated  the adaptive screen (the runner's schedule for large fleets) on paper, --fleets fleets
           of each of --sim-nodes nodes (run/fleet_simulator.py: leaf switches of 32, per-node spread
           and noise, transient dips), one random node at each slowdown.
`--table FILE` prints the Markdown table of a CSV this wrote.
Usage: python3 bench/fabric/detection_curve.py virtual --bin build/ci/bin --nodes 3,4,8 --out curve.csv
       python3 bench/fabric/detection_curve.py simulated --sim-nodes 64,256,1024
       python3 bench/fabric/detection_curve.py --table curve.csv"""
import argparse
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from wirebench.run.fleet_simulator import Fault, Fleet, score, screen  # noqa: E402
from wirebench.slurm.run_findings import read_run  # noqa: E402

COLUMNS = ("mode", "nodes", "slow_pct", "run", "slowed", "exit", "named", "named_as", "drained", "others", "verdicts",
           "seconds")
# What the fabric suite's every-pair step measures (suites/fabric.yaml), by hand as by the runner.
WB_NET = ["--pairs", "all", "--tests", "bw", "--sizes", "256K", "--link-class", "eth", "--benchmark_min_time=0.2",
          "--min-samples", "3", "--warmup", "1", "--timeout", "30"]
# --quick: what tests/vcluster's fault tests measure (64 KiB in 4 MiB batches, five samples): a
# quarter of the time a round takes; the culprit is the point, not the figure.
QUICK = ["--pairs", "all", "--tests", "bw", "--sizes", "64K", "--batch-bytes", "4M", "--link-class", "eth",
         "--benchmark_min_time=0.2", "--min-samples", "5", "--warmup", "1", "--timeout", "30"]


def mbit(rate):
    return int(rate.removesuffix("mbit"))


def outcome(run_dir, slowed):
    """{named_as, drained, others, verdicts} of a reported run directory: the verdict of the culprit
    naming the slowed node (FAIL, or WARN where it only lags), whether `wirebench slurm drain` would
    drain it (summary.json read as slurm's side reads it), and every other culprit (node:node3,
    path:node2-node5, fabric:all)."""
    summary = json.loads((run_dir / "summary.json").read_text())
    culprits = {}
    for v in summary["verdicts"]:
        found = v.get("finding") or {}
        if found.get("kind") == "culprit":
            culprits[f"{found['subject']}:{found['place']}"] = v["verdict"]
    named_as = culprits.pop(f"node:{slowed}", "") if slowed else ""
    counts = summary["counts"]
    said = " ".join(f"{counts[k]} {k}" for k in ("FAIL", "WARN", "PASS", "NOT JUDGED") if counts.get(k))
    return dict(named=int(bool(named_as)), named_as=named_as, drained=int(slowed in read_run(run_dir).blamed),
                others=" ".join(f"{c}={level}" for c, level in sorted(culprits.items())), verdicts=said)


def by_hand(bin_dir, nodes, rate, degrade, run_dir, wb_net):
    vcluster = ROOT / "ci" / "vcluster"
    subprocess.run([vcluster, "down"], capture_output=True)
    up = [vcluster, "up", "--nodes", str(nodes), "--rate", rate] + (["--degrade", degrade] if degrade else [])
    subprocess.run(up, check=True, capture_output=True)
    try:
        subprocess.run([vcluster, "exec", str(bin_dir / "wb-net"), *wb_net, "--run-dir", str(run_dir)],
                       check=True, capture_output=True, timeout=600)
    finally:
        subprocess.run([vcluster, "down"], capture_output=True)
    return subprocess.run([str(bin_dir / "wirebench"), "report", str(run_dir)], capture_output=True).returncode


def by_runner(bin_dir, nodes, rate, degrade, run_dir, work, wb_net):
    suite = yaml.safe_load((ROOT / "suites" / "fabric.yaml").read_text())
    suite["name"] = f"fabric-{nodes}"
    suite["cluster"].update(nodes=nodes, rate_mbit=mbit(rate))
    suite["steps"] = [dict(suite["steps"][0], args=wb_net)]
    path = Path(work) / f"fabric-{nodes}.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    command = [str(bin_dir / "wirebench"), "run", str(path), "--run-dir", str(run_dir)]
    return subprocess.run(command + (["--degrade", degrade] if degrade else []), capture_output=True,
                          timeout=1200).returncode


def virtual(args):
    new = not args.out.exists()
    with open(args.out, "a", newline="") as out, tempfile.TemporaryDirectory() as scratch:
        work = args.keep or scratch  # --keep: each run's directory stays, to read its report
        Path(work).mkdir(parents=True, exist_ok=True)
        writer = csv.DictWriter(out, COLUMNS)
        if new:
            writer.writeheader()
        for run in range(1, args.runs + 1):
            for nodes in args.nodes:
                for slow in args.slow:
                    for mode in args.modes:
                        slowed = f"node{(run + nodes) % nodes}" if slow else ""
                        rate = f"{round(mbit(args.rate) * (1 - slow / 100))}mbit"
                        degrade = f"{slowed.removeprefix('node')}={rate}" if slow else ""
                        run_dir = Path(work) / f"{mode}-{nodes}-{slow}-{run}"
                        started = time.time()
                        wb_net = QUICK if args.quick else WB_NET
                        if mode == "hand":
                            code = by_hand(args.bin, nodes, args.rate, degrade, run_dir, wb_net)
                        else:
                            code = by_runner(args.bin, nodes, args.rate, degrade, run_dir, work, wb_net)
                        found = outcome(run_dir, slowed)
                        writer.writerow(dict(mode=mode, nodes=nodes, slow_pct=slow, run=run, slowed=slowed, exit=code,
                                             seconds=round(time.time() - started), **found))
                        out.flush()
                        print(f"{mode} {nodes} nodes, {slow}% slow, run {run}: exit {code}, "
                              f"{'named ' + slowed + ' (' + found['named_as'] + ')' if found['named'] else 'not named'}"
                              f"{', drained' if found['drained'] else ''}; others: {found['others'] or 'none'}; "
                              f"{found['verdicts']}", flush=True)


def simulated(args):
    rows = []
    for nodes in args.sim_nodes:
        for slow in args.slow:
            named = others = unhealthy = 0
            for seed in range(1, args.fleets + 1):
                where = f"node{random.Random(f'slow node {seed}').randrange(nodes)}"
                faults = [Fault("node", (where,), factor=1 - slow / 100)] if slow else []
                fleet = Fleet(nodes, 32, faults=faults, seed=seed)
                result = score(fleet, screen(fleet, seed=seed))
                named += bool(result.found)
                others += bool(result.false or result.wrong_kind)
                unhealthy += bool(result.false or result.wrong_kind or result.found)
            rows.append(dict(mode="simulated", nodes=nodes, slow_pct=slow, runs=args.fleets, named=named,
                             others=others, unhealthy=unhealthy))
            print(f"simulated {nodes} nodes, {slow}% slow: named {named}/{args.fleets}, another culprit in {others}",
                  flush=True)
    if args.out:
        with open(args.out, "w", newline="") as out:
            writer = csv.DictWriter(out, list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def table(path):
    """The Markdown table of a virtual or simulated CSV: per mode, nodes and slowdown, named / runs,
    another culprit named / runs; for a healthy fleet, runs that read anything but healthy."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    groups = {}
    for r in rows:
        groups.setdefault((r["mode"], int(r["nodes"]), int(r["slow_pct"])), []).append(r)
    print("| measured | nodes | node slowed by | slow node named | drained | another node or path named | "
          "not healthy |")
    print("|---|---|---|---|---|---|---|")
    for (mode, nodes, slow), runs in sorted(groups.items()):
        drained = "-"
        if mode == "simulated":
            total, others = int(runs[0]["runs"]), int(runs[0]["others"])
            named = f"{runs[0]['named']}/{total}"
            unhealthy = int(runs[0]["unhealthy"])
        else:
            total = len(runs)
            warned = sum(r.get("named_as") == "WARN" for r in runs)
            named = f"{sum(int(r['named']) for r in runs)}/{total}" + (f" ({warned} as WARN)" if warned else "")
            drained = f"{sum(int(r.get('drained') or 0) for r in runs)}/{total}"
            others = sum(bool(r["others"]) for r in runs)
            unhealthy = sum(r["exit"] != "0" or "WARN" in r["verdicts"] for r in runs)
        healthy = slow == 0
        print(f"| {mode} | {nodes} | {'- (healthy)' if healthy else f'{slow}%'} | "
              f"{'-' if healthy else named} | {'-' if healthy else drained} | {others}/{total} | "
              f"{f'{unhealthy}/{total}' if healthy else '-'} |")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", nargs="?", choices=("virtual", "simulated"))
    parser.add_argument("--bin", type=Path, default=ROOT / "build" / "ci" / "bin")
    parser.add_argument("--nodes", type=lambda s: [int(n) for n in s.split(",")], default=[3, 4, 8])
    parser.add_argument("--sim-nodes", type=lambda s: [int(n) for n in s.split(",")], default=[64, 256, 1024])
    parser.add_argument("--slow", type=lambda s: [int(n) for n in s.split(",")], default=[0, 10, 20, 30, 50],
                        help="percent slower, comma-separated (0: a healthy fleet)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--fleets", type=int, default=100)
    parser.add_argument("--modes", type=lambda s: s.split(","), default=["hand", "runner"])
    parser.add_argument("--rate", default="200mbit")
    parser.add_argument("--quick", action="store_true", help="virtual: 64 KiB in 4 MiB batches (QUICK), not the "
                        "fabric suite's 256 KiB")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--keep", type=Path, help="virtual: keep each run's directory here (MODE-NODES-SLOW-RUN)")
    parser.add_argument("--table", type=Path)
    args = parser.parse_args(argv[1:])
    if args.table:
        return table(args.table)
    if args.what == "virtual":
        if os.geteuid() != 0:
            parser.error("virtual: needs root (ci/vcluster)")
        if not args.out:
            parser.error("virtual: --out FILE (rows are appended as each run ends)")
        return virtual(args)
    if args.what == "simulated":
        return simulated(args)
    parser.error("say virtual, simulated or --table FILE")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
