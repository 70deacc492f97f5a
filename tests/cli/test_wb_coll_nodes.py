"""wb-coll names a whole-world collective by its communicator's nodes, as MPI names them
(MPI_Get_processor_name, as wb-net's endpoints; schema/endpoints.csv): one node's nightly run is its
own item, so the history holds it against the other nodes' (the fleet), and the reporter reads it
as that node's. Before: src `world` on every node, one item between them. Intra-node and rails
communicators (several at once, per_comm_us) keep their kind's name. wb-coll on 2 local MPI ranks."""
import csv
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICK = ["--collective", "all_reduce", "--sizes", "1K", "--benchmark_min_time=0.01", "--warmup=1", "--timeout", "60"]


def wb_coll(ranks, *args):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    mpiexec = os.environ.get("WB_MPIEXEC") or shutil.which("mpiexec") or "mpiexec"
    return subprocess.run([mpiexec, "-n", str(ranks), str(Path(binary) / "wb-coll"), *args], capture_output=True,
                          text=True, timeout=300)


def test_a_world_collective_is_named_by_its_node_and_reported_as_it(tmp_path):
    run = tmp_path / "run"
    done = wb_coll(2, *QUICK, "--run-dir", str(run))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((run / "results.csv").open()))
    host = socket.gethostname()  # MPI_Get_processor_name on a local launch
    assert rows and {r["src"] for r in rows} == {host} and {r["nodes"] for r in rows} == {"1"}, rows[:2]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), MPLBACKEND="Agg")
    subprocess.run([sys.executable, "-m", "wirebench.report", str(run)], capture_output=True, text=True, env=env,
                   timeout=300)
    keys = [v["key"] for v in json.loads((run / "summary.json").read_text())["verdicts"]]
    assert keys and all(f"/{host}//" in key for key in keys), keys[:2]


def test_intra_node_communicators_keep_their_kinds_name(tmp_path):
    run = tmp_path / "run"
    done = wb_coll(2, *QUICK, "--split", "intra", "--run-dir", str(run))
    assert done.returncode == 0, done.stderr
    assert {r["src"] for r in csv.DictReader((run / "results.csv").open())} == {"intra-node"}
