"""wirebench slurm drain RUN_DIR... [--apply] [--max-share 0.1] [--force] [--partition P]
wirebench slurm resume RUN_DIR... [--apply] [--partition P]

drain: the nodes the run directories blame (a FAIL that is the node's own: docs/slurm-health.md) are
drained with a reason naming wirebench, the finding and the run. A dry run by default: it prints the
scontrol commands; --apply runs them. It never drains more than --max-share of the partition (nodes
wirebench drained already count; at least one node may always go) without --force: a fault that
wide is more likely the fabric's than every node's. A node drained by anyone else is left alone.
resume: the nodes wirebench drained (their reason starts "wirebench:") that a run directory measured
after the drain and found healthy (`wirebench check --run-dir` on the node, or a suite that
measured it; the latest such run decides) are resumed; nothing else is touched.
Exit codes: 0 done (or, dry, shown); 1 refused (--max-share); 2 Slurm could not be read or told;
3 bad input (a run directory that cannot be read, named with its file).
"""
import argparse
import math
import shlex
import sys

from .run_findings import RunDirError, read_run
from .slurm_nodes import SlurmError, drain_command, read_nodes, resume_command, run_slurm
from wirebench.contracts.exit_policy import CommandError, entry, fail
from wirebench.contracts.schema import ExitCode


def plan_drain(findings, nodes, max_share, force):
    """(commands, notes, refusal or None) for the blamed nodes against Slurm's view `nodes`."""
    commands, notes = [], []
    for run in findings:
        notes += [f"not drained, no one node's fault: {text}" for text in run.not_node]
    blamed = {}
    for run in findings:
        for node, what in run.blamed.items():
            blamed.setdefault(node, (f"{node} {what}", f"(run {run.run})"))
    for node, (reason, run) in sorted(blamed.items()):
        state = nodes.get(node)
        if state is None:
            notes.append(f"{node}: not a node of this Slurm (or of --partition): left alone")
        elif state.drained_by_wirebench:
            notes.append(f"{node}: drained by wirebench already ({state.reason})")
        elif state.drained:
            notes.append(f"{node}: drained by someone else ({state.reason or 'no reason'}): left alone")
        else:
            commands.append(drain_command(node, reason, run))
    already = sum(s.drained_by_wirebench for s in nodes.values())
    allowed = max(1, math.floor(max_share * len(nodes)))
    refusal = None
    if commands and already + len(commands) > allowed and not force:
        refusal = (f"refused: draining {len(commands)} node(s) ({already} drained by wirebench already) would take "
                   f"{already + len(commands)} of the partition's {len(nodes)} nodes, more than --max-share "
                   f"{max_share:g} allows ({allowed}); a fault that wide is more likely the fabric's than every "
                   "node's: look at the report, then --force to drain them anyway")
    return commands, notes, refusal


def plan_resume(findings, nodes):
    """(commands, notes): wirebench's drained nodes that a later run found healthy."""
    commands, notes = [], []
    for name, state in sorted(nodes.items()):
        if not state.drained:
            continue
        if not state.drained_by_wirebench:
            notes.append(f"{name}: drained by someone else ({state.reason or 'no reason'}): left alone")
            continue
        # The latest run that measured it since the drain decides (times in whole seconds).
        later = [r for r in findings if r.time is not None and (state.since is None or r.time >= state.since)
                 and (name in r.blamed or name in r.healthy)]
        latest = max(later, key=lambda r: r.time, default=None)
        if latest is None:
            notes.append(f"{name}: no run measured it after it was drained: stays drained ({state.reason})")
        elif name in latest.blamed:
            notes.append(f"{name}: still failing in {latest.run}, its latest run: stays drained")
        else:
            commands.append(resume_command(name))
            notes.append(f"{name}: healthy in {latest.run}, its latest run since the drain")
    return commands, notes


@entry
def main(argv):
    parser = argparse.ArgumentParser(prog="wirebench slurm", description=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["drain", "resume"], help="drain the nodes the runs blame, or resume "
                        "the nodes wirebench drained that a later run found healthy")
    parser.add_argument("run_dirs", nargs="+", metavar="RUN_DIR",
                        help="run directories: a suite's (summary.json) or a check's (check.json)")
    parser.add_argument("--apply", action="store_true", help="run the scontrol commands (default: print them)")
    parser.add_argument("--max-share", type=float, default=0.1,
                        help="drain at most this share of the partition's nodes (default 0.1; at least one)")
    parser.add_argument("--force", action="store_true", help="drain beyond --max-share")
    parser.add_argument("--partition", help="the partition whose nodes count (default: every node)")
    args = parser.parse_args(argv[1:])
    if not 0 < args.max_share <= 1:
        raise CommandError("--max-share must be above 0 and at most 1")
    try:
        findings = [read_run(d) for d in args.run_dirs]
    except RunDirError as error:
        raise CommandError(str(error)) from None
    try:
        nodes = read_nodes(args.partition)
        if args.action == "drain":
            commands, notes, refusal = plan_drain(findings, nodes, args.max_share, args.force)
        else:
            (commands, notes), refusal = plan_resume(findings, nodes), None
        for note in notes:
            print(f"wirebench slurm: {note}")
        if refusal:
            print(f"wirebench slurm: {refusal} (exit code 1)", file=sys.stderr)
            for command in commands:
                print(f"  not run: {shlex.join(command)}")
            return ExitCode.FAILED
        if not commands:
            print(f"wirebench slurm: no node to {args.action}")
        for command in commands:
            if args.apply:
                run_slurm(command)
                print(f"done: {shlex.join(command)}")
            else:
                print(shlex.join(command))
        if commands and not args.apply:
            print(f"wirebench slurm: a dry run; --apply to {args.action} {len(commands)} node(s)")
    except SlurmError as error:
        return fail(f"wirebench slurm: {error}", ExitCode.INFRASTRUCTURE)
    return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv))
