"""wirebench history [--history FILE] add RUN_DIR... | list [--since DATE] | show ITEM [--since DATE]
[--plot FILE]: the history of runs (one SQLite file; --history or WIREBENCH_HISTORY). `add` judges
each run directory as `wirebench report` does and adds its items (a run already there is not added
again); `list` the runs, oldest first, with their versions; `show` an item's series (ITEM: its key,
or a part of it that names one item) and, with --plot, its trend drawn with matplotlib. Only `add`
makes a history file that is not there; `list` and `show` read it and never write.
Exit codes (docs/results.md, "Exit codes"): 0 done, 3 bad usage or input (a history that is missing
for list and show, a directory, unreadable, not SQLite or damaged: named)."""
import argparse
import os
import sys
from pathlib import Path

from ..contracts.exit_policy import entry
from ..contracts.input_files import InputError, readable_dir
from ..contracts.schema import ExitCode
from ..report.run_report import judge_run  # the reporter's judgement, written nowhere
from ..report.judging import unit_of
from ..report.trend import history_items
from .baselines import latest_baseline
from .run_record import run_of
from .store import History, parse_time


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="wirebench history", description="the history of runs: add, list, show")
    parser.add_argument("--history", type=Path, default=os.environ.get("WIREBENCH_HISTORY") or None,
                        help="the history file (default: $WIREBENCH_HISTORY)")
    # --history after the command too (wirebench history list --history F), as wirebench report takes it
    after = argparse.ArgumentParser(add_help=False)
    after.add_argument("--history", type=Path, default=argparse.SUPPRESS,
                       help="the history file (default: $WIREBENCH_HISTORY)")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="judge run directories and add their items", parents=[after])
    add.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    add.add_argument("--profile", help="a platform profile whose floors judge too, as wirebench report --profile")
    listing = commands.add_parser("list", help="the runs, oldest first", parents=[after])
    listing.add_argument("--since", help="from this date or time on (2026-12-01, 2026-12-01T02:00:00Z)")
    show = commands.add_parser("show", help="an item's figures, run by run", parents=[after])
    show.add_argument("item", help="the item's key (as summary.json's verdicts name it), or a part naming one item")
    show.add_argument("--metric", help="busbw_GBps, algbw_GBps or time_us, where the item has several")
    show.add_argument("--since", help="from this date or time on")
    show.add_argument("--plot", type=Path, help="draw the series (PNG) with its baseline")
    args = parser.parse_args(argv[1:])
    if args.history is None:
        parser.error("no history: give --history FILE or set WIREBENCH_HISTORY")
    return args


def add(history, args):
    for run_dir in args.run_dirs:
        readable_dir(run_dir)  # "no such file or directory", "not a directory", "permission denied"
        run = run_of(run_dir)
        _, _, _, verdicts = judge_run(run_dir, args.profile)
        items = history_items(verdicts)
        added = history.add(run, items)
        print(f"wirebench history: {'added' if added else 'already holds'} {run_dir} (run {run.run_id}, {run.time}, "
              f"{len(items)} items)")


def listing(history, args):
    runs = history.runs(args.since)
    print(f"{'time':20s}  {'run':16s}  {'items':>5s}  {'FAIL':>4s}  {'nodes':20s}  versions")
    for run in runs:
        found = history.items(run.run_id)
        versions = ", ".join(f"{name} {getattr(run, name)}" for name in ("nccl", "cuda", "driver", "mpi", "kernel")
                             if getattr(run, name))
        print(f"{run.time:20s}  {run.run_id:16s}  {len(found):5d}  {sum(1 for i in found if i['verdict'] == 'FAIL'):4d}  "
              f"{run.nodes[:20]:20s}  {versions}")
    print(f"{len(runs)} run(s) in {history.path}")


def show(history, args):
    matches = [(k, m) for k, m in history.find_items(args.item) if not args.metric or m == args.metric]
    exact = [(k, m) for k, m in matches if k == args.item]
    matches = exact or matches
    if len(matches) != 1:
        named = "\n  ".join(f"{k} ({m})" for k, m in matches[:20]) or "(none)"
        raise InputError(f"{history.path}: '{args.item}' names {len(matches)} items; give one key (and --metric):\n  {named}")
    key, metric = matches[0]
    points = history.series(key, metric, since=args.since)
    unit = unit_of(metric)
    print(f"{key} ({metric})")
    for p in points:
        print(f"  {p.run.time:20s}  {p.value:10.4g} {unit:4s}  {p.verdict:10s}  run {p.run.run_id}  nccl {p.run.nccl or '?'}")
    base = latest_baseline(points)
    if base:
        print(f"  baseline: median {base.median:.4g} {unit} of the last {base.runs} healthy runs, spread {base.spread_pct:.1f}%")
    if args.plot:
        plot(points, key, metric, unit, base, args.plot)
        print(f"  plot: {args.plot}")


def plot(points, key, metric, unit, base, path):
    import matplotlib.pyplot as plt
    from ..report.plots import trend_figure
    figure = trend_figure([parse_time(p.run.time) for p in points], [p.value for p in points],
                          [p.verdict == "FAIL" for p in points], key, f"{metric} ({unit})", base.median if base else None)
    figure.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(figure)


@entry
def main(argv):
    args = parse_args(argv)
    history = History(args.history, create=args.command == "add")  # a reader never makes the file
    try:
        {"add": add, "list": listing, "show": show}[args.command](history, args)
    finally:
        history.close()
    return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
