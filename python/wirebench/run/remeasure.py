"""A FAIL is measured once more before it stands: after the suite, the steps whose items FAILed on
their figure (not on wrong data, not the topology's findings) run again at the failing sizes only,
into RUN_DIR/remeasured; the report (wirebench.report.verdicts.apply_remeasure) then calls a FAIL
that does not reproduce an intermittent WARN, with both figures."""
from wirebench.report.ceilings import Ceilings
from wirebench.report.results import InputError, read_results
from wirebench.report.verdicts import judge, remeasurable

from .placement import too_few_nodes
from .screen_step import is_adaptive


def failing_steps(run_dir, plan, lines, profile=None):
    """[(rate, step, sizes)]: the steps to run again and the sizes of their failing items, judged as
    the report will judge them (with the run's platform profile, whose floors FAIL items too).
    `lines` holds the (first, last) results.csv line each step of `plan` wrote."""
    try:
        results = read_results(run_dir / "results.csv")
    except InputError:
        return []  # the report will say what is wrong with the file
    failing = [v.row for v in judge(results, Ceilings.load(run_dir), profile) if remeasurable(v)]
    again = []
    for (rate, step), (first, last) in zip(plan, lines):
        sizes = sorted({int(row.text("bytes")) for row in failing if first <= row.line <= last})
        if sizes and not too_few_nodes(step) and not is_adaptive(step):  # a screen confirms its own suspects
            again.append((rate, step, sizes))
    return again


def at_sizes(step, sizes):
    """The step measuring only `sizes` (its --sizes replaced, or added)."""
    args = [str(a) for a in step.get("args", [])]
    listed = ",".join(str(s) for s in sizes)
    if "--sizes" in args:
        at = args.index("--sizes")
        args[at + 1] = listed
    else:
        args += ["--sizes", listed]
    return dict(step, args=args, name=step["name"] + " (measured again)")
