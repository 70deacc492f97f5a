"""Items compared with each other: equivalent links (siblings) by median absolute deviation, and the
communicators of a split collective."""

from . import judging
from .extra import row_items
from .identity import siblings
from .row_verdicts import undecided
from .verdict import ORDER
from ..robust import median_and_sigma


SIBLINGS_NEEDED = 3


def sibling_key(v):
    return siblings(v.row.fields, v.ceiling_GBps)


def compare_siblings(verdicts, context=None, minimum=SIBLINGS_NEEDED):
    groups = {}
    for v in verdicts:
        if v.verdict not in ("PASS", "WARN", "FAIL", "NOT JUDGED") or v.value is None or v.row.number("errors"):
            continue
        if judging.by_prediction(v.row):  # a step: strategies and wirings differ on purpose
            continue
        groups.setdefault(sibling_key(v), []).append(v)
    for members in groups.values():
        links = {(m.row.text("src"), m.row.text("dst")) for m in members}
        if len(links) < minimum:
            continue
        values = [m.value for m in members]
        median, mad = median_and_sigma(values)
        for m in members:
            higher_is_better = m.metric != "time_us"
            worse = (median - m.value) if higher_is_better else (m.value - median)
            relative = worse / median if median > 0 else 0
            level = "PASS"
            if worse > 3 * mad and relative > 0.20:
                level = "FAIL"
            elif worse > 2 * mad and relative > 0.10:
                level = "WARN"
            spread = m.row.number("spread_pct")
            if level != "PASS" and undecided(spread, relative):
                # Its own samples spread far wider than it differs: the siblings cannot decide.
                note = (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} the median {median:.4g} "
                        f"{judging.unit_of(m.metric)} of {len(members)} equivalent links, within its own spread of "
                        f"{spread:.0f}%: too noisy to tell it from them")
                if m.verdict == "NOT JUDGED":
                    m.reason, m.not_judged_why = "not judged: " + note, "noisy"
                else:
                    m.note_after(note)
                continue
            noisy = level != "PASS" and _reaches(m, median)
            if level == "FAIL" and (m.fraction is not None or not higher_is_better or noisy):
                # The ceiling has judged this link already, it is a latency (a typical figure is no
                # ceiling), or its own fastest samples reach the median: among siblings only a WARN.
                level = "WARN"
            unit = judging.unit_of(m.metric)
            expected, bound = _sibling_bound(median, mad, len(members), higher_is_better, unit)
            if m.verdict == "NOT JUDGED":  # the siblings are all it is held against
                note = (f"held against {len(members)} equivalent links: "
                        + (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} their median {median:.4g} {unit}"
                           if relative > 0 else f"at or better than their median {median:.4g} {unit}"))
                if noisy:
                    note += ("; its own fastest samples reach that median: a noisy measurement, or a link that is "
                             "slow at times")
                m.verdict, m.reason, m.not_judged_why = level, note, ""
                m.hold_against(expected, bound)
                m.by_siblings = True
                continue
            if level == "PASS":
                continue
            note = (f"{100 * relative:.0f}% {'below' if higher_is_better else 'above'} the median {median:.4g} of "
                    f"{len(members)} equivalent links")
            if noisy:
                note += "; its own fastest samples reach that median: a noisy measurement, or a link that is slow at times"
            if ORDER[level] > ORDER[m.verdict]:
                m.verdict = level
                m.note_before(note)
                m.hold_against(expected, bound)
                m.by_siblings = True
            else:
                m.note_after(note)


def siblings_without_culprits(verdicts, context=None, minimum=SIBLINGS_NEEDED):
    """After the culprits (culprits.py): the links a culprit explains no longer set the bound of the
    rest. One slow node is in half of four nodes' pairs, so their MAD was as wide as the fault and
    the healthy pairs were held to ">= 0 GB/s", a bound that holds nothing. The pairs no culprit
    explains are held to their own median and spread; one beyond that bound is a WARN (what the
    culprits could localise they have named; a pair slower than its healthy peers is still said)."""
    groups = {}
    for v in verdicts:
        if v.value is None or v.row.number("errors") or judging.by_prediction(v.row) or v.record is not None:
            continue
        if v.explained_by or v.verdict in ("PASS", "WARN", "FAIL"):
            groups.setdefault(sibling_key(v), []).append(v)
    for members in groups.values():
        rest = [m for m in members if not m.explained_by]
        held = [m for m in rest if m.by_siblings and m.verdict == "PASS"]  # the siblings alone judged them
        if not held or len(rest) == len(members) or len({(m.row.text("src"), m.row.text("dst")) for m in rest}) < minimum:
            continue
        median, mad = median_and_sigma([m.value for m in rest])
        for m in held:
            higher_is_better = m.metric != "time_us"
            unit = judging.unit_of(m.metric)
            expected, bound = _sibling_bound(median, mad, len(rest), higher_is_better, unit,
                                             "equivalent links no culprit explains")
            m.hold_against(expected, bound)
            worse = (median - m.value) if higher_is_better else (m.value - median)
            if m.value < bound if higher_is_better else m.value > bound:
                m.verdict = "WARN"
                m.note_before(f"{100 * worse / median:.0f}% {'below' if higher_is_better else 'above'} the median "
                              f"{median:.4g} {unit} of the {len(rest)} equivalent links no culprit explains")


def _sibling_bound(median, sigma, links, higher_is_better, unit, what="equivalent links"):
    """(expected, bound): the figure below which (above, for a time) the siblings FAIL an item: more
    than 20% and 3 MADs off their median. Where the links spread wide the MADs set it, and the bound
    printed says so: a PASS never sits beyond the bound it shows."""
    relative = median * (0.8 if higher_is_better else 1.2)
    by_mad = median - 3 * sigma if higher_is_better else median + 3 * sigma
    bound = max(0.0, min(relative, by_mad)) if higher_is_better else max(relative, by_mad)
    wider = (f", widened to 3 MADs ({3 * sigma:.4g} {unit}) by their spread" if bound != relative else "")
    expected = (f"{'>=' if higher_is_better else '<='} {bound:.4g} {unit} (within 20% of the median {median:.4g} {unit} "
                f"of {links} {what}{wider})")
    return expected, bound


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


def communicators_below(row, metric, floor):
    """The communicators whose own rate (the row's, scaled by its time over theirs) is below the floor."""
    times, value, time_us = _communicator_times(row), row.number(metric), row.number("time_us")
    if not times or not value or not time_us:
        return []
    rates = {label: value * time_us / us for label, us in times.items() if us > 0}
    return sorted(((label, rate) for label, rate in rates.items() if rate < floor), key=lambda item: item[1])


def compare_communicators(verdicts, context=None, minimum=3):
    for v in verdicts:
        if v.verdict not in ("PASS", "WARN", "FAIL", "NOT JUDGED"):
            continue
        times = _communicator_times(v.row)
        if len(times) < minimum:
            continue
        median, mad = median_and_sigma(times.values())
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
                v.verdict = "WARN"
                v.note_before(note)
            else:
                v.note_after(note)
