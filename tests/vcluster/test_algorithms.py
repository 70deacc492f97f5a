"""Collective algorithms on eight namespace nodes (ctest label: vcluster; root): all_reduce under
MPICH's ring and recursive doubling at 8 B and 16 MiB (suites/algorithms.yaml's first alternation,
the large end at 16 MiB where the suite has 64 MiB). The cost model, its link fitted on ring alone,
predicts recursive doubling from its own formula: the faster algorithm at each end is the one
measured faster (4x apart at 8 B, about 2x at the large end); the errors against the 20% the cost
model aims at are recorded in bench/MEASUREMENTS.md, not asserted. Two settings of the machine make
that hold on two cores (bench/MEASUREMENTS.md): MPICH's progress throttle at 8 B, and the virtual
cluster's jumbo frames at the large end (at MTU 1500 the kernel's per-packet work bounded the links,
and recursive doubling, 1.7x the bytes of ring, lost 18-22% to it)."""
import csv
import os
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
LARGE = 16 << 20  # the large end this test measures
BIN = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin"))
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")


def test_ring_fits_and_the_faster_algorithm_at_each_end_is_the_predicted_one(tmp_path):
    run_dir = tmp_path / "run"
    # The first alternation of each size (4 of the suite's 10 runs): the faster algorithm, 4x and 2x
    # apart, needs no more; the suite's alternations serve the 20% figures of bench/MEASUREMENTS.md.
    doc = yaml.safe_load((ROOT / "suites" / "algorithms.yaml").read_text())
    doc["steps"] = [step for step in doc["steps"] if "(1 of " in step["name"]]
    assert len(doc["steps"]) == 4
    # The large end at 16 MiB rather than the suite's 64 MiB (25 s against 94 here): 8 nodes at
    # 200 Mbit/s spend 0.6 s of ring's 16 MiB on the wire against some 3 ms of its 14 steps'
    # latency, so both algorithms are as bandwidth-bound as at 64 MiB, 1.7x apart in bytes.
    for step in doc["steps"]:
        args = step["args"]
        if args[args.index("-b") + 1] == "64M":
            args[args.index("-b") + 1] = args[args.index("-e") + 1] = "16M"
    suite = tmp_path / "algorithms-once.yaml"
    suite.write_text(yaml.safe_dump(doc))
    run = subprocess.run([str(BIN / "wirebench"), "run", str(suite), "--run-dir", str(run_dir)],
                         capture_output=True, text=True, timeout=840)
    # The suite measures what the model predicts; nothing holds a collective over the virtual eth links
    # to a ceiling, so its items are NOT JUDGED and the run ends 4, never healthy (issue 54).
    assert run.returncode == 4 and "Nothing judged" in run.stdout, run.stdout + run.stderr
    model = subprocess.run([str(BIN / "wirebench"), "model", "--results", str(run_dir), "--fitted", "ring",
                            "--csv", str(tmp_path / "model.csv")], capture_output=True, text=True, timeout=60)
    assert model.returncode == 0, model.stdout + model.stderr
    rows = list(csv.DictReader((tmp_path / "model.csv").open()))
    by = {(int(r["bytes"]), r["algorithm"]): r for r in rows}
    assert set(by) == {(8, "ring"), (8, "recursive_doubling"), (LARGE, "ring"), (LARGE, "recursive_doubling")}, \
        model.stdout
    assert all(r["ranks"] == "8" and r["nodes"] == "8" for r in rows)
    assert by[(8, "ring")]["fit_point"] == "1" and by[(LARGE, "ring")]["fit_point"] == "1"
    for size in (8, LARGE):
        measured = {a: float(by[(size, a)]["measured_us"]) for a in ("ring", "recursive_doubling")}
        predicted = {a: float(by[(size, a)]["predicted_us"]) for a in ("ring", "recursive_doubling")}
        assert min(measured, key=measured.get) == min(predicted, key=predicted.get), (size, model.stdout)
        # The errors (the 20% target) are figures, not assertions: one run in three here missed it
        # (24.3% at 8 B on eight ranks sharing two cores); they are printed for the log and kept in
        # bench/MEASUREMENTS.md. The faster algorithm, 4x and 2x apart, is what must hold.
        print(f"{size} B: recursive doubling predicted within {by[(size, 'recursive_doubling')]['error_pct']}%")
    # 3 messages against 14 at 8 B; 3 n against 1.75 n at 16 MiB.
    assert "faster: measured recursive_doubling, predicted recursive_doubling" in model.stdout
    assert "faster: measured ring, predicted ring" in model.stdout
    assert "crossover recursive_doubling against ring: measured between 8B and 16MiB" in model.stdout
