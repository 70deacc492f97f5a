"""wb-host as a user runs it: the NUMA memcpy and latency matrices, measured for real here."""
import csv
import os
import subprocess
from pathlib import Path

import pytest


def wb_host(*args, timeout=300, launcher=()):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([*launcher, str(Path(binary) / "wb-host"), *args], capture_output=True, text=True,
                          timeout=timeout)


def numa_nodes():
    return sorted(p.name for p in Path("/sys/devices/system/node").glob("node[0-9]*")) or ["node0"]


def test_matrices_for_every_node_pair(tmp_path):
    result = wb_host("--sizes", "4MiB", "--latency-bytes", "8MiB", "--tests", "numa_copy,latency",
                     "--run-dir", str(tmp_path), "--benchmark_min_time=0.02")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    n = len(numa_nodes())
    copies = [r for r in rows if r["case"] == "numa_copy"]
    latencies = [r for r in rows if r["case"] == "memory_latency"]
    assert len(copies) == n * n and len(latencies) == n * n
    for r in copies:
        assert r["status"] == "OK" and r["errors"] == "0" and float(r["algbw_GBps"]) > 0
        assert r["link_class"] == "host" and r["src"].endswith("/numa" + r["src"][-1])
    for r in latencies:
        assert r["status"] == "OK" and r["errors"] == "" and float(r["time_us"]) > 0 and r["algbw_GBps"] == ""
    assert "memcpy bandwidth (GB/s), 4MiB" in result.stdout
    assert "memory latency (ns per dependent load)" in result.stdout
    assert result.stdout.count("numa0") >= 4  # row and column labels of both matrices


def test_bad_arguments_and_ranks_exit_3(tmp_path):
    result = wb_host("--tests", "flops", "--run-dir", str(tmp_path))
    assert result.returncode == 3 and "'flops' is not numa_copy, latency or gpu" in result.stderr
    result = wb_host("--latency-bytes", "1K", "--run-dir", str(tmp_path))
    assert result.returncode == 3 and "at least 64KiB" in result.stderr
    mpiexec = os.environ.get("WB_MPIEXEC", "mpiexec")
    result = wb_host("--run-dir", str(tmp_path), launcher=(mpiexec, "-n", "2"))
    assert result.returncode == 3 and "run it without mpiexec" in result.stderr


def test_gpu_parts_are_skip_rows_with_the_reason_without_a_gpu(tmp_path):
    result = wb_host("--tests", "gpu", "--sizes", "1MiB", "--run-dir", str(tmp_path), "--benchmark_min_time=0.01")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    kinds = {r["case"] for r in rows}
    if not Path("/dev/nvidia0").exists():
        assert kinds == {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "bidir_pinned", "all_gpus_h2d",
                         "all_gpus_d2h", "gpu_host_latency"}
        assert all(r["status"] == "SKIP" and r["reason"] and r["time_us"] == "" for r in rows)
    else:
        assert all(r["status"] == "OK" and r["errors"] in ("0", "") for r in rows)
