"""Verdicts on judged items (this module: judge() and its passes, the second measurement of a FAIL, the
topology's findings; verdict.py the record, row_verdicts.py a row alone, comparisons.py siblings and
communicators, floors.py a profile, sweeps.py what a sweep is). The reporter judges items, not rows:
  - a link's bandwidth: the largest size of a sweep, against its link's ceiling (FAIL below the
    healthy fraction, WARN within 5% above it, PASS above; WARN above 105% of the ceiling: then the
    ceiling, the topology or the timer is wrong);
  - a link's small-message latency: the smallest size of a ping-pong sweep up to 64 bytes, against
    its link class's typical latency (WARN above twice it; a typical figure is no ceiling, so never FAIL);
  - a data check: any row with wrong elements is a FAIL, whatever its size or speed;
  - an NCCL all_reduce's bus bandwidth (the largest size of its sweep) against what NCCL's algorithm
    reaches on the node's wiring (topology.json's nccl_expectations: NVLS on an NVSwitch node, the
    tree beyond the network's rate on two nodes), or the algorithm NCCL_ALGO forced;
  - a collective's bandwidth (the largest size of its sweep), a profile floor, a topology finding,
    a step emulation (against the cost model's prediction);
  - the other sizes of a sweep are DATA: shown in tables and plots, never counted.
Verdicts: PASS (always naming what it was held against), WARN, FAIL, ERROR (could not be measured),
SKIP (this machine cannot run it: the benchmark's reason) and NOT JUDGED (measured, but no ceiling,
profile floor or equivalent links to judge it by; the reason says which are missing).
  - items of the same measurement on different links of the same class and ceiling are compared
    with each other (median absolute deviation): more than 3 MAD and 20% worse than the median is a
    FAIL where no ceiling judged them, a WARN where one did; more than 2 MAD and 10% worse a WARN;
  - wb-coll --split rows naming each communicator's time (per_comm_us) WARN when one of three or
    more is more than 20% and 3 MAD slower than their median;
  - a platform profile's floors (profiles.py) judge the items they match too; the worse verdict stands;
  - every degradation the topology found is a FAIL of its own (bench `topology`, once however many
    links it touches), a port that is not up a WARN; rows that measured a degraded link say so;
  - a verdict whose samples' spread straddles its threshold says so, and one resting on fewer than
    5 samples says so;
  - a step's exposed communication above 40% is a finding of its wiring (`finding`), shown beside
    the other wirings of the same model, not a WARN: the wiring, not the machine, is at fault.
"""

from dataclasses import dataclass

from . import judging
from . import culprits
from .comparisons import SIBLINGS_NEEDED, compare_communicators, compare_siblings, sibling_key, siblings_without_culprits
from .contention import port_shares
from .findings import culprit, nccl_log, wiring
from .floors import apply_profile
from .row_verdicts import judge_row
from .sweeps import incomplete_sweeps, sweep_bounds, sweep_key
from .switches import load_switches
from .verdict import NO_CEILING, Verdict

# The judging's public names, for the printers and the runner: one import site.
from .floors import floor_outcomes  # noqa: F401
from .row_verdicts import EXPOSED_FINDING_PCT  # noqa: F401
from .verdict import COUNTED, ORDER, counts, exit_code, grouped, items, metric_of  # noqa: F401


MIN_SAMPLES = 5


@dataclass
class Judging:
    """What the passes of judge() share: the run, its ceilings and profile, each sweep's extent."""
    results: object
    ceilings: object
    profile: object
    largest: dict    # sweep key -> its largest measured size
    smallest: dict
    incomplete: dict  # sweep key -> why its largest size is not its last
    again: list = None  # the verdicts of the second measurement (RUN_DIR/remeasured), when there is one


def judge(results, ceilings, profile=None, again=None):
    """Every row's first verdict (judge_row), then the passes of PASSES in their order, then the
    topology's findings. The order matters and is written only here: a sweep cut short is not judged
    before siblings compare; siblings and communicators judge what no ceiling did before a
    profile's floor may override; the reasons for NOT JUDGED are written once nothing else can
    judge; confidence is noted on the final verdicts; culprits come last, over the pairs' verdicts,
    and then the pairs they do not explain are held to their own kind.
    A FAIL's second measurement (`again`, its verdicts) localises the culprits together with the first;
    the caller applies it to the other FAILs after (apply_remeasure)."""
    rows = results.rows
    largest, smallest = sweep_bounds(rows)
    context = Judging(results, ceilings, profile, largest, smallest, incomplete_sweeps(results, largest), again)
    shares = port_shares(rows, ceilings)
    verdicts = [judge_row(row, ceilings, largest, smallest, shares.get(row.line, (1, ""))) for row in rows]
    for step in PASSES:
        step(verdicts, context)
    return verdicts + topology_findings(ceilings) + nccl_log_findings(ceilings)


def _mark_incomplete(verdicts, context):
    """A sweep that did not finish has no largest size to judge by."""
    for v in verdicts:
        why = context.incomplete.get(sweep_key(v.row)) if v.row.status == "OK" else None
        wrong_data = bool(v.row.number("errors"))  # a data error stands whatever the sweep's state
        if why and int(v.row.text("bytes") or 0) == context.largest[sweep_key(v.row)] and not wrong_data \
                and v.verdict != "ERROR" and v.metric != "time_us":
            v.verdict, v.reason = "NOT JUDGED", f"not judged: the sweep is incomplete ({why})"
            v.not_judged_why = "incomplete"
            v.fraction = v.ceiling_GBps = None
            v.hold_against("")  # held against nothing: the table shows no stale ceiling


def _profile_floors(verdicts, context):
    if context.profile:
        apply_profile(verdicts, context.profile, context.largest)


def _explain_not_judged(verdicts, context):
    for v in verdicts:
        if v.verdict == "NOT JUDGED" and v.not_judged_why == NO_CEILING:
            v.reason = _nothing_to_judge_by(v, context.profile, verdicts, context.ceilings.without_topology)


def _note_degraded(verdicts, context):
    for v in verdicts:
        degraded = context.ceilings.degradation_for_row(v.row) if v.row.status == "OK" else []
        if degraded and v.item:
            v.note_after("its link is degraded: " + "; ".join(degraded))


def _note_confidences(verdicts, context):
    for v in verdicts:
        if v.verdict in ("PASS", "WARN", "FAIL"):
            _note_confidence(v)


def _name_culprits(verdicts, context):
    culprits.apply(verdicts, _culprit_verdict, load_switches(context.results.path.parent), context.again)


def _rehold_the_rest(verdicts, context):
    """The pairs no culprit explains, held to what they read without the culprits' pairs, and how
    sure that is against the new bound."""
    before = {id(v): v.bound for v in verdicts}
    siblings_without_culprits(verdicts, context)
    for v in verdicts:
        if v.by_siblings and v.bound != before[id(v)] and not v.uncertain:
            crossing = samples_across_bound(v)
            if crossing:
                v.uncertain = True
                v.note_after(crossing)


def _culprit_verdict(row, verdict, reason, worst):
    """A fabric culprit's verdict: the figure of its worst pair, held against the fleet."""
    return Verdict(row, verdict, reason, worst.metric, worst.value, worst.ceiling_GBps, worst.fraction,
                   worst.healthy_fraction, expected=worst.expected, bound=worst.bound)


def remeasurable(v):
    """A FAIL on its figure, or a verdict whose samples reach across its bound (uncertain), which
    `wirebench run` measures once more (wrong data always stands; the wiring's and NCCL log's findings
    are no measurement; a culprit's worst pair is)."""
    return ((v.verdict == "FAIL" or v.uncertain and v.verdict in ("PASS", "WARN")) and v.row.status == "OK"
            and not v.row.number("errors") and not v.measured_again and (v.record is None or v.record.kind == culprit.KIND)
            and not judging.by_prediction(v.row) and v.value is not None)


def _figure(v):
    unit = judging.unit_of(v.metric)
    text = f"{v.value:.4g} {unit}" if v.value is not None else "no figure"
    return text + (f" ({100 * v.fraction:.1f}% of the ceiling)" if v.fraction is not None else "")


def apply_remeasure(verdicts, again):
    """Each FAIL measured once more (the verdicts of RUN_DIR/remeasured, matched by what they
    measured): reproduced, it stands and says so; gone, it is a WARN "intermittent" with both
    figures. A FAIL the second pass has no figure for says it was not measured again."""
    by_key = {v.row.key: v for v in again if v.item and v.row.status == "OK"}
    # What the second pass measured at all: a culprit's step may not have run again (an adaptive
    # screen confirms its suspects in its own rounds) while another step's FAIL made a second pass.
    measured_again = {(v.row.text("case"), v.row.text("bytes")) for v in again if v.row.status == "OK"}
    for v in verdicts:
        if not remeasurable(v):
            continue
        second = by_key.get(v.row.key)
        if v.verdict != "FAIL":
            _second_look(v, second)
            continue
        is_culprit = v.record is not None and v.record.kind == culprit.KIND
        if second is None and is_culprit and (v.record.evidence.case, str(v.record.evidence.bytes)) not in measured_again:
            continue  # its step was not measured again: nothing says it is gone
        if second is None and is_culprit:
            v.verdict = "WARN"
            v.note_before(f"intermittent: {_figure(v)} (FAIL) the first time, and when measured again no pair points at "
                          "this culprit any more; look for what disturbed the first measurement; the first:", " ")
        elif second is None:
            v.note_before("not measured again (no second figure)")
        elif second.verdict == "FAIL":
            v.note_before(f"reproduced: measured again, {_figure(second)} (FAIL)")
        else:
            v.verdict = "WARN"
            v.note_before(f"intermittent: {_figure(v)} (FAIL) the first time, {_figure(second)} ({second.verdict}) when "
                          "measured again; look for what disturbed the first measurement; the first:", " ")


def _second_look(v, second):
    """An uncertain PASS or WARN (its samples across its bound) measured once more: a second look clear
    of its bound decides, with its figure; one across it again leaves the first verdict, said uncertain."""
    if second is None or second.verdict not in ("PASS", "WARN", "FAIL"):
        v.note_after("not measured again: the verdict is not certain")
        return
    if second.uncertain and second.verdict == v.verdict:
        v.note_after(f"measured again: {_figure(second)} ({second.verdict}), its samples across the threshold again: "
                     "the first verdict stands, not certain")
        return
    if second.uncertain:
        # Two looks, each across the threshold, on opposite sides of it: the figure moves across its bound
        # between looks. Neither decides; a WARN kept from the first would cry wolf on a busy healthy host.
        first = v.verdict
        v.verdict = "NOT JUDGED"
        v.uncertain = False
        v.note_before(f"not judged: two looks disagree, each with its samples across the threshold: {_figure(v)} "
                      f"({first}) the first time, {_figure(second)} ({second.verdict}) when measured again (measure it "
                      "alone on a quiet machine to decide); the first:", " ")
        return
    first = f"{_figure(v)} ({v.verdict}) with samples across its threshold"
    v.verdict, v.value, v.fraction, v.ceiling_GBps = second.verdict, second.value, second.fraction, second.ceiling_GBps
    v.healthy_fraction, v.metric = second.healthy_fraction, second.metric
    v.hold_against(second.expected, second.bound)
    v.reason = second.reason
    v.uncertain = False
    v.note_before(f"decided by a second look, {_figure(second)} ({second.verdict}), clear of its threshold; the first "
                  f"was {first}; the second:", " ")


def _nothing_to_judge_by(v, profile, verdicts, without_topology=False):
    f = v.row.fields
    siblings = len({(o.row.text("src"), o.row.text("dst")) for o in verdicts if o.item and sibling_key(o) == sibling_key(v)})
    article = "an" if f["link_class"][:1].lower() in "aeiou" else "a"  # an ib link, an eth link, a shm link
    what = f"{article} {f['link_class']} link" if f["link_class"] else "this measurement"
    rest = (f"{'no floor of profile ' + profile.name + ' matches it' if profile else 'no platform profile was given'}, "
            f"and {siblings} equivalent link{'s' if siblings != 1 else ''} measured it ({SIBLINGS_NEEDED} are needed "
            "to compare them)")
    if v.metric != "time_us" and judging.against(v.row, "ceiling") is None and judging.against(v.row, "siblings"):
        # declared so by the binary: the link does not bound this rate (a pageable or bidirectional host copy)
        return (f"not judged: held against the same measurement elsewhere only, not {what}'s ceiling (the link does "
                f"not bound this rate: judged {judging.against(v.row, 'siblings')}), {rest}")
    # Without topology.json nothing derived a ceiling from ceilings.csv: say what is missing.
    source = ("the run directory has no topology.json (wirebench run writes it; by hand: wirebench topo --json > "
              "RUN_DIR/topology.json)" if without_topology else "ceilings.csv and the topology give none")
    return f"not judged: no ceiling is known for {what} ({source}), {rest}"


def _note_confidence(v):
    """Says how sure a verdict is: few samples, or samples whose p05-p95 reach across the bound the
    verdict names (then it is `uncertain`: the runner measures it again, and the second look decides)."""
    row = v.row
    samples = row.samples
    if samples is not None and samples < MIN_SAMPLES:
        v.note_after(f"rests on {samples} sample{'s' if samples != 1 else ''} ({MIN_SAMPLES} wanted): not enough to be sure")
    crossing = samples_across_bound(v)
    if crossing:
        v.uncertain = True
        v.note_after(crossing)


def samples_across_bound(v):
    """Words saying that the item's samples (p05 to p95) reach across its bound, or "" where they do not
    (or the row keeps no percentiles)."""
    row = v.row
    median, p05, p95 = row.number("time_us"), row.number("time_us_p05"), row.number("time_us_p95")
    if not (median and p05 and p95) or v.value is None or v.bound is None:
        return ""
    unit = judging.unit_of(v.metric)
    if v.metric == "time_us":
        low, high = p05, p95
    else:  # a rate from the slow and the fast end of the times
        low, high = v.value * median / p95, v.value * median / p05
    if not low < v.bound <= high:
        return ""
    spread = row.text("spread_pct")
    return (f"its samples range over {low:.4g}-{high:.4g} {unit}"
            f"{' (spread ' + format(float(spread), '.3g') + '%)' if spread else ''}, across the threshold "
            f"{v.bound:.4g} {unit}: the verdict is not certain")


def topology_findings(ceilings):
    """A verdict for each thing the topology found wrong, measured or not: FAIL for a degradation,
    WARN for a port that is not up. One finding per node and text (a GPU with NVLinks down touches
    every pair it is in), naming the links it touches."""
    found = {}  # (host, kind, text) -> links
    for host, link in ceilings.flagged:
        for kind in ("degraded", "inactive"):
            for text in link.get(kind) or []:
                found.setdefault((host, kind, text), []).append(link)
    findings = []
    for (host, kind, text), links in found.items():
        first = links[0]
        reason = text
        if len(links) > 1:
            reason += f" (on {len(links)} links: " + ", ".join(f"{l['a']}-{l['b']}" for l in links) + ")"
        elif kind == "degraded" and first.get("reason"):
            reason += f" (ceiling as trained: {first['reason']})"
        if kind == "inactive":
            reason += "; unused, or a cable or switch problem: a port meant to carry traffic must be up"
        expected = "trained at what both ends allow" if kind == "degraded" else "up"
        record = wiring.make(kind, host, first.get("class", ""), first["a"], first["b"])
        findings.append(Verdict(wiring.shown_as(record), "FAIL" if kind == "degraded" else "WARN", reason,
                                expected=expected, record=record))
    return findings


def nccl_log_findings(ceilings):
    """A verdict for each diagnosis of the NCCL log beside the run (docs/nccl-diagnosis.md): FAIL
    or WARN as the catalogue says, where = the log's file and line, its fix as the look-closer."""
    log = ceilings.nccl_log
    findings = []
    for found in log.get("diagnoses") or []:
        if not isinstance(found, dict) or found.get("verdict") not in ("FAIL", "WARN"):
            continue
        source = f"{log.get('source', 'NCCL log')}:{found.get('line', 0)}"
        record = nccl_log.make(found.get("id", ""), nccl_log.Entry(source, found.get("fix", ""), found.get("source", "")))
        findings.append(Verdict(nccl_log.shown_as(record), found["verdict"],
                                f"{found.get('what', '')}: {found.get('why', '')}", expected="no misconfiguration "
                                "in NCCL's log (docs/nccl-diagnosis.md)", record=record))
    return findings


# The passes of judge(), in their order (judge()'s docstring says why this one).
PASSES = (_mark_incomplete, compare_siblings, compare_communicators, _profile_floors, _explain_not_judged,
          _note_degraded, _note_confidences, _name_culprits, _rehold_the_rest)
