"""Training-step emulation on the virtual cluster (ctest label: vcluster; needs root): 2 nodes x 2
ranks, the inter-node links shaped slow and fast. The cost model, fed by wb-step's own calibration
on the same links, predicts each measured step (the 20% target is recorded in bench/MEASUREMENTS.md;
the test holds it to half) and picks DDP on the slow wiring as measured; FSDP and ZeRO-3 lose to DDP
on the slow wiring, and by less on the fast one."""
import csv
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VCLUSTER = ROOT / "ci" / "vcluster"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the virtual cluster needs root")

STRATEGIES = ["ddp", "fsdp-full", "zero3"]


def vcluster(*args, timeout=600):
    return subprocess.run([str(VCLUSTER), *args], capture_output=True, text=True, timeout=timeout)


def steps_on(rate, run_dir):
    """Median step and prediction per strategy with the inter-node links shaped to `rate`."""
    up = vcluster("up", "--nodes", "2", "--ranks", "2", "--rate", rate)
    assert up.returncode == 0, up.stderr
    binary = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wb-step"
    # The tiny model at a tenth of its size; compute about as long as DDP's communication at 1 Gbit/s.
    result = vcluster("exec", str(binary), "--model", "tiny", "--scale", "0.1", "--tflops", "0.5",
                      "--strategy", ",".join(STRATEGIES), "--link-class", "eth", "--wiring", rate,
                      "--run-dir", str(run_dir), "--benchmark_min_time=1.5", "--timeout", "60")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {}
    for row in csv.DictReader((run_dir / "results.csv").open()):
        extra = dict(item.split("=", 1) for item in row["extra"].split(";") if "=" in item)
        assert row["status"] == "OK" and row["nodes"] == "2" and row["dst"] == rate, row
        rows[row["case"]] = (float(row["time_us"]), float(extra["predicted_us"]))
    assert sorted(rows) == sorted(STRATEGIES)
    return rows, result.stdout


def misses(rows, rate, bound):
    return [f"{strategy} on {rate}: predicted {predicted / 1e3:.1f} ms, measured {measured / 1e3:.1f} ms"
            for strategy, (measured, predicted) in rows.items() if abs(predicted - measured) > bound * measured]


@pytest.fixture
def wirings(tmp_path):
    """Each wiring measured once. No second attempt: a retry hid a miss of the 20% target in about
    one run in three (ZeRO-3 on 200 Mbit/s, +24 and +27%, the calibration's last reduce_scatter
    point; bench/MEASUREMENTS.md)."""
    try:
        yield {rate: steps_on(rate, tmp_path / rate) for rate in ("200mbit", "4gbit")}
    finally:
        assert vcluster("down").returncode == 0


def test_prediction_and_strategy_order_on_slow_and_fast_links(wirings):
    for rate, (rows, output) in wirings.items():
        # The 20% target is a figure of bench/MEASUREMENTS.md (printed here for the log); what is
        # asserted is that the model is not wrong by half, which no run here came near (worst +27%).
        print("\n".join(misses(rows, rate, 0.20)) or f"{rate}: every step predicted within 20%")
        assert not misses(rows, rate, 0.50), "\n".join(misses(rows, rate, 0.50)) + "\n" + output
        assert "recommendation: " in output
        # the model orders the strategies as they measured on the slow wiring, where they are far apart
    slow_measured = {s: m for s, (m, _) in wirings["200mbit"][0].items()}
    slow_predicted = {s: p for s, (_, p) in wirings["200mbit"][0].items()}
    assert min(slow_measured, key=slow_measured.get) == min(slow_predicted, key=slow_predicted.get) == "ddp"
    slow, _ = wirings["200mbit"]
    fast, _ = wirings["4gbit"]
    for sharded in ("fsdp-full", "zero3"):
        slow_ratio = slow[sharded][0] / slow["ddp"][0]
        fast_ratio = fast[sharded][0] / fast["ddp"][0]
        assert slow_ratio > 1.15, f"{sharded} is not slower than DDP on the slow wiring ({slow_ratio:.2f})"
        assert fast_ratio < slow_ratio - 0.1, f"{sharded}: gap {fast_ratio:.2f} fast vs {slow_ratio:.2f} slow"


def test_collectives_at_once_on_one_link_share_it_as_the_model_says(tmp_path):
    """Issue 56: planted concurrency. HYBRID_SHARD on 4 nodes x 1 rank with shard groups of 2: in
    backward a layer's reduce_scatter on its shard group and the all_reduce of the replicas run at
    once through each node's one shaped NIC. Calibrated alone, each is slower beside the other; the
    model that shares the link between collectives in flight (max-min, flow-level) predicts the
    step closer than the one that gives each its own link (predicted_apart_us). Measured 2026-12-06:
    sharing +4.4% and -1.4%, apart -13.8% (bench/MEASUREMENTS.md); asserted: only the order."""
    up = vcluster("up", "--nodes", "4", "--rate", "1gbit")
    assert up.returncode == 0, up.stderr
    try:
        binary = Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "dev" / "bin")) / "wb-step"
        result = vcluster("exec", str(binary), "--model", "tiny", "--scale", "0.1", "--tflops", "0.5",
                          "--strategy", "fsdp-hybrid", "--shard-group", "2", "--link-class", "eth",
                          "--wiring", "vc4", "--run-dir", str(tmp_path), "--benchmark_min_time=0.5",
                          "--timeout", "60")
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    finally:
        assert vcluster("down").returncode == 0
    [row] = list(csv.DictReader((tmp_path / "results.csv").open()))
    extra = dict(item.split("=", 1) for item in row["extra"].split(";") if "=" in item)
    measured, shared, apart = float(row["time_us"]), float(extra["predicted_us"]), float(extra["predicted_apart_us"])
    print(f"measured {measured / 1e3:.2f} ms, shared link {shared / 1e3:.2f} ms ({100 * (shared - measured) / measured:+.1f}%), "
          f"a link each {apart / 1e3:.2f} ms ({100 * (apart - measured) / measured:+.1f}%)")
    assert apart < shared, "sharing the link can only lengthen a step"
    assert abs(shared - measured) < abs(apart - measured), result.stdout[-3000:]
