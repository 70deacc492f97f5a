"""wb-p2p as a user runs it: GPU matrices where GPUs are, SKIP rows with the reason where not."""
import csv
import os
import subprocess
from pathlib import Path

import pytest


def wb_p2p(*args, timeout=600):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wb-p2p"), *args], capture_output=True, text=True, timeout=timeout)


def test_every_pattern_is_a_row(tmp_path):
    result = wb_p2p("--sizes", "1MiB", "--latency-bytes", "1MiB", "--run-dir", str(tmp_path),
                    "--benchmark_min_time=0.01")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    cases = {r["case"] for r in rows}
    assert {"ce/write", "ce/read/bidir", "sm/write", "sm/read", "ce/write/all_to_one", "latency"} <= cases
    if not Path("/dev/nvidia0").exists():
        assert all(r["status"] == "SKIP" and "CUDA" in r["reason"] for r in rows)
        assert "no GPU measured" in result.stderr
    else:
        assert all(r["status"] == "OK" for r in rows)
        assert "bandwidth (GB/s)" in result.stdout  # the GPU x GPU matrices


@pytest.mark.parametrize("args,message", [
    (["--patterns", "ce/sideways"], "unknown pattern 'ce/sideways'"),
    (["--tests", "flops"], "'flops' is not copy or latency"),
    (["--sizes", "-1"], "negative size"),
])
def test_bad_arguments_exit_3(tmp_path, args, message):
    result = wb_p2p(*args, "--run-dir", str(tmp_path))
    assert result.returncode == 3 and message in result.stderr
