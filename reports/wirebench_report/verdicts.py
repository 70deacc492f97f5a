"""Verdicts on judged items. The reporter judges items, not rows:
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
import statistics
from dataclasses import dataclass

from . import culprits
from .switches import load_switches
from .contention import port_shares
from .extra import row_identity, row_items
from .results import IDENTITY, Row
from .schema import ExitCode

ORDER = {"DATA": -1, "PASS": 0, "NOT JUDGED": 0, "SKIP": 0, "WARN": 1, "FAIL": 2, "ERROR": 3}
COUNTED = ("FAIL", "ERROR", "WARN", "PASS", "NOT JUDGED", "SKIP")
WARN_BAND = 0.05
ABOVE_CEILING = 1.05
LATENCY_WARN_FACTOR = 2.0
SMALL_MESSAGE_BYTES = 64
MIN_SAMPLES = 5
SIBLINGS_NEEDED = 3
NO_CEILING = "no ceiling"  # Verdict.not_judged_why of an item nothing has judged yet


@dataclass
class Verdict:
    row: object
    verdict: str
    reason: str
    metric: str = ""         # busbw_GBps, algbw_GBps, time_us
    value: float = None
    ceiling_GBps: float = None
    fraction: float = None   # of the ceiling
    healthy_fraction: float = None  # the fraction below which the ceiling verdict is FAIL
    floor_GBps: float = None        # a platform profile's floor that judged the row (of floor_metric)
    floor_metric: str = ""
    expected: str = ""       # what the figure was held against, as "measured vs expected" says it
    finding: str = ""        # a fact about the wiring worth showing that is no verdict (a step's exposed share)
    culprit: str = ""        # a fabric culprit's "node:node3", "path:node2-node5" or "rail:rail1" (culprits.py)
    explained_by: str = ""   # a pair that a culprit explains (then DATA): "node node3"
    # Typed notes the later passes read, so that none reads the prose back:
    not_judged_why: str = ""  # NO_CEILING where nothing judged it yet (the reason is written at the end)
    latency_limit_us: float = None  # the typical-latency bound a latency is held against, while it is

    def hold_against(self, expected):
        """The figure is now held against `expected` (prose for the reader); a typical-latency bound
        no longer applies."""
        self.expected, self.latency_limit_us = expected, None

    @property
    def item(self):
        """True for a judged item (counted, in JUnit); False for a sweep point (DATA)."""
        return self.verdict != "DATA"


def metric_of(row):
    """The number a row is judged by: busbw for collectives, algbw for other transfers, the time
    for latencies; and whether higher is better."""
    if row.text("bench") == "coll" and row.number("busbw_GBps") is not None:
        return "busbw_GBps", row.number("busbw_GBps"), True
    if row.number("algbw_GBps") is not None:
        return "algbw_GBps", row.number("algbw_GBps"), True
    return "time_us", row.number("time_us"), False


def _sweep_key(row):
    f = row.fields
    return _sweep_key_of(f)[:8] + (row_identity(f.get("extra", "")),)


def _sweep_key_of(fields):
    return (fields["bench"], fields["case"], fields["backend"], fields["op"], fields["dtype"], fields["src"],
            fields["dst"], fields.get("direction", ""), "")


@dataclass
class Judging:
    """What the passes of judge() share: the run, its ceilings and profile, each sweep's extent."""
    results: object
    ceilings: object
    profile: object
    largest: dict    # sweep key -> its largest measured size
    smallest: dict
    incomplete: dict  # sweep key -> why its largest size is not its last


def judge(results, ceilings, profile=None):
    """Every row's first verdict (_judge_row), then the passes of PASSES in their order, then the
    topology's findings. The order matters and is written only here: a sweep cut short is not judged
    before siblings compare; siblings and communicators judge what no ceiling did before a
    profile's floor may override; the reasons for NOT JUDGED are written once nothing else can
    judge; confidence is noted on the final verdicts; culprits come last, over the pairs' verdicts.
    A FAIL's second measurement is applied after (apply_remeasure), by the caller."""
    rows = results.rows
    largest, smallest = {}, {}
    for row in rows:
        if row.status == "OK":
            key, size = _sweep_key(row), int(row.text("bytes") or 0)
            largest[key] = max(largest.get(key, 0), size)
            smallest[key] = min(smallest.get(key, size), size)
    context = Judging(results, ceilings, profile, largest, smallest, _incomplete_sweeps(results, largest))
    shares = port_shares(rows, ceilings)
    verdicts = [_judge_row(row, ceilings, largest, smallest, shares.get(row.line, (1, ""))) for row in rows]
    for step in PASSES:
        step(verdicts, context)
    return verdicts + topology_findings(ceilings)


def _mark_incomplete(verdicts, context):
    """A sweep that did not finish has no largest size to judge by."""
    for v in verdicts:
        why = context.incomplete.get(_sweep_key(v.row)) if v.row.status == "OK" else None
        wrong_data = bool(v.row.number("errors"))  # a data error stands whatever the sweep's state
        if why and int(v.row.text("bytes") or 0) == context.largest[_sweep_key(v.row)] and not wrong_data \
                and v.verdict != "ERROR" and v.metric != "time_us":
            v.verdict, v.reason = "NOT JUDGED", f"not judged: the sweep is incomplete ({why})"
            v.not_judged_why = "incomplete"
            v.fraction = v.ceiling_GBps = None


def _profile_floors(verdicts, context):
    if context.profile:
        _apply_profile(verdicts, context.profile, context.largest)


def _explain_not_judged(verdicts, context):
    for v in verdicts:
        if v.verdict == "NOT JUDGED" and v.not_judged_why == NO_CEILING:
            v.reason = _nothing_to_judge_by(v, context.profile, verdicts)


def _note_degraded(verdicts, context):
    for v in verdicts:
        degraded = context.ceilings.degradation_for_row(v.row) if v.row.status == "OK" else []
        if degraded and v.item:
            v.reason += "; its link is degraded: " + "; ".join(degraded)


def _note_confidences(verdicts, context):
    for v in verdicts:
        if v.verdict in ("PASS", "WARN", "FAIL"):
            _note_confidence(v)


def _name_culprits(verdicts, context):
    culprits.apply(verdicts, _culprit_verdict, load_switches(context.results.path.parent))


def _culprit_verdict(row, verdict, reason, worst):
    """A fabric culprit's verdict: the figure of its worst pair, held against the fleet."""
    return Verdict(row, verdict, reason, worst.metric, worst.value, worst.ceiling_GBps, worst.fraction,
                   worst.healthy_fraction, expected=worst.expected)


def items(verdicts):
    return [v for v in verdicts if v.item]


def remeasurable(v):
    """A FAIL on its figure, which `wirebench run` measures once more (wrong data always stands,
    and the topology's findings are no measurement)."""
    return (v.verdict == "FAIL" and v.row.status == "OK" and not v.row.number("errors")
            and v.row.text("bench") not in ("topology", "step") and v.value is not None)


def _figure(v):
    unit = "us" if v.metric == "time_us" else "GB/s"
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
        if second is None and v.culprit and (v.row.text("case").partition(":")[2], v.row.text("bytes")) not in measured_again:
            continue  # its step was not measured again: nothing says it is gone
        if second is None and v.culprit:
            v.verdict = "WARN"
            v.reason = (f"intermittent: {_figure(v)} (FAIL) the first time, and when measured again no pair points at this "
                        "culprit any more; look for what disturbed the first measurement; the first: " + v.reason)
        elif second is None:
            v.reason = "not measured again (no second figure); " + v.reason
        elif second.verdict == "FAIL":
            v.reason = f"reproduced: measured again, {_figure(second)} (FAIL); " + v.reason
        else:
            v.verdict = "WARN"
            v.reason = (f"intermittent: {_figure(v)} (FAIL) the first time, {_figure(second)} ({second.verdict}) when "
                        f"measured again; look for what disturbed the first measurement; the first: " + v.reason)


def _nothing_to_judge_by(v, profile, verdicts):
    f = v.row.fields
    siblings = len({(o.row.text("src"), o.row.text("dst")) for o in verdicts if o.item and _sibling_key(o) == _sibling_key(v)})
    what = f"a {f['link_class']} link" if f["link_class"] else "this measurement"
    return (f"not judged: no ceiling is known for {what} (ceilings.csv and the topology give none), "
            f"{'no floor of profile ' + profile.name + ' matches it' if profile else 'no platform profile was given'}, "
            f"and {siblings} equivalent link{'s' if siblings != 1 else ''} measured it ({SIBLINGS_NEEDED} are needed "
            "to compare them)")


def _note_confidence(v):
    """Says how sure a verdict is: few samples, or a spread that reaches across its threshold."""
    row = v.row
    samples = row.samples
    if samples is not None and samples < MIN_SAMPLES:
        v.reason += f"; rests on {samples} sample{'s' if samples != 1 else ''} ({MIN_SAMPLES} wanted): not enough to be sure"
    median, p05, p95 = row.number("time_us"), row.number("time_us_p05"), row.number("time_us_p95")
    if not (median and p05 and p95) or v.value is None:
        return
    threshold = None
    if v.fraction is not None and v.ceiling_GBps and v.healthy_fraction:
        threshold, unit = v.ceiling_GBps * v.healthy_fraction, "GB/s"
        low, high = v.value * median / p95, v.value * median / p05  # bandwidth from the slow and fast ends
    elif v.metric == "time_us" and v.latency_limit_us is not None:
        threshold, unit = v.latency_limit_us, "us"
        low, high = p05, p95
    if threshold is not None and low < threshold <= high:
        spread = row.text("spread_pct")
        v.reason += (f"; its samples range over {low:.4g}-{high:.4g} {unit}"
                     f"{' (spread ' + format(float(spread), '.3g') + '%)' if spread else ''}, across the threshold "
                     f"{threshold:.4g} {unit}: the verdict is not certain")


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
        fields = {"bench": "topology", "case": kind, "backend": "", "link_class": first.get("class", ""),
                  "src": f"{host}/{first['a']}", "dst": f"{host}/{first['b']}", "direction": "", "op": "",
                  "dtype": "", "bytes": "0", "extra": "", "status": "OK"}
        reason = text
        if len(links) > 1:
            reason += f" (on {len(links)} links: " + ", ".join(f"{l['a']}-{l['b']}" for l in links) + ")"
        elif kind == "degraded" and first.get("reason"):
            reason += f" (ceiling as trained: {first['reason']})"
        if kind == "inactive":
            reason += "; unused, or a cable or switch problem: a port meant to carry traffic must be up"
        expected = "trained at what both ends allow" if kind == "degraded" else "up"
        findings.append(Verdict(Row(0, fields, "topology.json"), "FAIL" if kind == "degraded" else "WARN", reason,
                                expected=expected))
    return findings


def _apply_profile(verdicts, profile, largest):
    """Each floor judges the items it matches (the largest size of each sweep, or every size from its
    min_bytes on, which makes those sizes items): FAIL below the floor, WARN within the profile's band
    above it."""
    for floor in profile.floors:
        floor.judged = []
        for v in verdicts:
            row = v.row
            if row.status != "OK" or row.number("errors") or not floor.matches(row):
                continue
            size = int(row.text("bytes") or 0)
            if size < (largest.get(_sweep_key(row), 0) if floor.min_bytes is None else floor.min_bytes):
                continue
            value = row.number(floor.metric)
            if value is None:
                continue
            if value < floor.floor:
                level = "FAIL"
            elif value < floor.floor * (1 + profile.warn_band):
                level = "WARN"
            else:
                level = "PASS"
            note = (f"profile {profile.name}: {floor.metric.split('_')[0]} {value:.4g} GB/s against the floor "
                    f"{floor.floor:.4g} GB/s of '{floor.name}' (source: {floor.source})")
            if level == "FAIL":
                note += "; below the floor"
                below = _communicators_below(row, floor.metric, floor.floor)
                if below:
                    note += " on " + ", ".join(f"{label} ({value_:.4g} GB/s)" for label, value_ in below)
            elif level == "WARN":
                note += f"; within {100 * profile.warn_band:.0f}% above the floor"
            floor.judged.append((v, level, value))
            v.floor_GBps, v.floor_metric = floor.floor, floor.metric
            if v.verdict in ("DATA", "NOT JUDGED"):  # nothing else judged it: the floor's verdict is the only one
                v.verdict, v.reason, v.metric, v.value = level, note, floor.metric, value
                v.hold_against(f">= {floor.floor:.4g} GB/s (floor '{floor.name}' of profile {profile.name})")
            elif ORDER[level] > ORDER[v.verdict]:
                v.verdict, v.reason = level, note + "; " + v.reason
                v.hold_against(f">= {floor.floor:.4g} GB/s (floor '{floor.name}' of profile {profile.name})")
            else:
                v.reason += "; " + note


def floor_outcomes(profile):
    """Per floor: rows judged, the worst value and verdict ("not measured" when nothing matched)."""
    out = []
    for floor in profile.floors:
        if not floor.judged:
            out.append({"floor": floor, "rows": 0, "worst": None, "verdict": "not measured"})
            continue
        worst = min(floor.judged, key=lambda item: item[2])
        verdict = max((level for _, level, _ in floor.judged), key=lambda level: ORDER[level])
        out.append({"floor": floor, "rows": len(floor.judged), "worst": worst[2], "verdict": verdict})
    return out


# Step emulation (wb-step): a step is judged by whether the cost model explains it (beyond
# PREDICTION_TOLERANCE the measured step is not what the links' measured alpha-beta predict:
# contention, a slow rank, a bad route). Above EXPOSED_FINDING_PCT exposed communication the wiring
# costs the job (the mission's "up to 40% of a step"): a finding shown beside the other wirings.
EXPOSED_FINDING_PCT = 40.0
PREDICTION_TOLERANCE = 0.20


def _judge_step(row):
    step = row.number("time_us")
    if step is None:
        return Verdict(row, "ERROR", "no measured step time in the row", "time_us")
    extra = row_items(row)
    try:
        compute = float(extra["compute_us"])
        exposed = float(extra["exposed_us"])
        predicted = float(extra["predicted_us"])
    except (KeyError, ValueError):
        return Verdict(row, "ERROR", "a step row without compute_us, exposed_us and predicted_us in extra",
                       "time_us", step)
    exposed_pct = 100 * exposed / step if step > 0 else 0
    error = (predicted - step) / step if step > 0 else 0
    reason = (f"step {step / 1e3:.4g} ms: compute {compute / 1e3:.4g} ms, exposed communication "
              f"{exposed / 1e3:.4g} ms ({exposed_pct:.0f}%); the cost model predicts {predicted / 1e3:.4g} ms "
              f"({100 * error:+.0f}%)")
    expected = f"{predicted / 1e3:.4g} ms +-{100 * PREDICTION_TOLERANCE:.0f}% (the cost model's prediction)"
    finding = ""
    if exposed_pct > EXPOSED_FINDING_PCT:
        finding = (f"{row.text('case')} of {row.text('src')} on {row.text('dst') or 'this wiring'} waits "
                   f"{exposed_pct:.0f}% of its step on communication")
    if abs(error) > PREDICTION_TOLERANCE:
        return Verdict(row, "WARN", reason + f"; the prediction misses by more than {100 * PREDICTION_TOLERANCE:.0f}%: "
                       "contention, a slow rank or a route the model does not know", "time_us", step,
                       expected=expected, finding=finding)
    return Verdict(row, "PASS", reason + "; held against the cost model's prediction", "time_us", step,
                   expected=expected, finding=finding)


def _judge_latency(row, typical):
    """A ping-pong's small-message half round trip against its link class's typical latency."""
    value = row.number("time_us")
    factor = value / typical.latency_us
    limit = LATENCY_WARN_FACTOR * typical.latency_us
    reason = (f"latency {value:.4g} us (half round trip, {row.text('bytes')} B) is {factor:.2f}x the typical "
              f"{typical.latency_us:.4g} us of {row.text('link_class')} links (source: {typical.source})")
    expected = f"<= {limit:.4g} us ({LATENCY_WARN_FACTOR:g}x the typical {typical.latency_us:.4g} us)"
    if factor > LATENCY_WARN_FACTOR:
        return Verdict(row, "WARN", reason + f"; more than {LATENCY_WARN_FACTOR:g}x", "time_us", value, expected=expected,
                       latency_limit_us=limit)
    return Verdict(row, "PASS", reason, "time_us", value, expected=expected, latency_limit_us=limit)


def _is_small_message_latency(row, smallest):
    size = int(row.text("bytes") or 0)
    return (row.text("bench") == "net" and row.text("case") == "pingpong" and size <= SMALL_MESSAGE_BYTES
            and size == smallest.get(_sweep_key(row)))


def _equivalence(row):
    """What equivalent measurements between other endpoints share (as siblings are compared): not
    the endpoints, nor the round or matching of a schedule that placed them."""
    f = row.fields
    return (f["bench"], f["case"], f["backend"], f["op"], f["dtype"], f["direction"], f["link_class"])


def _incomplete_sweeps(results, largest):
    """Sweeps whose largest size never finished, each with why: a larger size of the same sweep
    that is an ERROR row (interrupted), or the row results.csv was cut in (matched by its first
    fields; when too little of it survives, the sweep of the row before it)."""
    incomplete = {}
    by_identity = {}
    for key in largest:
        by_identity.setdefault(key[:8], []).append(key)
    for row in results.rows:
        if row.status == "ERROR" and row.text("bench") != "step":
            size = int(row.text("bytes") or 0)
            for key in by_identity.get(_sweep_key(row)[:8], []):
                if size > largest[key]:
                    incomplete[key] = f"its {size} B point, {row.where}, is an ERROR"
    # A step that ended early (its ERROR row, the runner's at a step timeout or the binary's own) cuts
    # the sweep it was in: the last one of its bench written before the ERROR, when equivalent sweeps
    # (the same measurement between other endpoints) reached a larger size. Its largest point so far
    # is no bandwidth item: an 8 B stream judged against the link's ceiling is a false FAIL.
    for error in (r for r in results.rows if r.status == "ERROR"):
        before = [r for r in results.rows if r.status == "OK" and r.line < error.line
                  and r.text("bench") == error.text("bench")]
        if not before:
            continue
        key, kind = _sweep_key(before[-1]), _equivalence(before[-1])
        reached = max(int(r.text("bytes") or 0) for r in before if _equivalence(r) == kind)
        if largest.get(key, 0) < reached:
            incomplete.setdefault(key, f"its step ended, {error.where} is an ERROR, before its {reached} B point, "
                                       "which the same measurement between other endpoints reached")
    cut = results.cut_row
    if cut is not None:
        # The sweeps the cut row may belong to: those whose rows agree with every field of it that
        # survived whole (when none did, the sweep of the row before it).
        named = {c: v for c, v in cut.fields.items() if c in IDENTITY and c != "bytes"}
        size = int(cut.fields["bytes"]) if cut.fields.get("bytes", "").isdigit() else None
        ok = [r for r in results.rows if r.status == "OK" and r.line < cut.line]
        if named:
            keys = {_sweep_key(r) for r in ok if all(r.text(c) == v for c, v in named.items())}
        else:
            keys = {_sweep_key(ok[-1])} if ok else set()
        for key in (k for k in keys if size is None or size > largest.get(k, 0)):
            incomplete[key] = f"results.csv line {cut.line}, its next point, was cut short"
    return incomplete


def _judge_row(row, ceilings, largest, smallest, share=(1, "")):
    if row.status in ("SKIP", "ERROR"):
        return Verdict(row, row.status, row.text("reason") or f"the benchmark reported {row.status}")
    if row.text("bench") == "step":
        return _judge_step(row)
    metric, value, is_bandwidth = metric_of(row)
    errors = row.number("errors")
    if errors:
        return Verdict(row, "FAIL", f"{int(errors)} wrong elements in the data check", metric, value,
                       expected="0 wrong elements")
    if value is None:
        return Verdict(row, "ERROR", "no measured value in the row", metric)
    size = int(row.text("bytes") or 0)
    if _is_small_message_latency(row, smallest):
        typical = ceilings.typical_latency(row)
        if typical:
            return _judge_latency(row, typical)
        return Verdict(row, "NOT JUDGED", NO_CEILING, "time_us", row.number("time_us"), not_judged_why=NO_CEILING)
    if not is_bandwidth:  # a latency-only measurement: its smallest size is the item
        if size != smallest.get(_sweep_key(row)):
            return Verdict(row, "DATA", "a point of the sweep (its smallest size is judged)", metric, value)
        return Verdict(row, "NOT JUDGED", NO_CEILING, metric, value, not_judged_why=NO_CEILING)
    if size < largest.get(_sweep_key(row), 0):
        return Verdict(row, "DATA", "a point of the sweep (its largest size is judged)", metric, value)
    ceiling, pairs = ceilings.for_row(row), 1
    items_ = row_items(row)
    if ceiling is None:  # an NCCL collective: what NCCL's algorithm reaches on the node's wiring
        ceiling = ceilings.for_collective(row, items_)
    if row.text("src") == row.text("dst") == "all" and items_.get("at_once"):
        # An aggregate (a bisection matching, an all-to-all): every pair or rank at its link's ceiling at once.
        ceiling, pairs = ceilings.for_link_class(row.text("link_class")), int(items_["at_once"])
        if ceiling is None:
            return Verdict(row, "NOT JUDGED", f"not judged: the aggregate of {pairs} at once is held against {pairs} x "
                           "its link class's ceiling, which the suite does not state", metric, value)
    elif items_.get("pairs") == "alltoall":
        # A pair's share of an all-to-all follows the others' (one that arrives late leaves room for
        # the rest): no ceiling holds it; the aggregate is judged, and the pairs name a culprit.
        return Verdict(row, "DATA", "a pair of an all-to-all: compared with the other pairs (culprits), not with a "
                       "ceiling; its aggregate is judged", metric, value)
    if ceiling is None:
        return Verdict(row, "NOT JUDGED", NO_CEILING, metric, value, not_judged_why=NO_CEILING)
    limit = ceiling.GBps * (2 if row.text("direction") == "bidir" else 1) * pairs / share[0]
    fraction = value / limit
    healthy = ceiling.healthy_fraction
    source = ceiling.source or "topology"
    reason = ceiling.reason
    if pairs > 1:
        reason = f"{pairs} {'ranks' if items_.get('pairs') == 'alltoall' else 'pairs'} at once, each {ceiling.reason}"
    if share[0] > 1:
        reason = f"its share, 1/{share[0]:g}: {share[1]}; {ceiling.reason}"
    described = (f"{value:.4g} GB/s is {100 * fraction:.1f}% of the {limit:.4g} GB/s ceiling ({reason}; "
                 f"source: {source}); healthy from {100 * healthy:.0f}%")
    expected = f">= {healthy * limit:.4g} GB/s ({100 * healthy:.0f}% of the {limit:.4g} GB/s ceiling)"
    if fraction > ABOVE_CEILING:
        verdict = "WARN"
        described += (f"; above {100 * ABOVE_CEILING:.0f}% of the ceiling: the ceiling ({source}), the topology or "
                      "the timer is wrong")
        expected = f"<= {limit:.4g} GB/s (the ceiling: {source})"
    elif fraction < healthy:
        verdict = "FAIL"
    elif fraction < healthy * (1 + WARN_BAND):
        verdict = "WARN"
    else:
        verdict = "PASS"
    return Verdict(row, verdict, described, metric, value, limit, fraction, healthy, expected=expected)


def _sibling_key(v):
    f = v.row.fields
    return (f["bench"], f["case"], f["backend"], f["op"], f["dtype"], f["bytes"], f["direction"], f["link_class"],
            v.ceiling_GBps)


def _compare_siblings(verdicts, context=None, minimum=SIBLINGS_NEEDED):
    groups = {}
    for v in verdicts:
        if v.verdict not in ("PASS", "WARN", "FAIL", "NOT JUDGED") or v.value is None or v.row.number("errors"):
            continue
        if v.row.text("bench") == "step":  # strategies and wirings differ on purpose
            continue
        groups.setdefault(_sibling_key(v), []).append(v)
    for members in groups.values():
        links = {(m.row.text("src"), m.row.text("dst")) for m in members}
        if len(links) < minimum:
            continue
        values = [m.value for m in members]
        median = statistics.median(values)
        mad = 1.4826 * statistics.median(abs(x - median) for x in values)
        for m in members:
            higher_is_better = m.metric != "time_us"
            worse = (median - m.value) if higher_is_better else (m.value - median)
            relative = worse / median if median > 0 else 0
            level = "PASS"
            if worse > 3 * mad and relative > 0.20:
                level = "FAIL"
            elif worse > 2 * mad and relative > 0.10:
                level = "WARN"
            noisy = level != "PASS" and _reaches(m, median)
            if level == "FAIL" and (m.fraction is not None or not higher_is_better or noisy):
                # The ceiling has judged this link already, it is a latency (a typical figure is no
                # ceiling), or its own fastest samples reach the median: among siblings only a WARN.
                level = "WARN"
            unit = "us" if m.metric == "time_us" else "GB/s"
            expected = (f"{'>=' if higher_is_better else '<='} {median * (0.8 if higher_is_better else 1.2):.4g} {unit} "
                        f"(within 20% of the median {median:.4g} {unit} of {len(members)} equivalent links)")
            if m.verdict == "NOT JUDGED":  # the siblings are all it is held against
                note = (f"held against {len(members)} equivalent links: "
                        + (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} their median {median:.4g} {unit}"
                           if relative > 0 else f"at or better than their median {median:.4g} {unit}"))
                if noisy:
                    note += ("; its own fastest samples reach that median: a noisy measurement, or a link that is "
                             "slow at times")
                m.verdict, m.reason, m.not_judged_why = level, note, ""
                m.hold_against(expected)
                continue
            if level == "PASS":
                continue
            note = (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} the median {median:.4g} of "
                    f"{len(members)} equivalent links")
            if noisy:
                note += "; its own fastest samples reach that median: a noisy measurement, or a link that is slow at times"
            if ORDER[level] > ORDER[m.verdict]:
                m.verdict, m.reason = level, note + "; " + m.reason
                m.hold_against(expected)
            else:
                m.reason += "; " + note


def _reaches(v, median):
    """Whether the better end of the item's samples (p05 of its time) reaches the median of its
    siblings: then the difference may be the item's own noise."""
    time, fast = v.row.number("time_us"), v.row.number("time_us_p05")
    if not time or not fast:
        return False
    best = v.value * time / fast if v.metric != "time_us" else fast
    return best >= median if v.metric != "time_us" else best <= median


def _communicator_times(row):
    """{communicator: us per call} from a split collective's per_comm_us, or {}."""
    entries = row_items(row).get("per_comm_us")
    if not entries:
        return {}
    try:
        return {label: float(us) for label, _, us in (e.rpartition(":") for e in entries.split("|"))}
    except ValueError:
        return {}


def _communicators_below(row, metric, floor):
    """The communicators whose own rate (the row's, scaled by its time over theirs) is below the floor."""
    times, value, time_us = _communicator_times(row), row.number(metric), row.number("time_us")
    if not times or not value or not time_us:
        return []
    rates = {label: value * time_us / us for label, us in times.items() if us > 0}
    return sorted(((label, rate) for label, rate in rates.items() if rate < floor), key=lambda item: item[1])


def _compare_communicators(verdicts, context=None, minimum=3):
    for v in verdicts:
        if v.verdict not in ("PASS", "WARN", "FAIL", "NOT JUDGED"):
            continue
        times = _communicator_times(v.row)
        if len(times) < minimum:
            continue
        median = statistics.median(times.values())
        mad = 1.4826 * statistics.median(abs(t - median) for t in times.values())
        slow = [(label, t) for label, t in times.items() if t > 1.2 * median and t - median > 3 * mad]
        if v.verdict == "NOT JUDGED":  # its communicators are what it is held against
            v.verdict, v.not_judged_why = "PASS" if not slow else "WARN", ""
            v.reason = f"held against its {len(times)} communicators (median {median:.4g} us per call)"
            v.hold_against(f"every communicator within 20% of the median {median:.4g} us per call")
            if not slow:
                continue
        for label, t in sorted(slow, key=lambda item: -item[1]):
            note = (f"communicator {label}: {t:.4g} us per call, {100 * (t / median - 1):.0f}% above the median "
                    f"{median:.4g} us of {len(times)} communicators")
            if v.verdict == "PASS":
                v.verdict, v.reason = "WARN", note + "; " + v.reason
            else:
                v.reason += "; " + note


def counts(verdicts, problems=()):
    """Judged items per verdict (sweep points are not counted); an input problem is an ERROR."""
    total = {name: 0 for name in COUNTED}
    for v in verdicts:
        if v.item:
            total[v.verdict] += 1
    total["ERROR"] += len(problems)
    return total


def exit_code(verdicts, problems=()):
    """0 all PASS/WARN/SKIP/NOT JUDGED, 1 any FAIL, 2 any ERROR (an incomplete run outranks a slow one)."""
    c = counts(verdicts, problems)
    if c["ERROR"]:
        return ExitCode.INFRASTRUCTURE
    if c["FAIL"]:
        return ExitCode.FAILED
    return ExitCode.OK


def _without_rank(reason):
    """A SKIP reason as every rank would say it ("rank 0: no CUDA device" -> "no CUDA device")."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and head.startswith("rank ") and head[5:].isdigit() else reason


def grouped(verdicts, verdict):
    """[(reason, count, {bench: count})] of the items with `verdict`, one per distinct reason,
    most frequent first."""
    groups = {}
    for v in verdicts:
        if v.item and v.verdict == verdict:
            # a SKIP or ERROR in the benchmark's own words, as every rank would say it; other
            # verdicts by their sentence, so that identical ones are listed once
            reason = _without_rank(v.row.text("reason")) if v.verdict in ("SKIP", "ERROR") and v.row.text("reason") else v.reason
            count, benches = groups.get(reason, (0, {}))
            benches[v.row.text("bench")] = benches.get(v.row.text("bench"), 0) + 1
            groups[reason] = (count + 1, benches)
    return sorted(((reason, count, benches) for reason, (count, benches) in groups.items()), key=lambda g: -g[1])


# The passes of judge(), in their order (judge()'s docstring says why this one).
PASSES = (_mark_incomplete, _compare_siblings, _compare_communicators, _profile_floors, _explain_not_judged,
          _note_degraded, _note_confidences, _name_culprits)
