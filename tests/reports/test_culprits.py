"""Localisation on synthetic node x node matrices (ctest label: unit): a slow node, a slow path, a slow
rail, two faults at once, and a noisy but healthy fleet that must not be blamed; the culprit is one
verdict, the pairs it explains are not counted one by one, and the report marks it."""
import json
import random
import re

import pytest

from wirebench.report.__main__ import main
from wirebench.report.findings import culprit as culprit_finding
from wirebench.report.ceilings import Ceilings
from wirebench.report.plots import node_heatmaps
from wirebench.report.results import read_results
from wirebench.report.verdicts import apply_remeasure, counts, exit_code, judge

from test_items import HEADER

CEILING = 0.025  # 200 Mbit/s
SUITE = {"expectations": [{"link_class": "eth", "ceiling_GBps": CEILING, "reason": "200 Mbit/s shaping",
                           "healthy_fraction": 0.8, "source": "tc shaping"}]}


_ROUNDS = iter(range(1, 1 << 30))


def pair_row(src, dst, bw, ranks=8, case="stream_bw", direction="uni"):
    """A row of its own round (these tests are about the matrix, not about pairs sharing a port)."""
    t = 1048576 / (bw * 1e3)
    return (f"net,{case},mpi,eth,{src},{dst},{direction},send_recv,uint8,1048576,{ranks},{ranks},640,{t:.7g},"
            f"{t * 0.995:.7g},{t * 1.005:.7g},{bw:.7g},{bw:.7g},0,pairs=all;round={next(_ROUNDS)};at_once=4,OK,,9,1\n")


def fleet(nodes=8, rate=None, ranks_per_node=1, seed=3, noise=0.01):
    """Every ordered pair of ranks on different nodes at `rate(node_a, node_b, rail_a, rail_b)` of the ceiling."""
    rng = random.Random(seed)
    rate = rate or (lambda a, b, ra, rb: 0.96)
    ends = [(n, r) for n in range(nodes) for r in range(ranks_per_node)]
    rows = []
    for (na, ra) in ends:
        for (nb, rb) in ends:
            if na == nb:
                continue
            fraction = rate(na, nb, ra, rb) * (1 + rng.uniform(-noise, noise))
            src = f"node{na}/rank{na * ranks_per_node + ra}"
            dst = f"node{nb}/rank{nb * ranks_per_node + rb}"
            rows.append(pair_row(src, dst, CEILING * fraction, ranks=nodes * ranks_per_node))
    return rows


def judged(tmp_path, rows):
    run = tmp_path / "run"
    run.mkdir(parents=True, exist_ok=True)
    (run / "results.csv").write_text(HEADER + "".join(rows))
    (run / "meta.json").write_text(json.dumps({"results_schema_version": 2}))
    (run / "suite.json").write_text(json.dumps(SUITE))
    return run, judge(read_results(run / "results.csv"), Ceilings.load(run))


def judged_twice(tmp_path, first_rows, again_rows):
    """The first measurement's verdicts, judged with the runner's second (RUN_DIR/remeasured)."""
    _, again = judged(tmp_path / "again", again_rows)
    judged(tmp_path / "first", first_rows)
    run = tmp_path / "first" / "run"
    first = judge(read_results(run / "results.csv"), Ceilings.load(run), again=again)
    apply_remeasure(first, again)
    return first


def culprits(verdicts):
    """The culprits named, as "subject:place" (node:node3)."""
    return sorted(f"{v.record.subject}:{v.record.place}" for v in verdicts if v.record)


def test_a_clean_fleet_passes_and_blames_nobody(tmp_path):
    _, verdicts = judged(tmp_path, fleet())
    assert culprits(verdicts) == []
    assert counts(verdicts)["PASS"] == 56 and exit_code(verdicts) == 0


def test_a_noisy_but_healthy_fleet_is_not_blamed(tmp_path):
    """Pairs scattered 12% either way (a shared fabric on a busy day), all above the healthy fraction."""
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.93, noise=0.12, seed=11))
    assert culprits(verdicts) == []
    assert not [v for v in verdicts if v.verdict == "FAIL"]


def test_a_slow_node_is_the_one_culprit_named_once(tmp_path):
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96))
    assert culprits(verdicts) == ["node:node5"]
    culprit = next(v for v in verdicts if v.record)
    assert culprit.verdict == "FAIL" and "the node (its NIC or its uplink)" in culprit.reason
    assert "7 node pairs slow" in culprit.reason and "; 14 rows)" in culprit.reason  # both directions of each
    explained = [v for v in verdicts if v.explained_by]
    assert len(explained) == 14 and all(v.verdict == "DATA" and v.explained_by == "node node5" for v in explained)
    assert counts(verdicts)["FAIL"] == 1 and counts(verdicts)["PASS"] == 42 and exit_code(verdicts) == 1


def test_a_slow_path_is_named_as_the_path_and_its_nodes_are_not_blamed(tmp_path):
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.5 if {a, b} == {2, 6} else 0.96))
    assert culprits(verdicts) == ["path:node2-node6"]
    culprit = next(v for v in verdicts if v.record)
    assert "node2 and node6 are fine with every other node: the path between them" in culprit.reason
    assert (culprit.row.text("src"), culprit.row.text("dst")) == ("node2", "node6")
    assert counts(verdicts)["FAIL"] == 1


def test_a_path_slow_one_way_only_is_still_the_path(tmp_path):
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.5 if (a, b) == (1, 4) else 0.96))
    assert culprits(verdicts) == ["path:node1-node4"]


def test_two_faults_at_once_a_node_and_a_path_elsewhere(tmp_path):
    def rate(a, b, ra, rb):
        if 3 in (a, b):
            return 0.45
        return 0.55 if {a, b} == {0, 7} else 0.96
    _, verdicts = judged(tmp_path, fleet(rate=rate))
    assert culprits(verdicts) == ["node:node3", "path:node0-node7"]
    assert counts(verdicts)["FAIL"] == 2


def test_two_slow_nodes_are_both_named_and_their_shared_pair_once(tmp_path):
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.5 if {a, b} & {1, 6} else 0.96))
    assert culprits(verdicts) == ["node:node1", "node:node6"]
    assert len([v for v in verdicts if v.explained_by]) == 26  # 14 + 12: node1-node6 belongs to node1


def test_a_slow_rail_is_named_as_the_rail(tmp_path):
    """Four nodes of two ranks each, one per NIC: every pair between rail-1 ranks is slow."""
    _, verdicts = judged(tmp_path, fleet(nodes=4, ranks_per_node=2,
                                         rate=lambda a, b, ra, rb: 0.45 if ra == rb == 1 else 0.96))
    assert culprits(verdicts) == ["rail:rail1"]
    culprit = next(v for v in verdicts if v.record)
    assert "the rail (its switch or its cabling)" in culprit.reason


def test_with_a_nic_per_rank_the_heatmap_is_nic_by_nic_and_frames_the_slow_nic(tmp_path):
    """Rails (the suite states a port per rank): node2's rail-1 NIC slow; the heatmap keeps each node's
    NICs apart and frames node2/rail1's row and column; without rails the same rows are node x node."""
    rows = fleet(nodes=4, ranks_per_node=2, rate=lambda a, b, ra, rb: 0.45 if (a, ra) == (2, 1) or (b, rb) == (2, 1)
                 else 0.96)
    _, verdicts = judged(tmp_path, rows)
    for v in verdicts:  # as the adaptive screen names it (screen_rows.replay)
        v.record = culprit_finding.make("nic", "node2/rail1", v.record.evidence) if v.record else v.record
    [(_, caption, figure)] = node_heatmaps(verdicts, per_nic=True)
    axes = figure.axes[0]
    labels = [t.get_text() for t in axes.get_xticklabels()]
    assert labels == [f"node{n}/rail{r}" for n in range(4) for r in range(2)]
    assert "NIC x NIC" in axes.get_title() and "NIC x NIC" in caption
    assert "culprit:node2/rail1" in [p.get_gid() for p in axes.patches]
    [(_, _, merged)] = node_heatmaps(verdicts)
    assert [t.get_text() for t in merged.axes[0].get_xticklabels()] == [f"node{n}" for n in range(4)]


def test_a_slow_node_among_several_ranks_per_node_is_still_the_node(tmp_path):
    _, verdicts = judged(tmp_path, fleet(nodes=4, ranks_per_node=2,
                                         rate=lambda a, b, ra, rb: 0.45 if 2 in (a, b) else 0.96))
    assert culprits(verdicts) == ["node:node2"]


def test_a_fabric_slow_everywhere_is_one_culprit_not_every_node(tmp_path):
    _, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.4))
    assert culprits(verdicts) == ["fabric:all"]
    assert counts(verdicts)["FAIL"] == 1


def test_two_nodes_cannot_tell_a_node_from_a_path(tmp_path):
    _, verdicts = judged(tmp_path, fleet(nodes=2, rate=lambda a, b, ra, rb: 0.4))
    assert culprits(verdicts) == []
    assert counts(verdicts)["FAIL"] == 2  # each pair judged on its own against the ceiling


def test_the_report_names_the_culprit_once_and_marks_it_on_the_heatmap(tmp_path, capsys):
    run, verdicts = judged(tmp_path, fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96))
    [(name, caption, figure)] = node_heatmaps(verdicts)
    axes = figure.axes[0]
    assert "culprit:node5" in [p.get_gid() for p in axes.patches]
    assert "culprit: node5" in axes.get_title() and "culprit" in caption
    from wirebench.report.plots import bandwidth_figures
    [(_, _, sweeps)] = bandwidth_figures(verdicts)
    assert len([p for p in sweeps.axes[0].patches if p.get_gid() == "bars"]) == 56  # the rows; the culprit is none
    cells = [t.get_text() for t in axes.texts]
    assert len(cells) == 56 and sum("%" in c for c in cells) == 56  # the explained pairs are still drawn
    assert main(["wirebench report", str(run)]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL fabric culprit: node node5") == 1 and "FAIL net" not in out, out
    summary = json.loads((run / "summary.json").read_text())
    assert [v["finding"] for v in summary["verdicts"] if v["finding"]] == [
        {"kind": "culprit", "subject": "node", "place": "node5", "node": "node5",
         "evidence": {"case": "stream_bw", "backend": "mpi", "link_class": "eth", "bytes": 1048576, "schedule": "all",
                      "rows": 14, "worst_line": 27}}]  # the measurement it rests on, its worst row's line
    assert next((run / "plots").glob("nodes-stream_bw-*.png"))
    assert "fabric culprit: node node5" in (run / "report.md").read_text()


def test_three_nodes_tell_a_slow_node_from_a_slow_fabric(tmp_path):
    _, verdicts = judged(tmp_path / "node", fleet(nodes=3, rate=lambda a, b, ra, rb: 0.5 if 1 in (a, b) else 0.96))
    assert culprits(verdicts) == ["node:node1"]
    _, verdicts = judged(tmp_path / "fabric", fleet(nodes=3, rate=lambda a, b, ra, rb: 0.5))
    assert culprits(verdicts) == ["fabric:all"]


def test_a_culprit_that_is_gone_when_measured_again_is_an_intermittent_warn(tmp_path):
    _, first = judged(tmp_path / "first", fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96))
    _, again = judged(tmp_path / "again", fleet())
    apply_remeasure(first, again)
    [culprit] = [v for v in first if v.record]
    assert culprit.verdict == "WARN" and culprit.reason.startswith("intermittent: ")
    assert "(FAIL) the first time" in culprit.reason and "no pair points at this culprit" in culprit.reason
    _, reproduced = judged(tmp_path / "first2", fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96))
    _, same = judged(tmp_path / "again2", fleet(rate=lambda a, b, ra, rb: 0.47 if 5 in (a, b) else 0.96))
    apply_remeasure(reproduced, same)
    [culprit] = [v for v in reproduced if v.record]
    assert culprit.verdict == "FAIL" and culprit.reason.startswith("reproduced: measured again")


def test_a_culprit_whose_step_was_not_measured_again_stands(tmp_path):
    """Another step's FAIL made the second pass (a host copy, contended), the culprit's step was not
    repeated (an adaptive screen confirms its own): the culprit is no intermittent WARN (seen on the
    virtual cluster's Slurm, tests/vcluster/test_slurm_health.py)."""
    _, first = judged(tmp_path / "first", fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96))
    _, other = judged(tmp_path / "other", [r.replace("stream_bw", "latency") for r in fleet()])
    apply_remeasure(first, other)
    [culprit] = [v for v in first if v.record]
    assert culprit.verdict == "FAIL" and "intermittent" not in culprit.reason


def test_a_bisection_aggregate_slowed_by_a_culprit_is_explained_by_it(tmp_path):
    rows = fleet(rate=lambda a, b, ra, rb: 0.48 if 5 in (a, b) else 0.96)
    rows = [r.replace("pairs=all;", "pairs=bisection;") for r in rows]
    t = 4 * 1048576 / (4 * CEILING * 0.48 * 1e3)
    rows.append(f"net,bisection_stream_bw,mpi,eth,all,all,uni,send_recv,uint8,1048576,8,8,640,{t:.7g},{t:.7g},{t:.7g},"
                f"{4 * CEILING * 0.48:.7g},{4 * CEILING * 0.48:.7g},0,pairs=bisection;round=1;at_once=4;"
                "slowest=node5/rank5->node1/rank1,OK,,9,1\n")
    _, verdicts = judged(tmp_path, rows)
    [aggregate] = [v for v in verdicts if v.row.text("src") == "all"]
    assert aggregate.verdict == "DATA" and aggregate.explained_by == "node node5", aggregate.reason
    assert counts(verdicts)["FAIL"] == 1


def test_an_all_to_all_names_a_slow_node_from_its_pairs_and_judges_the_aggregate(tmp_path):
    """Eight ranks streaming to each other at once: a pair's figure is its share, held against the
    other pairs only; node 4 at half rate delays every pair it is on."""
    rows = fleet(rate=lambda a, b, ra, rb: (0.48 if 4 in (a, b) else 0.96) / 7, noise=0.05)
    rows = [re.sub(r"pairs=all;round=\d+;at_once=4", "pairs=alltoall;at_once=8", r) for r in rows]
    aggregate = 8 * CEILING * 0.6
    t = 56 * 1048576 / (aggregate * 1e3)
    rows.append(f"net,alltoall_stream_bw,mpi,eth,all,all,uni,send_recv,uint8,1048576,8,8,640,{t:.7g},{t:.7g},{t:.7g},"
                f"{aggregate:.7g},{aggregate:.7g},0,pairs=alltoall;at_once=8;slowest=node4/rank4->node0/rank0,OK,,9,1\n")
    _, verdicts = judged(tmp_path, rows)
    assert culprits(verdicts) == ["node:node4"]
    culprit = next(v for v in verdicts if v.record)
    assert culprit.verdict == "FAIL" and culprit.fraction is None
    pairs = [v for v in verdicts if v.row.text("src") != "all" and not v.record]
    assert all(v.verdict == "DATA" for v in pairs)  # shares: compared with each other, not with a ceiling
    [whole] = [v for v in verdicts if v.row.text("src") == "all"]
    assert whole.verdict == "DATA" and whole.explained_by == "node node4"  # slowed by the culprit
    _, clean = judged(tmp_path / "clean", [r for r in rows if "node4" not in r or ",all,all," in r][:-1] + [
        rows[-1].replace(f"{aggregate:.7g}", f"{8 * CEILING * 0.9:.7g}")])
    [whole] = [v for v in clean if v.row.text("src") == "all"]
    assert whole.verdict == "PASS" and whole.ceiling_GBps == 8 * CEILING and "8 ranks at once" in whole.reason


def test_pairs_of_one_round_that_share_a_port_are_held_against_their_share(tmp_path):
    """Two nodes of two ranks, one port each: a round's two pairs across them share both ports."""
    rows = [re.sub(r"round=\d+", "round=1", pair_row(f"node0/rank{a}", f"node1/rank{b}", CEILING * 0.47, ranks=4))
            for a, b in ((0, 2), (1, 3))]
    _, verdicts = judged(tmp_path, rows)
    for v in verdicts:
        assert v.verdict == "PASS" and v.ceiling_GBps == CEILING / 2, v.reason
        assert "its share, 1/2: node0's port carried 2 of this round's pairs at once" in v.reason


def test_with_a_port_per_rank_pairs_of_one_round_keep_the_whole_ceiling(tmp_path, monkeypatch):
    """The same round on nodes with a NIC per rank (a virtual cluster's rails: the suite states
    ports_per_node): each pair has a port of its own, so each is held against the whole ceiling."""
    rows = [re.sub(r"round=\d+", "round=1", pair_row(f"node0/rank{a}", f"node1/rank{b}", CEILING * 0.47, ranks=4))
            for a, b in ((0, 2), (1, 3))]
    monkeypatch.setitem(SUITE, "expectations", [dict(e, ports_per_node=2) for e in SUITE["expectations"]])
    _, verdicts = judged(tmp_path, rows)
    for v in verdicts:
        assert v.verdict == "FAIL" and v.ceiling_GBps == CEILING and "port carried" not in v.reason, v.reason


def test_a_round_and_a_bisection_matching_of_the_same_number_are_not_one_round(tmp_path):
    rows = [re.sub(r"round=\d+", "round=1", pair_row("node0/rank0", "node1/rank1", CEILING * 0.9, ranks=4)),
            re.sub(r"pairs=all;round=\d+", "pairs=bisection;round=1", pair_row("node0/rank0", "node2/rank2",
                                                                            CEILING * 0.9, ranks=4))]
    _, verdicts = judged(tmp_path, rows)
    assert [v.ceiling_GBps for v in verdicts] == [CEILING, CEILING]


def test_measured_twice_a_pair_is_slow_only_when_slow_both_times(tmp_path):
    """The CI's failure of 2026-12-05 on six nodes: node3 and the path node2-node5 at half rate; the
    first time node0-node5 and node1-node4 dipped too (a moment of two cores carrying six ranks), so
    node5 had two slow pairs of four and was blamed, the path hidden behind it. Measured again, the
    dips were gone: node3 and the path are the culprits, reproduced; each dip is one intermittent WARN."""
    def rate(dips):
        def figure(a, b, ra, rb):
            pair = {a, b}
            return 0.48 if 3 in pair or pair == {2, 5} else 0.6 if pair in dips else 0.96
        return figure
    run, again = judged(tmp_path / "again", fleet(nodes=6, rate=rate([])))
    first_rows = fleet(nodes=6, rate=rate([{0, 5}, {1, 4}]))
    _, alone = judged(tmp_path / "alone", first_rows)
    assert "node:node5" in culprits(alone)  # judged alone, the first measurement blames node5
    _, first = judged(tmp_path / "first", first_rows)
    run = tmp_path / "first" / "run"
    first = judge(read_results(run / "results.csv"), Ceilings.load(run), again=again)
    apply_remeasure(first, again)
    assert culprits(first) == ["node:node3", "path:node0-node5", "path:node1-node4", "path:node2-node5"]
    named = {f"{v.record.subject}:{v.record.place}": v for v in first if v.record}
    for steady in ("node:node3", "path:node2-node5"):
        assert named[steady].verdict == "FAIL" and named[steady].reason.startswith(
            "reproduced: measured again, its pairs slow again, the worst at 0.01"), named[steady].reason
    for dip in ("path:node0-node5", "path:node1-node4"):
        assert named[dip].verdict == "WARN" and named[dip].reason.startswith("intermittent: 0.01"), named[dip].reason
        assert "(FAIL) the first time, its pairs at 0.02" in named[dip].reason
    assert exit_code(first, []) == 1
    assert not [v for v in first if v.verdict == "FAIL" and not v.record]  # every slow row is explained once


def test_a_first_pass_slow_as_a_whole_makes_no_path_of_a_dip_in_the_second(tmp_path):
    """The CI's failure of 2026-12-05 (vcluster.acceptance, --inject-fault slow): every link at half
    rate in the first pass, and node1-node2 dipping when measured again. The first pass is the fabric
    slow at a moment; it says nothing of node1-node2, so the dip is no reproduced path: one
    intermittent WARN for the fabric, no FAIL."""
    first = judged_twice(tmp_path, fleet(nodes=3, rate=lambda a, b, ra, rb: 0.48),
                         fleet(nodes=3, rate=lambda a, b, ra, rb: 0.6 if {a, b} == {1, 2} else 0.96))
    assert culprits(first) == ["fabric:all"]
    [fabric] = [v for v in first if v.record]
    assert fabric.verdict == "WARN" and fabric.reason.startswith("intermittent: "), fabric.reason
    assert exit_code(first, []) == 0


def test_a_slow_node_stands_when_a_dip_made_the_first_pass_the_fabric(tmp_path):
    """The CI's failure of 2026-12-05 (stop 50, vcluster.acceptance, --degrade 1=500mbit on three
    nodes): node1's two pairs slow, and node0-node2 dipping in the first pass, so every pair was slow
    and the first pass read as the fabric. Measured again, node1's pairs were slow again and
    node0-node2 fast: node1 is the culprit, reproduced, and the dip is no culprit (its rows are
    intermittent, each with both figures)."""

    def rate(dip):
        return lambda a, b, ra, rb: 0.48 if 1 in (a, b) else 0.6 if dip else 0.96

    def measured(dip):  # the runner measures the same rounds again
        global _ROUNDS
        _ROUNDS = iter(range(1, 1 << 30))
        return fleet(nodes=3, rate=rate(dip))
    _, alone = judged(tmp_path / "alone", measured(True))
    assert culprits(alone) == ["fabric:all"]  # judged alone, the first pass is the fabric
    first = judged_twice(tmp_path, measured(True), measured(False))
    assert culprits(first) == ["node:node1"]
    [node1] = [v for v in first if v.record]
    assert node1.verdict == "FAIL" and node1.reason.startswith("reproduced: measured again"), node1.reason
    dipped = [v for v in first if "node1" not in v.row.text("src") + v.row.text("dst") and v.row.text("src") != "all"]
    assert len(dipped) == 2 and all(v.verdict == "WARN" and "intermittent" in v.reason for v in dipped), dipped
    assert exit_code(first, []) == 1


def test_a_pair_below_the_floor_by_less_than_its_spread_is_no_path(tmp_path):
    """The clean fabric suite, 2026-12-05: node3-node5 at 79.9% of the ceiling, healthy from 80% (here 75%), its
    samples spread wider than that (a stalled one among healthy ones): undecided, not slow, so no path
    culprit and no FAIL; measured tightly at the same figure it is the path."""
    def rows(spread):
        out = []
        for r in fleet(nodes=6, rate=lambda a, b, ra, rb: 0.75 if {a, b} == {3, 5} else 0.96):
            pair = {r.split(",")[4].split("/")[0], r.split(",")[5].split("/")[0]}
            out.append(r.replace(",9,1\n", f",9,{spread}\n") if pair == {"node3", "node5"} else r)
        return out
    _, noisy = judged(tmp_path / "noisy", rows(30))
    assert culprits(noisy) == [] and not [v for v in noisy if v.verdict == "FAIL"]
    assert sum("undecided" in v.reason for v in noisy if v.verdict == "WARN") == 2
    _, tight = judged(tmp_path / "tight", rows(1))
    assert culprits(tight) == ["path:node3-node5"]


def ping_pong_rows(noisy):
    """Three nodes, node1 at 55% of the ceiling, one row per node pair as ping-pong measures; node1-node2's
    row with samples spread 40% when `noisy`."""
    global _ROUNDS
    _ROUNDS = iter(range(1, 1 << 30))
    out = []
    for a, b in ((1, 2), (0, 2), (0, 1)):
        row = pair_row(f"node{a}/rank{a}", f"node{b}/rank{b}", CEILING * (0.55 if 1 in (a, b) else 0.96), ranks=3)
        out.append(row.replace(",9,1\n", ",9,40\n") if noisy and (a, b) == (1, 2) else row)
    return out


def test_a_row_undecided_the_first_time_is_decided_by_the_second_measurement(tmp_path):
    """The CI's failure of 2026-12-08 (vcluster.acceptance, --degrade 1=500mbit on three nodes; ping-pong
    measures one row per node pair): node1's two pairs at 55% of the ceiling, but node1-node2's first
    row spread wider than its shortfall (a moment of two cores carrying the run), so it was undecided,
    not slow, and node1 had one slow pair of two: a path node0-node1 and a WARN of its own. Measured
    again, tightly, node1-node2 was slow: the second measurement decides what the first could not,
    and node1 is the one culprit, reproduced."""
    _, alone = judged(tmp_path / "alone", ping_pong_rows(noisy=True))
    assert culprits(alone) == ["path:node0-node1"]  # judged alone, the noisy row decides nothing
    first = judged_twice(tmp_path, ping_pong_rows(noisy=True), ping_pong_rows(noisy=False))
    assert culprits(first) == ["node:node1"], [(v.verdict, v.row.text("src"), v.row.text("dst"), v.reason) for v in first]
    [node1] = [v for v in first if v.record]
    assert node1.verdict == "FAIL" and node1.reason.startswith("reproduced: measured again"), node1.reason
    assert not [v for v in first if v.item and v.verdict in ("WARN", "FAIL") and not v.record]


def test_a_row_undecided_the_second_time_does_not_make_a_slow_pair_intermittent(tmp_path):
    """The same run the other way round: node1-node2 slow, tightly, the first time and undecided when
    measured again. An undecided row is no sign that its pair is fast now: node1 stays the one culprit,
    reproduced, not a path node0-node1 and an intermittent path node1-node2."""
    first = judged_twice(tmp_path, ping_pong_rows(noisy=False), ping_pong_rows(noisy=True))
    assert culprits(first) == ["node:node1"], [(v.verdict, v.row.text("src"), v.row.text("dst"), v.reason) for v in first]
    [node1] = [v for v in first if v.record]
    assert node1.verdict == "FAIL" and node1.reason.startswith("reproduced: measured again"), node1.reason


def judged_by_hand(tmp_path, rows):
    """As `wirebench report` reads a bare run directory of wb-net by hand: no suite, no ceiling."""
    run = tmp_path / "bare"
    run.mkdir(parents=True, exist_ok=True)
    (run / "results.csv").write_text(HEADER + "".join(rows))
    (run / "meta.json").write_text(json.dumps({"results_schema_version": 2}))
    return judge(read_results(run / "results.csv"), Ceilings.load(run))


@pytest.mark.parametrize("nodes", [3, 4, 8])
def test_without_a_ceiling_one_slow_node_is_named_whatever_share_of_the_pairs_it_is_in(tmp_path, nodes):
    """One slow node is in two thirds of three nodes' pairs and half of four's: the fleet's median
    falls between the groups and its MAD is as wide as the fault (issue 54: four nodes, node2 at 150 of
    400 Mbit/s, read 12 PASS). The faster group says what a healthy pair reads."""
    slow = nodes - 1
    verdicts = judged_by_hand(tmp_path, fleet(nodes, rate=lambda a, b, ra, rb: 0.45 if slow in (a, b) else 0.96))
    assert culprits(verdicts) == [f"node:node{slow}"]
    culprit = next(v for v in verdicts if v.record)
    assert culprit.verdict == "FAIL" and culprit.fraction is None
    assert "what the fleet's healthy pairs read" in culprit.expected and culprit.value < culprit.bound
    assert culprit.bound == pytest.approx(0.8 * 0.96 * CEILING, rel=0.03)


def test_without_a_ceiling_a_healthy_noisy_fleet_and_one_of_two_groups_by_design_blame_nobody(tmp_path):
    """Two groups alone do not say which is sick: on two rails the pairs across rails cross the spine
    at half rate by design (the fabric, were it a fault), and a noisy fleet has no gap at all."""
    rails = fleet(3, ranks_per_node=2, rate=lambda a, b, ra, rb: 0.96 if ra == rb else 0.48)
    noisy = fleet(4, rate=lambda a, b, ra, rb: 0.93, noise=0.12, seed=11)
    for name, rows in (("rails", rails), ("noisy", noisy)):
        verdicts = judged_by_hand(tmp_path / name, rows)
        assert culprits(verdicts) == [], name
        assert not [v for v in verdicts if v.verdict in ("FAIL", "WARN")], name


def test_no_pass_sits_beyond_the_bound_it_prints_and_no_fail_inside_it(tmp_path):
    """The issue's sick node printed `PASS ... 0.01861 GB/s | >= 0.02727 GB/s`. Every verdict of a
    matrix with one slow node, with and without a ceiling, and of the recorded runs, against its bound."""
    from test_golden_runs import RUNS
    sets = [judged_by_hand(tmp_path / "bare", fleet(4, rate=lambda a, b, ra, rb: 0.45 if 2 in (a, b) else 0.96)),
            judged(tmp_path / "suite", fleet(4, rate=lambda a, b, ra, rb: 0.45 if 2 in (a, b) else 0.96))[1]]
    for run in sorted(p for p in RUNS.iterdir() if (p / "results.csv").exists()):
        sets.append(judge(read_results(run / "results.csv"), Ceilings.load(run)))
    checked = 0
    for verdicts in sets:
        for v in verdicts:
            if v.bound is None or v.value is None or v.verdict not in ("PASS", "FAIL"):
                continue
            higher = v.metric != "time_us"
            inside = v.value >= v.bound if higher else v.value <= v.bound
            assert inside == (v.verdict == "PASS"), (v.verdict, v.value, v.expected, v.reason)
            checked += 1
    assert checked > 50  # 79 when written


@pytest.mark.parametrize("by_hand", [True, False])
def test_a_node_lagging_by_less_than_a_fail_is_one_warn_naming_it_not_a_warn_per_pair(tmp_path, by_hand):
    """Eight nodes, node5 15% slow (measured: 20% by hand read 14 WARN pairs and no node): above the
    ceiling's healthy fraction and short of the fleet's 20%, in the siblings' WARN band on every pair."""
    rows = fleet(8, rate=lambda a, b, ra, rb: 0.96 * 0.85 if 5 in (a, b) else 0.96, noise=0.005)
    verdicts = judged_by_hand(tmp_path, rows) if by_hand else judged(tmp_path, rows)[1]
    assert culprits(verdicts) == ["node:node5"]
    culprit = next(v for v in verdicts if v.record)
    assert culprit.verdict == "WARN" and "every slow pair has node5 in it" in culprit.reason
    assert [v.verdict for v in verdicts if v.item and not v.record and v.verdict != "PASS"] == []
    if by_hand:
        assert "within 10% of" in culprit.expected and culprit.value < culprit.bound


def test_a_noisy_healthy_fleet_names_no_lagging_node(tmp_path):
    for seed in range(1, 21):
        rows = fleet(8, rate=lambda a, b, ra, rb: 0.94, noise=0.06, seed=seed)
        assert culprits(judged_by_hand(tmp_path / f"s{seed}", rows)) == [], seed


def test_a_failed_nodes_pairs_that_only_lag_join_its_culprit_not_a_second_one(tmp_path):
    """The runner's eight nodes, one 20% slow: the culprit FAILed on its slowest pairs and 4-6 of its
    pairs stayed WARN, each on its own (bench/MEASUREMENTS.md, session 27)."""
    rows = fleet(8, rate=lambda a, b, ra, rb: (0.74 if b % 2 else 0.86) if 5 in (a, b) else 0.96, noise=0.005)
    verdicts = judged(tmp_path, rows)[1]
    assert culprits(verdicts) == ["node:node5"]
    assert [v for v in verdicts if v.item and v.verdict == "WARN"] == []


def test_without_a_ceiling_the_pairs_no_culprit_explains_are_held_to_their_own_median(tmp_path):
    """The issue's recorded sick node (by-hand-slow-node-of-4) printed its six healthy pairs as
    `PASS 0.0496 GB/s | >= 0 GB/s`: node2's six pairs had widened the MAD of all twelve to the fault.
    Once node2 is named, the six it does not explain are held to their own median; a pair that falls
    20% below them is said, a WARN."""
    verdicts = judged_by_hand(tmp_path / "one", fleet(4, rate=lambda a, b, ra, rb: 0.45 if 2 in (a, b) else 0.96))
    assert culprits(verdicts) == ["node:node2"]
    rest = [v for v in verdicts if v.item and not v.record and not v.explained_by]
    assert len(rest) == 6 and {v.verdict for v in rest} == {"PASS"}
    for v in rest:
        assert v.bound == pytest.approx(0.8 * 0.96 * CEILING, rel=0.03), v.expected
        assert "of 6 equivalent links no culprit explains" in v.expected and v.value >= v.bound
    # eight nodes, node5 slow, and one pair 30% below the rest that no rule localises alone
    slow_pair = {(0, 1)}
    rows = fleet(8, rate=lambda a, b, ra, rb: 0.45 if 5 in (a, b) else (0.66 if (a, b) in slow_pair else 0.96))
    verdicts = judged_by_hand(tmp_path / "two", rows)
    named = culprits(verdicts)
    assert "node:node5" in named
    pair = next(v for v in verdicts if v.row.text("src").startswith("node0/") and v.row.text("dst").startswith("node1/"))
    # the slow pair is said either way: as a culprit of its own, or a WARN against the rest
    assert pair.explained_by or (pair.verdict == "WARN" and "no culprit explains" in pair.reason), (named, pair.reason)


@pytest.mark.parametrize("by_hand", [True, False])
def test_a_node_whose_worst_pairs_crossed_the_fail_bound_is_one_node_not_paths_and_a_lagging_node(tmp_path, by_hand):
    """The runner's curve, 8 nodes, node4 20% slow, run 4: noise put three of node4's seven node pairs
    below the FAIL bound (named as paths with node4) and four in the lagging band (named "WARN node4"),
    so slurm drain drained nothing. One node, FAIL, its seven pairs explained by it."""
    worse = {0, 3, 6}
    rows = fleet(8, rate=lambda a, b, ra, rb: (0.96 * (0.78 if {a, b} - {4} <= worse else 0.84)) if 4 in (a, b) else 0.96,
                 noise=0.004)
    verdicts = judged_by_hand(tmp_path, rows) if by_hand else judged(tmp_path, rows)[1]
    assert culprits(verdicts) == ["node:node4"]
    node = next(v for v in verdicts if v.record)
    assert node.verdict == "FAIL" and "7 node pairs slow" in node.reason, node.reason
    explained = [v for v in verdicts if v.explained_by]
    assert len(explained) == 14 and {v.explained_by for v in explained} == {"node node4"}
    assert not [v for v in explained if "culprit path" in v.reason]


def test_a_row_too_noisy_to_be_slow_alone_on_a_pair_its_culprit_names_joins_it(tmp_path):
    """The runner's curve, 8 nodes, node2 20% slow (kept as /tmp/keep20 in session 28): 11 of node2's
    14 rows slow, three at 79.9% of the ceiling with spreads of 1-38%, "undecided" WARNs of their own
    beside "FAIL node node2": one fault, counted once."""
    rows = []
    for row in fleet(8, rate=lambda a, b, ra, rb: 0.75 if 2 in (a, b) else 0.97, noise=0.004):
        fields = row.split(",")
        if fields[4].startswith(("node0/", "node6/")) and fields[5].startswith("node2/"):
            t = 1048576 / (CEILING * 0.799 * 1e3)  # at the healthy fraction's edge, with a 38% spread
            fields[13:18] = [f"{t:.7g}", f"{t * 0.8:.7g}", f"{t * 1.18:.7g}", f"{CEILING * 0.799:.7g}", f"{CEILING * 0.799:.7g}"]
            fields[-1] = "38\n"
            row = ",".join(fields)
        rows.append(row)
    verdicts = judged(tmp_path, rows)[1]
    assert culprits(verdicts) == ["node:node2"]
    assert [(v.row.text("src"), v.row.text("dst")) for v in verdicts if v.item and v.verdict == "WARN"] == []
    joined = [v for v in verdicts if "too close to its bound" in v.reason]
    assert len(joined) == 2 and {v.explained_by for v in joined} == {"node node2"}
