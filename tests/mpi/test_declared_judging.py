"""Every binary declares how its rows are judged and how each is measured again (results.csv's
`judged` and `rerun`, results schema 3): the declarations are the ones the reporter gives an older
run (legacy.py), and a rerun runs as printed, from PATH, measuring the same row (ctest label: mpi)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mpi_helpers import FAST, bin_dir, mpiexec, read_results, run_mpi

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from wirebench.report.judging import parse  # noqa: E402
from wirebench.report.legacy import fill  # noqa: E402

IDENTITY = ("bench", "case", "backend", "src", "dst", "direction", "op", "dtype", "bytes")


def declared(rows):
    """(row, what legacy.py makes of the same row without the two columns), for every measured row."""
    out = []
    for row in rows:
        assert row["status"] == "OK", row
        parse(row["judged"], "results.csv")  # in the grammar
        old = {k: v for k, v in row.items() if k not in ("judged", "rerun")}
        fill(old)
        out.append((row, old))
    return out


def test_wb_net_declares_what_an_older_run_is_judged_by(tmp_path):
    result = run_mpi(3, "wb-net", ["--sizes", "0,8,64K", "--pairs", "all-serial", "--run-dir", str(tmp_path / "a"), *FAST])
    assert result.returncode == 0, result.stderr
    result = run_mpi(3, "wb-net", ["--sizes", "64K", "--pairs", "alltoall", "--run-dir", str(tmp_path / "b"), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "a" / "results.csv") + read_results(tmp_path / "b" / "results.csv")
    for row, old in declared(rows):
        assert (row["judged"], row["rerun"]) == (old["judged"], old["rerun"]), row
    judged = {(r["case"], r["bytes"], r["src"] == "all"): r["judged"] for r in rows}
    assert judged[("pingpong", "0", False)] == "time_us@smallest:typical_latency"
    assert judged[("pingpong", "8", False)] == "algbw_GBps@largest:ceiling time_us@smallest:typical_latency"
    assert judged[("stream_bw", "65536", False)] in ("algbw_GBps@largest:ceiling", "algbw_GBps@largest:culprits")
    assert judged[("alltoall_stream_bw", "65536", True)] == "algbw_GBps@largest:ceiling"


def test_wb_coll_declares_what_an_older_run_is_judged_by(tmp_path):
    result = run_mpi(2, "wb-coll", ["-b", "8", "-e", "64K", "-f", "64", "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    for row, old in declared(rows):
        assert row["judged"] == old["judged"] == "busbw_GBps@largest:ceiling", row
        assert row["rerun"] == old["rerun"], row


def test_wb_host_declares_what_an_older_run_is_judged_by(tmp_path):
    if not (bin_dir() / "wb-host").exists():
        pytest.skip("this build tree has no wb-host (the Debian MPICH tree builds the MPI binaries only)")
    result = subprocess.run([str(bin_dir() / "wb-host"), "--tests", "numa_copy,latency", "--sizes", "1MiB",
                             "--latency-bytes", "1MiB", "--run-dir", str(tmp_path), *FAST],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    for row, old in declared(rows):
        assert (row["judged"], row["rerun"]) == (old["judged"], old["rerun"]), row
    assert {r["case"]: r["judged"] for r in rows} == {"numa_copy": "algbw_GBps@largest:ceiling",
                                                     "memory_latency": "time_us@smallest:siblings"}


def user_path():
    """PATH as a user has it: the binaries' folder and the MPI's (Hydra finds its proxy beside mpiexec)."""
    launcher = Path(shutil.which(mpiexec()) or mpiexec()).resolve().parent
    return f"{bin_dir()}{os.pathsep}{launcher}{os.pathsep}{os.environ['PATH']}"


def test_a_rows_rerun_runs_as_printed_and_measures_that_row_again(tmp_path):
    first = tmp_path / "first"
    result = run_mpi(2, "wb-net", ["--sizes", "4K", "--tests", "bw", "--run-dir", str(first), *FAST])
    assert result.returncode == 0, result.stderr
    (row,) = read_results(first / "results.csv")
    again = tmp_path / "again"
    again.mkdir()
    result = subprocess.run(row["rerun"] + " " + " ".join(FAST), shell=True, cwd=again, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PATH": user_path()})
    assert result.returncode == 0, (row["rerun"], result.stderr)
    (same,) = read_results(again / "results.csv")
    assert [same[c] for c in IDENTITY] == [row[c] for c in IDENTITY]
    assert same["rerun"] == row["rerun"] and same["judged"] == row["judged"]
