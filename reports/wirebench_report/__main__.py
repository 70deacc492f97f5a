"""wirebench report RUN_DIR: verdicts for every row of RUN_DIR/results.csv, written as report.md,
report.html (with the plots), junit.xml and summary.json in RUN_DIR (plots in RUN_DIR/plots). Exit code: 0 PASS/WARN, 1 any FAIL, 2 any ERROR (an
incomplete or damaged run included), 3 bad usage or input."""
import sys
from pathlib import Path

from .ceilings import Ceilings
from .outputs import html_page, junit, markdown, summary
from .plots import write_plots
from .results import InputError, read_results
from .verdicts import counts, exit_code, judge


def report(run_dir: Path):
    results = read_results(run_dir / "results.csv")
    verdicts = judge(results, Ceilings.load(run_dir))
    code = exit_code(verdicts, results.problems)
    (run_dir / "report.md").write_text(markdown(run_dir, verdicts, results.problems))
    (run_dir / "junit.xml").write_text(junit(verdicts, results.problems))
    (run_dir / "summary.json").write_text(summary(run_dir, verdicts, results.problems, code))
    plots = write_plots(verdicts, run_dir)
    (run_dir / "report.html").write_text(html_page(run_dir, verdicts, results.problems, plots))
    c = counts(verdicts, results.problems)
    print(f"wirebench report: {c['PASS']} PASS, {c['WARN']} WARN, {c['FAIL']} FAIL, {c['SKIP']} SKIP, "
          f"{c['ERROR']} ERROR -> {run_dir}/report.md, report.html, junit.xml, summary.json, "
          f"{len(plots)} plots")
    for problem in results.problems:
        print(f"  problem: {problem}", file=sys.stderr)
    for v in verdicts:
        if v.verdict in ("FAIL", "ERROR"):
            print(f"  {v.verdict} results.csv:{v.row.line} {v.row.key}: {v.reason}")
    return code


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: wirebench report RUN_DIR", file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 3
    run_dir = Path(argv[1])
    if not run_dir.is_dir():
        print(f"error: {run_dir}: not a directory (exit code 3)", file=sys.stderr)
        return 3
    try:
        return report(run_dir)
    except InputError as error:
        print(f"error: {error} (exit code 3)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv))
