"""Eight nights of the virtual cluster into one history (ctest label: vcluster; root): `wirebench run`
as a nightly CI runs it, WIREBENCH_HISTORY set, a stream each way between two nodes. From the sixth
night the path between them is slowed 20% (tc); the seventh night's report names the regression and
its first night, the clean nights before it flagged nothing, and the history holds every night."""
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")
SUITE = """name: nightly
description: a stream each way between two nodes of the virtual cluster
cluster:
  nodes: 2
  ranks: 1
  rate_mbit: 1000
expectations:
  - link_class: eth
    from_cluster_rate: true
    healthy_fraction: 0.8
    source: "ci/vcluster tbf shaping on both ends of every link"
steps:
  - name: a stream each way
    binary: wb-net
    args: ["--pairs", "all", "--tests", "bw", "--sizes", "256K", "--link-class", "eth",
           "--benchmark_min_time=0.2", "--timeout", "30"]
    timeout: 120
"""


def wirebench():
    return Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wirebench"


def test_eight_nights_a_path_slowed_from_the_sixth_is_named_with_its_first_night(tmp_path):
    (tmp_path / "nightly.yaml").write_text(SUITE)
    history = tmp_path / "history.sqlite"
    env = {**os.environ, "WIREBENCH_HISTORY": str(history)}
    nights = []
    for n in range(1, 9):
        slowed = ["--degrade-path", "0-1=800mbit"] if n >= 6 else []
        run_dir = tmp_path / f"night{n}"
        result = subprocess.run([str(wirebench()), "run", str(tmp_path / "nightly.yaml"), "--run-dir", str(run_dir),
                                 *slowed], capture_output=True, text=True, timeout=300, env=env)
        verdicts = json.loads((run_dir / "summary.json").read_text())["verdicts"]
        moved = [v for v in verdicts if "regression:" in v["reason"]]
        nights.append((result.returncode, moved, result.stdout))
        time_of = json.loads((run_dir / "meta.json").read_text())["created"]
        if n == 6:
            sixth = time_of
    for n, (code, moved, out) in enumerate(nights[:5], 1):
        assert code == 0 and moved == [], (n, out)  # the clean nights: nothing flagged
    assert nights[5][1] == []  # the first slow night alone is no regression yet (k = 2)
    code, moved, out = nights[6]
    assert code == 1 and moved, out
    assert all(f"first seen on {sixth}" in v["reason"] for v in moved), moved
    assert {(v["src"], v["dst"]) for v in moved} <= {("node0/rank0", "node1/rank1"), ("node1/rank1", "node0/rank0")}
    assert "Trend: the items that moved against the history" in (tmp_path / "night7" / "report.md").read_text()
    db = sqlite3.connect(history)
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 8
