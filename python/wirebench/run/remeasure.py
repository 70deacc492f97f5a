"""A FAIL is measured once more before it stands, and so is a verdict whose samples' p05-p95 reach
across its bound (uncertain): after the suite, each step whose items FAILed on their figure (not on
wrong data, not the topology's findings) or were uncertain runs again as its failing rows' `rerun`
says (results.csv: the command that measures the row again, written by the binary that measured it),
into RUN_DIR/remeasured; the report (wirebench.report.verdicts.apply_remeasure) then calls a FAIL
that does not reproduce an intermittent WARN, with both figures, and lets a second look clear of its
bound decide an uncertain verdict.

A rerun is run inside its step: its launcher (mpiexec -n 2) is the runner's and the step's ranks
stay, so a pair's rerun measures its fleet again (the culprits are localised from both passes); the
settings it names (--tests, the sizes, --backend, --collective, ...) replace the step's spellings of
the same setting, so wb-coll's `-b N -e N` replaces a step's --sizes or -b/-e/-f, and the reverse.
Rows whose reruns set the same things run once; a row without a rerun (an older results schema) or
whose rerun names another binary runs its step at its size (--sizes)."""
import shlex
from dataclasses import dataclass

from wirebench.report.ceilings import Ceilings
from wirebench.report.results import InputError, read_results
from wirebench.report.verdicts import judge, remeasurable

from .placement import too_few_nodes
from .screen_step import is_adaptive

# The spellings of one setting: a rerun that sets it replaces every spelling in the step's arguments.
# wb-coll takes nccl-tests' short options beside its own long ones, and its sizes either as --sizes
# or as -b/-e/-f/-i (not both: it refuses the mix).
SETTINGS = (
    ("--sizes", "-b", "--minbytes", "-e", "--maxbytes", "-f", "--stepfactor", "-i", "--stepbytes"),
    ("-d", "--datatype"), ("-o", "--op"), ("-c", "--check"), ("-n", "--iters"), ("-w", "--warmup"),
    ("-r", "--root"), ("-z", "--blocking"), ("-m", "--agg"),
)


# Settings that can name several values at once: reruns that differ only there run as one
# (--tests bw,latency; wb-coll's --collective list; --in-place yes and no are both).
MERGED = {"--tests": ",".join, "--collective": ",".join,
          "--in-place": lambda values: values[0] if len(values) == 1 else "both"}


@dataclass
class Again:
    rate: object
    step: dict   # the step as it runs again
    rows: int    # the failing rows it measures again


def _spellings(option):
    return next((set(s) for s in SETTINGS if option in s), {option})


def _rerun_options(rerun, binary):
    """[(option, value)] the rerun sets after its binary, or None where it cannot run inside the
    step: no rerun, another binary, or a word that is not `--option value`."""
    try:
        words = shlex.split(rerun)
    except ValueError:
        return None
    names = [w.rsplit("/", 1)[-1] for w in words]
    if binary not in names:
        return None
    rest = words[names.index(binary) + 1:]
    if len(rest) % 2 or any(not option.startswith("-") for option in rest[::2]):
        return None
    return list(zip(rest[::2], rest[1::2]))


def _beyond(options, args):
    """The rerun's settings the step does not already make as they are (an aggregate's --pairs all
    in a --pairs all step): two reruns that differ only there measure the same."""
    said = {(a, b) for a, b in zip(args, args[1:])} | {tuple(a.split("=", 1)) for a in args if "=" in a}
    return [(option, value) for option, value in options if (option, value) not in said]


def _without(args, spellings):
    """The step's arguments less every spelling of a setting (`--opt value` and `--opt=value`)."""
    out, skip = [], False
    for word in args:
        if skip:
            skip = False  # the value of a spelling left out
        elif word in spellings:
            skip = True
        elif not (word.startswith("--") and word.partition("=")[0] in spellings):
            out.append(word)
    return out


def with_rerun(step, options):
    """The step with the rerun's settings in place of its own spellings of them."""
    args = [str(a) for a in step.get("args", [])]
    for option, _ in options:
        args = _without(args, _spellings(option))
    for option, value in options:
        args += [option, value]
    said = shlex.join([w for option, value in options for w in (option, value)])
    return dict(step, args=args, name=step["name"] + f" (measured again{': ' + said if said else ''})")


def at_sizes(step, sizes):
    """The step measuring only `sizes` (its sizes replaced, however spelt, or added): for a row
    without a rerun the step can run."""
    return with_rerun(step, [("--sizes", ",".join(str(s) for s in sizes))])


def failing_steps(run_dir, plan, lines, profile=None):
    """[Again]: each step to run again, once per distinct set of settings its failing items' reruns
    name, judged as the report will judge them (with the run's platform profile, whose floors FAIL
    items too). `lines` holds the (first, last) results.csv line each step of `plan` wrote."""
    try:
        results = read_results(run_dir / "results.csv")
    except InputError:
        return []  # the report will say what is wrong with the file
    failing = [v.row for v in judge(results, Ceilings.load(run_dir), profile) if remeasurable(v)]
    again = []
    for (rate, step), (first, last) in zip(plan, lines):
        mine = [row for row in failing if first <= row.line <= last]
        if not mine or too_few_nodes(step) or is_adaptive(step):  # a screen confirms its own suspects
            continue
        runs, sizes_only = {}, []  # the rerun's settings but its lists -> (the lists' values, rows)
        for row in mine:
            options = _rerun_options(row.text("rerun"), step["binary"])
            if options is None:
                sizes_only.append(row)
                continue
            options = _beyond(options, [str(a) for a in step.get("args", [])])
            listed, rows = runs.setdefault(tuple(o for o in options if o[0] not in MERGED), ({}, []))
            for option, value in options:
                if option in MERGED:
                    listed.setdefault(option, {})[value] = None  # a set that keeps the reruns' order
            rows.append(row)
        for options, (listed, rows) in runs.items():
            merged = [(option, MERGED[option](list(values))) for option, values in listed.items()] + list(options)
            again.append(Again(rate, with_rerun(step, merged), len(rows)))
        if sizes_only:
            sizes = sorted({int(row.text("bytes")) for row in sizes_only})
            again.append(Again(rate, at_sizes(step, sizes), len(sizes_only)))
    return again
