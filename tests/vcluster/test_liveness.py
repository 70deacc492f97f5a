"""Liveness apart from progress (ctest label: vcluster; root): on 2x2 and 3x1 virtual clusters each
rank in turn is killed, and one is stopped, while wb-coll runs; every time the ranks left name that
rank, and only that rank, as the one at fault, and say "waiting" of the others. Under
`ci/vcluster exec` (Hydra over the namespaces) and under srun on the cluster's real Slurm."""
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VCLUSTER = ROOT / "ci" / "vcluster"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")
TIMEOUT_S = "5"  # the survivors' deadline: short, the faults are certain


def bin_dir():
    return Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "ci" / "bin"))


def vcluster(*args, timeout=300):
    return subprocess.run([str(VCLUSTER), *args], capture_output=True, text=True, timeout=timeout)


def at_fault(output):
    """{(error line's rank, the ranks it names at fault)} of every note in the output."""
    notes = set()
    for line in output.splitlines():
        if not line.startswith("error: ") or "[at fault: " not in line:
            continue
        fault = line.split("[at fault: ", 1)[1].split("; waiting because of it:", 1)[0]
        named = tuple(sorted(set(re.findall(r"\b(rank \d+ on node\d+) \(pid \d+\)", fault))))
        notes.add((line.split(":", 2)[1].strip(), named))
    return notes


def fault_while_measuring(command, run_dir, victim, fault, env=None):
    """Starts `command` (wb-coll writing into run_dir), and once rows are flowing sends `fault` to
    rank `victim` (its pid from its heartbeat). Returns (exit code, output, victim's label)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    results = run_dir / "results.csv"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not (results.exists() and len(results.read_text().splitlines()) >= 3):
        time.sleep(0.05)
    entry = (run_dir / ".ranks" / f"rank-{victim}").read_text().split("\n")
    label, pid = entry[1], int(entry[3])
    os.kill(pid, fault)
    try:
        output, _ = process.communicate(timeout=90)
    finally:
        subprocess.run(["kill", "-KILL", str(pid)], capture_output=True)
    return process.returncode, output, label


def assert_only_the_victim_is_named(code, output, label, fault):
    assert code != 0, output
    notes = at_fault(output)
    assert notes, f"no rank named a peer at fault:\n{output[-3000:]}"
    for rank, named in notes:
        assert named == (label,), f"{rank} named {named}, the victim is {label}:\n{output[-3000:]}"
    state = "the process is gone" if fault == signal.SIGKILL else "the process is stopped"
    assert state in output, output[-3000:]
    if len(notes) > 1 or any("waiting because of it: " in line for line in output.splitlines()):
        assert "waiting because of it: " in output


def coll(run_dir):
    return [str(bin_dir() / "wb-coll"), "--collective", "all_reduce", "-b", "64K", "-e", "64M", "-f", "2",
            "--timeout", TIMEOUT_S, "--run-dir", str(run_dir)]


@pytest.mark.parametrize("nodes,ranks", [(2, 2), (3, 1)])
def test_each_killed_rank_and_a_stopped_one_are_named_under_vcluster_exec(tmp_path, nodes, ranks):
    assert vcluster("up", "--nodes", str(nodes), "--ranks", str(ranks), "--rate", "1gbit").returncode == 0
    try:
        faults = [(victim, signal.SIGKILL) for victim in range(nodes * ranks)] + [(1, signal.SIGSTOP)]
        for victim, fault in faults:
            run_dir = tmp_path / f"{victim}-{fault.name}"
            code, output, label = fault_while_measuring([str(VCLUSTER), "exec", *coll(run_dir)], run_dir, victim, fault)
            assert_only_the_victim_is_named(code, output, label, fault)
    finally:
        vcluster("down")


def test_each_killed_rank_and_a_stopped_one_are_named_under_srun(tmp_path):
    up = vcluster("up", "--nodes", "3", "--ranks", "1", "--slurm")
    assert up.returncode == 0, up.stderr
    try:
        env = dict(os.environ)
        for line in vcluster("env").stdout.splitlines():
            for item in line.removeprefix("export ").split():
                name, value = item.split("=", 1)
                env[name] = value
        faults = [(victim, signal.SIGKILL) for victim in range(3)] + [(2, signal.SIGSTOP)]
        for victim, fault in faults:
            run_dir = tmp_path / f"{victim}-{fault.name}"
            command = ["srun", "-N", "3", "--ntasks-per-node=1", "--kill-on-bad-exit=0", *coll(run_dir)]
            code, output, label = fault_while_measuring(command, run_dir, victim, fault, env=env)
            assert_only_the_victim_is_named(code, output, label, fault)
    finally:
        vcluster("down")
