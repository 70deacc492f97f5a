"""wb-net under mpiexec with several ranks on this machine (ctest label: mpi)."""
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from mpi_helpers import FAST, bin_dir, mpiexec, rank_pids, read_meta, read_results, run_mpi

SIZES = "0,8,4K,1M"
SIZE_LIST = [0, 8, 4096, 1 << 20]


def measured(rows):
    return [r for r in rows if r["status"] == "OK"]


@pytest.mark.mpi_library
@pytest.mark.parametrize("ranks,pairs", [(2, "first"), (4, "ring"), (4, "all-serial"), (4, "all")])
def test_rows_for_every_size_pair_and_test(tmp_path, ranks, pairs):
    result = run_mpi(ranks, "wb-net", ["--sizes", SIZES, "--pairs", pairs, "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    every = ranks * (ranks - 1) // 2
    expected_pairs = {"first": 1, "ring": ranks if ranks > 2 else 1, "all-serial": every, "all": every}[pairs]
    # latency at every size (0 included); bandwidth tests at every size but 0; --pairs all (rounds of
    # pairs at once) streams both ways
    streams = 2 if pairs == "all" else 1
    assert len(rows) == expected_pairs * (len(SIZE_LIST) + (1 + streams) * (len(SIZE_LIST) - 1))
    for row in rows:
        assert row["status"] == "OK", row
        assert row["errors"] == "0", row
        assert int(row["ranks"]) == ranks and row["nodes"] == "1" and row["link_class"] == "shm"
        assert float(row["time_us"]) > 0
        assert float(row["time_us_p05"]) <= float(row["time_us"]) <= float(row["time_us_p95"])
        assert int(row["iters"]) > 0
        if int(row["bytes"]) > 0:
            assert float(row["algbw_GBps"]) > 0
            assert row["busbw_GBps"] == row["algbw_GBps"]  # point-to-point: factor 1
            # algbw is bytes per operation over the median operation time, in 10^9 bytes/s
            per_op = int(row["bytes"]) * (2 if row["direction"] == "bidir" else 1)
            assert float(row["algbw_GBps"]) == pytest.approx(per_op / float(row["time_us"]) / 1e3, rel=1e-5)
    for case in ("pingpong", "stream_bw", "bidir_bw"):
        sizes = sorted({int(r["bytes"]) for r in rows if r["case"] == case})
        assert sizes == (SIZE_LIST if case == "pingpong" else SIZE_LIST[1:])
    pair_names = {(r["src"].split("/")[1], r["dst"].split("/")[1]) for r in rows}
    assert len(pair_names) == expected_pairs * streams
    if pairs == "all":  # three rounds of two pairs at once, each pair in one round
        assert {r["extra"].split(";")[2] for r in rows} == {"at_once=2"}
        assert len({r["extra"].split(";")[1] for r in rows}) == 3
    meta = read_meta(tmp_path)
    assert meta["commands"][-1]["ranks"] == ranks
    assert "MPICH" in meta["versions"]["mpi"] or meta["versions"]["mpi"]
    assert meta["revision"]
    version = subprocess.run([str(bin_dir() / "wb-net"), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.strip().endswith(f"{meta['version']}, revision {meta['revision']}")


def test_results_are_valid_after_every_row(tmp_path):
    """Snapshots taken while wb-net runs always hold whole rows only."""
    command = [mpiexec(), "-n", "2", str(bin_dir() / "wb-net"), "--sizes", "1:64K:4", "--run-dir", str(tmp_path),
               "--benchmark_min_time=0.02"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = set()
    results = tmp_path / "results.csv"
    while process.poll() is None:
        if results.exists() and results.stat().st_size > 0:
            rows = read_results(results)
            seen.add(len(rows))
        time.sleep(0.05)
    assert process.returncode == 0, process.stderr.read()
    final = read_results(results)
    assert len(seen) >= 3, f"too few snapshots to mean anything: {seen}"
    assert max(seen) <= len(final)


def test_google_benchmark_flags_keep_working(tmp_path):
    out = tmp_path / "gb.json"
    result = run_mpi(2, "wb-net", ["--sizes", "8,64K", "--run-dir", str(tmp_path),
                                   "--benchmark_filter=latency", "--benchmark_repetitions=3",
                                   f"--benchmark_out={out}", "--benchmark_out_format=json", *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert {r["case"] for r in rows} == {"pingpong"}
    assert len(rows) == 2 * 3  # one row per size and repetition
    assert sorted(r["extra"].split("repetition=")[1] for r in rows) == ["0", "0", "1", "1", "2", "2"]
    doc = json.loads(out.read_text())
    names = {b["name"] for b in doc["benchmarks"]}
    assert "net/latency/mpi/rank0->rank1/8B/manual_time" in names
    assert any(b.get("aggregate_name") == "median" for b in doc["benchmarks"])
    # Console output comes once (rank 0 only): a line per size and repetition.
    assert len([line for line in result.stdout.splitlines() if line.startswith("  pingpong ")]) == 6
    # Google Benchmark's own table, behind --console gbench
    table = run_mpi(2, "wb-net", ["--sizes", "8", "--tests", "latency", "--run-dir", str(tmp_path / "gb"),
                                  "--console", "gbench", *FAST])
    assert table.returncode == 0, table.stderr
    assert table.stdout.count("net/latency/mpi/rank0->rank1/8B/manual_time ") == 1


@pytest.mark.parametrize("args,message", [
    (["--sizes", "4q"], "unknown size unit 'q' in '4q'"),
    (["--sizes=-8"], "negative size"),
    (["--sizes"], "option --sizes needs a value"),
    (["--pairs=most"], "'most' is not first, ring, all, all-serial, bisection, alltoall, adaptive or a list of rank pairs (0-1,2-3)"),
    (["--no-such-flag"], "unknown option --no-such-flag"),
])
def test_bad_arguments_exit_3_with_a_clear_message(tmp_path, args, message):
    result = run_mpi(2, "wb-net", [*args, "--run-dir", str(tmp_path)], timeout=60)
    assert result.returncode == 3, result.stderr
    assert message in result.stderr
    assert result.stderr.count("error:") == 1  # said once, not once per rank
    assert not (tmp_path / "results.csv").exists()


def test_one_rank_is_a_usage_error(tmp_path):
    result = run_mpi(1, "wb-net", ["--run-dir", str(tmp_path)], timeout=60)
    assert result.returncode == 3
    assert "needs at least 2 ranks" in result.stderr


@pytest.mark.mpi_library
def test_corrupted_data_is_counted_and_fails_the_run(tmp_path):
    result = run_mpi(2, "wb-net", ["--sizes", "8,4K", "--tests", "latency,bw", "--inject-fault", "corrupt",
                                   "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 1, result.stderr
    assert "DATA ERRORS" in result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert rows and all(int(r["errors"]) > 0 for r in rows)


def test_an_unwritten_echo_counts_every_byte_of_the_batch(tmp_path):
    # Ping-pong receives every round but the last into a scratch buffer; the checked last round must
    # still catch a receive that completed without writing anything.
    result = run_mpi(2, "wb-net", ["--sizes", "8,4K", "--tests", "latency", "--inject-fault", "unwritten",
                                   "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 1, result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert len(rows) == 2
    for row in rows:
        batches = int(row["iters"]) // 200  # both sizes run 100 round trips (200 operations) a batch
        assert int(row["errors"]) == batches * int(row["bytes"]), row


def test_unwritten_injection_is_for_ping_pong_only(tmp_path):
    result = run_mpi(2, "wb-net", ["--tests", "latency,bw", "--inject-fault", "unwritten", "--run-dir", str(tmp_path)],
                     timeout=60)
    assert result.returncode == 3
    assert "ping-pong only" in result.stderr


def test_unchecked_runs_say_so_instead_of_claiming_zero_errors(tmp_path):
    result = run_mpi(2, "wb-net", ["--sizes", "8,64K", "--check", "0", "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert len(rows) == 2 + 2 + 2
    for row in rows:
        assert row["status"] == "OK" and float(row["time_us"]) > 0
        assert row["errors"] == "", row  # not checked: no claim either way
        assert "check=off" in row["extra"]


def test_device_backends_write_skip_rows_without_a_gpu(tmp_path):
    result = run_mpi(2, "wb-net", ["--sizes", "8", "--backend", "all", "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    by_backend = {}
    for row in rows:
        by_backend.setdefault(row["backend"], []).append(row)
    assert set(by_backend) == {"mpi", "mpi-cuda", "nccl"}
    assert all(r["status"] == "OK" for r in by_backend["mpi"])
    for backend in ("mpi-cuda", "nccl"):
        for row in by_backend[backend]:
            if row["status"] == "SKIP":
                assert row["reason"], row  # a SKIP always says why
                assert row["time_us"] == ""  # and pretends no number
            else:
                assert row["status"] == "OK" and row["errors"] == "0"
    if not Path("/dev/nvidia0").exists():
        assert all(r["status"] == "SKIP" for b in ("mpi-cuda", "nccl") for r in by_backend[b])


def _start_long_run(run_dir: Path, timeout_s: str):
    command = [mpiexec(), "-n", "2", str(bin_dir() / "wb-net"), "--sizes", "1:1M",
               "--run-dir", str(run_dir), "--timeout", timeout_s, "--benchmark_min_time=0.1"]
    # The launcher reports a dead rank on stdout, our ranks on stderr: read both together.
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _signal_rank_after_rows(process, run_dir: Path, rank: int, rows_first: int, signal_number):
    results = run_dir / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if results.exists() and len(read_results(results)) >= rows_first:
            break
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    pids = rank_pids(run_dir, "wb-net")
    assert rank in pids, f"rank {rank} not found among {pids}"
    os.kill(pids[rank], signal_number)
    return len(read_results(results))


def _wait_or_fail(process, seconds, why):
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(why)
    return process.stdout.read()


@pytest.mark.mpi_library
def test_killed_rank_ends_the_job_and_keeps_finished_rows(tmp_path):
    process = _start_long_run(tmp_path, "10")
    rows_before = _signal_rank_after_rows(process, tmp_path, rank=1, rows_first=3, signal_number=signal.SIGKILL)
    started = time.monotonic()
    output = _wait_or_fail(process, 30, "the job did not end within 30 s of a rank being killed")
    assert process.returncode != 0
    assert time.monotonic() - started < 30
    # The rank's keeper (bench/harness/rank_keeper.h) names the kill in our words: Hydra, which then
    # sees an exit code rather than a signal, may say nothing (auto-cleanup ends the job at once).
    assert "error: rank 1 on " in output and "killed by signal 9 (Killed) (exit code 137)" in output, output
    rows = read_results(tmp_path / "results.csv")
    assert len(rows) >= rows_before >= 3
    assert all(r["errors"] == "0" for r in rows if r["status"] == "OK")


@pytest.mark.mpi_library
def test_hung_rank_times_out_with_a_message_and_an_error_row(tmp_path):
    """A stopped rank is not noticed by the launcher: the survivor's deadline ends the job."""
    process = _start_long_run(tmp_path, "3")
    rows_before = _signal_rank_after_rows(process, tmp_path, rank=1, rows_first=3, signal_number=signal.SIGSTOP)
    output = _wait_or_fail(process, 60, "rank 0 did not give up within 60 s (its timeout is 3 s)")
    assert process.returncode == 2, output
    assert "rank 0 on" in output and "did not complete within 3.0 s" in output, output
    rows = read_results(tmp_path / "results.csv")
    assert len(rows) >= rows_before + 1
    interrupted = rows[-1]
    assert interrupted["status"] == "ERROR"
    assert "did not complete within 3.0 s" in interrupted["reason"]


@pytest.mark.mpi_library
def test_a_crashing_rank_says_so_in_wirebench_words(tmp_path):
    """A segfault (here injected into rank 1's first batch) ends in a message naming the rank, the
    signal and where it was, and the exit code of a run that could not measure."""
    result = run_mpi(2, "wb-net", ["--sizes", "8", "--tests", "latency", "--inject-fault", "crash",
                                   "--timeout", "5", "--run-dir", str(tmp_path), *FAST], timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "rank 1 on " in output and "crashed with signal 11 (Segmentation fault); where it was:" in output, output
    assert "wb-net" in output.split("where it was:")[1]  # the backtrace names the binary's frames


@pytest.mark.mpi_library
def test_an_all_to_all_writes_every_ordered_pair_and_the_aggregate_and_checks_every_byte(tmp_path):
    result = run_mpi(3, "wb-net", ["--pairs", "alltoall", "--sizes", "8,64K", "--run-dir", str(tmp_path), *FAST])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    for size in ("8", "65536"):
        at = [r for r in rows if r["bytes"] == size]
        pairs = {(r["src"].split("/")[1], r["dst"].split("/")[1]) for r in at if r["case"] == "stream_bw"}
        assert pairs == {(f"rank{a}", f"rank{b}") for a in range(3) for b in range(3) if a != b}
        [whole] = [r for r in at if r["case"] == "alltoall_stream_bw"]
        assert (whole["src"], whole["dst"]) == ("all", "all") and "slowest=" in whole["extra"]
        assert all("pairs=alltoall;at_once=3" in r["extra"] and r["errors"] == "0" for r in at)
        # the aggregate is every pair's bytes in each batch's slowest pair's time: its median is at
        # least the slowest pair's own median
        slowest = max(float(r["time_us"]) for r in at if r["case"] == "stream_bw")
        assert float(whole["time_us"]) >= slowest * (1 - 1e-6)
        assert float(whole["algbw_GBps"]) == pytest.approx(6 * int(size) / float(whole["time_us"]) / 1e3, rel=1e-5)
    corrupt = run_mpi(3, "wb-net", ["--pairs", "alltoall", "--sizes", "4K", "--inject-fault", "corrupt",
                                    "--run-dir", str(tmp_path / "corrupt"), *FAST])
    assert corrupt.returncode == 1, corrupt.stderr
    bad = read_results(tmp_path / "corrupt" / "results.csv")
    assert all(int(r["errors"]) > 0 for r in bad), bad  # each receiver's planted byte reaches its rows
