"""wirebench compare RUN_A RUN_B [RUN_C ...] [--threshold 0.10] [--out DIR]: the same measurements
side by side, with each run's ratio to the first (the baseline). A measurement that got worse by
more than the threshold in a later run is a FAIL (nightly regressions; vendor comparisons read the
ratios), unless its own spread in either run is far above the drop (NOISY: the runs cannot decide).
A small message whose latency is judged is compared by its time, the rest by what they are judged by
(a bandwidth printed as 0.00 by its time too). Measurements are matched by key, whatever their figure.
Writes compare.md, compare.json and overlay plots into DIR (default ./wirebench-compare).
Exit code (docs/results.md, "Exit codes"): 1 a drop, 4 nothing compared (no measurement the runs
share, or every one too noisy to tell), 0 no drop beyond the threshold, 3 bad usage or input."""
import argparse
import json
import sys
from collections import OrderedDict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .extra import facts
from .plots import size_axis
from .results import read_results
from .row_verdicts import is_small_message_latency, undecided
from ..contracts.exit_policy import CommandError, entry, judged_code
from ..contracts.schema import version, ExitCode
from .sweeps import sweep_bounds
from .verdicts import metric_of


def _compared_metric(row, smallest):
    """What a row is compared by: a small message held against its typical latency by its time
    (an 8 B ping-pong's bandwidth is no figure anyone reads), the rest as they are judged."""
    if is_small_message_latency(row, smallest) and row.number("time_us") is not None:
        return "time_us", row.number("time_us"), False
    return metric_of(row)


def measurements(run_dir: Path):
    results = read_results(run_dir / "results.csv")
    _, smallest = sweep_bounds(results.rows)
    table = OrderedDict()
    for row in results.rows:
        if row.status != "OK":
            continue
        metric, value, higher_is_better = _compared_metric(row, smallest)
        if value is not None:
            table[row.key] = (row, metric, value, higher_is_better)  # a later repetition replaces an earlier
    return table, results.problems


def _entry_metric(row, metric, higher_is_better, matched):
    """What an entry is compared by across its runs: the baseline's metric, except that a bandwidth
    printed as 0 in any run (nccl-tests prints an 8 B all_reduce's busbw as 0.00: below its two
    decimals, not absent) is compared by the time every run reports instead."""
    rows = [row] + [m for m in matched if m is not None]
    if (higher_is_better and any(r.number(metric) == 0 for r in rows)
            and all((r.number("time_us") or 0) > 0 for r in rows)):
        return "time_us", False
    return metric, higher_is_better


def _ratio(value, other, higher_is_better):
    """A later run's figure against the baseline's, > 1 better whatever the metric; 0 against 0 is
    the same figure (1.0); None where the baseline's side is 0 (no finite ratio, and no drop)."""
    if other == value:
        return 1.0
    over, under = (other, value) if higher_is_better else (value, other)
    return over / under if under else None


def compare(runs, threshold):
    """One entry per measurement of the baseline, matched by its key in each later run whatever
    its figure (0 included): MISSING only where no later run has the measurement."""
    tables = [measurements(run)[0] for run in runs]
    base = tables[0]
    entries = []
    for key, (row, metric, _, higher_is_better) in base.items():
        matched = [t[key][0] if key in t else None for t in tables[1:]]
        metric, higher_is_better = _entry_metric(row, metric, higher_is_better, matched)
        value = row.number(metric)
        values = [value] + [m.number(metric) if m is not None else None for m in matched]
        spreads = [row.number("spread_pct")] + [m.number("spread_pct") if m is not None else None for m in matched]
        ratios, verdict = [], "PASS"
        for other, spread in zip(values[1:], spreads[1:]):
            ratio = None if other is None else _ratio(value, other, higher_is_better)
            ratios.append(ratio)
            if ratio is not None and ratio < 1 - threshold:
                noise = max((s for s in (spreads[0], spread) if s is not None), default=None)
                if undecided(noise, 1 - ratio):
                    verdict = "NOISY" if verdict != "FAIL" else verdict
                else:
                    verdict = "FAIL"
        if all(v is None for v in values[1:]):
            verdict = "MISSING"
        entries.append({"key": key, "bench": row.text("bench"), "metric": metric, "bytes": int(row.text("bytes") or 0),
                        "values": values, "ratios": ratios, "spreads_pct": spreads, "verdict": verdict,
                        "changed": _fact_changes(row, matched),
                        "row": row})
    return entries


def _fact_changes(base, others):
    """What the measurement ran with that differs from the baseline's, run by run: "nccl_version
    2.21.5 -> 2.23.4" (the versions are facts, not the item's identity: the same sweep under two
    NCCL versions is one item)."""
    before = facts(base.text("extra"))
    changes = []
    for other in others:
        after = facts(other.text("extra")) if other is not None else {}
        changes.append([f"{k} {before.get(k, 'none')} -> {after.get(k, 'none')}" for k in sorted(set(before) | set(after))
                        if other is not None and before.get(k) != after.get(k)])
    return changes


def _order(entry):
    """Drops first, then by what was measured, its sizes in numeric order (8, 1024, 1048576)."""
    f = entry["row"].fields
    return (entry["verdict"] != "FAIL", entry["verdict"] != "NOISY", f["bench"], f["case"], f["backend"], f["op"],
            f["dtype"], f["src"], f["dst"], entry["bytes"], entry["key"])


def write_outputs(runs, entries, threshold, out: Path):
    out.mkdir(parents=True, exist_ok=True)
    any_changed = any(c for e in entries for c in e["changed"])
    names = [str(r) for r in runs]
    lines = [f"# wirebench compare (baseline {names[0]}; a drop beyond {100 * threshold:.0f}% is a FAIL, or NOISY "
             "where the measurement's own spread is at least twice the drop)", "",
             "| verdict | measurement | metric | " + " | ".join(f"run {i}" for i in range(len(runs))) + " | " +
             " | ".join(f"ratio {i}/0" for i in range(1, len(runs))) + " |" +
             (" ran with, changed |" if any_changed else ""),
             "|---" * (3 + len(runs) + len(runs) - 1 + any_changed) + "|"]
    for e in sorted(entries, key=_order):
        values = " | ".join("" if v is None else f"{v:.4g}" for v in e["values"])
        ratios = " | ".join("" if r is None else f"{r:.3f}" for r in e["ratios"])
        changed = "; ".join(sorted({c for run in e["changed"] for c in run}))
        lines.append(f"| {e['verdict']} | {e['key'].replace('|', '/')} | {e['metric']} | {values} | {ratios} |"
                     + (f" {changed} |" if any_changed else ""))
    lines += ["", "Runs: " + ", ".join(f"{i}: {n}" for i, n in enumerate(names)), ""]
    (out / "compare.md").write_text("\n".join(lines))
    (out / "compare.json").write_text(json.dumps({
        "schema_version": version("compare"), "runs": names, "threshold": threshold,
        "entries": [{k: v for k, v in e.items() if k != "row"} for e in entries]}, indent=2) + "\n")
    _overlay_plots(names, entries, out)


def _overlay_plots(names, entries, out: Path):
    families = OrderedDict()
    for e in entries:
        f = e["row"].fields
        if e["metric"] == "time_us":
            continue
        families.setdefault((f["bench"], f["case"], f["op"], f["dtype"], f["src"], f["dst"]), []).append(e)
    plot_dir = out / "plots"
    plot_dir.mkdir(exist_ok=True)
    for key, members in families.items():
        if len(members) < 2:
            continue
        figure, axes = plt.subplots(figsize=(7, 4))
        members.sort(key=lambda e: e["bytes"])
        for i, name in enumerate(names):
            points = [(e["bytes"], e["values"][i]) for e in members if e["values"][i] is not None]
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3,
                      linestyle="-" if i == 0 else "--", label=f"run {i}: {name}", gid=f"run:{i}")
        axes.set_xscale("log", base=2)
        size_axis(axes.xaxis)
        axes.set_xlabel("message size")
        axes.set_ylabel(members[0]["metric"])
        axes.set_title(" ".join(key), fontsize=8)
        axes.legend(fontsize=6)
        figure.tight_layout()
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in "-".join(key))
        figure.savefig(plot_dir / f"{safe}.png", dpi=80)
        plt.close(figure)


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="wirebench compare", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--threshold", type=float, default=0.10, help="a drop beyond this fraction is a FAIL")
    parser.add_argument("--out", type=Path, default=Path("wirebench-compare"))
    args = parser.parse_args(argv[1:])
    if len(args.runs) < 2:
        raise CommandError("compare needs at least two run directories")
    if not 0 < args.threshold < 1:
        raise CommandError(f"--threshold {args.threshold} is not between 0 and 1")
    entries = compare(args.runs, args.threshold)
    write_outputs(args.runs, entries, args.threshold, args.out)
    drops = [e for e in entries if e["verdict"] == "FAIL"]
    noisy = [e for e in entries if e["verdict"] == "NOISY"]
    print(f"wirebench compare: {len(entries)} measurements, {len(drops)} dropped more than "
          f"{100 * args.threshold:.0f}%" + (f", {len(noisy)} too noisy to tell (spread at least twice the drop)"
                                            if noisy else "") + f" -> {args.out}/compare.md")
    changed = sorted({c for e in entries for run in e["changed"] for c in run})
    if changed:
        print(f"  what the measurements ran with changed: {', '.join(changed)}")
    for e in drops:
        said = sorted({c for run in e["changed"] for c in run})
        print(f"  FAIL {e['key']}: ratios {', '.join(f'{r:.3f}' for r in e['ratios'] if r is not None)}"
              + (f" (ran with {', '.join(said)})" if said else ""))
    # a measurement compared is judged (PASS, or FAIL a drop); NOISY and MISSING judged nothing
    code = judged_code([e["verdict"] for e in entries])
    if code == ExitCode.UNJUDGED:
        print("  nothing compared: no measurement of the baseline was measured and decided in a later run (exit code 4)")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
