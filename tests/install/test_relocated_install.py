"""An installed wirebench works from anywhere: `cmake --install` into a temporary prefix, the prefix
moved, the source and build trees hidden (an empty tmpfs mounted over each, in a mount namespace of
this test's own), then every front-door command run from the moved prefix. Needs root (unshare -m);
skipped otherwise. ctest label: vcluster (the default suite starts the virtual cluster)."""
import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2]
BINARIES = ("wirebench", "wb-net", "wb-coll", "wb-host", "wb-p2p", "wb-step")


def build_dir():
    path = os.environ.get("WB_BUILD_DIR")
    if not path:
        pytest.skip("WB_BUILD_DIR is not set (run through ctest)")
    return Path(path)


@pytest.fixture(scope="module")
def moved_prefix(tmp_path_factory):
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to hide the source and build trees")
    root = tmp_path_factory.mktemp("install")
    subprocess.run(["cmake", "--install", str(build_dir()), "--prefix", str(root / "first")], check=True,
                   capture_output=True, timeout=120)
    shutil.move(root / "first", root / "moved")  # nothing may remember where it was installed
    return root / "moved"


def hidden_trees_run(script, timeout):
    """`script` (bash) with the source and build trees replaced by empty folders."""
    # The build tree first: it may sit inside the source tree and vanish with it.
    hide = " && ".join(f"mount -t tmpfs none {tree}" for tree in (build_dir(), SOURCE))
    return subprocess.run(["unshare", "-m", "bash", "-c", f"{hide} && cd / && {script}"],
                          capture_output=True, text=True, timeout=timeout)


def test_layout_and_no_tree_paths_in_binaries(moved_prefix):
    for name in BINARIES:
        binary = moved_prefix / "bin" / name
        assert os.access(binary, os.X_OK), name
        text = subprocess.run(["strings", str(binary)], capture_output=True, text=True, check=True).stdout
        for tree in (str(SOURCE), str(build_dir())):
            assert tree not in text, f"{name} carries the path {tree}"
    data = moved_prefix / "share" / "wirebench"
    for part in ("suites/default.yaml", "suites/ceilings.csv", "suites/models/tiny.json", "suites/profiles",
                 "python/wirebench/report/__main__.py", "python/wirebench/run/__main__.py", "ci/vcluster",
                 "ci/templates/slurm-acceptance.sbatch"):
        assert (data / part).exists(), part


def test_every_binary_answers_version(moved_prefix):
    result = hidden_trees_run(" && ".join(f"{moved_prefix}/bin/{name} --version" for name in BINARIES), 60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(BINARIES)
    assert len({line.split(" ", 1)[1] for line in lines}) == 1  # one version and revision for all


def test_nccl_tests_names_run_from_an_install(moved_prefix, tmp_path):
    """A script written for nccl-tests runs unchanged with libexec/wirebench/nccl-tests first on PATH:
    all_reduce_perf is wb-coll under that name. They are not in bin, where they would shadow a real
    nccl-tests (issue 44)."""
    names = moved_prefix / "libexec" / "wirebench" / "nccl-tests"
    for alias in ("all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "reduce_perf",
                  "alltoall_perf", "sendrecv_perf"):
        assert (names / alias).resolve() == (moved_prefix / "bin" / "wb-coll").resolve(), alias
        assert not (moved_prefix / "bin" / alias).exists(), alias
    result = hidden_trees_run(f"cd {tmp_path} && export PATH={names}:{moved_prefix}/bin:$PATH && "
                              f"reduce_scatter_perf -b 8 -e 1K -f 2 -g 1", 120)
    assert result.returncode == 0, result.stderr
    assert "# reduce_scatter" in result.stdout and "# Avg bus bandwidth" in result.stdout, result.stdout


def test_run_report_compare_and_step_from_the_moved_prefix(moved_prefix, tmp_path):
    bin_dir = moved_prefix / "bin"
    run = tmp_path / "run"
    script = (f"{bin_dir}/wirebench run default --run-dir {run} > {tmp_path}/run.log 2>&1; echo run=$?; "
              f"{bin_dir}/wirebench report {run} > {tmp_path}/report.log 2>&1; echo report=$?; "
              f"{bin_dir}/wirebench compare {run} {run} --out {tmp_path}/compare > {tmp_path}/compare.log 2>&1; "
              f"echo compare=$?; "
              f"mpiexec -n 2 {bin_dir}/wb-step --model tiny --run-dir {tmp_path}/step > {tmp_path}/step.log 2>&1; "
              f"echo step=$?")
    result = hidden_trees_run(script, 600)
    logs = {name: (tmp_path / f"{name}.log").read_text() for name in ("run", "report", "compare", "step")
            if (tmp_path / f"{name}.log").exists()}
    codes = dict(line.split("=") for line in result.stdout.split())
    assert codes == {"run": "0", "report": "0", "compare": "0", "step": "0"}, (codes, result.stderr, logs)
    for name in ("results.csv", "meta.json", "topology.json", "report.md", "report.html", "junit.xml"):
        assert (run / name).exists(), name
    # As root without a GPU the default suite also measures three virtual-cluster nodes over links
    # shaped to 1 Gbit/s (the vcluster suite's step, as users run it): ping-pong on the three node
    # pairs and a stream each way, judged against that ceiling, nothing failed. A pair slowed for a
    # moment (the machine's steal) and fast when measured again is judged by its culprit, an
    # intermittent WARN, not one by one: the CI of 2026-12-05 counted 8 of 9 pairs judged alone.
    if os.geteuid() == 0 and not Path("/dev/nvidia0").exists():
        verdicts = json.loads((run / "summary.json").read_text())["verdicts"]
        with open(run / "results.csv", newline="") as f:
            measured = {(r["case"], r["src"], r["dst"]) for r in csv.DictReader(f)
                        if r["bench"] == "net" and r["status"] == "OK" and r["src"].startswith("node")}
        assert len(measured) == 9, measured
        across = [v for v in verdicts if v["fraction"] is not None and v["bench"] == "net"]
        assert all("/node" in v["key"] for v in across), across
        assert all(v["ceiling_GBps"] == pytest.approx(0.125) for v in across), across
        alone = {(v["key"].split("/")[1], v["src"], v["dst"]) for v in across}
        culprits = [v for v in verdicts if v["bench"] == "fabric"]
        assert alone <= measured and (alone == measured or culprits), (alone, measured, culprits)
        assert all(v["verdict"] == "WARN" and "intermittent" in v["reason"] for v in culprits), culprits
        assert all(v["verdict"] in ("PASS", "WARN", "SKIP", "NOT JUDGED", "DATA") for v in verdicts), verdicts
        assert "point-to-point across the virtual cluster: wb-net" in logs["run"]
    assert "recommendation:" in logs["step"]
    assert (tmp_path / "compare" / "compare.md").exists()


def test_check_and_slurm_from_the_moved_prefix(moved_prefix, tmp_path):
    """`wirebench check` (its suite and the runner it starts come from the prefix) and `wirebench
    slurm` (a dry run against a check's run directory needs Slurm: it says so in its own words)."""
    bin_dir = moved_prefix / "bin"
    script = (f"{bin_dir}/wirebench check --nic lo --run-dir {tmp_path}/check > {tmp_path}/check.log 2>&1; "
              f"echo check=$?; {bin_dir}/wirebench slurm drain {tmp_path}/check > {tmp_path}/slurm.log 2>&1; "
              f"echo slurm=$?")
    result = hidden_trees_run(script, 120)
    codes = dict(line.split("=") for line in result.stdout.split())
    check_log = (tmp_path / "check.log").read_text()
    assert codes["check"] == "0", (check_log, result.stderr)
    report = json.loads((tmp_path / "check" / "check.json").read_text())
    assert report["verdict"] == "PASS" and [f["source"] for f in report["findings"]] == ["--nic lo", "suite check"]
    assert str(moved_prefix) in (tmp_path / "check" / "suite.json").read_text()  # the installed suites/check.yaml
    slurm_log = (tmp_path / "slurm.log").read_text()
    assert codes["slurm"] in ("0", "2"), slurm_log  # 2: no Slurm here, said as wirebench says it
    assert codes["slurm"] == "0" or "error: wirebench slurm: " in slurm_log, slurm_log


def test_import_from_the_moved_prefix_on_path(moved_prefix, tmp_path):
    """`wirebench import` as a site runs it: the prefix's bin on PATH, in a folder of saved outputs,
    with the node's saved topology and the job's NCCL log (read by the prefix's `wirebench topo`)."""
    data = SOURCE / "tests" / "data"
    for saved, name in ((data / "imports" / "all_reduce_perf.txt", "all_reduce_perf.txt"),
                        (data / "imports" / "nvbandwidth.json", "nvbandwidth.json"),
                        (data / "topo" / "h100-8gpu-8nic.txt", "dgx01-topo.txt"),
                        (data / "nccl" / "socket-on-ib-machine.log", "job.log")):
        shutil.copy(saved, tmp_path / name)
    # The saved nvbandwidth output names its host (dgx02) as --hosts must agree with (issue 54): the same
    # output as dgx01 prints it.
    nvbandwidth = tmp_path / "nvbandwidth.json"
    nvbandwidth.write_text(nvbandwidth.read_text().replace("(dgx02)", "(dgx01)"))
    script = (f"cd {tmp_path} && export PATH={moved_prefix}/bin:$PATH && wirebench import all_reduce_perf.txt "
              f"nvbandwidth.json --hosts dgx01 --nvidia-smi-topo dgx01-topo.txt --nccl-log job.log --out wirebench-import "
              f"> import.log 2>&1; "
              f"echo import=$?")
    result = hidden_trees_run(script, 120)
    log = (tmp_path / "import.log").read_text()
    assert result.stdout.split() == ["import=1"], (log, result.stderr)  # the slow GPU pair and the log FAIL
    assert "all_reduce_perf.txt: nccl-tests, 6 row(s)" in log and "nvbandwidth.json: nvbandwidth, 9 row(s)" in log
    assert "FAIL NCCL log: socket-fallback" in log and "where: job.log:2 (topology.json)" in log
    assert "FAIL p2p ce/read bandwidth (nvlink): dgx01/gpu2 -> dgx01/gpu1" in log  # the topology's NVLink ceiling
    for name in ("results.csv", "topology.json", "report.md", "report.html", "junit.xml", "summary.json"):
        assert (tmp_path / "wirebench-import" / name).exists(), name
