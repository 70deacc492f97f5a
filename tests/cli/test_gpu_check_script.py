"""ci/gpu-check's stages and budget, run here on a build tree's binaries (--bin: nothing built) on a
machine without a GPU: every stage is timed into stages.tsv, a stage that does not fit the budget is
skipped and says so, the GPU stages run to their first CUDA call, and the one table is printed from
what finished. The offline build itself: tests/install/test_gpu_bundle.py and ci/gpu-offline-proof."""
import csv
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "ci" / "bin")).resolve()
SCRIPT = ROOT / "ci" / "gpu-check"

needs_build = pytest.mark.skipif(not (BIN / "wirebench").exists(), reason=f"no build in {BIN}")
no_gpu = pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine may have a GPU")


def gpu_check(*args, timeout=300):
    return subprocess.run([str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=timeout)


def stages(run_dir):
    return {r["stage"]: r for r in csv.DictReader((run_dir / "stages.tsv").open(), delimiter="\t")}


@needs_build
@no_gpu
def test_what_does_not_fit_the_budget_is_skipped_and_the_table_still_printed(tmp_path):
    # 20 s, of which 15 are kept for the table: the topology (3 s) fits, no GPU stage does
    result = gpu_check("--bin", BIN, "--budget", 20, tmp_path / "run")
    assert result.returncode == 0, result.stderr[-2000:]
    recorded = stages(tmp_path / "run")
    assert recorded["topology"]["status"] == "done"
    host = recorded["wb-host, round 1"]
    assert host["status"] == "skipped" and host["wall_s"] == "0" and host["detail"].startswith("budget: needs 10s, ")
    assert recorded["table"]["status"] == "reached"
    assert "gpu-check: [+" in result.stdout and "wb-host, round 1: skipped (budget: needs 10s" in result.stdout
    table = (tmp_path / "run" / "gpu-check.txt").read_text()
    assert "| host to device, pinned, CE, 512 MiB | - | nvbandwidth host_to_device_memcpy_ce | not built" in table
    assert "| wb-host h2d_pinned (local NUMA) | skipped (budget: needs 10s, " in table
    assert not (tmp_path / "run" / "round-1" / "wb-host").exists()  # a skipped stage leaves nothing behind


@needs_build
@no_gpu
def test_without_a_gpu_each_gpu_stage_runs_to_its_first_cuda_call(tmp_path):
    result = gpu_check("--bin", BIN, "--budget", 600, tmp_path / "run")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    recorded = stages(tmp_path / "run")
    for name in ("wb-host, round 1", "wb-p2p, round 1", "wb-host, every GPU case"):
        assert recorded[name]["status"] == "no GPU", recorded[name]
        assert float(recorded[name]["wall_s"]) >= 0 and recorded[name]["cpu_s"] != ""
    assert "round-2" not in {p.name for p in (tmp_path / "run").iterdir()}  # one round: the next would stop alike
    skip_rows = (tmp_path / "run" / "round-1" / "wb-p2p" / "results.csv").read_text()
    assert ",SKIP," in skip_rows  # it ran, and its first CUDA call found no device
    assert recorded["gpu-labelled tests"]["status"] == "no GPU"  # not run: each would skip
    table = (tmp_path / "run" / "gpu-check.txt").read_text()
    assert "not measured (no GPU)" in table and "GB/s |" not in table
    assert result.stdout.rstrip().endswith(f"everything in {tmp_path / 'run'}")


def test_bad_options_exit_3_naming_the_option(tmp_path):
    for args, said in ((["--budget", "8min"], "--budget: '8min' is not a whole number of seconds"),
                       (["--rounds", "0"], "--rounds: '0' is not a count of rounds"),
                       (["--bin", tmp_path], f"--bin: '{tmp_path}' holds no wirebench binary"),
                       (["--offline", tmp_path / "none"], "is not a folder"),
                       (["--fast"], "unknown option '--fast'")):
        result = gpu_check(*args, tmp_path / "run")
        assert result.returncode == 3 and said in result.stderr, (args, result.stderr)
