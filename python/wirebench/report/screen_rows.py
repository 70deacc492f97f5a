"""The adaptive screen in a run's rows: the figures the runner decides each round by, and the
report's replay of the schedule (adaptive_screen.py) from them."""
from .adaptive_screen import SCHEDULE, AdaptiveScreen
from .endpoints import nic_name, node_of, rails_of, rank_of
from .extra import row_items

# The runner (wirebench/run/screen_step.py) measures each round with `wb-net --pairs A-B,... --round
# N`, one rank per node (or, with rails, one per NIC: a rank's place among its node's ranks is its
# rail, as the matrix culprits read it), the ranks named rank0..rankN-1, seed 1; the reporter replays
# the schedule from the rows with the same figures and names, so both reach the same findings. A run
# whose rows do not follow the schedule (another version, a hand-made list) is not replayed.
SEED = 1


class ReplayMismatch(Exception):
    pass


def screen_members(verdicts):
    """The rows an adaptive screen decides by: wb-net's listed rounds, each direction of each pair."""
    return [v for v in verdicts
            if row_items(v.row).get("pairs") == "listed" and v.metric == "algbw_GBps"
            and v.value is not None and v.row.status == "OK" and not v.row.number("errors")
            and v.row.text("src") != "all"]


def pair_figures(members):
    """({(rank a, rank b): (figure, [rows])}, healthy fraction) of one round: a pair reads the lower
    of its rows (both directions), as a fraction of the ceiling where every row has one, else in GB/s."""
    fractions = all(m.fraction is not None for m in members)
    out = {}
    for m in members:
        a, b = rank_of(m.row.text("src")), rank_of(m.row.text("dst"))
        key = (min(a, b), max(a, b))
        figure = m.fraction if fractions else m.value
        before, rows = out.get(key, (figure, []))
        out[key] = (min(before, figure), rows + [m])
    return out, (members[0].healthy_fraction if fractions and members else None)


def figures_for(planned, figures):
    """{planned pair: figure}; raises ReplayMismatch when the round measured other pairs."""
    wanted = {tuple(sorted(int(n[4:]) for n in pair)): pair for pair in planned}
    if set(wanted) != set(figures):
        raise ReplayMismatch(f"round measured {sorted(figures)}, the schedule planned {sorted(wanted)}")
    return {pair: figures[key][0] for key, pair in wanted.items()}


def rank_groups(node_of_rank, ranks, leaf_of):
    """{rank name: leaf switch} when every rank's node has one, else None (one switch for all)."""
    nodes = [node_of_rank.get(r) for r in range(ranks)]
    if not leaf_of or not all(n in leaf_of for n in nodes):
        return None
    return {f"rank{r}": leaf_of[n] for r, n in enumerate(nodes)}


def rank_rails(node_of_rank):
    """{rank name: (node, rail)} when nodes hold several ranks (a rank per NIC), else None."""
    return {f"rank{rank}": place for rank, place in rails_of(node_of_rank).items()} or None


def planned_rails(ranks, per_node):
    """The rails the runner plans with before any row exists: ranks placed node by node."""
    return rank_rails({r: f"node{r // per_node}" for r in range(ranks)}) if per_node > 1 else None


def display_names(node_of_rank):
    """{rank name: what a finding calls it}: its node, or with rails its NIC (node3/rail1)."""
    rails = rank_rails(node_of_rank)
    if rails:
        return {name: nic_name(node, rail) for name, (node, rail) in rails.items()}
    return {f"rank{rank}": node for rank, node in node_of_rank.items()}


def replay(members, leaf_of=None):
    """replay_schedule() of today's schedule, or, where the rows do not follow it, of an earlier one
    (adaptive_screen.SCHEDULE: runs measured before it changed), the newest the rows follow."""
    for version in range(SCHEDULE, 0, -1):
        try:
            return replay_schedule(members, leaf_of, version)
        except ReplayMismatch:
            if version == 1:
                raise


def replay_schedule(members, leaf_of=None, version=SCHEDULE):
    """[(kind, name, rows)] for one fleet of listed rows (one test, one size): the culprits the
    schedule named (node and path names as the rows give them; a route by its two switches), then
    ("transient", pair, rows) for slow rows whose suspects the later rounds cleared, and
    ("disturbed", pair, rows) for slow rows of a round slow as a whole (its control slow too) that no
    culprit covers (a culprit's pair in such a round is the culprit's row). `leaf_of`:
    {node: leaf switch} as the runner planned with. With rails a NIC is named node3/rail1, a miswired
    one node2/rail1@rail0 (the rail whose switch it is on). Raises ReplayMismatch."""
    by_round = {}
    for m in members:
        by_round.setdefault(int(row_items(m.row).get("round", 0)), []).append(m)
    node_of_rank = {rank_of(m.row.text(end)): node_of(m.row.text(end)) for m in members for end in ("src", "dst")}
    ranks = max(int(m.row.text("ranks") or 0) for m in members)
    _, healthy = pair_figures(by_round[min(by_round)])
    rails = rank_rails(node_of_rank)
    schedule = AdaptiveScreen([f"rank{r}" for r in range(ranks)],
                              None if rails else rank_groups(node_of_rank, ranks, leaf_of),
                              healthy_fraction=healthy, seed=SEED, rails=rails, schedule=version)
    rows_of = {}  # (round, rank pair) -> rows
    for number in sorted(by_round):
        planned = schedule.next_round()
        if planned is None:
            raise ReplayMismatch(f"round {number} measured after the schedule had ended")
        figures, _ = pair_figures(by_round[number])
        schedule.record(figures_for(planned, figures))
        rows_of.update({(number, key): rows for key, (_, rows) in figures.items()})
    if schedule.next_round() is not None:
        raise ReplayMismatch(f"the schedule was not finished after round {max(by_round)}")

    def rows(observations):
        return [m for o in observations if o.slow
                for m in rows_of[(o.round, tuple(sorted((int(o.a[4:]), int(o.b[4:])))))]]

    shown = display_names(node_of_rank)

    def node(name):
        return shown.get(name, name)
    out, explained = [], set()
    for finding in schedule.findings():
        if finding.kind == "unresolved":
            continue
        name = ("all" if finding.kind == "fabric" else finding.name if finding.kind == "route"
                else "-".join(node(n) for n in finding.name.split("-")))
        if finding.kind == "miswire":
            name += f"@rail{finding.wired_to}"  # the switch it is on: miswire:node2/rail1@rail0
        slow = rows(finding.evidence + [o for o in schedule.set_aside if schedule.covers(finding, o.a, o.b)])
        out.append((finding.kind, name, slow))
        explained.update(id(m) for m in slow)
    for o in schedule.observations + schedule.set_aside:
        if o.slow:
            left = [m for m in rows([o]) if id(m) not in explained]
            if left:
                kind = "disturbed" if o.round in schedule.disturbed else "transient"
                out.append((kind, f"{node(o.a)}-{node(o.b)}", left))
                explained.update(id(m) for m in left)
    return out
