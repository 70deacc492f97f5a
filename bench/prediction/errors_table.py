"""The step prediction's error per strategy, calibration and node count, from the run dirs
bench/prediction/measure.sh wrote: a Markdown table (stdout, for docs/step-emulation.md and
bench/MEASUREMENTS.md) and, with --csv, suites/step-prediction-errors.csv (what wb-step --what-if prints).

    python3 bench/prediction/errors_table.py OUT_DIR [--csv suites/step-prediction-errors.csv] [--skip-round 1]
"""
import argparse
import collections
import csv
import re
import statistics
import sys
from pathlib import Path

STRATEGIES = ["ddp", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid", "zero1", "zero2", "zero3", "zero1-paper",
              "zero2-paper", "zero3-paper"]
COLUMNS = [(2, "own"), (3, "own"), (4, "own"), (8, "own"), (3, "from2"), (4, "from2"), (8, "from2")]
MACHINE = "1 Gbit/s virtual cluster on a 2-core VM, MPICH 5.0.2"
HEADER = """# How far wb-step's prediction (made before the steps ran) missed the measured step, per strategy:
# (predicted - measured) / measured in %, over `runs` runs. calibration: own (the run's calibration at
# the same size) or from 2 nodes (wb-step --calibration of a 2-node run). Written by
# bench/prediction/errors_table.py from bench/prediction/measure.sh's runs (bench/MEASUREMENTS.md says
# when and where); `wb-step --what-if` prints it beside its steps.
"""


def errors(out_dir, skip):
    """(strategy, mode, nodes) -> [error %] over the rounds."""
    found = collections.defaultdict(list)
    for results in sorted(Path(out_dir).glob("r*-n*-*/results.csv")):
        match = re.fullmatch(r"r(\d+)-n(\d+)-(own|from2)", results.parent.name)
        if not match or int(match.group(1)) in skip:
            continue
        nodes, mode = int(match.group(2)), match.group(3)
        for row in csv.DictReader(results.open()):
            if row["bench"] != "step" or row["status"] != "OK":
                continue
            extra = dict(item.split("=", 1) for item in row["extra"].split(";") if "=" in item)
            step, predicted = float(row["time_us"]), float(extra["predicted_us"])
            found[(row["case"], mode, nodes)].append(100 * (predicted - step) / step)
    return found


def markdown(found):
    names = {"own": "own calibration", "from2": "from 2 nodes"}
    lines = ["| strategy | " + " | ".join(f"{n} nodes, {names[m]}" for n, m in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for s in STRATEGIES:
        cells = [f"{min(v):+.1f}..{max(v):+.1f}" if (v := found.get((s, m, n))) else "-" for n, m in COLUMNS]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    cells = []
    for n, m in COLUMNS:
        v = [x for s in STRATEGIES for x in found.get((s, m, n), [])]
        cells.append(f"median {statistics.median(v):+.1f}, {sum(abs(x) <= 10 for x in v)}/{len(v)} within 10%"
                     if v else "-")
    lines.append("| all | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_csv(found, path):
    with open(path, "w", newline="") as out:
        out.write(HEADER)
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["strategy", "calibration", "nodes", "runs", "min_pct", "median_pct", "max_pct", "machine"])
        for (s, mode, n), v in sorted(found.items()):
            writer.writerow([s, "own" if mode == "own" else "from 2 nodes", n, len(v), f"{min(v):.1f}",
                             f"{statistics.median(v):.1f}", f"{max(v):.1f}", MACHINE])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--csv", help="also write this suites/step-prediction-errors.csv")
    parser.add_argument("--skip-round", type=int, action="append", default=[],
                        help="leave a round out (say why in MEASUREMENTS: a disturbed round)")
    args = parser.parse_args(argv)
    found = errors(args.out_dir, set(args.skip_round))
    if not found:
        print(f"errors_table.py: no wb-step runs under {args.out_dir}", file=sys.stderr)
        return 3
    print(markdown(found))
    if args.csv:
        write_csv(found, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
