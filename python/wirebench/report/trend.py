"""The run against its history (wirebench report --history FILE, or WIREBENCH_HISTORY): each judged
item held against its baseline, the median of its last healthy runs (history/baselines.py). A
regression the test names is a FAIL beside the ceiling's verdict, saying how far below, since which
night and what changed that night; the items are then added to the history (history/store.py)."""
from dataclasses import dataclass

from datetime import timedelta

from ..history.baselines import FLEET_DAYS, MIN_CHANGE, RECENT_RUNS, fleet_outlier, regression
from ..history.store import TIME_FORMAT, Item, parse_time
from . import judging
from .endpoints import communicator_node, node_of, parse
from .wording import what

TREND_HEADINGS = ("verdict", "item", "now", "baseline (median of healthy runs)", "change", "first seen", "that night's changes")


@dataclass
class Trend:
    verdict: object  # the item's Verdict
    regression: object = None  # history.baselines.Regression: against its own past
    fleet: object = None  # history.baselines.FleetOutlier: against the other nodes' latest


def node_of_row(fields):
    """The node a row measured: its source's, or that of a collective on one node (an import's
    communicator names it: nightly single-node nccl-tests runs are held against each other)."""
    src = fields.get("src", "")
    return node_of(src) or (communicator_node(src) if fields.get("bench") == "coll" else "")


def shape_of(row):
    """The item without its node: what it measured, at which size, on which link class, between
    which endpoints within their node (a GPU pair keeps its GPUs; a rank is any rank; a collective
    on one node is on `node`)."""
    f = row.fields

    def local(endpoint):
        if f.get("bench") == "coll" and communicator_node(endpoint):
            return "node"
        found = parse(endpoint)
        if not found or not found.node:
            return endpoint
        return "rank" if found.kind == "rank" else endpoint.split("/", 1)[-1]
    crosses = "across" if node_of(f.get("src", "")) != node_of(f.get("dst", "")) and f.get("dst") else "within"
    return "/".join([f.get("bench", ""), f.get("case", ""), f.get("backend", ""), f.get("op", ""), f.get("dtype", ""),
                     f.get("direction", ""), f.get("link_class", ""), local(f.get("src", "")), local(f.get("dst", "")),
                     crosses, f.get("bytes", "")])


def measured_items(verdicts):
    """The judged items, and the pairs a culprit explains (DATA in the report, measured all the same:
    a path slowed for good is a culprit tonight and a regression in the history)."""
    return [v for v in verdicts if v.item or v.explained_by]


def history_items(verdicts):
    """The judged items of a run, as the history keeps them."""
    out = []
    for v in measured_items(verdicts):
        if not v.metric or v.value is None:
            continue
        higher = v.metric != "time_us"
        f = v.row.fields
        out.append(Item(v.row.key, v.metric, v.value, higher, v.verdict, v.row.samples,
                        v.row.number("spread_pct") if v.row.text("spread_pct") else None, f.get("bench", ""),
                        f.get("link_class", ""), f.get("src", ""), f.get("dst", ""), node_of_row(f),
                        v.ceiling_GBps, shape_of(v.row)))
    return out


def judge_against_history(verdicts, history, run):
    """Each item's regression against its history before `run`: the item becomes a FAIL (unless it is
    one already, or an ERROR) with the regression said after its reason. Returns the trends."""
    trends = []
    for v in measured_items(verdicts):
        if not v.metric or v.value is None or v.verdict in ("ERROR", "SKIP"):
            continue
        earlier = [p for p in history.series(v.row.key, v.metric, before=run.time) if p.run.run_id != run.run_id]
        found = regression(earlier, v.value, run, v.metric != "time_us")
        if found is None:
            outlier = _against_the_fleet(v, history, run)
            if outlier is not None:
                trends.append(Trend(v, fleet=outlier))
            continue
        b = found.baseline
        unit = judging.unit_of(v.metric)
        said = (f"regression: {abs(found.change) * 100:.0f}% {'below' if v.metric != 'time_us' else 'above'} its "
                f"{b.runs}-run median {b.median:.4g} {unit} (spread {b.spread_pct:.1f}%; the last {RECENT_RUNS} runs "
                f"against it, Mann-Whitney p={found.p_value:.3f}), first seen on {found.first.time} (run "
                f"{found.first.run_id})")
        said += f", that night's changes: {', '.join(found.changes)}" if found.changes else ", nothing recorded changed that night"
        if v.item:  # a pair a culprit explains stays in the culprit's FAIL
            v.verdict = "FAIL"
            higher = v.metric != "time_us"
            allowed = max(MIN_CHANGE, 3 * b.spread_pct / 100)
            limit = b.median * (1 - allowed) if higher else b.median * (1 + allowed)
            v.hold_against(f"{'>=' if higher else '<='} {limit:.4g} {unit} (its history: within {allowed * 100:.0f}% "
                           f"of its {b.runs}-run median {b.median:.4g} {unit})", limit)
        v.note_before(said)
        trends.append(Trend(v, regression=found))
    return trends


def _against_the_fleet(v, history, run):
    """An item far off the same item's latest healthy figure on the fleet's other nodes: a WARN
    (one figure against the fleet; its own history decides a FAIL)."""
    node = node_of_row(v.row.fields)
    if not node:
        return None
    since = (parse_time(run.time) - timedelta(days=FLEET_DAYS)).strftime(TIME_FORMAT)
    others = [value for _, value in history.fleet(shape_of(v.row), v.metric, node, run.time, since)]
    found = fleet_outlier(v.value, others, v.metric != "time_us")
    if found is None:
        return None
    unit = judging.unit_of(v.metric)
    if v.verdict in ("PASS", "NOT JUDGED"):
        v.verdict = "WARN"
    v.note_before(f"fleet: {abs(found.change) * 100:.0f}% {'below' if v.metric != 'time_us' else 'above'} the median "
                  f"{found.median:.4g} {unit} of the same item's latest healthy run on {found.nodes} other nodes of the "
                  f"history (modified z-score {found.z:.1f}; the last {FLEET_DAYS} days)")
    return found


def trend_rows(trends):
    """The report's table of the items that moved."""
    rows = []
    for t in trends:
        v = t.verdict
        if t.fleet is not None:
            unit = judging.unit_of(v.metric)
            rows.append((v.verdict, (v.verdict, what(v), f"{v.value:.4g} {unit}",
                                     f"the fleet: {t.fleet.median:.4g} {unit} (median of {t.fleet.nodes} other nodes)",
                                     f"{t.fleet.change * 100:+.1f}%", "(against the fleet)", "")))
            continue
        r = t.regression
        unit = judging.unit_of(v.metric)
        verdict = v.verdict if v.item else "FAIL"  # explained by a culprit, which FAILs
        rows.append((verdict, (verdict if v.item else f"FAIL (the culprit: {v.explained_by})", what(v), f"{v.value:.4g} {unit}",
                                 f"{r.baseline.median:.4g} {unit} (spread {r.baseline.spread_pct:.1f}%, {r.baseline.runs} runs)",
                                 f"{r.change * 100:+.1f}%", f"{r.first.time} ({r.first.run_id})",
                                 ", ".join(r.changes) or "none recorded")))
    return rows

