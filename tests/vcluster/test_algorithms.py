"""Collective algorithms on eight namespace nodes (ctest label: vcluster; root): all_reduce under
MPICH's ring and recursive doubling at 8 B and 64 MiB, alternated (suites/algorithms.yaml). The cost
model, its link fitted on ring alone, predicts recursive doubling from its own formula: the faster
algorithm at each end is the one measured faster (4x apart at 8 B, 2x at 64 MiB), and the errors
stay inside a bound this machine keeps every run (35%). The 20% target is held in
bench/MEASUREMENTS.md over repeated runs: at 8 B -3 to -12% with MPICH's progress throttle; at 64
MiB -7 to -22%, recursive doubling's time depending on whether exchange partners share one of the
two cores (said there), which is the scheduler's and not the model's."""
import csv
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin"))
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")


def test_ring_fits_and_the_faster_algorithm_at_each_end_is_the_predicted_one(tmp_path):
    run_dir = tmp_path / "run"
    run = subprocess.run([str(BIN / "wirebench"), "run", "algorithms", "--run-dir", str(run_dir)],
                         capture_output=True, text=True, timeout=840)
    assert run.returncode == 0, run.stdout + run.stderr
    model = subprocess.run([str(BIN / "wirebench"), "model", "--results", str(run_dir), "--fitted", "ring",
                            "--csv", str(tmp_path / "model.csv")], capture_output=True, text=True, timeout=60)
    assert model.returncode == 0, model.stdout + model.stderr
    rows = list(csv.DictReader((tmp_path / "model.csv").open()))
    by = {(int(r["bytes"]), r["algorithm"]): r for r in rows}
    assert set(by) == {(8, "ring"), (8, "recursive_doubling"), (64 << 20, "ring"), (64 << 20, "recursive_doubling")}, \
        model.stdout
    assert all(r["ranks"] == "8" and r["nodes"] == "8" for r in rows)
    assert by[(8, "ring")]["fit_point"] == "1" and by[(64 << 20, "ring")]["fit_point"] == "1"
    for size in (8, 64 << 20):
        measured = {a: float(by[(size, a)]["measured_us"]) for a in ("ring", "recursive_doubling")}
        predicted = {a: float(by[(size, a)]["predicted_us"]) for a in ("ring", "recursive_doubling")}
        assert min(measured, key=measured.get) == min(predicted, key=predicted.get), (size, model.stdout)
        assert abs(float(by[(size, "recursive_doubling")]["error_pct"])) <= 35, model.stdout
    # 3 messages against 14 at 8 B; 3 n against 1.75 n at 64 MiB.
    assert "faster: measured recursive_doubling, predicted recursive_doubling" in model.stdout
    assert "faster: measured ring, predicted ring" in model.stdout
    assert "crossover recursive_doubling against ring: measured between 8B and 64MiB" in model.stdout
