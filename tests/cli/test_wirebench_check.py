"""wirebench check as a prolog runs it, on this machine: a port, an NCCL log, the exit codes and the
one reason line; a time limit too short for the measurements ends it in its own words (exit 2)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NCCL = ROOT / "tests" / "data" / "nccl"


def wirebench(*args, cwd):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def test_sockets_where_infiniband_is_fail_the_check_with_one_reason_line(tmp_path):
    result = wirebench("check", "--nic", "lo", "--no-measure", "--node", "gpu-a", "--nccl-log",
                       str(NCCL / "socket-on-ib-machine.log"), "--run-dir", str(tmp_path / "check"), cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    reason = result.stdout.splitlines()[-1]
    assert reason.startswith("wirebench: gpu-a NCCL socket-fallback: NCCL moves inter-node data over TCP sockets")
    assert reason.endswith(")") and "(check 20" in reason
    found = json.loads((tmp_path / "check" / "check.json").read_text())["findings"]
    assert [f["verdict"] for f in found] == ["PASS", "FAIL"] and found[1]["source"].endswith("socket-on-ib-machine.log:2")


def test_a_healthy_log_and_port_pass(tmp_path):
    result = wirebench("check", "--nic", "lo", "--no-measure", "--nccl-log", str(NCCL / "multinode-net.log"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "PASS  NCCL over IB" in result.stdout and result.stdout.splitlines()[-1].startswith("wirebench: ")


def test_nothing_runs_past_the_time_limit(tmp_path):
    # the default suite takes minutes here: 6 s leave its measurements 4
    result = wirebench("check", "--suite", "default", "--time-limit", "6", cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert ("could not check: the measurements did not finish within the 4 s --time-limit left them"
            in result.stdout.splitlines()[-1]), result.stdout


def test_a_time_limit_that_leaves_nothing_to_measure_is_bad_usage(tmp_path):
    """Issue 44: --time-limit 0.5 said "did not finish within -2 s"."""
    result = wirebench("check", "--time-limit", "0.5", cwd=tmp_path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "--time-limit 0.5 s leaves no time to measure" in result.stderr and "-2" not in result.stderr


def test_a_check_that_judged_nothing_says_not_judged_with_its_own_exit_code(tmp_path):
    """Issue 44: a node with nothing to judge printed "PASS measured, nothing judged". lo has no
    speed a rate can be read from: asked for 1 Gb/s it is NOT JUDGED, and so is the check (exit 4)."""
    result = wirebench("check", "--nic", "lo=1gbit", "--no-measure", "--node", "n1", cwd=tmp_path)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "PASS" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("wirebench: n1 nothing judged: lo up, at a rate its driver")
    nothing = wirebench("check", "--no-measure", cwd=tmp_path)
    assert nothing.returncode == 4 and "nothing was asked" in nothing.stdout


def test_bad_usage_is_exit_3(tmp_path):
    result = wirebench("check", "--nic", "eth0=fast", cwd=tmp_path)
    assert result.returncode == 3 and "'fast' is not a rate" in result.stderr
