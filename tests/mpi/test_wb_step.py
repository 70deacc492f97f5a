"""wb-step under mpiexec: every strategy on 4 ranks completes and reports; bad usage and a hung
rank end cleanly."""
import json
import os
import signal
import subprocess
import time

import pytest

from mpi_helpers import bin_dir, extra_items, mpiexec, rank_pids, read_results, run_mpi

STRATEGIES = ["ddp", "fsdp-full", "fsdp-grad-op", "fsdp-hybrid", "zero1", "zero2", "zero3",
              "zero1-paper", "zero2-paper", "zero3-paper"]
# The tiny model written out (suites/models/tiny.json): h 384, f 1024, V 2048, 4 layers.
LAYER = 4 * 384 * 384 + 3 * 384 * 1024 + 2 * 384
ROOT = 2 * 2048 * 384 + 384
P = 4 * LAYER + ROOT
QUICK = ["--model", "tiny", "--scale", "0.25", "--tflops", "4", "--benchmark_min_time=0.01", "--warmup=1"]


@pytest.mark.mpi_library
def test_every_strategy_on_four_ranks_completes_and_reports(tmp_path):
    result = run_mpi(4, "wb-step", [*QUICK, "--strategy", "all", "--run-dir", str(tmp_path)], timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert [r["case"] for r in rows] == STRATEGIES
    for row in rows:
        e = extra_items(row)
        assert row["bench"] == "step" and row["status"] == "OK" and row["ranks"] == "4", row
        step, compute, exposed = float(row["time_us"]), float(e["compute_us"]), float(e["exposed_us"])
        assert step > 0 and 0 < compute <= step * 1.05 and exposed >= 0, row
        assert abs(step - compute - exposed) <= 0.05 * step, row
        assert float(e["predicted_us"]) > 0, row
        # its own operations replayed under the overlap rules make a step of the same order (no bound
        # this machine's noise can break: the reporter judges the 10%)
        assert 0.5 * step < float(e["replayed_us"]) < 2 * step, row
        assert row["errors"] == "", row  # a step does not check data: no claim either way
        trace = json.loads((tmp_path / e["trace"]).read_text())
        events = [ev for ev in trace["traceEvents"] if ev["ph"] == "X"]
        assert {ev["pid"] for ev in events} == {0, 1, 2, 3}
        assert all(ev["dur"] >= 0 and "predicted_us" in ev["args"] for ev in events)
    by_case = {r["case"]: extra_items(r) for r in rows}
    # Bytes per collective kind at model scale, against docs/step-emulation.md.
    assert by_case["ddp"]["bytes_all_reduce"] == str(4 * P)
    assert by_case["fsdp-full"]["bytes_all_gather"] == str(4 * (2 * P - ROOT))
    assert by_case["zero3-paper"]["bytes_all_gather"] == str(8 * P)
    assert by_case["fsdp-hybrid"]["bytes_all_reduce_replicate"] == str(4 * P // 2)
    out = result.stdout
    for name in STRATEGIES:
        assert f"\n{name} " in out, out
    assert "predicted ms" in out and "exposed ms" in out
    assert "recommendation: " in out


@pytest.mark.mpi_library
def test_tensor_parallel_groups_carry_the_activations_and_the_replicas_the_gradients(tmp_path):
    result = run_mpi(4, "wb-step", [*QUICK, "--strategy", "tp2+ddp,tp2+fsdp-full", "--run-dir", str(tmp_path)],
                     timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert [r["case"] for r in rows] == ["tp2+ddp", "tp2+fsdp-full"]
    by_case = {r["case"]: extra_items(r) for r in rows}
    # 4 activation all_reduce per layer of tokens x h in bf16 on the 2-rank groups (docs/step-emulation.md).
    assert by_case["tp2+ddp"]["bytes_all_reduce_shard"] == str(4 * 4 * 4096 * 384 * 2)
    # DDP over the 2 replicas: fp32 gradients of a rank's half (norms whole).
    shard = 4 * ((4 * 384 * 384 + 3 * 384 * 1024) // 2 + 2 * 384) + 2 * 2048 * 384 // 2 + 384
    assert by_case["tp2+ddp"]["bytes_all_reduce_replicate"] == str(4 * shard)
    assert "all_reduce@shard" in result.stdout and "Megatron TP 2" in result.stdout
    for row in rows:
        assert row["status"] == "OK" and float(extra_items(row)["predicted_us"]) > 0, row


def test_expert_parallel_groups_carry_the_tokens_and_the_experts_gradients(tmp_path):
    result = run_mpi(4, "wb-step", [*QUICK[2:], "--model", "tiny-moe", "--strategy", "ep2+ddp,ep2+fsdp-full,ep2+zero2",
                                    "--run-dir", str(tmp_path)], timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert [r["case"] for r in rows] == ["ep2+ddp", "ep2+fsdp-full", "ep2+zero2"]
    assert all(r["status"] == "OK" for r in rows), rows
    by_case = {r["case"]: extra_items(r) for r in rows}
    experts = 2 * 3 * 384 * 512  # each rank's 2 experts of 3 x 384 x 512, per layer, on 2 replicas
    for e in by_case.values():
        # 4 all_to_all per layer of tokens x top_k x h in bf16 on the 2-rank expert groups.
        assert e["bytes_all_to_all_shard"] == str(4 * 4 * 4096 * 2 * 384 * 2)
    # DDP: each layer's experts' fp32 gradients reduced over the 2 ranks holding them.
    assert by_case["ep2+ddp"]["bytes_all_reduce_replicate"] == str(4 * 4 * experts)
    # FULL_SHARD: a layer's experts gathered before forward and before backward, reduce_scattered after.
    assert by_case["ep2+fsdp-full"]["bytes_all_gather_replicate"] == str(2 * 4 * 4 * experts)
    assert by_case["ep2+fsdp-full"]["bytes_reduce_scatter_replicate"] == str(4 * 4 * experts)
    # ZeRO-2: reduced per layer, the updated experts gathered once after the optimizer.
    assert by_case["ep2+zero2"]["bytes_all_reduce_replicate"] == str(4 * 4 * experts)
    assert by_case["ep2+zero2"]["bytes_all_gather_replicate"] == str(4 * 4 * experts)
    assert "all_to_all@shard" in result.stdout and "expert parallel 2" in result.stdout


@pytest.mark.mpi_library
def test_a_forced_algorithm_reaches_mpich_and_is_what_the_calibration_measured(tmp_path):
    # MPICH refuses an algorithm name it does not know at MPI_Init, so a run that completes under
    # each of them shows every name wb-step sets is one this MPICH has.
    nonblocking = {"ring": "tsp_ring", "recursive_doubling": "sched_recursive_doubling",
                   "rabenseifner": "sched_reduce_scatter_allgather"}
    for algorithm in ("ring", "recursive_doubling", "rabenseifner", "binomial"):
        run_dir = tmp_path / algorithm
        result = run_mpi(4, "wb-step", [*QUICK, "--strategy", "ddp", "--algorithm", algorithm, "--run-dir",
                                        str(run_dir)], timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"algorithm: {algorithm} forced; the calibration measured it:" in result.stdout
        [row] = read_results(run_dir / "results.csv")
        assert row["status"] == "OK", row
        e = extra_items(row)
        if algorithm in nonblocking:
            assert e["MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM"] == nonblocking[algorithm], e
        else:  # binomial: broadcast and reduce only; all_reduce left to MPICH
            assert "MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM" not in e and e["MPIR_CVAR_IBCAST_INTRA_ALGORITHM"] == \
                "sched_binomial", e
            assert "all_reduce: MPICH's own choice (it has no binomial)" in result.stdout
    for bad, reason in (("tree", "MPICH has no algorithm that follows this formula"),
                        ("ring,tree", "a measured run forces one algorithm"),
                        ("mpi", "a measured run forces one algorithm"),
                        ("nvls", "NCCL's own algorithm, which an MPI library does not have"),
                        ("best", "'best' is not nccl, mpi")):
        result = run_mpi(2, "wb-step", [*QUICK, "--algorithm", bad, "--run-dir", str(tmp_path / "bad")])
        assert result.returncode == 3 and reason in result.stderr, (bad, result.stderr)


def test_bad_usage_exits_3_with_the_reason(tmp_path):
    result = run_mpi(2, "wb-step", ["--strategy", "fsdp", "--run-dir", str(tmp_path)])
    assert result.returncode == 3
    assert "--strategy: 'fsdp' is not one of" in result.stderr
    result = run_mpi(2, "wb-step", ["--model", "gpt5", "--run-dir", str(tmp_path)])
    assert result.returncode == 3
    assert "'gpt5' is neither a file nor a model" in result.stderr


def test_a_hung_rank_ends_the_step_with_a_message(tmp_path):
    command = [mpiexec(), "-n", "2", str(bin_dir() / "wb-step"), *QUICK, "--strategy", "ddp,fsdp-full,zero3",
               "--benchmark_min_time=2", "--timeout", "3", "--run-dir", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    results = tmp_path / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (results.exists() and read_results(results)):
        assert process.poll() is None, process.stdout.read()
        time.sleep(0.05)
    pids = rank_pids(tmp_path, "wb-step")
    os.kill(pids[1], signal.SIGSTOP)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("wb-step did not give up within 60 s of a rank hanging (timeout 3 s)")
    finally:
        try:
            os.kill(pids[1], signal.SIGKILL)
        except ProcessLookupError:
            pass
    output = process.stdout.read()
    assert process.returncode == 2, output
    assert "did not complete within 3.0 s" in output, output
    rows = read_results(results)
    assert rows[0]["status"] == "OK"
    assert rows[-1]["status"] == "ERROR" and "did not complete within 3.0 s" in rows[-1]["reason"]


def test_predictions_from_wb_coll_fits(tmp_path):
    coll = run_mpi(2, "wb-coll", ["--collective", "all_reduce,all_gather", "-b", "1K", "-e", "4M", "-f", "4",
                                  "--run-dir", str(tmp_path / "coll"), "--benchmark_min_time=0.01"])
    assert coll.returncode == 0, coll.stderr
    fits = tmp_path / "coll" / "fits.csv"
    # DDP needs only all_reduce; ZeRO-1 all_reduce and all_gather: both covered by the sweep.
    result = run_mpi(2, "wb-step", [*QUICK, "--strategy", "ddp,zero1", "--fits", str(fits),
                                    "--run-dir", str(tmp_path / "step")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"cost model: fits from {fits}" in result.stdout
    rows = read_results(tmp_path / "step" / "results.csv")
    assert all("costs=fits.csv" in r["extra"] and float(extra_items(r)["predicted_us"]) > 0 for r in rows)
    # FSDP reduce_scatters, which the sweep did not measure: said before anything runs.
    result = run_mpi(2, "wb-step", [*QUICK, "--strategy", "fsdp-full", "--fits", str(fits),
                                    "--run-dir", str(tmp_path / "step2")])
    assert result.returncode == 3
    assert "has no shm fit for reduce_scatter on 2 ranks" in result.stderr


def test_a_run_predicted_from_another_run_s_calibration(tmp_path):
    """Issue 56: calibrate once (2 ranks), then predict another run from that step_calibration.csv
    (wb-step --calibration): the group sizes it did not measure cost MPICH's algorithm there."""
    first = run_mpi(2, "wb-step", [*QUICK, "--strategy", "ddp,fsdp-full", "--run-dir", str(tmp_path / "two")])
    assert first.returncode == 0, first.stdout + first.stderr
    saved = tmp_path / "two" / "step_calibration.csv"
    assert saved.read_text().startswith("# wirebench step_calibration format 3\n")
    result = run_mpi(3, "wb-step", [*QUICK, "--strategy", "ddp,fsdp-full", "--calibration", str(saved),
                                    "--run-dir", str(tmp_path / "three")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"cost model: calibration from {saved}" in result.stdout
    assert not list((tmp_path / "three").glob("step_calibration*.csv"))  # nothing calibrated here
    rows = read_results(tmp_path / "three" / "results.csv")
    for row in rows:
        e = extra_items(row)
        assert e["costs"] == "calibration step_calibration.csv" and e["judge"] == "prediction", row
        assert float(e["predicted_us"]) > 0, row
    # Named by the wiring, as the traces are: a suite stepping over two wirings keeps both.
    named = run_mpi(2, "wb-step", [*QUICK, "--strategy", "ddp", "--wiring", "shm", "--run-dir", str(tmp_path / "named")])
    assert named.returncode == 0, named.stdout + named.stderr
    assert (tmp_path / "named" / "step_calibration_shm.csv").exists() and "points in step_calibration_shm.csv" in named.stdout
    # A file that is not one: refused before anything runs, naming it.
    (tmp_path / "bad.csv").write_text("op,group\n")
    bad = run_mpi(2, "wb-step", [*QUICK, "--strategy", "ddp", "--calibration", str(tmp_path / "bad.csv"),
                                 "--run-dir", str(tmp_path / "bad")])
    assert bad.returncode == 3 and "bad.csv:1" in bad.stderr and "format 1" in bad.stderr, bad.stderr


def test_a_step_faster_than_its_calibration_names_the_op_that_ran_faster(tmp_path):
    """A calibration 20 times too slow (its times scaled): every step runs faster than predicted, and
    the op the row names as the largest miss is one that ran faster than predicted, not slower. The
    same file at another --scale: wb-step says which sizes it extrapolates to."""
    first = run_mpi(2, "wb-step", [*QUICK, "--strategy", "zero1", "--run-dir", str(tmp_path / "two")])
    assert first.returncode == 0, first.stdout + first.stderr
    lines = (tmp_path / "two" / "step_calibration.csv").read_text().splitlines()
    header = lines[1].split(",")
    slow = lines[:2]
    for line in lines[2:]:
        cells = line.split(",")
        for name in ("time_us", "alpha_us", "beta_us_per_byte"):
            cells[header.index(name)] = repr(20 * float(cells[header.index(name)]))
        slow.append(",".join(cells))
    (tmp_path / "slow.csv").write_text("\n".join(slow) + "\n")
    result = run_mpi(2, "wb-step", [*QUICK, "--strategy", "zero1", "--calibration", str(tmp_path / "slow.csv"),
                                    "--run-dir", str(tmp_path / "fast")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "extrapolates" not in result.stderr, result.stderr  # made at this scale
    e = extra_items(read_results(tmp_path / "fast" / "results.csv")[0])
    assert float(e["predicted_us"]) > 2 * float(e["replayed_us"]), e
    assert float(e["miss_op_us"]) < float(e["miss_op_predicted_us"]), e
    smaller = run_mpi(2, "wb-step", [*QUICK[:2], "--scale", "0.005", *QUICK[4:], "--strategy", "zero1",
                                     "--calibration", str(tmp_path / "slow.csv"), "--run-dir", str(tmp_path / "small")])
    assert smaller.returncode == 0, smaller.stdout + smaller.stderr
    assert "the calibration measured all_reduce from" in smaller.stderr and "extrapolates" in smaller.stderr, smaller.stderr


def test_what_if_predicts_a_cluster_it_does_not_have():
    slow = run_mpi(1, "wb-step", ["--what-if", "4x8", "--model", "llama2-70b", "--strategy", "ddp,fsdp-full,fsdp-hybrid",
                                  "--inter-GBps", "12.5"])
    assert slow.returncode == 0, slow.stderr
    assert "predicted, nothing measured" in slow.stdout and "recommendation: " in slow.stdout
    steps = {line.split()[0]: float(line.split()[1]) for line in slow.stdout.splitlines()
             if line.split() and line.split()[0] in ("ddp", "fsdp-full", "fsdp-hybrid")}
    # 100 Gb/s per GPU between nodes: FSDP loses to DDP, HYBRID_SHARD (one node per shard group) wins.
    assert steps["fsdp-full"] > steps["ddp"] > steps["fsdp-hybrid"], steps
    # How far to trust it: the error band measured here, per strategy (suites/step-prediction-errors.csv).
    assert "how far this model's prediction missed measured steps" in slow.stdout
    bands = [line for line in slow.stdout.splitlines() if line.startswith("  fsdp-hybrid:")]
    assert len(bands) == 1 and "own calibration" in bands[0] and "from 2 nodes" in bands[0], bands
    bad = run_mpi(1, "wb-step", ["--what-if", "8by8"])
    assert bad.returncode == 3 and "is not NODESxGPUS" in bad.stderr


def test_what_if_scaling_shows_where_more_gpus_stop_helping():
    result = run_mpi(1, "wb-step", ["--what-if", "1x8,4x8,8x8,16x8", "--model", "llama2-7b", "--strategy", "ddp,fsdp-full",
                                    "--global-tokens", "262144", "--inter-GBps", "12.5"])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "262144 tokens a step over all ranks" in out and "(32768 tokens/rank)" in out and "(4096 tokens/rank)" in out
    assert out.count("recommendation: ") == 4
    scaling = out[out.index("scaling (tokens/s"):].splitlines()
    assert scaling[1].split() == ["strategy", "1x8", "4x8", "8x8", "16x8"]
    fsdp = next(line for line in scaling if line.startswith("fsdp-full")).replace("(", " ").replace("%)", " ").split()
    # strategy, then (tokens/s, efficiency %) per shape: 1x8 is 100%, 8x8 on 100 Gb/s per GPU far below
    throughput, efficiency = [float(x) for x in fsdp[1::2]], [float(x) for x in fsdp[2::2]]
    assert efficiency[0] == 100 and efficiency[2] < 70, fsdp
    assert throughput[3] < throughput[2]  # twice the GPUs, fewer tokens a second
    for args, message in [(["--what-if", "2x8", "--global-tokens", "1000", "--tokens", "512"], "give one"),
                          (["--global-tokens", "1000"], "--global-tokens needs --what-if"),
                          (["--what-if", "2x8,2y8"], "'2y8' is not NODESxGPUS")]:
        bad = run_mpi(1, "wb-step", args)
        assert bad.returncode == 3 and message in bad.stderr, (args, bad.stderr)
    # Refused once the run has started (the model is known): one rank alone ends in wirebench's
    # words and the exit code, without MPI_Abort's lines after them.
    refused = run_mpi(1, "wb-step", ["--what-if", "1x8", "--model", "mixtral-8x7b", "--strategy", "ep8+zero3"])
    assert refused.returncode == 3 and "expert parallelism with zero3 is not modelled" in refused.stderr, refused.stderr
    assert "Abort" not in refused.stdout + refused.stderr, refused.stderr


def test_what_if_names_only_algorithms_nccl_has():
    result = run_mpi(1, "wb-step", ["--what-if", "1x8,2x8,64x8", "--model", "llama2-7b", "--strategy", "ddp,fsdp-full",
                                    "--algorithm", "ring,tree,nccl"])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "NVSwitch hopper, no IB SHARP" in out
    for mpi_only in ("recursive_doubling", "rabenseifner", "binomial"):
        assert mpi_only not in out, mpi_only
    # NCCL runs broadcast as a ring whatever the cluster: no "tree is faster" for it.
    broadcast = next(line for line in out.splitlines() if line.strip().startswith("broadcast of"))
    assert ": ring," in broadcast and "(NCCL has ring)" in broadcast and "tree" not in broadcast, broadcast
    # An HGX H100 node: NVLS inside one node, NVLS tree across nodes.
    chose = {line.split()[1]: line for line in out.splitlines()
             if line.split()[:1] == ["ddp"] and len(line.split()) > 2 and "x8" in line.split()[1]}
    assert "nvls " in chose["1x8"] and "nvls_tree" in chose["64x8"], chose
    no_switch = run_mpi(1, "wb-step", ["--what-if", "1x8,2x8", "--model", "llama2-7b", "--strategy", "ddp",
                                       "--algorithm", "ring,nccl", "--nvswitch", "none"])
    assert no_switch.returncode == 0 and "nvls" not in no_switch.stdout, no_switch.stdout
    for args, message in [(["--what-if", "2x8", "--algorithm", "best"], "--algorithm best: gone"),
                          (["--what-if", "2x8", "--nvswitch", "volta"], "is not none, ampere, hopper or blackwell"),
                          (["--what-if", "2x8", "--sharp", "yes"], "--sharp: 'yes' is not 0 or 1"),
                          (["--sharp", "1"], "--sharp needs --what-if")]:
        bad = run_mpi(1, "wb-step", args)
        assert bad.returncode == 3 and message in bad.stderr, (args, bad.stderr)


def test_activation_checkpointing_trades_memory_for_compute():
    def table(*extra):
        result = run_mpi(1, "wb-step", ["--what-if", "4x8", "--model", "llama2-7b", "--strategy", "ddp,zero3", *extra])
        assert result.returncode == 0, result.stderr
        assert "activations" in result.stdout
        # strategy, step ms, compute ms, exposed ms, exposed%, memory, GB
        return {line.split()[0]: (float(line.split()[2]), float(line.split()[5])) for line in result.stdout.splitlines()
                if line.split() and line.split()[0] in ("ddp", "zero3")}
    plain, recomputed = table(), table("--activation-checkpointing", "1")
    for strategy in ("ddp", "zero3"):
        assert recomputed[strategy][0] > plain[strategy][0]  # the layers' forward again
        assert recomputed[strategy][1] < plain[strategy][1]  # only the layers' inputs kept
    # Llama-2 7B, 4096 tokens: about 18.1 GB of activations on top of ZeRO-3's 16P/32 = 3.4 GB.
    assert 21 < plain["zero3"][1] < 22, plain
    bad = run_mpi(1, "wb-step", ["--what-if", "4x8", "--activation-checkpointing", "yes"])
    assert bad.returncode == 3 and "--activation-checkpointing: 'yes' is not 0 or 1" in bad.stderr
