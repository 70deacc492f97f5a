"""`wirebench report` through the front door, as CI calls it."""
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
    assert "3 PASS, 3 WARN, 2 FAIL, 2 SKIP, 1 ERROR" in result.stdout
    for name in ("report.md", "junit.xml", "summary.json"):
        assert (run_dir / name).stat().st_size > 0


def test_report_usage_errors_exit_3(tmp_path):
    assert wirebench("report").returncode == 3
    result = wirebench("report", str(tmp_path / "missing"))
    assert result.returncode == 3 and "not a directory" in result.stderr
