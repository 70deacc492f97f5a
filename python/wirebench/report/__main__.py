"""wirebench report RUN_DIR [--profile NAME|FILE]: verdicts for every row of RUN_DIR/results.csv,
written as report.md, report.html (with the plots), junit.xml and summary.json in RUN_DIR (plots in
RUN_DIR/plots). FAILs that `wirebench run` measured once more (RUN_DIR/remeasured) stand only where
they reproduced; the others are intermittent WARNs. A platform profile (suites/profiles/NAME.yaml, or the run's own profile.json, which
`wirebench run --profile` leaves there) adds its floors. Exit code: 0 PASS/WARN, 1 any FAIL, 2 any
ERROR (an incomplete or damaged run included), 3 bad usage or input.
--history FILE (or WIREBENCH_HISTORY): each item also held against its history (a regression is a
FAIL), then the run added to it. --prometheus FILE, --pushgateway URL: the judged items as metrics."""
import argparse
import os
import sys
from pathlib import Path

from .results import InputError
from .run_report import report
from ..contracts.schema import ExitCode


def parse_args(argv):
    """The run directory and the profile; argparse's own message and exit code 3 for bad usage."""
    parser = argparse.ArgumentParser(prog="wirebench report", description="verdicts for a run directory: "
                                     "report.md, report.html, junit.xml, summary.json and plots in RUN_DIR")
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path)
    parser.add_argument("--profile", metavar="NAME|FILE",
                        help="a platform profile (suites/profiles/NAME.yaml, or a file) whose floors judge too")
    parser.add_argument("--history", metavar="FILE", type=Path, default=os.environ.get("WIREBENCH_HISTORY") or None,
                        help="the history (SQLite): each item held against its baseline there, then the run added "
                             "(default: $WIREBENCH_HISTORY)")
    parser.add_argument("--prometheus", metavar="FILE", type=Path,
                        help="write the judged items in Prometheus' text format (node_exporter's textfile collector)")
    parser.add_argument("--pushgateway", metavar="URL", help="push the judged items to a Prometheus Pushgateway")
    return parser.parse_args(argv[1:])


def main(argv):
    try:
        args = parse_args(argv)
    except SystemExit as exit_:  # --help (0) or bad usage (argparse printed why)
        return ExitCode.OK if exit_.code == 0 else ExitCode.USAGE
    if not args.run_dir.is_dir():
        print(f"error: {args.run_dir}: not a directory (exit code 3)", file=sys.stderr)
        return ExitCode.USAGE
    if args.prometheus and not args.prometheus.resolve().parent.is_dir():  # said before anything is written
        print(f"error: --prometheus {args.prometheus}: its folder {args.prometheus.parent} does not exist "
              "(exit code 3)", file=sys.stderr)
        return ExitCode.USAGE
    try:
        return report(args.run_dir, args.profile, args.history, args.prometheus, args.pushgateway)
    except InputError as error:
        print(f"error: {error} (exit code 3)", file=sys.stderr)
        return ExitCode.USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv))
