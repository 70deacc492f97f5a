"""Which part of the fabric is at fault, from the node x node matrix of a point-to-point sweep
(wb-net --pairs all, all-serial or bisection): a slow pair says little on its own; the pattern of
slow pairs names the culprit once.
  - a pair is slow when it is more than 3 MAD and 20% below the median pair of its fleet (the
    items of one measurement: test, backend, link class, size, schedule), by the fraction of its
    ceiling where every pair has one, else by its figure: a noisy but healthy fleet blames nobody;
    or when it is below the healthy fraction of its ceiling (a fleet half of whose pairs are slow
    has a median that cannot show them);
  - rail R (several ranks per node, one per NIC, the rank's place on its node is its rail): half
    or more of the pairs between rail-R ranks are slow, spanning three nodes or more, and no one
    node is on all of them;
  - node X (its NIC or its uplink): half or more of its node pairs are slow, two at least; nodes
    are blamed one at a time, the worst first, and a blamed node's pairs explain nothing else;
  - the path X-Y (a cable, a port or a route between them): a slow node pair that no node and no
    rail explains, while X and Y are fine with everyone else;
  - the fabric as a whole: three quarters of the node pairs are slow, or more than half the nodes
    would be blamed (the switches, or a ceiling that is wrong), named once instead.
The adaptive screen's rows (pairs=listed) are not read as a matrix: its schedule is replayed
(screen_rows.py), which names nodes, paths and routes between leaf switches, and with rails (a rank
per NIC) a NIC (nic:node3/rail1) or a NIC on another rail's switch (miswire:node1/rail0@rail1).
A node pair is slow when half or more of its rows (both directions, every rank pair across it)
are. Each culprit is one verdict (bench `fabric`) holding the worst of its pairs' verdicts; the pairs
it explains become DATA that names it, so a bad node is one FAIL, not one per pair. Fewer than three
nodes cannot tell a node from a path: nothing is localised then."""
import statistics

from . import screen_rows
from .findings import culprit
from .endpoints import node_of, rails_of, rank_of, spoken_rail
from .fleet_rule import LAG_MAD, LAG_RELATIVE, SLOW_RELATIVE, below_ceiling, below_fleet, faster_group, fleet_reference
from .row_verdicts import undecided

NODE_SHARE = 0.5
RAIL_SHARE = 0.5
FABRIC_SHARE = 0.75
MIN_NODES = 3
# Schedules that measure the node x node matrix (every pair, or random matchings); --pairs first
# and ring measure too few pairs per node to tell a node from a path.
MATRIX_MODES = ("all", "all-serial", "bisection", "alltoall")
_ORDER = {"DATA": 0, "PASS": 0, "NOT JUDGED": 0, "WARN": 1, "FAIL": 2}


def _fleet_key(v):
    f = v.row.fields
    from .extra import row_items
    return (f["case"], f["backend"], f["link_class"], f["bytes"], f["direction"], row_items(v.row).get("pairs", ""))


def _candidates(verdicts):
    """{fleet key: its pair rows' verdicts}; rows a culprit explains count too (a second measurement,
    judged before the first, is read whole)."""
    out = {}
    for v in verdicts:
        f = v.row.fields
        all_to_all = v.verdict == "DATA" and "pairs=alltoall" in f.get("extra", "") and f["src"] != "all"
        if (rank_of(f["src"]) is None or rank_of(f["dst"]) is None or not (v.item or v.explained_by or all_to_all) or v.metric != "algbw_GBps" or v.value is None
                or v.row.status != "OK" or v.row.number("errors") or v.verdict not in _ORDER and not all_to_all):
            continue
        a, b = node_of(f["src"]), node_of(f["dst"])
        if a and b and a != b and _fleet_key(v)[5] in MATRIX_MODES:
            out.setdefault(_fleet_key(v), []).append(v)
    return out


def _score(members):
    """Each member's figure as compared: the fraction of the ceiling where all have one."""
    if all(m.fraction is not None for m in members):
        return {id(m): m.fraction for m in members}, "of the ceiling"
    return {id(m): m.value for m in members}, "GB/s"


def slow_members(members):
    """(slow verdicts, the median a healthy member reads, how the figure is read) by the fleet's robust
    statistics. Below the fleet or the healthy fraction by less than its own spread is not slow
    (row_verdicts.undecided: its noise, not its link, may be what is low). A fleet in two groups is
    read against its faster group where the slower one is a node's or a path's (fleet_rule)."""
    slow, reference, unit, _ = _read_fleet(members)
    return slow, reference, unit


def _read_fleet(members):
    """slow_members() and, fourth, the rows below the fleet or the healthy fraction by less than their own spread
    (undecided: neither slow nor healthy; a second measurement may decide them), read against the same reference."""
    score, unit = _score(members)

    def decided(m, below):
        return not undecided(m.row.number("spread_pct"), below)

    def below(reference):
        return [m for m in members
                if below_fleet(score[id(m)], reference) and decided(m, score[id(m)] / reference[0] - 1)
                or below_ceiling(m.fraction, m.healthy_fraction) and decided(m, m.fraction / m.healthy_fraction - 1)]

    def short_of(reference, slow):
        slow_ids = {id(m) for m in slow}
        return [m for m in members if id(m) not in slow_ids and (
            below_fleet(score[id(m)], reference) or below_ceiling(m.fraction, m.healthy_fraction))]
    reference = fleet_reference(list(score.values()))
    slow = below(reference)
    faster = faster_group(list(score.values()))
    if faster is not None:
        by_groups = below(faster)
        if len(by_groups) > len(slow) and not _the_fabric(localise(members, by_groups)):
            return by_groups, faster[0], unit, short_of(faster, by_groups)
    return slow, reference[0], unit, short_of(reference, slow)


def _rails(members):
    """{rank: rail}: a rank's place among its node's ranks, when nodes hold several ranks."""
    ranks = {rank_of(end): node_of(end) for m in members for end in (m.row.text("src"), m.row.text("dst"))
             if rank_of(end) is not None}
    return {rank: rail for rank, (_, rail) in rails_of(ranks).items()}


def _node_pair(m):
    return tuple(sorted((node_of(m.row.text("src")), node_of(m.row.text("dst")))))


def _slow_pairs(rows_of_pair, slow_ids):
    """The node pairs half or more of whose rows (both directions, every rank pair) are slow."""
    return {p for p, rows in rows_of_pair.items()
            if sum(id(m) in slow_ids for m in rows) >= NODE_SHARE * len(rows) and any(id(m) in slow_ids for m in rows)}


def split_by_second_measurement(slow, undecided, again):
    """(steady, passing): the slow rows whose node pair is slow again in the second measurement of
    the same fleet (`again`, its verdicts; a pair it did not measure counts as steady), and those
    whose pair was fast then. A row of the second measurement below its bound by less than its own
    spread (undecided) says nothing of being gone: it counts with the slow. A row `undecided` the
    first time whose pair the second measurement found slow, decidedly, is steady too: a moment of a
    busy host widened its samples then, not its link's rate."""
    slow_there, _, _, undecided_there = _read_fleet(again)
    rows_of_pair, slow_or_undecided_pairs = _pairs_of(again, slow_there + undecided_there)
    _, slow_pairs = _pairs_of(again, slow_there)
    steady = [m for m in slow if _node_pair(m) not in rows_of_pair or _node_pair(m) in slow_or_undecided_pairs]
    steady += [m for m in undecided if _node_pair(m) in slow_pairs]
    return steady, [m for m in slow if _node_pair(m) in rows_of_pair and _node_pair(m) not in slow_or_undecided_pairs]


def _pairs_of(verdicts, slow):
    """({node pair: its rows}, the node pairs half or more of whose rows are in `slow`)."""
    rows_of_pair = {}
    for m in verdicts:
        rows_of_pair.setdefault(_node_pair(m), []).append(m)
    return rows_of_pair, _slow_pairs(rows_of_pair, {id(m) for m in slow})


def localise(members, slow=None):
    """[(kind, name, explained members)] for one fleet: kind is rail, node or path; `slow`: the rows
    to localise (by default the fleet's slow rows, slow_members())."""
    nodes = {node_of(m.row.text(end)) for m in members for end in ("src", "dst")}
    if len(nodes) < MIN_NODES:
        return []
    if slow is None:
        slow, _, _ = slow_members(members)
    slow_ids = {id(m) for m in slow}
    culprits, explained = [], set()

    rail_of = _rails(members)
    if rail_of:
        by_rail = {}
        for m in members:
            a, b = rank_of(m.row.text("src")), rank_of(m.row.text("dst"))
            if a in rail_of and b in rail_of and rail_of[a] == rail_of[b]:
                by_rail.setdefault(rail_of[a], []).append(m)
        for rail, on_rail in sorted(by_rail.items()):
            bad = [m for m in on_rail if id(m) in slow_ids]
            spans = {node_of(m.row.text(end)) for m in bad for end in ("src", "dst")}
            # Not a rail when one node is on every slow pair: that is the node (its NIC on that rail).
            one_node = any(all(n in (node_of(m.row.text("src")), node_of(m.row.text("dst"))) for m in bad) for n in spans)
            if len(bad) >= 2 and len(bad) >= RAIL_SHARE * len(on_rail) and len(spans) >= MIN_NODES and not one_node:
                culprits.append(("rail", f"rail{rail}", bad))
                explained.update(id(m) for m in bad)

    rows_of_pair = {}
    for m in members:
        if id(m) not in explained:
            rows_of_pair.setdefault(_node_pair(m), []).append(m)
    slow_pairs = _slow_pairs(rows_of_pair, slow_ids)

    blamed = []
    while True:
        best = None
        for node in sorted(nodes - set(blamed)):
            mine = [p for p in rows_of_pair if node in p and not set(p) & set(blamed)]
            bad = [p for p in mine if p in slow_pairs]
            if mine and len(bad) >= 2 and len(bad) >= NODE_SHARE * len(mine):
                share = len(bad) / len(mine)
                if best is None or share > best[0]:
                    best = (share, node)
        if best is None:
            break
        node = best[1]
        blamed.append(node)
        rows = [m for p, ms in rows_of_pair.items() if node in p and not set(p) & set(blamed[:-1]) for m in ms
                if id(m) in slow_ids]
        culprits.append(("node", node, rows))
        explained.update(id(m) for m in rows)

    all_pairs = len(rows_of_pair)
    if len(blamed) > len(nodes) / 2 or (all_pairs >= 3 and len(slow_pairs) >= FABRIC_SHARE * all_pairs):
        rows = [m for m in members if id(m) in slow_ids]
        return [("fabric", "all", rows)]
    for pair in sorted(slow_pairs):
        if set(pair) & set(blamed):
            continue
        rows = [m for m in rows_of_pair[pair] if id(m) in slow_ids]
        culprits.append(("path", f"{pair[0]}-{pair[1]}", rows))
    return culprits


def _describe(kind, name, rows, others, unit):
    """The culprit's reason (what() in outputs.py names it): the evidence, then what it means."""
    def figure(x):
        return f"{100 * x:.0f}% of the ceiling" if unit == "of the ceiling" else f"{x:.4g} GB/s"
    scores = [m.fraction if unit == "of the ceiling" else m.value for m in rows]
    low, high = figure(min(scores)), figure(max(scores))
    span = low if low == high else f"{low} to {high}"
    pairs = sorted({tuple(sorted((node_of(m.row.text("src")), node_of(m.row.text("dst"))))) for m in rows})
    listed = ", ".join(f"{a}-{b}" for a, b in pairs[:8]) + (f" and {len(pairs) - 8} more" if len(pairs) > 8 else "")
    rest = [m.fraction if unit == "of the ceiling" else m.value for m in others]
    evidence = f"{len(pairs)} node pair{'s' if len(pairs) != 1 else ''} slow ({listed}; {len(rows)} rows) at {span}"
    if rest:
        evidence += (f", while the other row reaches {figure(rest[0])}" if len(rest) == 1 else
                     f", while the other {len(rest)} rows reach {figure(statistics.median(rest))} (median)")
    nic, _, switch = name.partition("@")  # a miswire: node1/rail0@rail1
    meaning = {
        "node": f"every slow pair has {name} in it: the node (its NIC or its uplink), not its links",
        "rail": f"the slow pairs run between {name}'s ranks on several nodes: the rail (its switch or its cabling)",
        "path": f"{name.replace('-', ' and ')} are fine with every other node: the path between them (a cable, a port "
                "or a route)",
        "fabric": "nearly every pair is slow: the fabric as a whole (its switches), or a ceiling that is wrong",
        "route": f"the slow pairs run between {name.replace('-', ' and ')}, their nodes fine elsewhere: the route "
                 "between the two switches (an uplink, a spine port or its cable)",
        "nic": f"{name} is slow with the NICs of its rail and with a healthy NIC of another rail, while the other "
               f"NICs of {node_of(name)} are fine: that NIC (its port, its cable or its PCIe slot), not the node or the rail",
        "miswire": f"{nic} is slow with the NICs of its own rail and at full rate with {spoken_rail(switch)}'s: it "
                   f"is cabled to {spoken_rail(switch)}'s switch, so its rail's traffic crosses the spine",
    }[kind]
    return f"{evidence}; {meaning}; the pairs it explains are not judged one by one"


def apply(verdicts, make_verdict, leaf_of=None, again=None):
    """Adds a verdict per culprit (from make_verdict(row, verdict, reason, like)) and turns the pairs
    each explains into DATA naming it. Returns the culprit verdicts. The matrix schedules are
    localised here, from both measurements where the runner measured a fleet again (`again`: the
    verdicts of RUN_DIR/remeasured); an adaptive screen's listed rounds by replaying its schedule
    (screen_rows.py, which measures its suspects again itself) with the nodes' leaf switches
    (`leaf_of`, the run's switches.json)."""
    found = []
    second = _candidates(again) if again else {}
    for key, members in _candidates(verdicts).items():
        slow, healthy, unit, undecided = _read_fleet(members)
        before = len(found)
        if key not in second:
            found += [_culprit(key[5], members, unit, kind, name, rows, make_verdict, healthy)
                      for kind, name, rows in localise(members, slow) if rows]
            found += _lagging(key[5], members, make_verdict, found[before:])
            _join_paths_to_nodes(found, before, key[5], members, unit, make_verdict, healthy)
            _join_undecided_rows(found[before:], members)
            continue
        # Measured twice: a pair is slow when it is slow both times. A moment that slowed a pair once
        # (two cores carrying eight ranks on the virtual cluster; a burst on a shared fabric) then
        # neither makes a node of it nor hides a path behind a node; what was slow the first time
        # only is localised on its own, an intermittent WARN per culprit.
        # A row whose own spread covered its shortfall the first time decided nothing then (the CI's
        # failure of 2026-12-08: node1-node2's one ping-pong row, so node1 read as a path); the second
        # measurement decides it.
        steady, passing = split_by_second_measurement(slow, undecided, second[key])
        located = localise(members, steady)
        if _the_fabric(localise(members, slow)) and not _the_fabric(localise(second[key])):
            # The first pass slow as a whole (a moment of the whole fabric; --inject-fault slow) says
            # nothing of one pair: a pair slow again there was slow on its own once, and a dip then
            # is no path. A node or a rail, a pattern of pairs slow in both passes, stands.
            dipped = [rows for kind, _, rows in located if kind == "path"]
            located = [c for c in located if c[0] != "path"]
            passing += [m for rows in dipped for m in rows]
        for kind, name, rows in located:
            if rows:
                found.append(_culprit(key[5], members, unit, kind, name, rows, make_verdict, healthy))
                _reproduced(found[-1], rows, second[key])
        rest = [m for m in members if not m.explained_by]
        for kind, name, rows in localise(rest, passing):
            if rows:
                found.append(_culprit(key[5], rest, unit, kind, name, rows, make_verdict, healthy))
                _gone_when_measured_again(found[-1], rows, second[key])
        found += _lagging(key[5], members, make_verdict, found[before:])
        _join_paths_to_nodes(found, before, key[5], members, unit, make_verdict, healthy)
        _join_undecided_rows(found[before:], members)
    for key, members in _listed_fleets(verdicts).items():
        try:
            named = screen_rows.replay(members, leaf_of or {})
        except screen_rows.ReplayMismatch:
            continue  # not the runner's schedule: its rows are judged one by one
        unit = _score(members)[1]
        for kind, name, rows in named:
            if kind == "transient":
                _not_reproduced(name, rows)
            elif kind == "disturbed":
                _in_a_slow_round(name, rows)
            elif rows:
                found.append(_culprit("adaptive", members, unit, kind, name, rows, make_verdict))
    _explain_aggregates(verdicts, found)
    verdicts.extend(found)
    return found


def _lagging(schedule, members, make_verdict, named=()):
    """WARN culprits for a node or a rail whose pairs lag the fleet by the siblings' WARN band (2 MAD
    and 10%; fleet_rule.LAG_*) but not by a FAIL's: one node 20% slow among eight reads "WARN node
    node5", not fourteen WARN pairs. Paths and the fabric are not named from so small a lag: a pair
    10% down is within what noise does to one pair, a pattern over a node's every pair is not. Rows
    of a culprit `named` already for this fleet (a node FAILed on its slowest pairs) join it."""
    rest = [m for m in members if not m.explained_by]
    score, unit = _score(members)
    reference = faster_group(list(score.values())) or fleet_reference(list(score.values()))
    lagging = [m for m in rest if below_fleet(score[id(m)], reference, LAG_MAD, LAG_RELATIVE)
               and not undecided(m.row.number("spread_pct"), score[id(m)] / reference[0] - 1)]
    if not lagging:
        return []
    out = []
    for kind, name, rows in localise(rest, lagging):
        if not rows or kind not in ("node", "rail"):
            continue
        if any((c.record.subject, c.record.place) == (kind, name) for c in named):
            for m in rows:
                m.verdict, m.explained_by = "DATA", f"{kind} {name}"
                m.note_before(f"explained by the culprit {kind} {name} (lagging, not slow enough to FAIL alone)")
            continue
        out.append(_culprit(schedule, rest, unit, kind, name, rows, make_verdict, reference[0], "WARN", LAG_RELATIVE))
    return out


def _join_paths_to_nodes(found, before, schedule, members, unit, make_verdict, healthy):
    """A node culprit of this fleet (found[before:]) takes in the path culprits that end at it and read
    like its other pairs (within LAG_RELATIVE of their median): one node 20% slow sits on the FAIL bound,
    so noise puts three of its pairs below it, named as paths, and the rest in the lagging band, named
    as the node (measured: the runner's curve, 8 nodes, node4 20% slow, read "WARN node4" and three
    FAIL paths with node4, and drained nothing). The node is then one culprit at the worst level of
    its pairs. A path far slower than the node's other pairs is a fault of its own and stays."""
    score, _ = _score(members)
    for old in [c for c in found[before:] if c.record.subject == "node"]:
        node = old.record.place
        mine = [m for m in members if m.explained_by == f"node {node}"]
        if not mine:
            continue
        typical = statistics.median(score[id(m)] for m in mine)
        joined, level = [], old.verdict
        for path in [c for c in found[before:] if c.record.subject == "path" and node in c.record.place.split("-")]:
            rows = [m for m in members if m.explained_by == f"path {path.record.place}"]
            if not rows or statistics.median(score[id(m)] for m in rows) < (1 - LAG_RELATIVE) * typical:
                continue
            for m in rows:
                m.notes_before = [n for n in m.notes_before if n[0] != f"explained by the culprit path {path.record.place}"]
            joined += rows
            level = max(level, path.verdict, key=lambda x: _ORDER[x])
            found.remove(path)
        if not joined:
            continue
        for m in mine:
            m.notes_before = [n for n in m.notes_before if not n[0].startswith(f"explained by the culprit node {node}")]
        new = _culprit(schedule, members, unit, "node", node, mine + joined, make_verdict, healthy, level,
                       SLOW_RELATIVE if level == "FAIL" else LAG_RELATIVE)
        new.measured_again, new.notes_before = old.measured_again, list(old.notes_before)
        found[found.index(old)] = new


def _join_undecided_rows(named, members):
    """A WARN row of a node pair a node or path culprit names is that culprit's too, so the fault is
    counted once: a row at the healthy fraction's edge by less than its own spread is "undecided"
    (row_verdicts), neither slow nor lagging, while its pair is slow (measured: the runner's curve,
    8 nodes, node2 20% slow: three of node2's 14 rows read WARN beside "FAIL node node2")."""
    for found in named:
        if found.record.subject not in ("node", "path"):
            continue
        name = f"{found.record.subject} {found.record.place}"
        pairs = {_node_pair(m) for m in members if m.explained_by == name}
        for m in members:
            if not m.explained_by and m.verdict == "WARN" and _node_pair(m) in pairs:
                m.verdict, m.explained_by = "DATA", name
                m.note_before(f"explained by the culprit {name} (a row of a pair it names, too close to its bound "
                              "to count as slow alone)")


def _listed_fleets(verdicts):
    out = {}
    for v in screen_rows.screen_members(verdicts):
        out.setdefault(_fleet_key(v), []).append(v)
    return out


def _worst_again(rows, again):
    """The second measurement's worst row on the node pairs of `rows`, in words."""
    pairs = {_node_pair(m) for m in rows}
    theirs = [m for m in again if _node_pair(m) in pairs and m.value is not None]
    if not theirs:
        return "not measured"
    worst = min(theirs, key=lambda m: m.value)
    return f"{worst.value:.4g} GB/s" + (f" ({100 * worst.fraction:.1f}% of the ceiling)" if worst.fraction is not None else "")


def _reproduced(culprit, rows, again):
    """A culprit localised from both measurements: its pairs were slow in each. The second measurement
    has nothing more to decide about it (apply_remeasure leaves it)."""
    culprit.measured_again = True
    culprit.note_before(f"reproduced: measured again, its pairs slow again, the worst at {_worst_again(rows, again)}")


def _gone_when_measured_again(culprit, rows, again):
    """A culprit of the rows slow the first time only: an intermittent WARN with both figures."""
    culprit.measured_again = True
    first = f"{culprit.value:.4g} GB/s" + (f" ({100 * culprit.fraction:.1f}% of the ceiling)"
                                           if culprit.fraction is not None else "")
    was = culprit.verdict
    culprit.verdict = "WARN"
    culprit.note_before(f"intermittent: {first} ({was}) the first time, its pairs at {_worst_again(rows, again)} at "
                        "worst when measured again; look for what disturbed the first measurement; the first:", " ")


def _not_reproduced(pair, rows):
    """Slow rows of an adaptive screen whose nodes and pair were fast when measured again: a transient."""
    for m in rows:
        if m.verdict == "FAIL":
            m.verdict = "WARN"
        m.note_before(f"slow once, not reproduced: the adaptive screen measured {pair.replace('-', ' and ')} again, "
                      "each with healthy nodes and the pair itself, and found them fast")


def _the_fabric(found):
    """Whether localise() found the fabric as a whole (it is then the only culprit)."""
    return [kind for kind, _, _ in found] == ["fabric"]


def _in_a_slow_round(pair, rows):
    """Slow rows of an adaptive screen's round whose control pair was slow too: the round said nothing."""
    for m in rows:
        if m.verdict == "FAIL":
            m.verdict = "WARN"
        m.note_before(f"measured in a round slow as a whole: its control pair, two nodes seen healthy, was slow too, "
                      f"so the adaptive screen took nothing from {pair.replace('-', ' and ')} there and measured "
                      "again")


def _culprit(schedule, members, unit, kind, name, rows, make_verdict, healthy=None, level=None, within=SLOW_RELATIVE):
    """The culprit's verdict, holding its worst row: against the ceiling where the rows have one, else
    against `healthy`, what a healthy member of the fleet reads (slow_members), less `within`."""
    worst = min(rows, key=lambda m: m.fraction if unit == "of the ceiling" else m.value)
    if level is None:
        level = max((m.verdict for m in rows), key=lambda x: _ORDER[x])
        if all(m.fraction is None for m in rows):
            level = "FAIL"  # no ceiling (an all-to-all's pairs): the fleet's FAIL rule made them slow
        level = "WARN" if _ORDER[level] < 1 else level
    f = worst.row.fields
    record = culprit.make(kind, name, culprit.Measured(f["case"], f["backend"], f["link_class"], int(f["bytes"] or 0),
                                                       schedule, len(rows), worst.row.line))
    explained = {id(m) for m in rows}
    reason = _describe(kind, name, rows, [m for m in members if id(m) not in explained], unit)
    found = make_verdict(culprit.shown_as(record, worst.row), level, reason, worst)
    found.record = record
    if unit == "GB/s" and healthy:
        found.hold_against(f">= {(1 - within) * healthy:.4g} GB/s (within {100 * within:.0f}% of "
                           f"{healthy:.4g} GB/s, what the fleet's healthy pairs read)", (1 - within) * healthy)
    for m in rows:
        m.verdict, m.explained_by = "DATA", f"{kind} {name}"
        m.note_before(f"explained by the culprit {kind} {name}")
    return found


def _explain_aggregates(verdicts, found):
    """A bisection matching's aggregate runs at its slowest pair's pace: when a culprit explains that
    pair, it explains the aggregate too (DATA naming it), so the fault is still counted once."""
    from .extra import row_items
    nodes = {c.record.place: c for c in found if c.record.subject == "node"}
    paths = {c.record.place: c for c in found if c.record.subject == "path"}
    for v in verdicts:
        f = v.row.fields
        slowest = row_items(v.row).get("slowest", "")
        if f["src"] != "all" or v.verdict not in ("WARN", "FAIL") or "->" not in slowest:
            continue
        a, _, b = (node_of(end) for end in slowest.partition("->"))
        pair = "-".join(sorted((a, b)))
        culprit = next((nodes[n] for n in (a, b) if n in nodes), None) or paths.get(pair)
        if culprit is None and any(c.record.subject == "fabric" for c in found):
            culprit = next(c for c in found if c.record.subject == "fabric")
        if culprit is not None:
            kind, name = culprit.record.subject, culprit.record.place
            v.verdict, v.explained_by = "DATA", f"{kind} {name}"
            v.note_before(f"explained by the culprit {kind} {name} (its slowest pair, {slowest})")
