"""`wirebench import` through the front door, from a folder outside the repository, as a site runs
it on the outputs it keeps (the fixtures: tests/data/imports)."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"


def test_import_judges_nccl_tests_and_osu_outputs_in_one_run_directory(tmp_path):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    for name in ("all_reduce_perf-slow.txt", "osu_bw.txt"):
        shutil.copy(DATA / name, tmp_path / name)
    result = subprocess.run([str(Path(binary) / "wirebench"), "import", "all_reduce_perf-slow.txt", "osu_bw.txt",
                             "--link-class", "nvlink", "--rate", "370"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr  # the slow all_reduce FAILs
    assert "all_reduce_perf-slow.txt: nccl-tests, 4 row(s)" in result.stdout and "osu_bw.txt: osu, 3 row(s)" in result.stdout
    assert "rerun: mpirun -np 8 all_reduce_perf -b 134217728 -e 134217728" in result.stdout
    for name in ("results.csv", "report.md", "junit.xml", "summary.json"):
        assert (tmp_path / "wirebench-import" / name).stat().st_size > 0
