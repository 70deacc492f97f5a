"""A real Slurm on the virtual cluster (ctest label: vcluster; root): munge, slurmctld and one
slurmd per namespace node (ci/vcluster up --slurm). The Slurm paths of the runner and the templates
run under it for real: the acceptance template through sbatch, `ranks: nodes`, `on_every_node`
and the per-node topology gather through srun; a killed rank and a dead node end in wirebench's
own words."""
import csv
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from vcluster_helpers import ROOT, VCLUSTER, bin_dir, slurm_down, slurm_up

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")

CPU_SUITE = """name: cpu-acceptance
description: what a node without GPUs can show under Slurm
steps:
  - {name: host memory, binary: wb-host, on_every_node: true, args: [--tests, numa_copy, --benchmark_min_time=0.1]}
  - name: between nodes
    binary: wb-net
    ranks: nodes
    min_nodes: 2
    args: [--pairs, all, --tests, bw, --sizes, 1M, --link-class, eth, --benchmark_min_time=0.2, --timeout, "20"]
    timeout: 120
"""


# Where a site installs: a prefix deep in its software tree, and a PATH as long as such sites have
# (modules, conda, pyenv). A long PATH is what broke the installed copy under srun's PMI (docs/
# mpi-and-slurm.md, "A long PATH under srun"): the tests run with one.
SITE_PATH_TAIL = ":".join(f"/opt/site/software/modules/package-{i}/version-1.2.{i}/bin" for i in range(12))


@pytest.fixture(scope="module")
def slurm():
    yield slurm_up("--nodes", "3")
    slurm_down()


def daemons():
    return subprocess.run(["pgrep", "-a", "-f", "slurmctld|slurmd|munged"], capture_output=True, text=True).stdout


def sbatch(env, tmp_path, *args, suite="acceptance", timeout=300, prefix=None):
    """The acceptance template through sbatch --wait, from a folder outside the repository. With
    `prefix` as a user runs it: the installed template, the prefix's bin first on a long PATH, no
    WB_WIREBENCH; without, this build tree's wirebench named by WB_WIREBENCH."""
    job_env = dict(env, WB_RUN_DIR=str(tmp_path / "run"), WB_SUITE=suite)
    if prefix:
        job_env.pop("WB_WIREBENCH", None)
        job_env["PATH"] = f"{prefix / 'bin'}:{env['PATH']}:{SITE_PATH_TAIL}"
        template = prefix / "share" / "wirebench" / "ci" / "templates" / "slurm-acceptance.sbatch"
    else:
        job_env["WB_WIREBENCH"] = str(bin_dir() / "wirebench")
        template = ROOT / "ci" / "templates" / "slurm-acceptance.sbatch"
    result = subprocess.run(["sbatch", "--wait", f"--output={tmp_path}/job.out", *args, str(template)],
                            capture_output=True, text=True, env=job_env, cwd=tmp_path, timeout=timeout)
    output = (tmp_path / "job.out").read_text() if (tmp_path / "job.out").exists() else ""
    return result, output


def rows(run_dir):
    return list(csv.DictReader((run_dir / "results.csv").open()))


def test_the_nodes_are_up_with_their_own_names(slurm):
    sinfo = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %t %c"], capture_output=True, text=True, env=slurm, check=True)
    assert sorted(sinfo.stdout.split("\n")[:-1]) == ["node0 idle 1", "node1 idle 1", "node2 idle 1"], sinfo.stdout
    hosts = subprocess.run(["srun", "-N", "3", "hostname"], capture_output=True, text=True, env=slurm, timeout=60)
    assert sorted(hosts.stdout.split()) == ["node0", "node1", "node2"], hosts.stderr


def test_the_acceptance_template_runs_across_the_nodes(slurm, tmp_path):
    result, output = sbatch(slurm, tmp_path, "-N", "3")  # the one test through WB_WIREBENCH and the build tree
    # No GPU on the virtual nodes: every item SKIPs. Nothing judged is never healthy (issue 54): the
    # job ends 4, which a CI step keyed on the exit code does not read as green.
    assert result.returncode == 4, output
    assert "Nothing judged: no item was measured" in output, output
    run_dir = tmp_path / "run"
    topology = json.loads((run_dir / "topology.json").read_text())
    assert sorted(n["hostname"] for n in topology["nodes"]) == ["node0", "node1", "node2"]  # gathered through srun
    measured = rows(run_dir)
    for node in ("node0", "node1", "node2"):  # on_every_node: each node's one-process steps, each named
        assert any(r["bench"] == "host" and r["src"].startswith(node) for r in measured), node
        assert any(r["bench"] == "p2p" and r["src"].startswith(node) for r in measured), node
    assert not [r for r in measured if r["status"] == "ERROR"]  # no GPU asked for: SKIP rows, no failure


def test_a_cpu_suite_measures_every_node_and_every_pair_under_slurm(slurm, installed, tmp_path):
    (tmp_path / "cpu-acceptance.yaml").write_text(CPU_SUITE)
    result, output = sbatch(slurm, tmp_path, "-N", "3", suite=str(tmp_path / "cpu-acceptance.yaml"), prefix=installed)
    # The three nodes share this machine's two cores with three slurmds and a slurmctld. The host
    # step's memcpy runs on every node at once (srun starts them together, as on a real cluster):
    # those figures contend, and the sibling rule may fairly flag one (seen once in CI: 34% below the
    # median). The network rows are judged against each other only (no ceiling for the shaped veth
    # under Slurm), five batches each: one pair once read 10-20% below the other five in CI (1 run in
    # 20+ here) while the rest sat within 1% of the shaped rate. So a WARN of the sibling rule is
    # allowed on this machine, a FAIL is not, and every figure must reach half the shaped rate below.
    assert result.returncode in (0, 1), output
    verdicts = json.loads((tmp_path / "run" / "summary.json").read_text())["verdicts"]
    for v in verdicts:
        # the reporter's two wordings for an item below its equivalent links (verdicts.py)
        siblings_said = "below their median" in v["reason"] or "below the median" in v["reason"]
        contended = siblings_said and (v["bench"] == "host" or (v["bench"] == "net" and v["verdict"] == "WARN"))
        assert v["verdict"] in ("PASS", "SKIP", "NOT JUDGED") or contended, f"{v['verdict']} {v['key']}: {v['reason']}"
    measured = [r for r in rows(tmp_path / "run") if r["status"] == "OK"]
    assert all(r["errors"] == "0" for r in measured if r["bench"] == "host")
    copies = {r["src"].split("/")[0] for r in measured if r["bench"] == "host"}
    assert copies == {"node0", "node1", "node2"}
    pairs = {(r["src"].split("/")[0], r["dst"].split("/")[0]) for r in measured if r["bench"] == "net"}
    # every node pair, streamed both ways (--pairs all: rounds of disjoint pairs)
    assert {tuple(sorted(p)) for p in pairs} == {("node0", "node1"), ("node0", "node2"), ("node1", "node2")}
    assert len(pairs) == 6
    for r in measured:
        if r["bench"] == "net":  # over the shaped 1 Gbit/s (0.125 GB/s) links, not through shared memory
            assert 0.0625 < float(r["algbw_GBps"]) < 0.13, r


def test_a_killed_rank_under_srun_is_named(slurm, tmp_path):
    command = ["srun", "-N", "2", "--ntasks-per-node=1", "--kill-on-bad-exit=0", str(bin_dir() / "wb-coll"),
               "--collective", "all_reduce", "-b", "8", "-e", "64M", "-f", "2", "--timeout", "10", "--run-dir", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=slurm)
    results = tmp_path / "results.csv"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and len(results.read_text().splitlines()) >= 3):
        time.sleep(0.05)
    victim = int((tmp_path / ".ranks" / "rank-1").read_text().split("\n")[3])  # rank 1's pid, from its heartbeat
    os.kill(victim, signal.SIGKILL)
    started = time.monotonic()
    output, _ = process.communicate(timeout=60)
    assert time.monotonic() - started < 30, "not ended within the 10 s timeout and the teardown"
    assert f"(pid {victim}) stopped answering" in output and "the process is gone" in output, output
    finished = rows(tmp_path)
    assert sum(r["status"] == "OK" for r in finished) >= 2  # what was measured before stays
    assert finished[-1]["status"] == "ERROR" and f"rank 1 on node1 (pid {victim})" in finished[-1]["reason"], finished[-1]


def test_a_node_that_dies_mid_run_is_an_error_naming_it_and_the_rest_stays(slurm, tmp_path):
    """A node's slurmd and everything it started killed while the suite measures: the pair
    measurements with that node stop, the rank that notices names it, the run says it is
    incomplete (exit 2), and the rows finished before stay."""
    # Every node's host memory FAILs a floor of 1000 GB/s: a FAIL that a second pass would measure
    # again on every node, the dead one too (a random host FAIL once did; Slurm then cancelled and
    # requeued the job, and sbatch --wait never returned).
    (tmp_path / "floor.yaml").write_text(
        "name: no-host-reaches-it\ndescription: a floor every host misses\nwarn_band: 0.05\nfloors:\n"
        "  - {name: host memory, match: {bench: host, case: numa_copy}, metric: algbw_GBps, floor: 1000, "
        "source: a floor no host reaches}\n")
    (tmp_path / "cpu-acceptance.yaml").write_text(CPU_SUITE.replace("--sizes, 1M", "--sizes, 1M:8M:2")
                                                  + f"profile: {tmp_path / 'floor.yaml'}\n")
    job_env = dict(slurm, WB_WIREBENCH=str(bin_dir() / "wirebench"), WB_RUN_DIR=str(tmp_path / "run"),
                   WB_SUITE=str(tmp_path / "cpu-acceptance.yaml"))
    job = subprocess.Popen(["sbatch", "--wait", f"--output={tmp_path}/job.out", "-N", "3",
                            str(ROOT / "ci" / "templates" / "slurm-acceptance.sbatch")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=job_env, cwd=tmp_path)
    results = tmp_path / "run" / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and any(",net," in f",{line}" for line in results.read_text().splitlines()):
            break
        time.sleep(0.1)
    state = Path("/run/wirebench-vcluster/slurm/node2/slurmd.pid")
    slurmd = int(state.read_text())
    tree = subprocess.run(["pgrep", "-f", "-d", " ", "wb-net"], capture_output=True, text=True).stdout.split()
    on_node2 = [int(p) for p in tree if "wbnode2" in subprocess.run(["ip", "netns", "identify", p],
                                                                    capture_output=True, text=True).stdout]
    for pid in [slurmd, *on_node2]:
        os.kill(pid, signal.SIGKILL)
    job.communicate(timeout=240)
    output = (tmp_path / "job.out").read_text()
    assert "wirebench report:" in output, output
    assert "not measured again: a step could not finish" in output, output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["exit_code"] == 2, output
    assert any(v["verdict"] == "FAIL" and v["bench"] == "host" for v in summary["verdicts"]), output
    assert "The run is incomplete" in output and "The run is incomplete" in (tmp_path / "run" / "report.md").read_text()
    errors = [r for r in rows(tmp_path / "run") if r["status"] == "ERROR"]
    assert any("on node2" in r["reason"] and "stopped answering" in r["reason"] for r in errors), errors
    assert any(r["status"] == "OK" and r["bench"] == "net" for r in rows(tmp_path / "run"))
    # ReturnToService=2: a slurmd started again brings its node back for the next test
    subprocess.run(["ip", "netns", "exec", "wbnode2", "unshare", "--uts", "sh", "-c",
                    f"hostname node2 && exec slurmd -f {slurm['SLURM_CONF']} -N node2"], check=True, env=slurm)


def test_down_stops_every_daemon_and_removes_its_files(tmp_path):
    up = subprocess.run([str(VCLUSTER), "up", "--nodes", "2", "--slurm"], capture_output=True, text=True, timeout=120)
    assert up.returncode == 0, up.stderr
    assert "slurmctld" in daemons()
    pids = [int(p.read_text()) for p in Path("/run/wirebench-vcluster/slurm").glob("**/*.pid")]
    assert len(pids) == 4  # munged, slurmctld, two slurmd
    assert subprocess.run([str(VCLUSTER), "down"], capture_output=True, timeout=120).returncode == 0
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), pid
    assert not Path("/run/wirebench-vcluster").exists()
