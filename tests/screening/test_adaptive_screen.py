"""The adaptive screen (python/wirebench/report/adaptive_screen.py) against simulated fleets
(python/wirebench/run/fleet_simulator.py): the bad nodes and routes of a thousand nodes in a few rounds,
no false culprit in healthy fleets, every round a set of disjoint pairs (ctest label: unit)."""
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.report.adaptive_screen import AdaptiveScreen  # noqa: E402
from wirebench.run.fleet_simulator import Fault, Fleet, planted, score, screen, trial  # noqa: E402

LEAF = 32  # nodes per leaf switch: a 64-port switch, half of it down to the nodes


@pytest.mark.parametrize("kinds", [("node",), ("route",), ("node", "node", "node"), ("node", "node", "route"),
                                   ("node", "route", "route"), ("route", "route", "route")])
def test_up_to_three_bad_nodes_or_routes_of_1024_are_found_in_12_rounds(kinds):
    for seed in range(1, 31):
        outcome = trial(1024, LEAF, kinds, seed)
        assert not outcome.missed, f"seed {seed}: missed {outcome.missed}"
        assert not outcome.false, f"seed {seed}: named {[str(f) for f in outcome.false]}"
        assert outcome.rounds <= 12, f"seed {seed}: {outcome.rounds} rounds"


def test_no_false_culprit_in_100_healthy_fleets_of_1024_and_few_rounds():
    rounds = []
    for seed in range(1, 101):
        fleet = Fleet(1024, LEAF, seed=seed)
        schedule = screen(fleet, seed=seed)
        assert schedule.findings() == [], f"seed {seed}: {[str(f) for f in schedule.findings()]}"
        rounds.append(len(schedule.rounds))
    # Two screen rounds cover the 528 leaf pairs; a transient costs an isolate and a confirm round.
    assert max(rounds) <= 12
    assert sorted(rounds)[50] <= 5, rounds


def test_a_fleet_with_one_switch_screens_in_one_round_and_names_a_bad_node_in_three():
    fleet = Fleet(64, 0, faults=[Fault("node", ("node17",), 0.5)], seed=4, dip_chance=0)
    schedule = screen(fleet, seed=4)
    assert [purpose for purpose, _ in schedule.rounds] == ["screen", "isolate", "confirm"]
    [finding] = schedule.findings()
    assert (finding.kind, finding.name, finding.intermittent) == ("node", "node17", False)
    # Slow with its screen partner and with two healthy nodes; never fast.
    assert [o.slow for o in finding.evidence] == [True, True, True]
    assert len({o.b if o.a == "node17" else o.a for o in finding.evidence}) == 3


def test_every_round_is_disjoint_pairs_and_each_node_is_screened():
    fleet = Fleet(256, LEAF, faults=planted(256, LEAF, ("node", "route", "route"), random.Random(7)), seed=7)
    schedule = screen(fleet, seed=7)  # Fleet.measure refuses a round that holds a node twice
    screened = {n for purpose, pairs in schedule.rounds if purpose == "screen" for pair in pairs for n in pair}
    assert screened == set(fleet.names)
    covered = {frozenset((fleet.group(a), fleet.group(b))) for purpose, pairs in schedule.rounds
               if purpose == "screen" for a, b in pairs}
    leaves = sorted(set(fleet.groups.values()))
    assert covered == {frozenset((x, y)) for x in leaves for y in leaves}, "every pair of leaves, each leaf with itself"


def test_the_same_seed_gives_the_same_rounds():
    def rounds(seed):
        fleet = Fleet(128, LEAF, faults=[Fault("node", ("node3",))], seed=seed)
        return screen(fleet, seed=seed).rounds
    assert rounds(5) == rounds(5)
    assert rounds(5) != rounds(6)


def test_a_slow_path_between_two_screened_nodes_is_the_path_not_either_node():
    # The path must be on a screen pair to be seen: plant it on one the schedule measures first.
    names = [f"node{i}" for i in range(16)]
    probe = AdaptiveScreen(names, seed=3)
    a, b = probe.next_round()[0]
    fleet = Fleet(16, 0, faults=[Fault("path", (a, b), 0.4)], seed=3, dip_chance=0)
    schedule = screen(fleet, seed=3)
    assert [(f.kind, f.name) for f in schedule.findings()] == [("path", "-".join(sorted((a, b))))]
    # Each node was fast with healthy nodes before the path was named.
    for node in (a, b):
        partners = [o for o in schedule.observations if node in (o.a, o.b) and {o.a, o.b} != {a, b}]
        assert partners and not any(o.slow for o in partners if o.purpose != "screen")


def test_a_transient_on_one_pair_is_cleared_not_named():
    figures = iter([])

    class OnceSlow(Fleet):
        def _figure(self, x, y):
            nonlocal figures
            return next(figures, 0.94)
    fleet = OnceSlow(8, 0, seed=1)
    schedule = AdaptiveScreen(fleet.names, healthy_fraction=0.8, seed=1)
    pairs = schedule.next_round()
    figures = iter([0.5] + [0.94] * (len(pairs) - 1))  # the screen's first pair dips, once
    schedule.record(fleet.measure(pairs))
    while (pairs := schedule.next_round()) is not None:
        schedule.record(fleet.measure(pairs))
    assert schedule.findings() == []
    # The screen; its two nodes with healthy ones; the pair itself again, fast: a transient.
    assert [purpose for purpose, _ in schedule.rounds] == ["screen", "isolate", "isolate"]


def test_most_of_the_fleet_slow_is_the_fabric_not_a_list_of_nodes():
    slow = [Fault("node", (f"node{i}",), 0.5) for i in range(0, 64, 2)]
    fleet = Fleet(64, 0, faults=slow, seed=2, dip_chance=0)
    schedule = screen(fleet, seed=2)
    assert [(f.kind, f.name) for f in schedule.findings()] == [("fabric", "all")]
    assert len(schedule.rounds) == 1


def test_a_screen_needs_three_nodes():
    with pytest.raises(ValueError, match="three nodes"):
        AdaptiveScreen(["node0", "node1"])


def test_score_tells_a_false_culprit_from_a_wrong_kind():
    fleet = Fleet(8, 0, faults=[Fault("node", ("node1",))], seed=1)

    class Named:
        def __init__(self, *findings):
            self._findings, self.rounds = list(findings), [()]

        def findings(self):
            return self._findings
    from wirebench.report.adaptive_screen import Finding
    outcome = score(fleet, Named(Finding("path", "node1-node4", True, []), Finding("node", "node6", False, [])))
    assert [f.name for f in outcome.wrong_kind] == ["node1-node4"]
    assert [f.name for f in outcome.false] == ["node6"]
    assert outcome.missed == fleet.faults


def test_a_route_between_two_switches_of_two_nodes_each_is_found():
    # Every node of both switches met the route in the screen: its probe reuses them once cleared.
    for seed in range(1, 11):
        fleet = Fleet(6, 2, faults=[Fault("route", ("leaf0", "leaf2"), 0.5)], seed=seed, dip_chance=0)
        schedule = screen(fleet, seed=seed)
        assert [(f.kind, f.name) for f in schedule.findings()] == [("route", "leaf0-leaf2")], seed
        assert len(schedule.rounds) <= 6
