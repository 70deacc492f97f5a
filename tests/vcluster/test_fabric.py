"""The fabric suite on eight namespace nodes (ctest label: vcluster; root): every node pair in seven
rounds of four pairs at once, and three random matchings. A clean fabric passes; a node at half
rate and a path at half rate, planted together, are named as the node and as the path, the path's two
nodes not blamed (from the rounds alone, on six nodes: the matchings would name them a second time).
The adaptive screen (suite fabric-screen) names a node at half rate and a path it screened in a few
rounds of listed pairs, and a clean fabric in one round of every node; under the virtual cluster's Slurm with three leaf switches
(topology/tree) it pairs every two switches and names a slow route between two of them; on two rails
(suite fabric-rails, a rank per NIC) it names a slow NIC as that NIC and a NIC on the wrong rail's
switch as miswired. The fault tests measure smaller batches than the suites (FAULT_MEASUREMENT)."""
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from vcluster_helpers import culprit_of

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")


# What the fault tests measure instead of the suites' 256 KiB in 16 MiB batches: 64 KiB messages in
# batches of one 64-message window (4 MiB), a quarter of the time a round takes (at half rate: 1.3 s,
# not 5.4; a slow node and a slow path on six nodes took 112 s). The culprit is their point, not the
# figure; the clean runs keep the suites as users run them. Five batches, not the suites' three: the
# machine's hypervisor now and then takes the cores for a few hundred milliseconds (steal time 5-15%
# while a round runs), which stalls the batches it falls in, and a pair's median of three read 60-70%
# of the shaped rate about one run in four (bench/MEASUREMENTS.md, 2026-12-05); the median of five
# outlasts such a stall.
FAULT_MEASUREMENT = ["--sizes", "64K", "--batch-bytes", "4M", "--min-samples", "5"]


def run_fabric(run_dir, *args, pairs_only=False, suite="fabric", nodes=None, faults=False):
    """`wirebench run SUITE`; with `pairs_only` the fabric suite's first step alone (every node pair
    in rounds), which is all a culprit test needs: the bisection step names the same culprit a second
    time; `nodes`: that many nodes instead of the suite's eight (fewer rounds, measured twice when a
    pair fails: the runner measures a failing size once more); `faults`: every step measures as
    FAULT_MEASUREMENT says."""
    wirebench = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wirebench"
    if pairs_only or nodes or faults:
        name = "fabric" if pairs_only else suite
        doc = yaml.safe_load((ROOT / "suites" / f"{name}.yaml").read_text())
        if pairs_only:
            doc["steps"] = doc["steps"][:1]
        doc["cluster"]["nodes"] = nodes or doc["cluster"]["nodes"]
        for step in doc["steps"] if faults else []:
            step_args = step["args"]
            at = step_args.index("--sizes")
            assert step_args[at + 1] == "256K", step_args  # the suite changed: look at FAULT_MEASUREMENT again
            step_args = step_args[:at] + step_args[at + 2:]
            at = step_args.index("--min-samples")
            step["args"] = step_args[:at] + step_args[at + 2:] + FAULT_MEASUREMENT
        run_dir.parent.mkdir(parents=True, exist_ok=True)
        suite = str(run_dir.parent / f"{name}-for-the-test.yaml")
        Path(suite).write_text(yaml.safe_dump(doc))
    return subprocess.run([str(wirebench), "run", suite, "--run-dir", str(run_dir), *args],
                          capture_output=True, text=True, timeout=900)


def second_looks(result):
    """The rounds the screen measured a second time (adaptive_screen.py): a probe round whose control
    was slow too, and the screen's round again where most of its pairs were slow."""
    return (result.stdout.count("the round was slow as a whole, its probes are planned again")
            + result.stdout.count("the same pairs measured again before the fabric is named"))


def summary(run_dir):
    return json.loads((run_dir / "summary.json").read_text())


def culprits(s):
    return sorted((culprit_of(v), v["verdict"]) for v in s["verdicts"] if culprit_of(v))


def standing(s):
    """The culprits that stand; any other is a WARN that did not reproduce when measured again (two
    cores carrying eight ranks now and then slow one pair for a moment)."""
    for culprit, verdict in culprits(s):
        assert verdict == "FAIL" or next(v for v in s["verdicts"] if culprit_of(v) == culprit)["reason"].startswith(
            "intermittent: "), (culprit, verdict)
    return sorted({c for c, verdict in culprits(s) if verdict == "FAIL"})  # once per measurement: rounds, bisection


def rows(run_dir):
    return (run_dir / "results.csv").read_text().splitlines()[1:]


def test_a_clean_fabric_passes_and_every_pair_is_measured_once_each_way(tmp_path):
    result = run_fabric(tmp_path / "run")
    assert result.returncode == 0, result.stdout + result.stderr
    s = summary(tmp_path / "run")
    assert standing(s) == []
    assert s["counts"]["FAIL"] == 0 and s["counts"]["ERROR"] == 0, s["counts"]
    pairs = [r.split(",") for r in rows(tmp_path / "run") if ";round=" in r and ",all,all," not in r]
    rounds = [(r[4], r[5]) for r in pairs if "pairs=all;" in r[19]]
    assert len(rounds) == 56 and len(set(rounds)) == 56  # 28 pairs, both ways, each once
    assert all("at_once=4" in r[19] for r in pairs)  # four pairs at a time
    aggregates = [r for r in rows(tmp_path / "run") if r.startswith("net,bisection_stream_bw,")]
    assert len(aggregates) == 6 and all("slowest=node" in r for r in aggregates)  # 3 matchings x 2 passes
    assert list((tmp_path / "run" / "plots").glob("nodes-stream_bw-*.png"))


def test_a_node_and_a_path_at_half_rate_are_the_two_culprits_and_no_other_node_is_blamed(tmp_path):
    """Two faults at once, in one run of six nodes (five rounds, measured twice): node3 at half rate
    is named as the node, the path node2-node5 at half rate as the path; node2 and node5, fine with
    every other node, are not blamed, nor is any node that only met node3."""
    result = run_fabric(tmp_path / "run", "--degrade", "3=100mbit", "--degrade-path", "2-5=100mbit", pairs_only=True,
                        nodes=6, faults=True)
    assert result.returncode == 1, result.stdout + result.stderr
    s = summary(tmp_path / "run")
    assert standing(s) == ["node:node3", "path:node2-node5"]
    failed = [v for v in s["verdicts"] if v["verdict"] == "FAIL"]
    assert sorted(culprit_of(v) for v in failed) == ["node:node3", "path:node2-node5"], failed
    assert "FAIL fabric culprit: node node3" in result.stdout
    assert "FAIL fabric culprit: the path node2-node5" in result.stdout
    node3 = next(v for v in failed if culprit_of(v) == "node:node3")
    assert "node2-node5" not in node3["reason"], node3["reason"]  # the path's rows are not node3's


def screen_rounds(run_dir):
    """{round: [(src, dst)]} of an adaptive screen's rows."""
    out = {}
    for r in rows(run_dir):
        fields = r.split(",")
        items = dict(item.partition("=")[::2] for item in fields[19].split(";"))
        if items.get("pairs") == "listed":
            out.setdefault(int(items["round"]), []).append((fields[4], fields[5]))
    return out


def test_the_adaptive_screen_names_a_node_and_a_screened_path_at_half_rate(tmp_path):
    """node3 at half rate and the path node5-node7 at half rate, one run of the screen. Its round 1
    (seed 1, eight nodes) pairs node5 with node7 and node3 with node6: node3 is slow with healthy nodes
    too, the node; node5 and node7 are fast with everyone else, and slow together again: the path."""
    result = run_fabric(tmp_path / "run", "--degrade", "3=100mbit", "--degrade-path", "5-7=100mbit",
                        suite="fabric-screen", faults=True)
    assert result.returncode == 1, result.stdout + result.stderr
    s = summary(tmp_path / "run")
    assert standing(s) == ["node:node3", "path:node5-node7"], result.stdout
    failed = [v for v in s["verdicts"] if v["verdict"] == "FAIL"]
    assert sorted(culprit_of(v) for v in failed) == ["node:node3", "path:node5-node7"], failed
    rounds = screen_rounds(tmp_path / "run")
    # The screen: every node once, four pairs both ways at once, node5-node7 among them.
    assert sorted({n.partition("/")[0] for pair in rounds[1] for n in pair}) == [f"node{i}" for i in range(8)]
    assert len(rounds[1]) == 8 and ("node5/rank5", "node7/rank7") in rounds[1]
    # node3 is decided by its isolate and confirm probes; the path when each of its nodes has been
    # fast three times with others and the pair slow again: a few rounds, not --pairs all's seven.
    assert all(any("node3/" in src + dst for src, dst in pairs) for pairs in list(rounds.values())[:3])
    # (5-7 rounds here without a dip; each dip on a suspect's probe costs a round more: the bound on
    # rounds is held in tests/screening, where noise is the simulator's; here the screen decided before
    # its cap, MAX_ROUNDS = 12, which a run that left a suspect open reaches)
    assert len(rounds) - second_looks(result) < 12, rounds
    assert "FAIL fabric culprit: node node3, from net stream_bw --pairs adaptive" in result.stdout
    assert "FAIL fabric culprit: the path node5-node7, from net stream_bw --pairs adaptive" in result.stdout
    assert "node rank3" not in result.stdout


def test_the_adaptive_screen_of_a_clean_fabric_fails_nothing(tmp_path):
    result = run_fabric(tmp_path / "run", suite="fabric-screen")
    assert result.returncode == 0, result.stdout + result.stderr
    s = summary(tmp_path / "run")
    assert culprits(s) == [] and s["counts"]["FAIL"] == 0 and s["counts"]["ERROR"] == 0, s["counts"]
    rounds = screen_rounds(tmp_path / "run")
    assert sorted({n.partition("/")[0] for pair in rounds[1] for n in pair}) == [f"node{i}" for i in range(8)]
    # One round when nothing is slow; a pair slowed for a moment (two cores, eight ranks) is measured
    # again with its nodes and itself, and is a WARN that did not reproduce, not a FAIL.
    if len(rounds) > 1 + second_looks(result):
        assert any(v["reason"].startswith("slow once, not reproduced") for v in s["verdicts"] if v["verdict"] == "WARN")


SCREEN_UNDER_SLURM = """name: screen-under-slurm
description: the adaptive screen of a Slurm job's nodes, one rank each
expectations:
  - {link_class: eth, ceiling_GBps: 0.025, healthy_fraction: 0.8, reason: 200 Mbit/s shaping, source: ci/vcluster tbf}
steps:
  - name: adaptive screen
    binary: wb-net
    ranks: nodes
    # measured as FAULT_MEASUREMENT says
    args: [--pairs, adaptive, --tests, bw, --sizes, 64K, --batch-bytes, 4M, --link-class, eth,
           --benchmark_min_time=0.2, --min-samples, "3", --warmup, "1", --timeout, "30"]
    timeout: 120
"""


def test_under_slurm_the_screen_pairs_every_two_switches_and_names_a_slow_route(tmp_path):
    """Six nodes under three leaf switches in Slurm's topology (leaf0: node0-1, leaf1: node2-3,
    leaf2: node4-5); every pair between leaf0 and leaf2 at half rate: the route, not a node."""
    vcluster = ROOT / "ci" / "vcluster"
    slow = [arg for a in (0, 1) for b in (4, 5) for arg in ("--degrade-path", f"{a}-{b}=100mbit")]
    up = subprocess.run([str(vcluster), "up", "--nodes", "6", "--rate", "200mbit", "--slurm", "--switches", "3", *slow],
                        capture_output=True, text=True, timeout=180)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        env = dict(os.environ)
        for line in subprocess.run([str(vcluster), "env"], capture_output=True, text=True, check=True).stdout.splitlines():
            env.update(item.split("=", 1) for item in line.removeprefix("export ").split())
        (tmp_path / "screen.yaml").write_text(SCREEN_UNDER_SLURM)
        wirebench = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wirebench"
        job = dict(env, WB_RUN_DIR=str(tmp_path / "run"), WB_SUITE=str(tmp_path / "screen.yaml"),
                   WB_WIREBENCH=str(wirebench))
        result = subprocess.run(["sbatch", "--wait", f"--output={tmp_path}/job.out", "-N", "6",
                                 str(ROOT / "ci" / "templates" / "slurm-acceptance.sbatch")],
                                capture_output=True, text=True, env=job, cwd=tmp_path, timeout=600)
    finally:
        subprocess.run([str(vcluster), "down"], capture_output=True, timeout=120)
    output = (tmp_path / "job.out").read_text() if (tmp_path / "job.out").exists() else result.stderr
    assert result.returncode == 1, output  # the route's FAIL
    run_dir = tmp_path / "run"
    assert json.loads((run_dir / "switches.json").read_text())["leaf_of"] == {
        "node0": "leaf0", "node1": "leaf0", "node2": "leaf1", "node3": "leaf1", "node4": "leaf2", "node5": "leaf2"}
    assert "3 leaf switches (Slurm's topology)" in output
    assert "FAIL fabric culprit: the route leaf0-leaf2, from net stream_bw --pairs adaptive" in output
    s = summary(run_dir)
    assert standing(s) == ["route:leaf0-leaf2"], output
    assert [culprit_of(v) for v in s["verdicts"] if v["verdict"] == "FAIL"] == ["route:leaf0-leaf2"]
    # The screen's rounds covered every pair of switches, each switch with itself too.
    rounds = screen_rounds(run_dir)
    leaf = {f"node{i}": f"leaf{i // 2}" for i in range(6)}
    screened = {frozenset((leaf[a.partition("/")[0]], leaf[b.partition("/")[0]])) for r in (1, 2) for a, b in rounds[r]}
    assert screened == {frozenset((f"leaf{x}", f"leaf{y}")) for x in range(3) for y in range(3)}


def test_on_rails_the_screen_names_a_slow_nic_and_a_miswired_one_not_their_nodes(tmp_path):
    """Four nodes with two rails, a rank per NIC (ci/vcluster up --rails 2): node3's rail-1 NIC at
    half rate, node1's rail-0 NIC cabled to rail 1's switch. The slow NIC is named as that NIC, not
    node3; the miswire as node1's rail-0 NIC on rail 1's switch (slow with its rail, fast with rail 1)."""
    result = run_fabric(tmp_path / "run", "--degrade", "node3.rail1=100mbit", "--miswire", "node1.rail0=rail1",
                        suite="fabric-rails", faults=True)
    assert result.returncode == 1, result.stdout + result.stderr
    s = summary(tmp_path / "run")
    assert standing(s) == ["miswire:node1/rail0@rail1", "nic:node3/rail1"], result.stdout
    assert sorted(culprit_of(v) for v in s["verdicts"] if v["verdict"] == "FAIL") == standing(s)
    assert "FAIL fabric culprit: node3's NIC on rail 1, from net stream_bw --pairs adaptive" in result.stdout
    assert "FAIL fabric culprit: node1's rail-0 NIC cabled to rail 1's switch" in result.stdout
    rounds = screen_rounds(tmp_path / "run")
    # The screen: every NIC once, each with a NIC of its own rail (rank r is NIC r % 2 of node r // 2).
    rail = {f"node{n}/rank{2 * n + r}": r for n in range(4) for r in range(2)}
    assert {end for pair in rounds[1] for end in pair} == set(rail) and len(rounds[1]) == 8  # 4 pairs, both ways
    assert all(rail[a] == rail[b] for a, b in rounds[1])
    # Each NIC's wiring probe went to the other rail once it was found slow.
    assert any(rail[a] != rail[b] for pairs in list(rounds.values())[1:] for a, b in pairs)
    assert len(rounds) - second_looks(result) < 12, rounds  # decided before the cap (as above)
