"""Reporting a run directory: judge_run() (the verdicts, written nowhere: `wirebench history add`'s use)
and report() (the verdicts written as report.md, report.html, junit.xml, summary.json and plots, the
history and the metrics updated): what `wirebench report` and `wirebench import` run."""
import sys
from pathlib import Path

from .ceilings import Ceilings, profile_nics
from .document import Table, document
from .outputs import console_lines, html_page, junit, markdown, summary
from .profiles import load_profile
from .results import InputError, read_results
from .floors import unmeasured
from .verdicts import apply_remeasure, exit_code, floor_outcomes, judge
from .trend import TREND_HEADINGS, history_items, judge_against_history, trend_rows
from ..contracts.exit_policy import after_output, fail
from ..contracts.run_meta import read_meta
from ..contracts.schema import ExitCode
from ..history.run_record import run_of
from ..history.store import History, parse_time


def judge_run(run_dir: Path, profile_name=None, nics=None, gpu=None):
    """(profile, results, ceilings, verdicts) of a run directory, written nowhere; `nics`: the node's
    ports stated after the run (`wirebench report --nics`), over the profile's `nics:`; `gpu`: the
    GPUs' model stated after the run (`wirebench report --gpu-model`, ceilings.stated_gpu)."""
    stored = run_dir / "profile.json"
    profile = load_profile(profile_name) if profile_name else load_profile(stored) if stored.exists() else None
    results = read_results(run_dir / "results.csv")
    ceilings = Ceilings.load(run_dir)
    for stated in (profile_nics(profile), nics):
        if stated:
            ceilings.add_nics(stated)
    if gpu:
        ceilings.add_gpu(gpu)
    second = None
    if (run_dir / "remeasured" / "results.csv").exists():  # wirebench run measured its FAILs once more
        again = read_results(run_dir / "remeasured" / "results.csv")
        second = judge(again, ceilings, profile)  # first: the profile's floors keep the main run's outcomes
        results.problems.extend(again.problems)
    verdicts = judge(results, ceilings, profile, again=second)
    if second is not None:
        apply_remeasure(verdicts, second)
    return profile, results, ceilings, verdicts


def input_notes(run_dir: Path):
    """What the writer of the run directory said of its input (meta.json's `notes`: `wirebench
    import`'s, of a cut paste or a GPU pair slower peer to peer than through the host)."""
    notes = read_meta(run_dir / "meta.json").get("notes") or []
    return [note for note in notes if isinstance(note, str)] if isinstance(notes, list) else []


def report(run_dir: Path, profile_name=None, history_path=None, prometheus_file=None, pushgateway=None, nics=None,
           gpu=None):
    # the history is opened first: a damaged one ends here (exit 3), before anything is written
    history = run = None
    if history_path:
        history, run = History(history_path, create=True), run_of(run_dir)
    profile, results, ceilings, verdicts = judge_run(run_dir, profile_name, nics, gpu)
    trends = judge_against_history(verdicts, history, run) if history else []
    code = exit_code(verdicts, results.problems, unmeasured(profile))
    doc = document(run_dir, verdicts, results.problems, profile, input_notes(run_dir))
    if trends:
        doc.link_tables.insert(0, Table(f"Trend: the items that moved against the history ({history_path})",
                                        TREND_HEADINGS, trend_rows(trends)))
    (run_dir / "report.md").write_text(markdown(doc))
    (run_dir / "junit.xml").write_text(junit(doc))
    (run_dir / "summary.json").write_text(summary(doc, code))
    from .plots import write_plots, write_trend_plots  # here: matplotlib is for the report alone, not judge_run's users
    plots = write_plots(verdicts, run_dir, per_nic=ceilings.stated_ports() > 1)
    if trends:  # the items that moved first: the history's plots before the run's own
        plots = write_trend_plots(trends, history, run, run_dir) + plots
    (run_dir / "report.html").write_text(html_page(doc, plots))
    print(f"wirebench report: {', '.join(f'{n} {name}' for name, n in doc.counts.items())} -> {run_dir}/report.md, "
          f"report.html, junit.xml, summary.json, {len(plots)} plots")
    if doc.incomplete:
        print(f"  {doc.incomplete}")
    if profile:
        for o in floor_outcomes(profile):
            worst = "" if o["worst"] is None else f", worst {o['worst']:.4g} GB/s"
            hint = f"; measure: {o['floor'].measure}" if o["rows"] == 0 and o["floor"].measure else ""
            print(f"  profile {profile.name}: {o['floor'].name}: {o['verdict']} ({o['rows']} rows{worst}, "
                  f"floor {o['floor'].floor:.4g} GB/s{hint})")
    for problem in results.problems:
        print(f"  problem: {problem}", file=sys.stderr)
    print("\n".join(console_lines(doc)))
    if history:
        added = history.add(run, history_items(verdicts))
        print(f"wirebench history: {'added' if added else 'already holds'} run {run.run_id} ({run.time}) "
              f"{'to' if added else ''} {history_path}".replace("  ", " "))
        history.close()
    if prometheus_file or pushgateway:
        from .prometheus import push, registry_of, write_textfile
        seconds = parse_time(run.time).timestamp() if run else None
        registry = registry_of(verdicts, seconds, code)
        if prometheus_file:
            try:
                write_textfile(prometheus_file, registry)
            except OSError as error:  # a folder that went away, a full disk: the report itself stands,
                # and so does its verdict: a FAIL is not hidden behind the file's exit code
                code = fail(f"--prometheus {prometheus_file}: cannot write it: {error.strerror or error}",
                            after_output(code, ExitCode.USAGE))
            else:
                print(f"wirebench report: metrics -> {prometheus_file}")
        if pushgateway:
            try:
                push(pushgateway, registry, {"run": run_dir.resolve().name})
                print(f"wirebench report: metrics pushed to {pushgateway}")
            except OSError as error:
                code = fail(f"pushing the metrics to {pushgateway} failed: {error}",
                            after_output(code, ExitCode.INFRASTRUCTURE))
    return code
