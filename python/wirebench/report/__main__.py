"""wirebench report RUN_DIR [--profile NAME|FILE]: verdicts for every row of RUN_DIR/results.csv,
written as report.md, report.html (with the plots), junit.xml and summary.json in RUN_DIR (plots in
RUN_DIR/plots). FAILs that `wirebench run` measured once more (RUN_DIR/remeasured) stand only where
they reproduced; the others are intermittent WARNs. A platform profile (suites/profiles/NAME.yaml, or the run's own profile.json, which
`wirebench run --profile` leaves there) adds its floors. Exit code (docs/results.md, "Exit codes"):
0 PASS/WARN, 1 any FAIL, 2 any ERROR (an incomplete or damaged run included), 3 bad usage or input,
4 nothing judged or a profile floor not measured (named first).
--history FILE (or WIREBENCH_HISTORY): each item also held against its history (a regression is a
FAIL), then the run added to it. --prometheus FILE, --pushgateway URL: the judged items as metrics.
--nics 8x400G: the node's ports, as `wirebench import` takes them; --gpu-model M: the GPUs' model
(their copies' ceilings where the topology does not give them; with --nics a GPU's NVLink)."""
import argparse
import os
import sys
from pathlib import Path

from .ceilings import nics_option, stated_gpu, stated_nics
from .run_report import report
from ..contracts.exit_policy import CommandError, entry
from ..contracts.input_files import readable_dir


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
    parser.add_argument("--nics", metavar="COUNTxRATE", type=nics_option, help="a node's network ports (8x400G, "
                        "8x400G/roce), as `wirebench import --nics`: a collective across nodes held against them together")
    parser.add_argument("--gpu-model", metavar="MODEL", help="the GPUs' model (H100-SXM, NVIDIA H100 80GB HBM3), as "
                        "`wirebench import --gpu-model`: a copy inside a GPU's memory and a host copy held to the model's "
                        "memory and PCIe link where the topology does not say them; with --nics a ring goes at the "
                        "slower of the ports and a GPU's NVLink")
    return parser.parse_args(argv[1:])


@entry
def main(argv):
    args = parse_args(argv)
    readable_dir(args.run_dir)  # "no such file or directory", "not a directory", "permission denied"
    if args.prometheus and not args.prometheus.resolve().parent.is_dir():  # said before anything is written
        raise CommandError(f"--prometheus {args.prometheus}: its folder {args.prometheus.parent} does not exist")
    nics = None
    if args.nics:  # an unknown rate is exit 3 here, before anything is judged
        count, gbit, network = args.nics
        nics = stated_nics(count, gbit, network or "ib", f"wirebench report --nics {count}x{gbit:g}G", args.gpu_model)
    gpu = stated_gpu(args.gpu_model, f"wirebench report --gpu-model {args.gpu_model}") if args.gpu_model else None
    return report(args.run_dir, args.profile, args.history, args.prometheus, args.pushgateway, nics, gpu)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
