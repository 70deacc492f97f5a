"""The ci/gpu-check table from a synthetic run directory: the right rows, percent of ceiling."""
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python" / "tools"))
import gpu_check_table  # noqa: E402

COLUMNS = ["bench", "case", "backend", "link_class", "src", "dst", "direction", "op", "dtype", "bytes", "ranks",
           "nodes", "iters", "time_us", "time_us_p05", "time_us_p95", "algbw_GBps", "busbw_GBps", "errors",
           "extra", "status", "reason"]


def write_run(tmp_path, rows, ceiling=31.5):
    with (tmp_path / "results.csv").open("w", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in COLUMNS})
    topology = {"nodes": [{"links": [{"a": "gpu0", "b": "host", "ceiling_GBps": ceiling}]}]}
    (tmp_path / "topology.json").write_text(json.dumps(topology))


def test_percent_of_the_pcie_ceiling(tmp_path):
    write_run(tmp_path, [
        {"case": "h2d_pinned", "src": "n/numa0", "dst": "n/gpu0", "algbw_GBps": "25.2", "errors": "0",
         "extra": "numa=local", "status": "OK"},
        {"case": "h2d_pinned", "src": "n/numa1", "dst": "n/gpu0", "algbw_GBps": "9.9", "errors": "0",
         "extra": "numa=remote", "status": "OK"},
        {"case": "d2h_pinned", "src": "n/gpu0", "dst": "n/numa0", "algbw_GBps": "26.775", "errors": "2",
         "extra": "numa=local", "status": "OK"},
        {"case": "ce/write", "src": "n/gpu0", "dst": "n/gpu0", "algbw_GBps": "1500", "errors": "0", "status": "OK"},
        {"case": "gpu_host_latency", "src": "n/gpu0", "dst": "n/numa0", "time_us": "0.9", "status": "OK"},
    ])
    rows, ceilings = gpu_check_table.load(tmp_path)
    text = gpu_check_table.table(rows, ceilings)
    line = text.splitlines()[1]
    assert line.startswith("gpu0")
    assert "25.20" in line and " 80.0%" in line      # local H2D, not the remote 9.9
    assert "26.77" in line or "26.78" in line
    assert " 85.0%" in line
    assert "1500.00" in line and "0.90" in line
    assert line.rstrip().endswith("2")                # data errors are shown


def test_without_gpu_rows_the_reason_is_given(tmp_path):
    write_run(tmp_path, [{"case": "h2d_pinned", "status": "SKIP", "reason": "no CUDA device visible"}])
    rows, ceilings = gpu_check_table.load(tmp_path)
    assert gpu_check_table.table(rows, ceilings) == "no GPU measured: no CUDA device visible\n"
