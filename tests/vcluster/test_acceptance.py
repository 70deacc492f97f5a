"""End to end on the virtual cluster (ctest label: vcluster; root): `wirebench run vcluster`
measures three nodes over links shaped to 1 Gbit/s and judges them; injected faults must show
up as the right verdict and exit code, naming the right link."""
import csv
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from vcluster_helpers import culprit_of

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")


def wirebench():
    return Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wirebench"


def suite_at_256k(folder, timeout=None):
    """The vcluster suite with its largest size at 256 KiB rather than 1 MiB, for the fault tests: a
    fault's verdict is the point there, not the figure, and the runs take half the time (a slow node's
    run 45 s against 103 s); its ping-pong batches are 4 MiB, not 16 (--batch-bytes). The clean tests
    keep the suite as users run it (at 256 KiB ping-pong
    reads up to 104% of the shaped rate: tbf's 32 kB burst refills between messages). The clean
    3-node run as users run it is the default suite's cluster step, run from an installed prefix by
    tests/install (the same step, judged the same way)."""
    import yaml
    doc = yaml.safe_load((ROOT / "suites" / "vcluster.yaml").read_text())
    args = doc["steps"][0]["args"]
    assert args[args.index("--sizes") + 1] == "8,1M", args  # the suite changed: look at this test again
    args[args.index("--sizes") + 1] = "8,256K"
    args += ["--batch-bytes", "4M"]
    if timeout:  # the ranks' deadline (--timeout): when they give up on a rank that stopped answering
        args[args.index("--timeout") + 1] = str(timeout)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vcluster.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def run_suite(run_dir, *args, timeout=600, fault=False):
    suite = suite_at_256k(run_dir.parent / "suite") if fault else "vcluster"
    return subprocess.run([str(wirebench()), "run", suite, "--run-dir", str(run_dir), *args],
                          capture_output=True, text=True, timeout=timeout)


def verdicts(run_dir):
    return json.loads((run_dir / "summary.json").read_text())["verdicts"]


def test_one_slow_node_is_the_culprit_and_its_links_are_not_failed_one_by_one(tmp_path):
    result = run_suite(tmp_path / "run", "--degrade", "1=500mbit", fault=True)
    assert result.returncode == 1, result.stdout + result.stderr
    for v in verdicts(tmp_path / "run"):
        if v["fraction"] is None:
            continue
        if culprit_of(v):  # one per measurement (ping-pong, stream): node1, measured twice
            assert culprit_of(v) == "node:node1" and v["verdict"] == "FAIL", v
            assert v["reason"].startswith("reproduced: measured again"), v
        else:  # healthy links stay healthy (WARN is healthy too: the band just above the floor)
            assert "node1/" not in v["key"] and v["verdict"] in ("PASS", "WARN"), v
    assert result.stdout.count("FAIL fabric culprit: node node1") == 2, result.stdout


def test_a_fault_that_fires_once_is_an_intermittent_warn_with_both_figures(tmp_path):
    """--inject-fault slow halves every link's rate in the suite's pass only: each FAIL is measured
    once more, healthy the second time, and reported as intermittent with both figures."""
    result = run_suite(tmp_path / "run", "--inject-fault", "slow", fault=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"failing or uncertain item\(s\): measuring them once more in \d+ run\(s\), as their reruns say",
                     result.stdout), result.stdout
    judged = [v for v in verdicts(tmp_path / "run") if v["fraction"] is not None]
    # every pair slow at once: one culprit per measurement, the fabric as a whole, gone the second time
    assert sorted(str(culprit_of(v)) for v in judged) == ["fabric:all", "fabric:all"], judged
    for v in judged:
        assert v["verdict"] == "WARN" and v["reason"].startswith("intermittent: "), v
        assert "(FAIL) the first time" in v["reason"] and "when measured again" in v["reason"], v
    assert (tmp_path / "run" / "remeasured" / "results.csv").exists()


def test_a_corrupting_link_is_a_data_error(tmp_path):
    result = run_suite(tmp_path / "run", "--inject-fault", "corrupt", fault=True)
    assert result.returncode == 1, result.stdout + result.stderr
    failed = [v for v in verdicts(tmp_path / "run") if v["verdict"] == "FAIL"]
    assert failed and all("wrong elements" in v["reason"] for v in failed)


def test_a_killed_rank_is_an_error_and_finished_rows_stay(tmp_path):
    run_dir = tmp_path / "run"
    # The ranks left wait for the victim up to their --timeout (30 s in the suite; 10 s is as good here)
    suite = suite_at_256k(tmp_path / "suite", timeout=10)
    process = subprocess.Popen([str(wirebench()), "run", suite, "--run-dir", str(run_dir)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    results = run_dir / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= 3:  # header and two rows
            break
        time.sleep(0.05)
    victims = subprocess.run(["pgrep", "-f", f"wb-net .*{run_dir}"], capture_output=True, text=True).stdout.split()
    assert victims, "no wb-net process to kill"
    victim = int(victims[-1])
    os.kill(victim, signal.SIGKILL)
    try:
        output, _ = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the run did not end within 120 s of a rank being killed")
    assert process.returncode == 2, output
    rows = list(csv.DictReader(results.open()))
    assert sum(r["status"] == "OK" for r in rows) >= 2  # measured before the kill: kept
    errors = [r for r in rows if r["status"] == "ERROR"]
    assert errors and "point-to-point" in errors[-1]["reason"] and "exited with code 2" in errors[-1]["reason"]
    # wirebench's own words, naming the dead rank: which one, where, in what, and that it is gone
    named = f"(pid {victim}) stopped answering"
    assert named in errors[-1]["reason"] and "the process is gone" in errors[-1]["reason"], errors[-1]["reason"]
    assert named in output and "BAD TERMINATION" not in output, output
    assert "wbnode" not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def test_a_clean_two_by_two_cluster_passes(tmp_path):
    """The issue's clean case: 2 nodes x 2 ranks at 1 Gbit/s (without its 50 us of delay: this
    kernel has no netem). Pairs across nodes are judged against the shaped rate; pairs inside a node
    talk through the node's own loopback and have no ceiling."""
    import yaml
    suite = yaml.safe_load(Path(suite_at_256k(tmp_path / "at-256k")).read_text())  # clean is the point, not 1 MiB
    suite["name"] = "vcluster-2x2"
    suite["cluster"].update({"nodes": 2, "ranks": 2})
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "vcluster-2x2.yaml").write_text(yaml.safe_dump(suite))
    (suites / "ceilings.csv").write_text((ROOT / "suites" / "ceilings.csv").read_text())
    env = dict(os.environ, WB_SUITES_DIR=str(suites))
    result = subprocess.run([str(wirebench()), "run", "vcluster-2x2", "--run-dir", str(tmp_path / "run")],
                            capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    judged = verdicts(tmp_path / "run")
    assert all(v["verdict"] in ("PASS", "WARN", "SKIP", "NOT JUDGED") for v in judged), judged
    across = [v for v in judged if v["fraction"] is not None]
    # ping-pong and stream (both ways) for the 4 rank pairs across the two nodes; two of them run at
    # once in a round and share each node's one link, so each is held against half the shaped rate
    assert len(across) == 12
    assert all(v["ceiling_GBps"] == pytest.approx(0.0625) for v in across), across
    rows = list(csv.DictReader((tmp_path / "run" / "results.csv").open()))
    assert {r["nodes"] for r in rows if r["status"] == "OK"} == {"2"}
    assert {r["link_class"] for r in rows if r["status"] == "OK"} == {"eth", "shm"}
