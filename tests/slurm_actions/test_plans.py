"""wirebench slurm's plans, against Slurm's view as sinfo prints it and run directories as the
report and the check write them: who is drained, who is resumed, and who is left alone."""
import json
import time

import pytest

from wirebench.slurm.__main__ import main, plan_drain, plan_resume
from wirebench.report.findings import culprit as culprit_finding
from wirebench.slurm.run_findings import RunDirError, read_run
from wirebench.slurm.slurm_nodes import REASON_LIMIT, drain_command, parse_sinfo, reason_text, resume_command

SINFO = """node0|vcluster*|idle|Unknown|none
node1|vcluster*|idle|Unknown|none
node2|vcluster*|drained|2026-12-03T10:00:00|disk replacement
node3|vcluster*|drained|2026-12-03T10:00:00|wirebench: node3 wbeth0 at 100 Mb/s, expected 1 Gb/s (check 2026-12-03T10:00:00Z)
"""


def verdict(key_bench, src, dst, level, culprit=None, reason="r"):
    """A verdict of summary.json; `culprit` ("node:node1") a culprit's finding as the report types it."""
    measured = culprit_finding.Measured("bw", "tcp", "eth", 1048576, "all", 2, 7)
    found = culprit_finding.make(*culprit.split(":", 1), measured).as_json() if culprit else None
    return {"line": 2, "key": "k", "bench": key_bench, "src": src, "dst": dst, "verdict": level, "item": "an item",
            "measured": "1 GB/s", "expected": ">= 2 GB/s", "reason": reason, "metric": "algbw_GBps", "value": 1.0,
            "ceiling_GBps": None, "fraction": None, "samples": None, "spread_pct": None, "finding": found}


def summary(verdicts, name="run", version=4):
    """summary.json as wirebench report writes it (schema/summary.schema.json)."""
    counts = {level: sum(v["verdict"] == level for v in verdicts)
              for level in ("PASS", "WARN", "FAIL", "ERROR", "NOT JUDGED", "SKIP")}
    return {"schema_version": version, "run_dir": name, "exit_code": 1 if counts["FAIL"] else 0, "counts": counts,
            "data_points": len(verdicts), "problems": [], "skipped": [], "not_judged": [], "findings": [],
            "profile": None, "verdicts": verdicts}


def run_dir(tmp_path, name, verdicts, created="2026-12-03T12:00:00Z", version=4):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps(summary(verdicts, name, version)))
    (folder / "meta.json").write_text(json.dumps({"created": created}))
    return folder


def check_dir(tmp_path, name, node, level, stamp="2026-12-03T12:00:00Z"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "check.json").write_text(json.dumps({"schema_version": 1, "node": node, "time": stamp, "verdict": level,
                                                   "reason": f"wirebench: {node} something (check {stamp})"}))
    return folder


def test_sinfo_is_read_with_its_reasons_and_times():
    nodes = parse_sinfo(SINFO)
    assert [n.name for n in nodes.values() if n.drained] == ["node2", "node3"]
    assert nodes["node3"].drained_by_wirebench and not nodes["node2"].drained_by_wirebench
    assert nodes["node0"].reason == "" and nodes["node0"].since is None
    assert nodes["node2"].since == time.mktime(time.strptime("2026-12-03T10:00:00", "%Y-%m-%dT%H:%M:%S"))


def test_a_reason_names_wirebench_and_fits_one_line():
    assert reason_text("node1 slow\n at 5%") == "wirebench: node1 slow at 5%"
    assert len(reason_text("x" * 500)) == REASON_LIMIT
    cut = reason_text("node1 " + "x" * 500, "(run nightly-41)")
    assert len(cut) == REASON_LIMIT and cut.endswith("... (run nightly-41)")  # which run is never cut
    assert drain_command("node1", "wirebench: a") == ["scontrol", "update", "NodeName=node1", "State=DRAIN", "Reason=wirebench: a"]


def test_a_node_culprit_and_a_node_s_own_fail_are_blamed_a_path_is_not(tmp_path):
    found = read_run(run_dir(tmp_path, "run1", [
        verdict("fabric", "node1", "", "FAIL", "node:node1", "2 node pairs slow"),
        verdict("fabric", "node4", "node5", "FAIL", "path:node4-node5", "the path"),
        verdict("host", "node6/numa0", "node6/numa0", "FAIL"),
        verdict("net", "node0/rank0", "node2/rank2", "PASS"),
        verdict("net", "node7/rank7", "node8/rank8", "FAIL"),  # a pair's FAIL with no culprit: no one node's
    ]))
    assert set(found.blamed) == {"node1", "node6"}
    assert found.blamed["node1"] == "node node1: 1 GB/s, expected >= 2 GB/s"
    assert found.healthy == {"node0", "node2"}
    assert len(found.not_node) == 2 and found.not_node[0].startswith("path:node4-node5")


def test_a_summary_of_schema_3_without_evidence_is_read_the_same(tmp_path):
    """summary.json 4 added a finding's evidence; a run reported before (3, no `evidence`) still blames
    and clears the same nodes; a version neither is refused, naming the file."""
    verdicts = [verdict("fabric", "node1", "", "FAIL", "node:node1"), verdict("net", "node0/rank0", "node2/rank2", "PASS")]
    older = json.loads(json.dumps(verdicts))
    for v in older:
        if v["finding"]:
            del v["finding"]["evidence"]
    now, before = read_run(run_dir(tmp_path, "now", verdicts)), read_run(run_dir(tmp_path, "before", older, version=3))
    assert (now.blamed, now.healthy) == (before.blamed, before.healthy) == ({"node1": "node node1: 1 GB/s, expected >= 2 GB/s"},
                                                                          {"node0", "node2"})
    with pytest.raises(RunDirError, match=r"summary.json: schema_version 2; this wirebench reads 3, 4"):
        read_run(run_dir(tmp_path, "older", older, version=2))


def test_drain_leaves_someone_else_s_drain_and_wirebench_s_own_alone(tmp_path):
    nodes = parse_sinfo(SINFO)
    runs = [read_run(run_dir(tmp_path, "run1", [verdict("fabric", n, "", "FAIL", f"node:{n}") for n in
                                                ("node1", "node2", "node3", "node9")]))]
    commands, notes, refusal = plan_drain(runs, nodes, max_share=1.0, force=False)
    assert commands == [drain_command("node1", "node1 node node1: 1 GB/s, expected >= 2 GB/s (run run1)")]
    assert any("node2: drained by someone else (disk replacement)" in n for n in notes)
    assert any("node3: drained by wirebench already" in n for n in notes)
    assert any("node9: not a node of this Slurm" in n for n in notes)
    assert refusal is None


def test_drain_refuses_beyond_the_share_unless_forced(tmp_path):
    nodes = parse_sinfo("\n".join(f"node{i}|p|idle|Unknown|none" for i in range(20)))
    runs = [read_run(run_dir(tmp_path, "run1", [verdict("fabric", f"node{i}", "", "FAIL", f"node:node{i}")
                                                for i in range(3)]))]
    commands, _, refusal = plan_drain(runs, nodes, max_share=0.1, force=False)  # 2 of 20 may go
    assert len(commands) == 3 and "more than --max-share 0.1 allows (2)" in refusal
    assert plan_drain(runs, nodes, max_share=0.1, force=True)[2] is None
    assert plan_drain(runs, nodes, max_share=0.15, force=False)[2] is None  # 3 of 20
    one = [read_run(run_dir(tmp_path, "run2", [verdict("fabric", "node0", "", "FAIL", "node:node0")]))]
    small = parse_sinfo("node0|p|idle|Unknown|none\nnode1|p|idle|Unknown|none\n")
    assert plan_drain(one, small, max_share=0.1, force=False)[2] is None  # one node may always go


def test_resume_only_wirebench_s_drains_found_healthy_after_the_drain(tmp_path):
    nodes = parse_sinfo(SINFO)
    before = check_dir(tmp_path, "old", "node3", "PASS", stamp="2026-12-03T09:00:00Z")
    assert plan_resume([read_run(before)], nodes)[0] == []  # measured before the drain: no evidence
    failing = check_dir(tmp_path, "failing", "node3", "FAIL")
    commands, notes = plan_resume([read_run(failing)], nodes)
    assert commands == [] and any("node3: still failing in failing" in n for n in notes)
    healed = check_dir(tmp_path, "healed", "node3", "PASS", stamp="2026-12-03T13:00:00Z")
    assert plan_resume([read_run(failing), read_run(healed)], nodes)[0] == [resume_command("node3")]  # the latest decides
    relapsed = check_dir(tmp_path, "relapsed", "node3", "FAIL", stamp="2026-12-03T14:00:00Z")
    assert plan_resume([read_run(healed), read_run(relapsed)], nodes)[0] == []
    healthy = [read_run(check_dir(tmp_path, n, n.split("-")[0], "PASS")) for n in ("node3-ok", "node2-ok")]
    commands, notes = plan_resume(healthy, nodes)
    assert commands == [["scontrol", "update", "NodeName=node3", "State=RESUME"]]
    assert any("node2: drained by someone else" in n for n in notes)


def test_a_run_directory_that_cannot_be_read_is_named(tmp_path, capsys):
    with pytest.raises(RunDirError, match="no such run directory"):
        read_run(tmp_path / "nowhere")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "summary.json").write_text('{"schema_version": 3,\n "verdicts": [}')
    with pytest.raises(RunDirError, match=r"summary.json:2: not valid JSON"):
        read_run(bad)
    (bad / "summary.json").write_text('{"schema_version": 9, "verdicts": []}')
    with pytest.raises(RunDirError, match="schema_version 9; this wirebench reads 3"):
        read_run(bad)
    assert main(["wirebench slurm", "drain", str(bad)]) == 3
    assert "schema_version 9" in capsys.readouterr().err
    # a summary.json its JSON Schema refuses: named with the place, never read as if healthy
    (bad / "summary.json").write_text(json.dumps(summary([verdict("net", "node1", "node2", "BROKEN")])))
    with pytest.raises(RunDirError, match=r"summary.json: verdicts/0/verdict: 'BROKEN' is not one of"):
        read_run(bad)
