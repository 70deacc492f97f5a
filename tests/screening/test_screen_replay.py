"""The report of an adaptive screen: rows as `wb-net --pairs A-B,... --round N` writes them, for rounds
the schedule chose against a simulated fleet; the reporter replays the schedule from the rows and
names the same culprit, once; a transient pair is a WARN that says it did not reproduce; rows that
do not follow the schedule are judged one by one (ctest label: unit)."""
import json
import sys

import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "reports"))

from test_items import HEADER  # noqa: E402
from wirebench.report.adaptive_screen import AdaptiveScreen  # noqa: E402
from wirebench.report.screen_rows import SEED, replay, screen_members  # noqa: E402
from wirebench.report.ceilings import Ceilings  # noqa: E402
from wirebench.report.results import InputError, read_results  # noqa: E402
from wirebench.report.switches import load_switches, write_switches  # noqa: E402
from wirebench.report.verdicts import judge  # noqa: E402
from wirebench.run.fleet_simulator import Fault, Fleet  # noqa: E402

CEILING = 0.025  # 200 Mbit/s
SUITE = {"expectations": [{"link_class": "eth", "ceiling_GBps": CEILING, "reason": "200 Mbit/s shaping",
                           "healthy_fraction": 0.8, "source": "tc shaping"}]}


def row(src, dst, fraction, ranks, number, at_once):
    bw = CEILING * fraction
    t = 262144 / (bw * 1e3)
    return (f"net,stream_bw,mpi,eth,{src},{dst},uni,send_recv,uint8,262144,{ranks},{ranks},640,{t:.7g},"
            f"{t * 0.995:.7g},{t * 1.005:.7g},{bw:.7g},{bw:.7g},0,pairs=listed;round={number};at_once={at_once},OK,,9,1\n")


def screened_rows(fleet, figures_of=None):
    """The rows of the runner's rounds against `fleet`, as wb-net writes them (both directions); the
    ranks grouped by the fleet's leaf switches, as the runner groups them from switches.json."""
    ranks = fleet.nodes
    names = [f"rank{r}" for r in range(ranks)]
    groups = {f"rank{r}": fleet.group(f"node{r}") for r in range(ranks)} if fleet.groups else None
    schedule = AdaptiveScreen(names, groups, healthy_fraction=0.8, seed=SEED)
    rows = []
    while (pairs := schedule.next_round()) is not None:
        by_node = fleet.measure([(f"node{a[4:]}", f"node{b[4:]}") for a, b in pairs])
        figures = {}
        for a, b in pairs:
            figure = by_node[(f"node{a[4:]}", f"node{b[4:]}")]
            if figures_of:
                figure = figures_of(len(schedule.rounds), a, b, figure)
            figures[(a, b)] = figure
            lo, hi = sorted((int(a[4:]), int(b[4:])))
            for x, y in ((lo, hi), (hi, lo)):
                rows.append(row(f"node{x}/rank{x}", f"node{y}/rank{y}", figure, ranks, len(schedule.rounds), len(pairs)))
        schedule.record(figures)
    return rows, schedule


def judged(tmp_path, rows, leaf_of=None):
    run = tmp_path / "run"
    run.mkdir(parents=True, exist_ok=True)
    if leaf_of:
        write_switches(run, leaf_of, "a test's fleet")
    (run / "results.csv").write_text(HEADER + "".join(rows))
    (run / "meta.json").write_text(json.dumps({"results_schema_version": 2}))
    (run / "suite.json").write_text(json.dumps(SUITE))
    return judge(read_results(run / "results.csv"), Ceilings.load(run))


def test_a_bad_node_found_by_the_screen_is_one_culprit_in_the_report(tmp_path):
    fleet = Fleet(12, 0, faults=[Fault("node", ("node5",), 0.5)], seed=2, dip_chance=0)
    rows, schedule = screened_rows(fleet)
    assert [f.name for f in schedule.findings()] == ["rank5"]
    verdicts = judged(tmp_path, rows)
    [culprit] = [v for v in verdicts if v.record]
    assert (culprit.record.subject, culprit.record.place) == ("node", "node5") and culprit.verdict == "FAIL"
    assert culprit.row.text("extra") == "pairs=adaptive"
    assert "every slow pair has node5 in it" in culprit.reason
    # Its slow rows are explained by it, not counted one by one; nothing else fails.
    assert all(v.explained_by == "node node5" for v in verdicts if "node5/" in v.row.text("src") + v.row.text("dst")
               and v.fraction is not None and v.fraction < 0.8)
    assert [v for v in verdicts if v.verdict == "FAIL" and not v.record] == []


def test_a_pair_slow_once_is_a_warn_that_did_not_reproduce(tmp_path):
    fleet = Fleet(8, 0, seed=1, dip_chance=0)
    dipped = []

    def dip_first_pair(number, a, b, figure):
        if number == 1 and not dipped:
            dipped.append((a, b))
            return 0.5
        return figure
    rows, schedule = screened_rows(fleet, dip_first_pair)
    assert schedule.findings() == [] and len(schedule.rounds) == 3
    verdicts = judged(tmp_path, rows)
    assert not [v for v in verdicts if v.record]
    slow = [v for v in verdicts if v.fraction is not None and v.fraction < 0.8]
    assert len(slow) == 2 and all(v.verdict == "WARN" and v.reason.startswith("slow once, not reproduced") for v in slow)


def test_a_round_slow_as_a_whole_gives_its_culprit_rows_to_the_culprit_and_warns_the_rest(tmp_path):
    """The CI's failure of 2026-12-05: a probe round whose control dipped (two cores carrying eight
    ranks) held the slow path's own pair; its rows were judged one by one, two FAILs beside the path's
    culprit. Now a culprit's pair in such a round is the culprit's row; another slow pair there (the
    control) is a WARN saying the round was slow as a whole."""
    names = [f"rank{i}" for i in range(8)]
    a, b = AdaptiveScreen(names, healthy_fraction=0.8, seed=SEED).next_round()[0]
    path = {f"node{a[4:]}", f"node{b[4:]}"}
    fleet = Fleet(8, 0, faults=[Fault("path", tuple(sorted(path)), 0.5)], seed=1, dip_chance=0)

    def slow_control(number, x, y, figure):
        planned = dict(schedule_rounds)
        return figure * 0.6 if number in planned and planned[number] == (x, y) else figure
    schedule_rounds = []
    probe = AdaptiveScreen(names, healthy_fraction=0.8, seed=SEED)
    # the first round that probes the path itself, with its control: find it without dips
    while (pairs := probe.next_round()) is not None:
        by_node = fleet.measure([(f"node{x[4:]}", f"node{y[4:]}") for x, y in pairs])
        if {a, b} in [set(p) for p in pairs] and len(probe.rounds) > 1 and not schedule_rounds:
            schedule_rounds.append((len(probe.rounds), pairs[-1]))  # its last pair is the control
        probe.record({(x, y): by_node[(f"node{x[4:]}", f"node{y[4:]}")] for x, y in pairs})
    assert schedule_rounds, "no round probed the path"
    rows, schedule = screened_rows(Fleet(8, 0, faults=fleet.faults, seed=1, dip_chance=0), slow_control)
    assert schedule.disturbed == [schedule_rounds[0][0]]
    assert [(f.kind, f.name) for f in schedule.findings()] == [("path", "-".join(sorted((a, b))))]
    verdicts = judged(tmp_path, rows)
    assert [v.verdict for v in verdicts if v.record] == ["FAIL"]
    assert [v for v in verdicts if v.verdict == "FAIL" and not v.record] == []
    in_the_round = [v for v in verdicts if f"round={schedule_rounds[0][0]};" in v.row.text("extra")
                    and {v.row.text("src").partition("/")[0], v.row.text("dst").partition("/")[0]} == path]
    assert len(in_the_round) == 2 and all(v.explained_by == f"path {'-'.join(sorted(path))}" for v in in_the_round)
    control = [v for v in verdicts if v.verdict == "WARN"]
    assert len(control) == 2 and all(v.reason.startswith("measured in a round slow as a whole") for v in control)


def test_rows_that_do_not_follow_the_schedule_are_judged_one_by_one(tmp_path):
    fleet = Fleet(12, 0, faults=[Fault("node", ("node5",), 0.5)], seed=2, dip_chance=0)
    rows, _ = screened_rows(fleet)
    verdicts = judged(tmp_path, rows[:-2])  # the last pair's rows lost: the schedule cannot be replayed
    assert not [v for v in verdicts if v.record]
    assert [v for v in verdicts if v.verdict == "FAIL"]  # the slow rows stand, each a FAIL of its own


def test_a_slow_route_between_two_switches_is_named_by_its_switches(tmp_path):
    fleet = Fleet(16, 4, faults=[Fault("route", ("leaf1", "leaf3"), 0.5)], seed=5, dip_chance=0)
    rows, schedule = screened_rows(fleet)
    assert [(f.kind, f.name) for f in schedule.findings()] == [("route", "leaf1-leaf3")]
    verdicts = judged(tmp_path, rows, leaf_of=fleet.groups)
    [culprit] = [v for v in verdicts if v.record]
    assert (culprit.record.subject, culprit.record.place) == ("route", "leaf1-leaf3") and culprit.verdict == "FAIL"
    assert "the route between the two switches" in culprit.reason
    from wirebench.report.wording import look_closer, what
    assert what(culprit).startswith("fabric culprit: the route leaf1-leaf3, from net stream_bw --pairs adaptive")
    assert "uplinks of switches leaf1 and leaf3" in look_closer(culprit)
    # Without the switches the runner planned with, the screen's rounds cannot be replayed.
    (tmp_path / "run" / "switches.json").unlink()
    assert not [v for v in judged(tmp_path, rows) if v.record]


def test_switches_json_of_another_version_or_shape_is_refused_with_its_path(tmp_path):
    assert load_switches(tmp_path) == {}
    write_switches(tmp_path, {"node0": "s0"}, "test")
    assert load_switches(tmp_path) == {"node0": "s0"}
    for text, problem in (('{"switches_schema_version": 2, "leaf_of": {}}', "switches_schema_version 2"),
                          ('{"switches_schema_version": 1, "leaf_of": ["node0"]}', "leaf_of must map"),
                          ("{", "not valid JSON")):
        (tmp_path / "switches.json").write_text(text)
        with pytest.raises(InputError, match=problem) as error:
            load_switches(tmp_path)
        assert str(tmp_path / "switches.json") in str(error.value)


def test_a_run_measured_with_an_earlier_schedule_replays_with_its_own(tmp_path):
    """Four nodes on two rails, node1's rail-0 NIC on rail 1's switch, its one wiring probe dipping: the
    schedule of today probes that rail again and names the miswire; schedule 2 (before 2026-12-05's
    second session) named a slow NIC. Rows measured by either replay with the schedule that measured
    them, never judged one by one."""
    from test_rails_screen import RailFabric, rounds_with_a_wiring_probe_dipped
    for schedule_version, named in ((3, "miswire:node1/rail0@rail1"), (2, "nic:node1/rail0")):
        fabric = RailFabric(4, 2, slow={"rank7"}, miswired={"rank2": 1}, seed=1)
        schedule = AdaptiveScreen(fabric.names, rails=fabric.rails, healthy_fraction=0.8, seed=SEED,
                                  schedule=schedule_version)
        rows = []
        for figures in rounds_with_a_wiring_probe_dipped(fabric, schedule):
            for (a, b), figure in figures.items():
                lo, hi = sorted((int(a[4:]), int(b[4:])))
                for x, y in ((lo, hi), (hi, lo)):
                    rows.append(row(f"node{x // 2}/rank{x}", f"node{y // 2}/rank{y}", figure, 8, len(schedule.rounds),
                                    len(figures)))
        verdicts = judged(tmp_path / str(schedule_version), rows)
        found = sorted(f"{kind}:{name}" for kind, name, _ in replay(screen_members(verdicts)) if kind not in
                       ("transient", "disturbed"))
        assert found == sorted([named, "nic:node3/rail1"]), (schedule_version, found)
