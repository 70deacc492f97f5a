"""`python3 -m wirebench.diagnosis FILE` ends as `wirebench topo --nccl-log FILE` does for the same file
(bench/cli/topo_command.cpp's topo_exit_code): 1 where a finding is a FAIL, 0 where the findings are
WARNs or none, 3 where the log cannot be read. With --hand-over (the front door's call,
bench/topology/nccl_handover.cpp) a log that was read ends 0: the front door reads the JSON and judges,
and prints the lines Python wrote (one printer for both)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diagnosis_helpers import DATA, ROOT

CASES = [("nccl-tests-166-shm-chain.log", 1),             # NVIDIA/nccl-tests#166: FAIL shm-too-small
         ("nccl-606-p2p-disabled-level-loc.log", 0),      # NVIDIA/nccl#606: WARN p2p-level only
         ("single-node-8gpu-socket-no-ib.log", 0)]        # healthy: no finding


def module(*args):
    return subprocess.run([sys.executable, "-m", "wirebench.diagnosis", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT / "python", timeout=300)


@pytest.mark.parametrize("name, code", CASES)
def test_the_modules_code_is_the_verdicts(name, code):
    done = module(DATA / name)
    assert done.returncode == code, done.stderr
    verdicts = {d["verdict"] for d in json.loads(done.stdout)["diagnoses"]}
    assert ("FAIL" in verdicts) == (code == 1)
    assert module(DATA / name, "--table").returncode == code


def test_a_log_that_cannot_be_read_is_3(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("")
    done = module(empty)
    assert done.returncode == 3 and "empty" in done.stderr and not done.stdout


def test_the_hand_over_reads_a_fail_as_json_with_exit_0(tmp_path):
    """The front door's call (--hand-over, with a topology.json without nodes as `topo --nccl-log` alone writes it):
    the section of a FAIL and its readable lines, exit 0; the front door says the FAIL in its own exit code. The
    wiring alone (--topology) is a user's call: the verdict's code."""
    from wirebench.diagnosis.__main__ import HAND_OVER_FORMAT
    topology = tmp_path / "topology.json"
    topology.write_text(json.dumps({"nodes": []}))
    log = DATA / "nccl-tests-166-shm-chain.log"
    done = module(log, "--topology", topology, "--hand-over")
    assert done.returncode == 0, done.stderr
    handed = json.loads(done.stdout)
    assert handed["format"] == HAND_OVER_FORMAT == "wirebench nccl hand-over 1"
    assert [d["id"] for d in handed["nccl"]["diagnoses"]] == ["shm-too-small"]
    assert handed["table"] == module(log, "--topology", topology, "--table").stdout
    assert module(log, "--topology", topology).returncode == 1


def test_the_front_door_prints_the_lines_python_prints():
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    log = DATA / "nccl-tests-166-shm-chain.log"
    done = subprocess.run([str(Path(binary) / "wirebench"), "topo", "--nccl-log", str(log)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    lines = module(log, "--table").stdout
    assert lines.startswith("NCCL log ") and done.stdout.endswith(lines), done.stdout


@pytest.mark.parametrize("name, code", CASES)
def test_the_front_door_ends_the_same(name, code):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    done = subprocess.run([str(Path(binary) / "wirebench"), "topo", "--nccl-log", str(DATA / name), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == code == module(DATA / name).returncode, done.stderr
