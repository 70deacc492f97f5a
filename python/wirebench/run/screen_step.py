"""A step of `wb-net --pairs adaptive`: the adaptive screen (wirebench/report/adaptive_screen.py),
round by round. Each round is one run of wb-net with the round's rank pairs listed (--pairs A-B,...
--round N) into the run directory; the runner judges its rows as the report will (the same judge,
the same figures) and asks the schedule for the next round, until every suspect is decided. The
report replays the schedule from the rows and names the culprits.
One rank per node (rank r is node r's), or with rails one per NIC, node by node (rank r is NIC r % R
of node r // R); one test at one size, so that each pair has one figure."""
from wirebench.report.adaptive_screen import MIN_NODES as ADAPTIVE_MIN_NODES, AdaptiveScreen
from wirebench.report.endpoints import node_of, rank_of
from wirebench.report.screen_rows import (SEED, ReplayMismatch, display_names, figures_for, pair_figures, planned_rails,
                                          rank_groups, rank_rails, screen_members)
from wirebench.report.ceilings import Ceilings
from wirebench.report.extra import row_items
from wirebench.report.results import InputError, read_results
from wirebench.report.switches import write_switches
from wirebench.report.verdicts import judge

from .run_files import row_count
from wirebench.contracts.schema import ExitCode


def is_adaptive(step):
    args = [str(a) for a in step.get("args", [])]
    return step.get("binary") == "wb-net" and "--pairs" in args[:-1] and args[args.index("--pairs") + 1] == "adaptive"


def adaptive_problem(step, cluster):
    """Why the suite's adaptive step cannot run as written, or None (a suite error: exit 3)."""
    args = [str(a) for a in step.get("args", [])]

    def value(option):
        return args[args.index(option) + 1] if option in args[:-1] else None
    if value("--tests") is None or "," in value("--tests"):
        return "--pairs adaptive measures one test (--tests bw, or bibw): a pair has one figure a round"
    if value("--sizes") is None or any(c in value("--sizes") for c in ",:"):
        return "--pairs adaptive measures one size (--sizes 1M): a pair has one figure a round"
    rails = int(cluster.get("rails", 1)) if cluster else 1
    if cluster and int(cluster.get("ranks", rails)) != rails or not cluster and step.get("ranks") != "nodes":
        return ("--pairs adaptive needs one rank per node (ranks: nodes; a virtual cluster with ranks: 1), or one per "
                "NIC of a virtual cluster with rails")
    return None


def run_adaptive_step(number, total, step, run_dir, ranks, run_one, nodes=(), leaf_of=None, per_node=1):
    """Runs the screen; `run_one(step, log_suffix)` runs one wb-net round as a step and returns its
    exit code. `nodes`: where rank r is expected (a Slurm job's nodes in order), `leaf_of` their leaf
    switches (switches.json, which the report replays with); `per_node`: ranks on each node, one per
    NIC (rails). Returns the step's exit code."""
    expected = {r: node for r, node in enumerate(nodes)}
    rails = planned_rails(ranks, per_node)
    groups = None if rails else rank_groups(expected, ranks, leaf_of)
    if rails:
        print(f"[{number}/{total}] {step['name']}: {per_node} rails, a rank per NIC: the screen pairs NICs of the "
              "same rail", flush=True)
    if groups:
        write_switches(run_dir, {expected[r]: groups[f"rank{r}"] for r in range(ranks)}, "scontrol show topology")
        print(f"[{number}/{total}] {step['name']}: {len(set(groups.values()))} leaf switches (Slurm's topology): "
              "the screen pairs every two of them", flush=True)
    schedule = AdaptiveScreen([f"rank{r}" for r in range(ranks)], groups, seed=SEED, rails=rails)
    args = [str(a) for a in step["args"]]
    at = args.index("--pairs")
    told_again = False
    while (planned := schedule.next_round()) is not None:
        round_number, purpose = len(schedule.rounds), schedule.rounds[-1][0]
        if schedule.looked_again_after is not None and not told_again:
            told_again = True
            print(f"[{number}/{total}] {step['name']}: most screen pairs slow: the same pairs measured again "
                  "before the fabric is named", flush=True)
        if round_number in schedule.new_pair_rounds:
            print(f"[{number}/{total}] {step['name']}: every screen pair so far slow, too few to be the fabric: "
                  "new pairs, to find a healthy partner", flush=True)
        print(f"[{number}/{total}] {step['name']}: round {round_number} ({purpose}): {len(planned)} pair(s)",
              flush=True)
        before = row_count(run_dir)
        listed = ",".join(f"{a[4:]}-{b[4:]}" for a, b in planned)
        one = dict(step, args=args[:at + 1] + [listed] + args[at + 2:] + ["--round", str(round_number)],
                   name=f"{step['name']}, round {round_number} ({purpose})")
        code = run_one(one, f"round{round_number}")
        if code not in (ExitCode.OK, ExitCode.FAILED):
            return code  # the round's ERROR row says why
        figures, healthy, placed = _round_figures(run_dir, before, round_number)
        if round_number == 1:
            schedule.healthy_fraction = healthy  # the ceiling's, as the report reads the rows
            wrong = {r: node for r, node in placed.items() if groups and expected.get(r) != node}
            if wrong:
                print(f"[{number}/{total}] {step['name']}: ranks are not on the job's nodes in Slurm's order "
                      f"(rank {min(wrong)} on {wrong[min(wrong)]}, not {expected.get(min(wrong))}): the leaf "
                      "switches cannot be used; the screen stops", flush=True)
                return ExitCode.INFRASTRUCTURE
            if rails:
                found = rank_rails(placed) or {}
                if _by_node(found) != _by_node(rails):  # the same nodes hold the same ranks: the same rails
                    print(f"[{number}/{total}] {step['name']}: ranks are not placed node by node, {per_node} a node, "
                          "so a rank's place on its node is not the rail planned; the screen stops", flush=True)
                    return ExitCode.INFRASTRUCTURE
                schedule.rails = found  # the nodes by their names (a node whose every NIC is slow is named)
        try:
            schedule.record(figures_for(planned, figures))
        except ReplayMismatch as error:  # a pair without a row: the round did not measure what it was asked
            print(f"[{number}/{total}] {step['name']}: round {round_number}: {error}; the screen stops", flush=True)
            return ExitCode.INFRASTRUCTURE
        if round_number in schedule.disturbed:
            print(f"[{number}/{total}] {step['name']}: round {round_number}: its control (two healthy nodes) was slow "
                  "too: the round was slow as a whole, its probes are planned again", flush=True)
    for finding in schedule.findings():
        print(f"[{number}/{total}] {step['name']}: {_named(finding, run_dir)}", flush=True)
    if not schedule.findings():
        print(f"[{number}/{total}] {step['name']}: no culprit in {len(schedule.rounds)} round(s)", flush=True)
    return ExitCode.OK


def _by_node(rails):
    """The ranks of each node, as a set of sets: the placement, whatever the nodes are called."""
    nodes = {}
    for rank, (node, _) in rails.items():
        nodes.setdefault(node, set()).add(rank)
    return {frozenset(ranks) for ranks in nodes.values()}


def _round_figures(run_dir, before, round_number):
    """The figures of the round just measured, judged as the report judges them."""
    try:
        results = read_results(run_dir / "results.csv")
    except InputError:
        return {}, None, {}
    verdicts = judge(results, Ceilings.load(run_dir))
    mine = [v for v in screen_members(verdicts)
            if v.row.line > before + 1 and row_items(v.row).get("round") == str(round_number)]
    placed = {rank_of(end): node_of(end) for v in mine for end in (v.row.text("src"), v.row.text("dst"))}
    return (*pair_figures(mine), placed)


def _named(finding, run_dir):
    """The finding with its ranks named by their nodes, as the rows name them (node3 for rank3; with
    rails, node3/rail1 for rank7)."""
    text = str(finding)
    try:
        rows = read_results(run_dir / "results.csv").rows
    except InputError:
        return text
    shown = display_names({rank_of(end): node_of(end) for row in rows for end in (row.text("src"), row.text("dst"))
                           if rank_of(end) is not None})
    for rank in sorted(shown, key=lambda r: -len(r)):  # rank12 before rank1
        text = text.replace(rank, shown[rank])
    return text
