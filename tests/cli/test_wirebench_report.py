"""`wirebench report` through the front door, as CI calls it."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "reports" / "basic"


def wirebench(*args):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, timeout=120)


def test_report_writes_its_files_and_exits_by_the_worst_verdict(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(DATA, run_dir)
    result = wirebench("report", str(run_dir))
    assert result.returncode == 2, result.stderr  # the fixture holds an ERROR row
    assert "2 FAIL, 1 ERROR, 3 WARN, 2 PASS, 1 NOT JUDGED, 1 SKIP" in result.stdout
    for name in ("report.md", "junit.xml", "summary.json"):
        assert (run_dir / name).stat().st_size > 0


def test_report_usage_errors_exit_3(tmp_path):
    assert wirebench("report").returncode == 3
    result = wirebench("report", str(tmp_path / "missing"))
    assert result.returncode == 3 and "missing: no such file or directory" in result.stderr  # issue 54


def test_a_prometheus_file_in_a_folder_that_does_not_exist_is_exit_3_without_a_traceback(tmp_path):
    """Issue 44: --prometheus /nonexistent/dir/x.prom ended in a Python traceback and exit 1 (FAIL's)."""
    run_dir = tmp_path / "run"
    shutil.copytree(DATA, run_dir)
    result = wirebench("report", str(run_dir), "--prometheus", "/nonexistent/dir/x.prom")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "--prometheus /nonexistent/dir/x.prom: its folder /nonexistent/dir does not exist" in result.stderr
    assert not (run_dir / "report.md").exists()  # said before anything was written


def test_run_with_a_profile_keeps_it_and_says_what_it_could_not_measure(tmp_path):
    # Without a GPU the acceptance suite's steps write SKIP rows: every floor is "not measured".
    run_dir = tmp_path / "acceptance"
    result = wirebench("run", "acceptance", "--profile", "h100-sxm-8gpu", "--run-dir", str(run_dir))
    # floors not measured: not healthy, named first (issue 54: this was exit 0)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Not healthy: 5 required item(s) not judged: profile h100-sxm-8gpu: floor" in result.stdout
    stored = json.loads((run_dir / "profile.json").read_text())
    assert stored["name"] == "h100-sxm-8gpu" and len(stored["floors"]) == 5
    assert "profile h100-sxm-8gpu: GPU pair copy (copy engine, one way): not measured" in result.stdout
    assert "## Platform profile: h100-sxm-8gpu" in (run_dir / "report.md").read_text()


def test_a_bad_profile_stops_the_run_before_it_starts(tmp_path):
    run_dir = tmp_path / "never"
    result = wirebench("run", "acceptance", "--profile", "b300-mystery", "--run-dir", str(run_dir))
    assert result.returncode == 3 and "no such profile" in result.stderr
    assert not run_dir.exists()


def test_run_lists_its_suites_and_profiles():
    result = wirebench("run", "--list")
    assert result.returncode == 0, result.stderr
    for name in ("default", "acceptance", "vcluster", "steps", "h100-sxm-8gpu", "a100-sxm-8gpu"):
        assert f"  {name} " in result.stdout, result.stdout
