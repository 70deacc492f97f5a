"""Verdicts. Every row gets PASS, WARN, FAIL, SKIP or ERROR with a reason:
  - SKIP and ERROR rows keep the binary's own status and reason;
  - wrong data is a FAIL, whatever the speed;
  - the largest size of each sweep is compared with its link's ceiling: FAIL below the healthy
    fraction, WARN within 5% above it, PASS above (every reason names the ceiling, the fraction
    reached and where the ceiling came from); smaller sizes are SKIP (not judged: latency-bound);
  - the smallest size of a ping-pong sweep, up to 64 bytes, is a latency: compared with its link
    class's typical latency (ceilings.csv), WARN above twice it, never FAIL (a typical figure is no
    ceiling; the same link's bandwidth rows judge its health);
  - equivalent rows (same measurement, same link class and ceiling, different links) are compared
    with each other (median absolute deviation rule): more than 3 MAD and 20% worse than the
    median is a FAIL where no ceiling is known, a WARN where the ceiling has judged the link;
    more than 2 MAD and 10% worse is a WARN;
  - a collective over several communicators (wb-coll --split) whose row names each one's time
    (per_comm_us) WARNs when one of three or more is more than 20% and 3 MAD slower than their
    median, naming it (the row's own time is already the slowest's);
  - with a platform profile (profiles.py), rows its floors match are judged against them too, and
    the worse verdict stands;
  - every degradation the topology found (PCIe trained below what both ends allow, NVLinks down,
    an IB port narrower than 4X) is a FAIL of its own (bench `topology`, from topology.json, once
    however many links it touches), a port that is not up a WARN (unused, or cut: only the
    operator knows); the rows that measured a degraded link say so in their reason.
"""
import statistics
from dataclasses import dataclass

from .results import IDENTITY, Row

ORDER = {"PASS": 0, "SKIP": 0, "WARN": 1, "FAIL": 2, "ERROR": 3}
WARN_BAND = 0.05
LATENCY_WARN_FACTOR = 2.0
SMALL_MESSAGE_BYTES = 64


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


def metric_of(row):
    """The number a row is judged by: busbw for collectives, algbw for other transfers, the time
    for latencies; and whether higher is better."""
    if row.text("bench") == "coll" and row.number("busbw_GBps") is not None:
        return "busbw_GBps", row.number("busbw_GBps"), True
    if row.number("algbw_GBps") is not None:
        return "algbw_GBps", row.number("algbw_GBps"), True
    return "time_us", row.number("time_us"), False


# `extra` items that follow the message size (batching) or the repetition, not what was measured.
SIZE_DEPENDENT = {"iters", "copies", "window", "rounds", "repetition", "hops"}
# `extra` items that are results (wb-step's split of a step and the cost model's prediction): they
# differ from run to run of the same measurement.
RESULTS = {"compute_us", "exposed_us", "exposed_pct", "comm_us", "predicted_us", "predicted_compute_us",
           "predicted_comm_us", "predicted_exposed_us", "per_comm_us"}


def stable_extra(extra):
    """What in `extra` identifies a measurement (so runs can be matched)."""
    results = RESULTS | ({"tflops"} if "tflops_measured=1" in extra.split(";") else set())  # measured, not chosen
    items = [item for item in extra.split(";") if item and item.split("=")[0] not in SIZE_DEPENDENT | results]
    return ";".join(items)


def _sweep_key(row):
    f = row.fields
    return _sweep_key_of(f)[:8] + (stable_extra(f.get("extra", "")),)


def judge(results, ceilings, profile=None):
    rows = results.rows
    largest, smallest = {}, {}
    for row in rows:
        if row.status == "OK":
            key, size = _sweep_key(row), int(row.text("bytes") or 0)
            largest[key] = max(largest.get(key, 0), size)
            smallest[key] = min(smallest.get(key, size), size)
    incomplete = _incomplete_sweeps(results, largest)
    verdicts = [_judge_row(row, ceilings, largest, smallest) for row in rows]
    for v in verdicts:  # a sweep that did not finish has no largest size to judge by
        why = incomplete.get(_sweep_key(v.row)) if v.row.status == "OK" else None
        wrong_data = bool(v.row.number("errors"))  # a data error stands whatever the sweep's state
        if why and int(v.row.text("bytes") or 0) == largest[_sweep_key(v.row)] and not wrong_data \
                and v.verdict != "ERROR" and v.metric != "time_us":
            v.verdict, v.reason = "SKIP", f"not judged against the ceiling: the sweep is incomplete ({why})"
    _compare_siblings(verdicts, ceilings)
    _compare_communicators(verdicts)
    if profile:
        _apply_profile(verdicts, profile, largest)
    for v in verdicts:
        degraded = ceilings.degradation_for_row(v.row) if v.row.status == "OK" else []
        if degraded:
            v.reason += "; its link is degraded: " + "; ".join(degraded)
    return verdicts + topology_findings(ceilings)


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
        findings.append(Verdict(Row(0, fields, "topology.json"), "FAIL" if kind == "degraded" else "WARN", reason))
    return findings


def _apply_profile(verdicts, profile, largest):
    """Each floor judges the rows it matches (the largest size of each sweep, or every size from its
    min_bytes on): FAIL below the floor, WARN within the profile's band above it."""
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
            if v.verdict == "SKIP":  # a size the ceiling rule leaves alone: the floor's verdict is the only one
                v.verdict, v.reason, v.metric, v.value = level, note, floor.metric, value
            elif ORDER[level] > ORDER[v.verdict]:
                v.verdict, v.reason = level, note + "; " + v.reason
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


# Step emulation (wb-step): a step is judged by how much of it waits on communication and by
# whether the cost model explains it. Above EXPOSED_WARN_PCT exposed communication the wiring is
# costing the job (the mission's "up to 40% of a step"); beyond PREDICTION_TOLERANCE the measured
# step is not what the links' measured alpha-beta predict (contention, a slow rank, a bad route).
EXPOSED_WARN_PCT = 40.0
PREDICTION_TOLERANCE = 0.20


def extra_items(row):
    return dict(item.split("=", 1) for item in row.text("extra").split(";") if "=" in item)


def _judge_step(row):
    step = row.number("time_us")
    if step is None:
        return Verdict(row, "ERROR", "no measured step time in the row", "time_us")
    extra = extra_items(row)
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
    problems = []
    if exposed_pct > EXPOSED_WARN_PCT:
        problems.append(f"more than {EXPOSED_WARN_PCT:.0f}% of the step waits on communication")
    if abs(error) > PREDICTION_TOLERANCE:
        problems.append(f"the prediction misses by more than {100 * PREDICTION_TOLERANCE:.0f}%")
    verdict = "WARN" if problems else "PASS"
    return Verdict(row, verdict, reason + ("; " + "; ".join(problems) if problems else ""), "time_us", step)


def _judge_latency(row, typical):
    """A ping-pong's small-message half round trip against its link class's typical latency."""
    value = row.number("time_us")
    if value is None:
        return Verdict(row, "ERROR", "no measured time in the row", "time_us")
    factor = value / typical.latency_us
    reason = (f"latency {value:.4g} us (half round trip, {row.text('bytes')} B) is {factor:.2f}x the typical "
              f"{typical.latency_us:.4g} us of {row.text('link_class')} links (source: {typical.source})")
    if factor > LATENCY_WARN_FACTOR:
        return Verdict(row, "WARN", reason + f"; more than {LATENCY_WARN_FACTOR:g}x", "time_us", value)
    return Verdict(row, "PASS", reason, "time_us", value)


def _is_small_message_latency(row, smallest):
    size = int(row.text("bytes") or 0)
    return (row.text("bench") == "net" and row.text("case") == "pingpong" and size <= SMALL_MESSAGE_BYTES
            and size == smallest.get(_sweep_key(row)))


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


def _sweep_key_of(fields):
    return (fields["bench"], fields["case"], fields["backend"], fields["op"], fields["dtype"], fields["src"],
            fields["dst"], fields.get("direction", ""), "")


def _judge_row(row, ceilings, largest, smallest):
    if row.status in ("SKIP", "ERROR"):
        return Verdict(row, row.status, row.text("reason") or f"the benchmark reported {row.status}")
    if row.text("bench") == "step":
        return _judge_step(row)
    metric, value, is_bandwidth = metric_of(row)
    errors = row.number("errors")
    if errors:
        return Verdict(row, "FAIL", f"{int(errors)} wrong elements in the data check", metric, value)
    if value is None:
        return Verdict(row, "ERROR", "no measured value in the row", metric)
    typical = ceilings.typical_latency(row) if _is_small_message_latency(row, smallest) else None
    if typical:
        return _judge_latency(row, typical)
    if not is_bandwidth:
        return Verdict(row, "PASS", "latency: compared with equivalent links only", metric, value)
    if int(row.text("bytes") or 0) < largest.get(_sweep_key(row), 0):
        return Verdict(row, "SKIP", "not judged against the ceiling: only the largest size of a sweep is", metric, value)
    ceiling = ceilings.for_row(row)
    if ceiling is None:
        return Verdict(row, "PASS", f"no known ceiling for a {row.text('link_class')} link; compared with equivalent "
                                    "links only", metric, value)
    limit = ceiling.GBps * (2 if row.text("direction") == "bidir" else 1)
    fraction = value / limit
    healthy = ceiling.healthy_fraction
    described = (f"{value:.4g} GB/s is {100 * fraction:.1f}% of the {limit:.4g} GB/s ceiling ({ceiling.reason}; "
                 f"source: {ceiling.source or 'topology'}); healthy from {100 * healthy:.0f}%")
    if fraction < healthy:
        verdict = "FAIL"
    elif fraction < healthy * (1 + WARN_BAND):
        verdict = "WARN"
    else:
        verdict = "PASS"
    return Verdict(row, verdict, described, metric, value, limit, fraction, healthy)


def _compare_siblings(verdicts, ceilings, minimum=3):
    groups = {}
    for v in verdicts:
        if v.verdict in ("SKIP", "ERROR") or v.value is None or v.row.number("errors"):
            continue
        if v.row.text("bench") == "step":  # strategies and wirings differ on purpose
            continue
        f = v.row.fields
        ceiling = v.ceiling_GBps
        key = (f["bench"], f["case"], f["backend"], f["op"], f["dtype"], f["bytes"], f["direction"], f["link_class"],
               ceiling)
        groups.setdefault(key, []).append(v)
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
            if median <= 0 or worse <= 0:
                continue
            relative = worse / median
            if worse > 3 * mad and relative > 0.20:
                level = "FAIL"
            elif worse > 2 * mad and relative > 0.10:
                level = "WARN"
            else:
                continue
            if m.fraction is not None and level == "FAIL":
                # The ceiling has judged this link already; among siblings it can only be a WARN
                # (three links on a shared machine differ by more than their spread suggests).
                level = "WARN"
            note = (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} the median {median:.4g} of "
                    f"{len(members)} equivalent links")
            if ORDER[level] > ORDER[m.verdict]:
                m.verdict, m.reason = level, note + "; " + m.reason
            else:
                m.reason += "; " + note


def _communicator_times(row):
    """{communicator: us per call} from a split collective's per_comm_us, or {}."""
    entries = extra_items(row).get("per_comm_us")
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


def _compare_communicators(verdicts, minimum=3):
    for v in verdicts:
        if v.verdict not in ("PASS", "WARN", "FAIL"):
            continue
        times = _communicator_times(v.row)
        if len(times) < minimum:
            continue
        median = statistics.median(times.values())
        mad = 1.4826 * statistics.median(abs(t - median) for t in times.values())
        slow = [(label, t) for label, t in times.items() if t > 1.2 * median and t - median > 3 * mad]
        for label, t in sorted(slow, key=lambda item: -item[1]):
            note = (f"communicator {label}: {t:.4g} us per call, {100 * (t / median - 1):.0f}% above the median "
                    f"{median:.4g} us of {len(times)} communicators")
            if v.verdict == "PASS":
                v.verdict, v.reason = "WARN", note + "; " + v.reason
            else:
                v.reason += "; " + note


def counts(verdicts, problems=()):
    total = {name: 0 for name in ("PASS", "WARN", "FAIL", "SKIP", "ERROR")}
    for v in verdicts:
        total[v.verdict] += 1
    total["ERROR"] += len(problems)
    return total


def exit_code(verdicts, problems=()):
    """0 all PASS/WARN/SKIP, 1 any FAIL, 2 any ERROR (an incomplete run outranks a slow one)."""
    c = counts(verdicts, problems)
    if c["ERROR"]:
        return 2
    if c["FAIL"]:
        return 1
    return 0
