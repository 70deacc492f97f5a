"""`wirebench place` and `wirebench model` as a user runs them (ctest label: unit)."""
import csv
import os
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"


def wirebench(*args, timeout=60):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, timeout=timeout)


def test_place_prints_the_best_sets_gres_lines_and_a_layout():
    result = wirebench("place", "--gpus", "4", "--nvidia-smi-topo", str(DATA / "topo/two-nvlink-islands-8gpu.txt"),
                       "--tp", "4", "--nodes", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("wirebench place: 4 of 8 GPUs")
    assert lines[2].split()[:3] == ["1", "0,1,2,3", "NV12"]
    assert "export CUDA_VISIBLE_DEVICES=0,1,2,3" in result.stdout
    assert "warning" not in result.stdout.split("# gres.conf")[0]
    assert "Name=gpu File=/dev/nvidia4 Links=0,0,0,0,-1,12,12,12" in result.stdout
    # 4 GPUs a node on 2 nodes: 8 ranks, one TP group a node (issue 44: all 8 went to node 0)
    assert "TP 4 x DP 2 on 2 node(s), 4 GPUs each:" in result.stdout
    assert "node 1: ranks 4-7 (TP group of dp 1) on GPUs 0,1,2,3, slowest pair NV12" in result.stdout
    assert "node 0: ranks 4-7" not in result.stdout


def test_place_warns_a_pcie_only_node():
    result = wirebench("place", "--gpus", "2", "--nvidia-smi-topo", str(DATA / "topo/rtx5090-2gpu-tabs.txt"))
    assert result.returncode == 0, result.stderr
    assert "warning: no NVLink between these GPUs: a job of 2 GPUs is limited to PCIe" in result.stdout


def test_place_refuses_bad_requests_with_exit_3():
    h100 = str(DATA / "topo/h100-8gpu-8nic.txt")
    for args, words in [(["--gpus", "9", "--nvidia-smi-topo", h100], "the node has 8 GPU(s)"),
                        (["--gpus", "two", "--nvidia-smi-topo", h100], "'two' is not a whole number"),
                        (["--nvidia-smi-topo", h100], "--gpus"),
                        (["--gpus", "2", "--nvidia-smi-topo", "/no/such/file"], "/no/such/file"),
                        (["--gpus", "8", "--tp", "8", "--dp", "4", "--nvidia-smi-topo", h100], "have 8")]:
        result = wirebench("place", *args)
        assert result.returncode == 3, (args, result.stdout, result.stderr)
        assert words in result.stderr, (args, result.stderr)


def test_model_predicts_recursive_doubling_from_ring_on_recorded_rows(tmp_path):
    # Recorded on the 8-node virtual cluster (bench/MEASUREMENTS.md, "Collective algorithms").
    result = wirebench("model", "--results", str(DATA / "model/allreduce-ring-rd-8nodes.csv"), "--csv",
                       str(tmp_path / "m.csv"))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert {(r["bytes"], r["algorithm"]) for r in rows} == {("8", "ring"), ("8", "recursive_doubling"),
                                                           ("67108864", "ring"), ("67108864", "recursive_doubling")}
    ring = {r["bytes"]: float(r["measured_us"]) for r in rows if r["algorithm"] == "ring"}
    # The fit goes through ring's two points; the prediction follows the formulas: 3 alpha at 8 B,
    # 3 (alpha + n beta) at 64 MiB, with alpha = t(8 B) / 14 and beta from ring's slope / 1.75.
    alpha = (ring["8"] - 8 * (ring["67108864"] - ring["8"]) / (67108864 - 8)) / 14
    beta = (ring["67108864"] - ring["8"]) / (67108864 - 8) / 1.75
    rd = {r["bytes"]: float(r["predicted_us"]) for r in rows if r["algorithm"] == "recursive_doubling"}
    assert rd["8"] == pytest.approx(3 * (alpha + 8 * beta), rel=1e-4)
    assert rd["67108864"] == pytest.approx(3 * (alpha + 67108864 * beta), rel=1e-4)
    assert "faster: measured recursive_doubling, predicted recursive_doubling" in result.stdout
    assert "crossover recursive_doubling against ring: measured between 8B and 64MiB; predicted at" in result.stdout


def test_model_names_the_file_when_no_row_has_an_algorithm():
    result = wirebench("model", "--results", str(DATA / "reports/basic/results.csv"))
    assert result.returncode == 3, result.stdout + result.stderr
    assert "results.csv" in result.stderr and "MPICH algorithm" in result.stderr
    assert wirebench("model", "--results", str(DATA / "model/allreduce-ring-rd-8nodes.csv"), "--fitted",
                     "butterfly").returncode == 3
