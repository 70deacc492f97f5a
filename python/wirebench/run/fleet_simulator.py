"""A fleet on paper: N nodes under leaf switches, links of a given rate and noise, faults planted, and
a schedule (wirebench.run.adaptive_screen) run against it. No MPI: the planner's tests, and the
estimate of what a screen of N nodes costs, use it.

A pair's figure is the fraction of its ceiling that a stream both ways between the two nodes reads
(the lower direction), as wb-net --pairs all's rows are judged:
  healthy   HEALTHY, times each node's own spread (NIC to NIC, fixed for the fleet: `spread`), times
            the measurement's noise (`noise`); now and then (`dip_chance`) a transient - another
            job, a retransmit storm - drags one measurement down to DIP_RANGE of itself;
  faults    a slow node (its NIC or its cable: every pair with it), a slow route (every pair between
            two leaf switches), a slow path (one node pair), each times its factor; a flaky fault
            is slow in a share of the measurements only.
With rails (`rails` R: a rail-optimised fabric, a member per NIC named node3/rail1, NIC r on rail r's
switch, the switches meeting at a spine that gives a pair across two switches SPINE of a healthy
figure, as ci/vcluster up --rails shapes it): a slow NIC (every pair with it), a slow rail (every
pair with a NIC on its switch), a miswire (a NIC on another rail's switch, so its own rail reaches it
through the spine and that rail's NICs directly)."""
import argparse
import random
import statistics
import sys
from dataclasses import dataclass, field

from wirebench.report.adaptive_screen import AdaptiveScreen
from wirebench.report.endpoints import nic_name, node_of, parse
from wirebench.contracts.schema import ExitCode

HEALTHY = 0.94          # what a healthy pair reads of its ceiling (a 400 Gbit/s port's osu_bw, about)
DIP_RANGE = (0.45, 0.85)
SPINE = 0.5             # rails: a pair across two rail switches, through an oversubscribed spine


@dataclass
class Fault:
    kind: str            # node, route, path; with rails nic, rail, miswire
    where: tuple         # (node,), (group, group), (node, node); (nic,), (rail,), (nic,)
    factor: float = 0.5  # the figure's share left
    chance: float = 1.0  # the share of measurements it is slow in (below 1: flaky)
    to: int = -1         # miswire: the rail whose switch the NIC is on

    @property
    def name(self):
        return "-".join(sorted(self.where)) if len(self.where) == 2 else self.where[0]


@dataclass
class Fleet:
    nodes: int
    group_size: int = 0          # nodes per leaf switch; 0: one switch for all
    spread: float = 0.015
    noise: float = 0.01
    dip_chance: float = 0.005
    faults: list = field(default_factory=list)
    seed: int = 1
    rails: int = 0               # NICs per node, one member each (0: a member per node, no rails)

    def __post_init__(self):
        self.random = random.Random(f"fleet {self.seed}")  # not the schedule's stream (seeded with the number)
        if self.rails:
            self.names = [nic_name(f"node{i}", r) for i in range(self.nodes) for r in range(self.rails)]
            self.rail_of = {n: (parse(n).node, parse(n).index) for n in self.names}
            self.switch = {n: rail for n, (_, rail) in self.rail_of.items()}
            self.switch.update({f.where[0]: f.to for f in self.faults if f.kind == "miswire"})
            self.groups = None
        else:
            self.names = [f"node{i}" for i in range(self.nodes)]
            self.rail_of = None
            self.groups = ({n: f"leaf{i // self.group_size}" for i, n in enumerate(self.names)}
                           if self.group_size else None)
        self.own = {n: min(1.02, self.random.gauss(1, self.spread)) for n in self.names}

    def group(self, node):
        return self.groups[node] if self.groups else ""

    def measure(self, pairs):
        """{(a, b): figure} for a round of disjoint pairs."""
        seen = [n for pair in pairs for n in pair]
        if len(seen) != len(set(seen)):
            raise ValueError("a round holds a node twice")
        return {(a, b): self._figure(a, b) for a, b in pairs}

    def _figure(self, a, b):
        figure = HEALTHY * min(self.own[a], self.own[b]) * self.random.gauss(1, self.noise)
        if self.random.random() < self.dip_chance:
            figure *= self.random.uniform(*DIP_RANGE)
        if self.rails and self.switch[a] != self.switch[b]:
            figure *= SPINE
        for fault in self.faults:
            if self._hits(fault, a, b) and self.random.random() < fault.chance:
                figure *= fault.factor
        return figure

    def _hits(self, fault, a, b):
        if fault.kind in ("node", "nic"):
            return fault.where[0] in (a, b)
        if fault.kind == "miswire":
            return False  # its switch is the fault: the spine (SPINE) slows what leaves it
        if fault.kind == "rail":
            return fault.where[0] in (f"rail{self.switch[a]}", f"rail{self.switch[b]}")
        if fault.kind == "route":
            return {self.group(a), self.group(b)} == set(fault.where) and self.group(a) != self.group(b)
        return {a, b} == set(fault.where)


def screen(fleet, healthy_fraction=0.8, seed=1, max_rounds=12):
    """Runs the adaptive schedule against `fleet`; returns the finished AdaptiveScreen."""
    schedule = AdaptiveScreen(fleet.names, fleet.groups, healthy_fraction=healthy_fraction, max_rounds=max_rounds,
                              seed=seed, rails=fleet.rail_of)
    while (pairs := schedule.next_round()) is not None:
        schedule.record(fleet.measure(pairs))
    return schedule


@dataclass
class Outcome:
    rounds: int
    found: list           # planted faults named, of the right kind
    missed: list          # planted faults not named
    false: list           # findings that name no planted fault, nor a place of one
    wrong_kind: list      # findings at a planted fault's place, of another kind (a flaky node named as its path)


def score(fleet, schedule):
    """Which planted faults the schedule named, which it missed, and what it named that was not there."""
    named = {(f.kind, f.name): f for f in schedule.findings()}

    def right(fault):
        finding = named.get((fault.kind, fault.name))
        return finding is not None and (fault.kind != "miswire" or finding.wired_to == str(fault.to))
    found = [f for f in fleet.faults if right(f)]
    missed = [f for f in fleet.faults if not right(f)]
    planted = {(f.kind, f.name) for f in fleet.faults}
    places = {n for f in fleet.faults for n in f.where} | {node_of(n) or n for f in fleet.faults for n in f.where}
    extra = [f for key, f in named.items() if key not in planted]
    wrong_kind = [f for f in extra if set(f.name.split("-")) & places]
    false = [f for f in extra if f not in wrong_kind]
    return Outcome(len(schedule.rounds), found, missed, false, wrong_kind)


def planted(fleet_nodes, group_size, kinds, rng):
    """Faults of `kinds` (node, route, path; flaky: a node slow in half the measurements) at random
    places: no two on one node, no route twice.
    Raises ValueError when the fleet has too few leaf switches for the routes asked."""
    names = [f"node{i}" for i in range(fleet_nodes)]
    groups = max(1, fleet_nodes // group_size) if group_size else 1
    if kinds.count("route") > groups * (groups - 1) // 2:
        raise ValueError(f"{kinds.count('route')} slow routes need more than {groups} leaf switches")
    faults, taken = [], set()
    for kind in kinds:
        while True:
            if kind == "route":
                where = tuple(sorted(f"leaf{g}" for g in rng.sample(range(groups), 2)))
                clash = where in taken
            else:
                where = tuple(rng.sample(names, 2 if kind == "path" else 1))
                clash = bool(set(where) & taken)
            if not clash:
                taken |= {where} if kind == "route" else set(where)
                break
        chance = 0.5 if kind == "flaky" else 1.0
        faults.append(Fault("node" if kind == "flaky" else kind, where, factor=rng.uniform(0.3, 0.7), chance=chance))
    return faults


def planted_on_rails(fleet_nodes, rails, kinds, rng):
    """Faults of `kinds` (nic, miswire, rail) on a fleet with rails, at random places: no NIC twice, and
    a slow rail apart from the other faults (a slow rail hides what else is wrong on it: no NIC on it
    is healthy to tell its NICs apart)."""
    faults, taken, slow_rails, used_rails = [], set(), set(), set()
    for kind in kinds:
        while True:
            rail = rng.randrange(rails)
            nic = f"node{rng.randrange(fleet_nodes)}/rail{rail}"
            to = rng.choice([r for r in range(rails) if r != rail])
            if kind == "rail" and rail not in used_rails | slow_rails:
                break
            if kind != "rail" and nic not in taken and rail not in slow_rails and (kind != "miswire" or to not in slow_rails):
                break
        if kind == "rail":
            slow_rails.add(rail)
            faults.append(Fault("rail", (f"rail{rail}",), factor=rng.uniform(0.3, 0.7)))
            continue
        taken.add(nic)
        used_rails |= {rail, to} if kind == "miswire" else {rail}
        faults.append(Fault("miswire", (nic,), to=to) if kind == "miswire" else
                      Fault(kind, (nic,), factor=rng.uniform(0.3, 0.7)))
    return faults


def trial(nodes, group_size, kinds, seed, rails=0, **fleet_options):
    rng = random.Random(seed)
    faults = planted_on_rails(nodes, rails, kinds, rng) if rails else planted(nodes, group_size, kinds, rng)
    fleet = Fleet(nodes, 0 if rails else group_size, faults=faults, seed=seed, rails=rails, **fleet_options)
    return score(fleet, screen(fleet, seed=seed))


def summary_table(sizes, fleets, group_size, fault_sets, round_seconds=None, rails=0):
    """The table the command prints: per fleet size and planted faults, rounds and what was named
    (with `rails`, sizes are nodes, each with that many NICs)."""
    lines = [f"{'nodes':>6} {'planted':<22} {'fleets':>6} {'rounds (median, max)':>21} {'found':>9} "
             f"{'false culprits':>15} {'wrong kind':>10}" + (f" {'wall time (max)':>16}" if round_seconds else "")]
    for nodes in sizes:
        for kinds in fault_sets:
            if kinds.count("route") > 0 and group_size and (nodes // group_size) < 3:
                continue  # too few leaf switches for routes to tell apart
            outcomes = [trial(nodes, group_size, kinds, seed, rails=rails) for seed in range(1, fleets + 1)]
            rounds = [o.rounds for o in outcomes]
            found = sum(len(o.found) for o in outcomes)
            wanted = sum(len(o.found) + len(o.missed) for o in outcomes)
            false = sum(len(o.false) for o in outcomes)
            wrong = sum(len(o.wrong_kind) for o in outcomes)
            label = "+".join(kinds) if kinds else "nothing (healthy)"
            line = (f"{nodes:>6} {label:<22} {fleets:>6} {statistics.median(rounds):>14g}, {max(rounds):>4} "
                    f"{found:>4}/{wanted:<4} {false:>15} {wrong:>10}")
            if round_seconds:
                line += f" {max(rounds) * round_seconds(nodes):>14.0f} s"
            lines.append(line)
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m wirebench.run.fleet_simulator",
                                     description="The adaptive screen against simulated fleets with planted faults.")
    parser.add_argument("--nodes", default="64,256,1024", help="fleet sizes, comma-separated")
    parser.add_argument("--fleets", type=int, default=100, help="fleets per size and fault set (seeds 1..N)")
    parser.add_argument("--group-size", type=int, default=32, help="nodes per leaf switch (0: one switch)")
    parser.add_argument("--rails", type=int, default=0,
                        help="NICs per node on a rail-optimised fabric (a member per NIC; faults nic, miswire, rail)")
    parser.add_argument("--round-seconds", type=float,
                        help="what one round takes, for the wall time column: the `adaptive` row's wall time in "
                             "`wb-net --plan N` at the sizes and tests the screen runs, plus a job launch")
    args = parser.parse_args(argv)
    sets = [(), ("node",), ("route",), ("node", "node", "node"), ("node", "node", "route"), ("node", "route", "route"),
            ("flaky",), ("path",)]
    if args.rails:
        sets = [(), ("nic",), ("miswire",), ("rail",), ("nic", "nic", "miswire"), ("nic", "miswire", "rail")]
    seconds = (lambda nodes: args.round_seconds) if args.round_seconds else None
    print(summary_table([int(n) for n in args.nodes.split(",")], args.fleets, args.group_size, sets, seconds,
                        rails=args.rails))
    return ExitCode.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
