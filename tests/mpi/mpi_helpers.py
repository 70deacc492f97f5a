"""Helpers for running the wirebench binaries under mpiexec from pytest (imported by name: a module named conftest
would be another folder's when several test folders run in one pytest session).

ctest sets WB_BIN_DIR (where the binaries are) and WB_MPIEXEC (the MPI launcher CMake found).
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
from wirebench.contracts.schema import RESULT_COLUMNS  # noqa: E402  the columns every binary writes (schema/)


# Short measurements: these tests check behaviour, not speed.
FAST = ["--benchmark_min_time=0.01", "--warmup=1"]


def bin_dir() -> Path:
    path = os.environ.get("WB_BIN_DIR")
    if not path:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return Path(path)


def mpiexec() -> str:
    return os.environ.get("WB_MPIEXEC") or shutil.which("mpiexec") or "mpiexec"


def run_mpi(ranks, binary, args, timeout=300, launcher_args=(), cwd=None):
    command = [mpiexec(), *launcher_args, "-n", str(ranks), str(bin_dir() / binary), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def read_results(path: Path):
    """Rows of results.csv as dicts, after checking the file is complete and well formed."""
    text = path.read_text()
    assert text.endswith("\n"), "results.csv must end at a row boundary"
    lines = text.splitlines()
    assert lines[0].split(",") == list(RESULT_COLUMNS)
    rows = list(csv.DictReader(text.splitlines()))
    for number, row in enumerate(rows, start=2):
        assert None not in row and all(v is not None for v in row.values()), f"line {number} malformed"
        if row["status"] == "OK":  # every measured figure says how many samples back it, and their spread
            assert int(row["samples"]) >= 5 and row["spread_pct"] != "", f"line {number}: {row}"
    return rows


def read_meta(run_dir: Path):
    return json.loads((run_dir / "meta.json").read_text())


def rank_pids(run_dir: Path, binary: str):
    """PIDs of the processes of one run of `binary` (found by its run directory), by MPI rank. A
    rank under Hydra beside others has a keeper, its parent with the same command line
    (bench/harness/rank_keeper.h): the rank is the child, never the keeper."""
    found = {}  # pid: (rank, parent pid)
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            environ = (proc / "environ").read_bytes().split(b"\0")
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if not cmdline or not cmdline[0].endswith(binary.encode()) or str(run_dir).encode() not in cmdline:
            continue
        for entry in environ:
            if entry.startswith(b"PMI_RANK="):
                found[int(proc.name)] = (int(entry.split(b"=")[1]), parent)
    keepers = {parent for _, parent in found.values()}
    return {rank: pid for pid, (rank, _) in found.items() if pid not in keepers}


def extra_items(row):
    """A row's `extra` column (key=value;key=value) as a dict."""
    return dict(item.split("=", 1) for item in row["extra"].split(";") if "=" in item)
