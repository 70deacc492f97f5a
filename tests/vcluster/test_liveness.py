"""Liveness apart from progress (ctest label: vcluster; root): on 2x2 and 3x1 virtual clusters each
rank in turn is killed, and one is stopped, while wb-coll runs; every time the ranks left name that
rank, and only that rank, as the one at fault, and say "waiting" of the others. Under
`ci/vcluster exec` (Hydra over the namespaces) and under srun on the cluster's real Slurm."""
import csv
import os
import queue
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
import yaml

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


def wirebench_run_suite(nodes, ranks, faults):
    """A cluster suite of one wb-coll step per fault, as a site would write one."""
    return {"name": f"liveness-{nodes}x{ranks}", "description": "one wb-coll step per planted fault",
            "cluster": {"nodes": nodes, "ranks": ranks, "rate_mbit": 1000},
            "expectations": [{"link_class": "eth", "from_cluster_rate": True, "healthy_fraction": 0.8,
                              "source": "ci/vcluster tbf shaping"}],
            "steps": [{"name": f"rank {victim} {fault.name}", "binary": "wb-coll", "timeout": 90,
                       "args": coll(Path("unused"))[1:-2]} for victim, fault in faults]}


@pytest.mark.parametrize("nodes,ranks", [(2, 2), (3, 1)])
def test_each_killed_rank_and_a_stopped_one_are_named_under_wirebench_run(tmp_path, nodes, ranks):
    faults = [(victim, signal.SIGKILL) for victim in range(nodes * ranks)] + [(1, signal.SIGSTOP)]
    suite = tmp_path / "liveness.yaml"
    suite.write_text(yaml.safe_dump(wirebench_run_suite(nodes, ranks, faults)))
    run_dir = tmp_path / "run"
    process = subprocess.Popen([str(bin_dir() / "wirebench"), "run", str(suite), "--run-dir", str(run_dir)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    seen, victims, output = set(), [], []

    def until(predicate, what, within=90):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.05)
                output.append(line)
            except queue.Empty:
                line = None
            if predicate(line):
                return
        process.kill()
        pytest.fail(f"{what} not within {within} s:\n{''.join(output)[-3000:]}")

    def rows():
        path = run_dir / "results.csv"
        return len(path.read_text().splitlines()) if path.exists() else 0

    try:
        for number, (victim, fault) in enumerate(faults, start=1):
            until(lambda line: line is not None and line.startswith(f"[{number}/{len(faults)}] "), f"step {number}")
            before = rows()
            heartbeat = run_dir / ".ranks" / f"rank-{victim}"

            def victim_found(_):
                if rows() < before + 2 or not heartbeat.exists():  # two rows of this step: measuring
                    return False
                entry = heartbeat.read_text().split("\n")
                return len(entry) > 3 and entry[3].isdigit() and int(entry[3]) not in seen \
                    and Path(f"/proc/{entry[3]}").exists()
            until(victim_found, f"rows and rank {victim}'s heartbeat in step {number}")
            entry = heartbeat.read_text().split("\n")
            label, pid = entry[1], int(entry[3])
            seen.add(pid)
            victims.append(label)
            os.kill(pid, fault)
            until(lambda line: line is not None and line.startswith(f"[{number}/{len(faults)}] ")
                  and ": failed (exit code" in line, f"step {number} failing")
            subprocess.run(["kill", "-KILL", str(pid)], capture_output=True)  # the stopped one
        until(lambda _: process.poll() is not None, "the run's end", within=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2, "".join(output)[-3000:]
    for number, (label, (victim, fault)) in enumerate(zip(victims, faults), start=1):
        log = (run_dir / "logs" / f"{number:02d}-wb-coll.log").read_text()
        assert log.startswith(f"$ {bin_dir().parent / 'share' / 'wirebench' / 'ci' / 'vcluster'} exec "), log[:300]
        assert_only_the_victim_is_named(2, log, label, fault)  # every rank's words, as on a console
    rows = [r for r in csv.DictReader((run_dir / "results.csv").open()) if r["status"] == "ERROR"]
    steps = [r for r in rows if r["backend"] == "run"]  # the runner's: a row per failed step
    assert len(steps) == len(faults), steps
    for row in rows:  # wb-coll's own: the case a survivor was in, and the peer at fault
        if row["backend"] != "run":
            named = set(re.findall(r"\b(rank \d+ on node\d+) \(pid \d+\)", row["reason"].split("[at fault: ", 1)[-1]
                                   .split("; waiting because of it:", 1)[0]))
            assert len(named) == 1 and named <= set(victims), row["reason"]
    for row, label, (victim, fault) in zip(steps, victims, faults):
        assert row["reason"].startswith(f"step 'rank {victim} {fault.name}' exited with code "), row["reason"]
        why = row["reason"]
        named = set(re.findall(r"\b(rank \d+ on node\d+) \(pid \d+\)", why.split("[at fault: ", 1)[-1].split(
            "; waiting because of it:", 1)[0]))
        assert named == {label}, f"the ERROR row of step '{victim} {fault.name}' names {named}, the victim is {label}: {why}"
        state = "the process is gone" if fault == signal.SIGKILL else "the process is stopped"
        assert state in why or (fault == signal.SIGKILL and "killed by signal 9" in why), why
    assert "wbnode" not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
