"""The bad node in a thousand without measuring every pair: screen, isolate, confirm.

--pairs all measures every node pair, n-1 rounds (1,023 on 1,024 nodes); a fault is rarer than
that. This schedule measures every node at once and then looks closer only where a pair was slow:
  screen   disjoint pairs covering every node and, when nodes sit in groups (a leaf switch), every
           pair of groups: one round, two where the group pairs outnumber a round's pairs;
  isolate  each node of a slow pair with a node already seen healthy (from a group other than its
           partner's), and across two groups a healthy pair on the same two groups: the node, the
           route between the groups, or the path between the two nodes;
  confirm  each suspect measured again, against a healthy node it has not met (node), another
           healthy pair on the route (route), the pair itself (path), until it is decided.
A round can be slow as a whole for a moment (a shared fabric's burst; on the virtual cluster, eight
ranks competing for two cores): from schedule 2 (SCHEDULE), the screen's finding that most pairs
are slow, the fabric (with rails, a rail), stands only when most pairs are slow in both looks (the
same pairs measured again) and, from schedule 3, FABRIC_PAIRS are; on a few nodes, whose screen is one
or two pairs, every pair slow makes new pairs until one is fast. Each isolate or confirm round holds a
control, two nodes already seen healthy (with rails two NICs of one rail) where two are spare: when
the control is slow too, the round says nothing about its suspects, whose probes the next round plans
anew.
A suspect is decided by its probes (the screen's pair only raised it): a culprit is slow in
CULPRIT_PROBES probes and fast in none; fast in its probes, it is cleared (slow once and fast twice:
a transient); slow in CULPRIT_PROBES and fast in some, it is named intermittent. A round never holds a node twice, so each round is one `--pairs` round of
disjoint pairs, measured at the same time as --pairs all's rounds are.
Slow is the reporter's fleet rule (fleet_rule.py, as the matrix culprits judge): against the screen's median and MAD,
or below the healthy fraction of the ceiling. Figures are read as fractions of the ceiling when
`healthy_fraction` is given, else as they come (a higher figure is a better pair).
What it cannot see: a fault between two nodes only (one cable or route) is found when the screen
pairs them; the screen covers every node and every group pair, not every node pair.
Rails (`rails`: {member: (node, rail)}, a member per NIC of a rail-optimised fabric): the rail is the
group, and every pair stays on its rail (the screen and every probe), as a job's traffic does; the
members are NICs. A NIC found slow is then measured with a healthy NIC of each other rail in turn
(WIRING_PROBES, one rail a round, every slow NIC in the same rounds; with WIRING_AGAIN other rails or
fewer, each twice): fast with rail K's NICs while slow with its own, it is cabled to rail K's switch (a
miswire); slow with them all, it is the NIC
(its port, cable or slot). Every NIC of a node slow is the node; three quarters of a rail's screen
pairs slow (in both looks) is the rail (its switch)."""
import random
from dataclasses import dataclass, field

from .fleet_rule import below_ceiling, below_fleet, fleet_reference

CULPRIT_PROBES = 2    # a culprit is slow in this many probes after the screen, and fast in none
PATH_NODE_FAST = 3    # a path is named when each of its nodes is fast in this many probes
FABRIC_SHARE = 0.75   # this share of the screen's pairs slow: the fabric, not a culprit
FABRIC_PAIRS = 3      # and this many at least: fewer slow pairs are as many nodes at most (three nodes
                      # screen one pair; four, two: one slow node was the fabric)
MAX_ROUNDS = 12
WIRING_PROBES = 7     # rails: a slow NIC is measured with a healthy NIC of up to this many other rails,
                      # one a round, until one is fast (8 rails: every other; a slow NIC costs them all)
WIRING_AGAIN = 2      # rails: with this many other rails or fewer, each is probed twice before a NIC slow
                      # with them all is named the NIC: one dip would make a miswire a slow NIC


@dataclass(frozen=True)
class Observation:
    round: int
    purpose: str          # screen, isolate, confirm; with rails also wiring
    a: str
    b: str
    figure: float
    slow: bool


@dataclass
class Suspect:
    """What one slow screen pair may mean, with the probes that decide it. Only probes count: the
    screen's pair raised the suspicion (its partner was not known to be healthy)."""
    kind: str             # node, route, path
    name: str             # node3, leaf2-leaf7, node3-node9
    members: tuple        # the node (node), the two groups (route), the two nodes (path)
    slow: int = 0
    fast: int = 0
    partners: set = field(default_factory=set)  # nodes it was measured with (node), nodes used (route)
    evidence: list = field(default_factory=list)
    explained_by: str = ""  # a path whose slowness a node or route culprit explains
    fast_to_clear: int = 1  # raised for the nodes of a path about to be named: a flaky node is no path
    wiring: dict = field(default_factory=dict)  # rails: {other rail: [Observation]} of a slow NIC

    def state(self):
        if self.explained_by:
            return "explained"
        if self.slow == 0 and self.fast >= self.fast_to_clear or self.slow == 1 and self.fast >= self.fast_to_clear + 1:
            return "cleared"
        if self.slow >= CULPRIT_PROBES:
            return "intermittent" if self.fast else "culprit"
        return "open"


@dataclass
class Finding:
    kind: str             # node, route, path, fabric, unresolved; with rails nic, miswire, node, rail
    name: str             # with rails: a NIC's member name (nic, miswire), a node's name (node)
    intermittent: bool
    evidence: list        # the observations that decided it
    wired_to: str = ""    # miswire: the rail whose switch the NIC is on

    def __str__(self):
        slow = sum(o.slow for o in self.evidence)
        kind = f"{self.kind} (intermittent)" if self.intermittent else self.kind
        text = f"{kind} {self.name}: slow in {slow} of {len(self.evidence)} measurements"
        return text + (f", fast with rail {self.wired_to}'s NICs" if self.kind == "miswire" else "")


MIN_NODES = 3  # two nodes cannot tell a node from its path
# The schedule's versions, each replayable (screen_rows.replay): 1 without controls or second looks
# (runs before 2026-12-05); 2 with them; 3 (2026-12-05, session 25) also a control on rails, each other
# rail probed twice where there are one or two, a suspect that has met every healthy node probed with
# one it was not slow with in a probe, and on a few nodes new pairs before the fabric (FABRIC_PAIRS).
SCHEDULE = 3


class AdaptiveScreen:
    """The schedule as a state machine: next_round() gives the pairs to measure at once (None when
    every suspect is decided), record() takes their figures, findings() names the culprits."""

    def __init__(self, nodes, groups=None, healthy_fraction=None, max_rounds=MAX_ROUNDS, seed=1, rails=None,
                 schedule=SCHEDULE):
        if len(nodes) < MIN_NODES:
            raise ValueError("an adaptive screen needs three nodes at least: two cannot tell a node from its path")
        self.nodes = list(nodes)
        self.rails = dict(rails) if rails else None
        if self.rails and groups:
            raise ValueError("rails are the groups of a rail-optimised fabric: give rails or groups, not both")
        if self.rails:
            groups = {n: self.rails[n][1] for n in self.nodes}
        self.group = dict(groups) if groups else {n: "" for n in self.nodes}
        self.healthy_fraction = healthy_fraction
        self.max_rounds = max_rounds
        self.random = random.Random(seed)
        self.observations = []
        self.rounds = []            # (purpose, [(a, b)]) per round, as measured
        self.healthy = set()        # nodes seen fast with a partner
        self.suspects = {}          # name -> Suspect
        self.reference = None       # (median, MAD) of the screen's figures
        self.fabric = False
        self.slow_rails = {}        # rails: {rail: its slow screen observations}
        self._uncovered = [] if self.rails else self._group_pairs()
        self._unseen = set(self.nodes)
        self._pending = None        # the round handed out: [(a, b, purpose, suspects)]
        self.schedule = schedule
        self.second_look = schedule >= 2  # controls in the probe rounds; a fabric screen measured again
        self.disturbed = []         # rounds whose control was slow: their probes did not count
        self.set_aside = []         # those rounds' probes, as measured: evidence of nothing
        self._again = []            # the screen's rounds of pairs, to measure once more
        self.looked_again_after = None  # the round after which the screen's pairs were measured again
        self._void = 0              # observations before this index are no screen evidence any more
        self._slow_first = None     # with a second look: the pairs the first look found slow
        self.new_pair_rounds = []   # screen rounds of new pairs (a small fleet's every pair slow): they find
                                    # healthy partners; the fabric is the covering screen's to say

    # -- the rounds ------------------------------------------------------------------------------
    def next_round(self):
        if self._pending is not None:
            raise RuntimeError("record() the round handed out before asking for the next")
        if self.fabric or len(self.rounds) >= self.max_rounds:
            return None
        if self._again:
            planned = [(a, b, "screen", ()) for a, b in self._again.pop(0)]
        elif self._uncovered or not self.rounds:
            planned = self._screen_round()
        elif not self.healthy and not self.rails and self.schedule >= 3:
            # Every pair slow, too few for the fabric: no partner is known healthy. New pairs find one;
            # FABRIC_PAIRS slow (or every pair) and still none, they are all measured again, then the fabric.
            slow = {frozenset((o.a, o.b)) for o in self.observations[self._void:] if o.purpose == "screen" and o.slow}
            planned = [] if len(slow) >= FABRIC_PAIRS else self._new_pairs_round()
            if not planned and self.looked_again_after is None:  # a dip of the healthy pairs, or the fabric
                self._look_again(len(self.rounds), [o for o in self.observations if o.purpose == "screen"])
                planned = [(a, b, "screen", ()) for a, b in self._again.pop(0)]
            elif not planned:
                self.fabric = True
                return None
            else:
                self.new_pair_rounds.append(len(self.rounds) + 1)
        else:
            planned = self._closer_round()
        if not planned:
            return None
        self._pending = planned
        purposes = sorted({purpose for _, _, purpose, _ in planned},
                          key=["screen", "isolate", "confirm", "wiring", "control"].index)
        self.rounds.append(("+".join(purposes), [(a, b) for a, b, _, _ in planned]))
        return [(a, b) for a, b, _, _ in planned]

    def record(self, figures):
        """figures: {(a, b): figure} for every pair of the round handed out."""
        planned, self._pending = self._pending, None
        number = len(self.rounds)
        if planned[0][2] == "screen":
            screen_figures = [figures[(a, b)] for a, b, _, _ in planned]
            earlier = [o.figure for o in self.observations[self._void:] if o.purpose == "screen"]
            self.reference = fleet_reference(earlier + screen_figures)
        observed = [Observation(number, p, a, b, figures[(a, b)], self._slow(figures[(a, b)])) for a, b, p, _ in planned]
        control = [o for o in observed if o.purpose == "control"]
        if any(o.slow for o in control):  # the round was slow as a whole: its probes say nothing
            self.observations += control
            self.disturbed.append(number)
            self.set_aside += [o for o in observed if o.purpose != "control"]
            return
        for observation, (a, b, purpose, suspects) in zip(observed, planned):
            self.observations.append(observation)
            self._unseen -= {a, b}
            if purpose == "control":
                continue
            if purpose == "screen":
                self._after_screen(observation)
            elif purpose == "wiring":
                self.suspects[f"node {a}"].wiring.setdefault(self.group[b], []).append(observation)
            else:
                self._after_probe(observation, suspects)
        if planned[0][2] == "screen" and not self._uncovered and not self._again:
            screened = [o for o in self.observations[self._void:]
                        if o.purpose == "screen" and o.round not in self.new_pair_rounds]
            # After a second look, a pair is the fabric's only when slow both times: a dip of one
            # pair in each look (two cores carrying eight ranks) is no fabric.
            steady = [o for o in screened if o.slow and (self._slow_first is None or (o.a, o.b) in self._slow_first)]
            slow_share = len(steady) / len(screened)
            self._find_slow_rails(screened, steady)
            suspects = {n for o in steady for n in (o.a, o.b) if self.group[n] not in self.slow_rails}
            fabric = slow_share >= FABRIC_SHARE or len(suspects) > len(self.nodes) / 2
            fabric = fabric and (self.schedule < 3 or len(steady) >= FABRIC_PAIRS)
            if (fabric or self.slow_rails) and self.second_look and self.looked_again_after is None:
                # Most pairs slow at once: the fabric, or a moment of the whole round. The same pairs
                # measured again tell them apart; the first figures judge nothing more.
                self._look_again(number, screened)
                return
            self.fabric = fabric

    def _look_again(self, number, screened):
        """The screen's rounds measured once more, from a clean slate; `screened`: what they measured."""
        self.looked_again_after = number
        self._slow_first = {(o.a, o.b) for o in screened if o.slow}
        self._again = [pairs for purpose, pairs in self.rounds if purpose == "screen"]
        self.suspects, self.healthy, self.reference, self.slow_rails = {}, set(), None, {}
        self._unseen, self._void, self.new_pair_rounds = set(self.nodes), len(self.observations), []

    def _find_slow_rails(self, screened, steady):
        """With rails: a rail whose screen pairs are FABRIC_SHARE slow (`steady`: slow, and after a
        second look slow both times; two pairs at least) is the rail, its switch or its cabling; its
        NICs' suspicions are explained by it (no healthy NIC is left on it to tell them apart)."""
        if not self.rails:
            return
        for rail in sorted(set(self.group.values())):
            mine = [o for o in screened if self.group[o.a] == rail]
            slow = [o for o in mine if o in steady]
            if len(mine) >= 2 and len(slow) >= FABRIC_SHARE * len(mine):
                self.slow_rails[rail] = slow
        for suspect in self.suspects.values():
            if all(self.group[m] in self.slow_rails for m in suspect.members if m in self.group):
                suspect.explained_by = f"rail {self.group[suspect.members[0]]}"

    def findings(self):
        if self.fabric:
            return [Finding("fabric", "all", False, [o for o in self.observations if o.slow])]
        out = []
        for suspect in self.suspects.values():
            state = suspect.state()
            if state in ("culprit", "intermittent"):
                out.append(self._finding(suspect, state == "intermittent"))
            elif state == "open":
                out.append(Finding("unresolved", f"{suspect.kind} {suspect.name}", False, suspect.evidence))
        out += [Finding("rail", f"rail{rail}", False, evidence) for rail, evidence in self.slow_rails.items()]
        return sorted(self._whole_nodes(out), key=lambda f: (f.kind, f.name))

    def covers(self, finding, a, b):
        """Whether the pair a-b runs over what `finding` names: its node or NIC, its path, its route
        between two groups, its rail; the fabric covers every pair."""
        if finding.kind in ("node", "nic", "miswire"):
            return finding.name in (a, b)
        if finding.kind == "path":
            return set(finding.name.split("-")) == {a, b}
        if finding.kind == "route":
            return {self.group[a], self.group[b]} == set(finding.name.split("-")) and self.group[a] != self.group[b]
        if finding.kind == "rail":
            return f"rail{self.group[a]}" == finding.name
        return finding.kind == "fabric"

    def _finding(self, suspect, intermittent):
        if not self.rails or suspect.kind != "node":
            return Finding(suspect.kind, suspect.name, intermittent, suspect.evidence)
        fast = sorted(rail for rail, probes in suspect.wiring.items() if any(not o.slow for o in probes))
        wiring = [o for probes in suspect.wiring.values() for o in probes]
        if fast and not intermittent:
            return Finding("miswire", suspect.name, False, suspect.evidence + wiring, wired_to=str(fast[0]))
        return Finding("nic", suspect.name, intermittent, suspect.evidence + wiring)

    def _whole_nodes(self, findings):
        """With rails, every NIC of a node slow (none miswired) is the node: its host, not R cables."""
        if not self.rails:
            return findings
        slow_nics = {}
        for f in findings:
            if f.kind == "nic" and not f.intermittent:
                slow_nics.setdefault(self.rails[f.name][0], []).append(f)
        whole = {node: slow for node, slow in slow_nics.items() if len(slow) == self._nics_of(node) > 1}
        out = [f for f in findings if not any(f in slow for slow in whole.values())]
        return out + [Finding("node", node, False, [o for f in slow for o in f.evidence]) for node, slow in whole.items()]

    def _nics_of(self, node):
        return sum(1 for n in self.nodes if self.rails[n][0] == node)

    # -- slow, by the reporter's fleet rule ------------------------------------------------------
    def _slow(self, figure):
        if below_ceiling(figure if self.healthy_fraction is not None else None, self.healthy_fraction):
            return True
        return self.reference is not None and below_fleet(figure, self.reference)

    # -- screen ----------------------------------------------------------------------------------
    def _group_pairs(self):
        groups = sorted(set(self.group.values()))
        if len(groups) < 2:
            return []
        # Spread in offsets, as the circle schedule does: each group meets every other, itself too.
        return [(groups[i], groups[(i + k) % len(groups)]) for k in range(len(groups) // 2 + 1)
                for i in range(len(groups)) if k < (len(groups) + 1) // 2 or i < len(groups) // 2]

    def _screen_round(self):
        free = {}
        for node in self.random.sample(self.nodes, len(self.nodes)):
            free.setdefault(self.group[node], []).append(node)
        pairs, still = [], []
        for a_group, b_group in self._uncovered:
            enough = len(free.get(a_group, [])) >= (2 if a_group == b_group else 1) and free.get(b_group)
            if not enough:
                still.append((a_group, b_group))
                continue
            pairs.append((free[a_group].pop(), free[b_group].pop()))
        self._uncovered = still
        if self.rails:  # each rail's NICs with each other: a pair never leaves its rail
            for group in sorted(free):
                rest = free[group]
                pairs += [(rest[i], rest[i + 1]) for i in range(0, len(rest) - 1, 2)]
            return [(a, b, "screen", ()) for a, b in pairs]
        rest = [n for nodes in free.values() for n in nodes]
        self.random.shuffle(rest)
        pairs += [(rest[i], rest[i + 1]) for i in range(0, len(rest) - 1, 2)]
        return [(a, b, "screen", ()) for a, b in pairs]

    def _new_pairs_round(self):
        """Screen pairs not measured yet, where every screen pair so far was slow but too few to be the
        fabric (a small fleet): a node fast with a new partner is a healthy partner for the probes."""
        measured = {frozenset((o.a, o.b)) for o in self.observations[self._void:] if o.purpose == "screen"}
        free, pairs = self.random.sample(self.nodes, len(self.nodes)), []
        while len(free) >= 2:
            a = free.pop(0)
            b = next((n for n in free if frozenset((a, n)) not in measured), None)
            if b is not None:
                free.remove(b)
                pairs.append((a, b))
        return [(a, b, "screen", ()) for a, b in pairs]

    def _after_screen(self, o):
        if not o.slow:
            self.healthy |= {o.a, o.b}
            return
        # Either node; the route between their groups; or the path between the two nodes.
        opened = [self._suspect("node", n, (n,)) for n in (o.a, o.b)]
        ga, gb = self.group[o.a], self.group[o.b]
        if ga != gb:
            opened.append(self._suspect("route", "-".join(sorted((ga, gb))), tuple(sorted((ga, gb)))))
        opened.append(self._suspect("path", "-".join(sorted((o.a, o.b))), tuple(sorted((o.a, o.b)))))
        for suspect in opened:
            suspect.evidence.append(o)
            suspect.partners |= {o.a, o.b} - set(suspect.members)

    def _suspect(self, kind, name, members):
        return self.suspects.setdefault(f"{kind} {name}", Suspect(kind, name, members))

    # -- isolate and confirm ---------------------------------------------------------------------
    def _closer_round(self):
        self._explain_paths()
        used, planned = set(), []
        at_fault = {s.members[0] for s in self.suspects.values() if s.kind == "node" and s.state() != "cleared"}
        healthy = [n for n in self.nodes if n in self.healthy and n not in at_fault]
        if not healthy and self.schedule >= 3:  # a small fleet: every node fast somewhere is in a slow pair too
            healthy = [n for n in self.nodes if n in self.healthy]
        self.random.shuffle(healthy)

        def partner(avoid_nodes, avoid_groups=(), group=None):
            """A healthy node not in this round yet, in `group`, else outside `avoid_groups` if one is."""
            candidates = [n for n in healthy if n not in used and n not in avoid_nodes
                          and (group is None or self.group[n] == group)]
            chosen = next((n for n in candidates if self.group[n] not in avoid_groups), None)
            return chosen if chosen is not None or group is not None else next(iter(candidates), None)

        def plan(a, b, purpose, suspect):
            used.update((a, b))
            planned.append((a, b, purpose, (suspect,)))

        for node in sorted(self._unseen):  # a node no screen pair held (an odd count)
            mate = partner({node}, group=self.group[node] if self.rails else None)
            if mate is not None:
                plan(node, mate, "isolate", self._suspect("node", node, (node,)))
        for suspect in list(self.suspects.values()):
            if self.rails and suspect.kind == "node" and suspect.state() == "culprit":
                self._plan_wiring(suspect, healthy, used, planned)
            if suspect.state() != "open":
                continue
            if suspect.kind == "node":
                node = suspect.members[0]
                # In its own group first (no route between), else away from its earlier partners' groups
                # (with rails never: a pair stays on its rail).
                mine = self.group[node]
                # No healthy node it has not met left (a small fleet, a rail of four NICs): one it was not
                # slow with in a probe (its screen partner, since seen healthy, too), rather than leaving
                # it undecided.
                slow_with = {n for o in suspect.evidence if o.slow and o.purpose != "screen" for n in (o.a, o.b)}
                met = suspect.partners | {node}
                mate = None if node in used else (partner(met, group=mine) or (None if self.rails else
                                                  partner(met, {self.group[p] for p in suspect.partners}))
                                                  or (partner(slow_with | {node}, group=mine if self.rails else None)
                                                      if self.schedule >= 3 else None))
                if mate is not None:
                    plan(node, mate, self._purpose(suspect), suspect)
            elif suspect.kind == "route":
                # Nodes the route has not seen first; on a small switch, any of its healthy nodes.
                a = partner(suspect.partners, group=suspect.members[0]) or partner(set(), group=suspect.members[0])
                b = None if a is None else (partner(suspect.partners | {a}, group=suspect.members[1]) or
                                            partner({a}, group=suspect.members[1]))
                if a is not None and b is not None:
                    plan(a, b, self._purpose(suspect), suspect)
            elif self._path_can_be_probed(suspect) and not set(suspect.members) & used:
                plan(*suspect.members, self._purpose(suspect), suspect)
        control = self._control([n for n in healthy if n not in used]) if planned and self.second_look else None
        if control:
            plan(*control, "control", None)  # two healthy nodes: was the round itself slow?
        return planned

    def _control(self, spare):
        """Two healthy nodes the round does not hold; with rails two NICs of one rail (a pair never
        leaves its rail); None when there are none."""
        if not self.rails:
            return spare[:2] if len(spare) >= 2 else None
        if self.schedule < 3:
            return None
        on_rail = {}
        for nic in spare:
            on_rail.setdefault(self.group[nic], []).append(nic)
        return next((nics[:2] for _, nics in sorted(on_rail.items()) if len(nics) >= 2), None)

    def _plan_wiring(self, suspect, healthy, used, planned):
        """A slow NIC with a healthy NIC of another rail it has not met (one a round), until one is
        fast (its switch) or WIRING_PROBES rails are tried; with WIRING_AGAIN other rails or fewer,
        each slow one once more (another of its NICs where there is one) before it is the NIC."""
        nic = suspect.members[0]
        tried = suspect.wiring
        probes = [o for rail_probes in tried.values() for o in rail_probes]
        if nic in used or any(not o.slow for o in probes) or len(probes) >= WIRING_PROBES:
            return
        others = {self.group[n] for n in self.nodes} - {self.group[nic]}
        rails = others - set(tried)
        if not rails and len(others) <= WIRING_AGAIN and self.schedule >= 3:
            rails = {rail for rail in others if len(tried[rail]) < 2}
        met = {n for o in probes for n in (o.a, o.b)}
        candidates = [n for n in healthy if n not in used and self.group[n] in rails and self.rails[n][0] != self.rails[nic][0]]
        mate = next((n for n in candidates if n not in met), None) or next(iter(candidates), None)
        if mate is not None:
            used.update((nic, mate))
            planned.append((nic, mate, "wiring", ()))

    def _explain_paths(self):
        """A slow pair one of whose nodes, or whose route, is a culprit is explained by it: a path is the
        culprit only when both its nodes are fine with everyone else. A node of a path slow again that
        was slow with a healthy partner is decided by its own probes (state()): slow CULPRIT_PROBES
        times, it is that node, intermittent, and explains the path; slow once, it is no verdict on the
        node (a moment of the machine: 2 of 4 healthy node pairs on the virtual cluster read 45-63% of
        the shaped rate once, bench/MEASUREMENTS.md 2026-12-05), so it stays open, probed again, until
        slow a second time or fast PATH_NODE_FAST + 1 times."""
        for suspect in self.suspects.values():
            if suspect.kind != "path" or suspect.state() == "cleared":
                continue
            for other in self._explainers(suspect):
                if other is not None and other.state() in ("culprit", "intermittent"):
                    suspect.explained_by = f"{other.kind} {other.name}"
                    break

    def _explainers(self, path):
        a, b = path.members
        ga, gb = self.group[a], self.group[b]
        route = self.suspects.get("route " + "-".join(sorted((ga, gb)))) if ga != gb else None
        return [self.suspects.get(f"node {a}"), self.suspects.get(f"node {b}"), route]

    def _path_can_be_probed(self, path):
        """Only once its nodes and its route are decided: until then its slowness may be theirs (a
        path slow again asks each of its nodes for PATH_NODE_FAST fast probes: _after_probe)."""
        return all(other is None or other.state() != "open" for other in self._explainers(path))

    @staticmethod
    def _purpose(suspect):
        return "isolate" if suspect.slow + suspect.fast == 0 else "confirm"

    def _after_probe(self, o, suspects):
        if not o.slow:
            self.healthy.update((o.a, o.b))
        for suspect in suspects:
            suspect.evidence.append(o)
            suspect.partners |= {o.a, o.b} - set(suspect.members)
            if o.slow:
                suspect.slow += 1
            else:
                suspect.fast += 1
            if suspect.kind == "path" and o.slow:
                for node in self._explainers(suspect)[:2]:
                    node.fast_to_clear = max(node.fast_to_clear, PATH_NODE_FAST)
