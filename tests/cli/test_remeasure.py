"""The runner's second measurement of a FAIL runs the row's own rerun (results.csv's `rerun`, as the
binary wrote it) inside its step (run/remeasure.py): the settings it names replace the step's own
spellings of them, so a wb-coll step in nccl-tests' spelling (-b/-e/-f) is measured again, where
rewriting --sizes made wb-coll refuse the mix (ctest label: unit; the real `wirebench run` and
wb-coll on 2 local MPI ranks)."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.run.remeasure import _beyond, _rerun_options, at_sizes, with_rerun  # noqa: E402

# A collective step as an nccl-tests user writes it, and a floor no loopback run reaches: its
# all_reduce FAILs, and the runner measures it again.
SUITE = """name: nccl-tests-spelling
profile: {profile}
steps:
  - name: collectives as nccl-tests spells them
    where: always
    binary: wb-coll
    ranks: 2
    args: ["--collective", "all_reduce,all_gather", "-b", "8", "-e", "64K", "-f", "8", "--benchmark_min_time=0.02",
           "--max-time", "0.2", "--timeout", "60"]
    timeout: 300
"""
PROFILE = """name: unreachable
description: a floor no machine reaches over shared memory, so that the all_reduce FAILs
warn_band: 0.05
floors:
  - name: all_reduce
    match: {bench: coll, op: all_reduce, backend: mpi}
    metric: busbw_GBps
    floor: 100000
    source: "this test"
"""


def test_a_rerun_s_settings_replace_every_spelling_of_them_in_the_step():
    step = {"name": "c", "binary": "wb-coll", "args": ["--collective", "all", "-b", "8", "--maxbytes=4M", "-f", "2",
                                                       "--datatype", "float", "--max-time", "0.4"]}
    options = _rerun_options("NCCL_ALGO=Ring mpiexec -n 8 /opt/wb/bin/wb-coll --backend nccl --collective all_reduce "
                             "-d float -b 4194304 -e 4194304 --in-place no -c 1", "wb-coll")
    again = with_rerun(step, options)
    assert again["args"] == ["--max-time", "0.4", "--backend", "nccl", "--collective", "all_reduce", "-d", "float",
                             "-b", "4194304", "-e", "4194304", "--in-place", "no", "-c", "1"]
    assert again["name"].startswith("c (measured again: --backend nccl")
    # sizes however spelt are one setting: --sizes replaces -b/-e/-f (wb-coll refuses the two mixed)
    assert at_sizes(step, [64, 4096])["args"] == ["--collective", "all", "--datatype", "float", "--max-time", "0.4",
                                                  "--sizes", "64,4096"]
    # what the step already says as the rerun says it is no difference between two reruns
    assert _beyond([("--tests", "bw"), ("--pairs", "all"), ("--backend", "mpi")],
                   ["--pairs", "all", "--backend=mpi", "--tests", "latency,bw"]) == [("--tests", "bw")]
    # a rerun the step cannot run: another binary, no rerun, a bare word where an option belongs
    assert _rerun_options("wb-host --tests gpu", "wb-p2p") is None
    assert _rerun_options("", "wb-net") is None
    assert _rerun_options("mpiexec -n 2 wb-net --tests bw stray", "wb-net") is None


def wirebench(*args, cwd):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, timeout=600,
                          cwd=cwd)


def test_a_fail_of_a_step_in_nccl_tests_spelling_is_measured_again_as_its_rerun_says(tmp_path):
    (tmp_path / "unreachable.yaml").write_text(PROFILE)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.format(profile=tmp_path / "unreachable.yaml"))
    run_dir = tmp_path / "run"
    result = wirebench("run", str(suite), "--run-dir", str(run_dir), cwd=tmp_path)
    console = result.stdout + result.stderr
    assert result.returncode == 1, console
    # 1 run for the FAILs; an item whose samples happen to cross its bound may add its own
    assert re.search(r"failing or uncertain item\(s\): measuring them once more in \d+ run\(s\), as their reruns say",
                     console), console
    log = next((run_dir / "remeasured" / "logs").iterdir()).read_text()
    assert "-b 32768 -e 32768" in log and "--sizes" not in log and " -f " not in log, log[:2000]  # 8 x 8^k up to 64K
    assert "--in-place both" in log, log[:2000]  # both placements failed: one run measures both
    assert "all_gather" not in log.splitlines()[0], log.splitlines()[0]  # only what failed, as its rerun says
    again = (run_dir / "remeasured" / "results.csv").read_text().splitlines()
    assert len(again) > 1 and all(",ERROR," not in line for line in again), again
    summary = json.loads((run_dir / "summary.json").read_text())
    failed = [v for v in summary["verdicts"] if v["verdict"] == "FAIL"]
    assert failed and all(v["reason"].startswith("reproduced: measured again") for v in failed), failed
