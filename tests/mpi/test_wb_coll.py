"""wb-coll under mpiexec with 2, 3 and 4 ranks on this machine (ctest label: mpi).

This machine has 2 cores: with more ranks than cores, MPI's own blocking collectives spin for whole
scheduler time slices, so the 3- and 4-rank runs use non-blocking calls (-z 0), whose waits yield.
"""
import csv
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from mpi_helpers import bin_dir, mpiexec, rank_pids, read_meta, read_results, run_mpi

QUICK = ["--benchmark_min_time=0.001", "--warmup=1", "-n", "2"]
FACTORS = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
           "reduce_scatter": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n,
           "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "send_recv": lambda n: 1.0}


def check_rows(rows, ranks):
    for row in rows:
        assert row["status"] == "OK", row
        assert row["errors"] == "0", row  # checked and exact
        assert int(row["ranks"]) == ranks
        algbw, busbw = float(row["algbw_GBps"]), float(row["busbw_GBps"])
        assert algbw > 0
        assert algbw == pytest.approx(int(row["bytes"]) / float(row["time_us"]) / 1e3, rel=1e-5)
        assert busbw == pytest.approx(algbw * FACTORS[row["op"]](ranks), rel=1e-5)


@pytest.mark.mpi_library
@pytest.mark.parametrize("ranks,blocking", [(2, "1"), (3, "0"), (4, "0")])
def test_every_op_exact_in_and_out_of_place(tmp_path, ranks, blocking):
    result = run_mpi(ranks, "wb-coll", ["--collective", "all", "-d", "float32,int8,bfloat16,float64", "-o", "sum,max",
                                        "--sizes", "1K,96K", "-z", blocking, "--console", "plain", "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    check_rows(rows, ranks)
    seen = {(r["op"], r["case"]) for r in rows}
    for op in FACTORS:
        assert (op, "out_of_place") in seen or op == "broadcast", op  # MPI_Bcast has one buffer
        assert (op, "in_place") in seen or op == "send_recv", op
    assert {r["dtype"] for r in rows} == {"float32", "int8", "bfloat16", "float64"}
    assert {r["extra"].split(";")[0] for r in rows if r["op"] == "all_reduce"} == {"redop=sum", "redop=max"}
    # the summary and the fit
    assert "peak busbw" in result.stdout
    fits = list(csv.DictReader((tmp_path / "fits.csv").open()))
    assert {f["op"] for f in fits} == set(FACTORS)


@pytest.mark.mpi_library
def test_every_datatype_and_reduction_on_two_ranks(tmp_path):
    result = run_mpi(2, "wb-coll", ["--collective", "all_reduce,reduce_scatter,reduce", "-d", "all", "-o", "all",
                                    "--sizes", "4K", "-c", "2", "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    check_rows(rows, 2)
    assert len({r["dtype"] for r in rows}) == 10
    assert {r["extra"].split(";")[0] for r in rows} == {"redop=sum", "redop=prod", "redop=max", "redop=min"}
    assert all("checks=2" in r["extra"] for r in rows)


def test_the_done_when_sweep(tmp_path):
    """mpiexec -n 4 wb-coll --backend mpi --collective all_reduce -b 8 -e 64M -f 2 (non-blocking here),
    with -n 5 calls per sample rather than nccl-tests' 20: every size, row and check the same, a
    quarter of the time (the 64 MiB end's 100 calls took 13 s of the test's 37 on two cores)."""
    result = run_mpi(4, "wb-coll", ["--backend", "mpi", "--collective", "all_reduce", "-b", "8", "-e", "64M", "-f", "2",
                                    "-n", "5", "-z", "0", "--in-place", "no", "--run-dir", str(tmp_path),
                                    "--benchmark_min_time=0.001", "--warmup=0"], timeout=600)
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert [int(r["bytes"]) for r in rows] == [8 * 2 ** k for k in range(24)]
    check_rows(rows, 4)
    assert "algbw" in result.stdout and "busbw" in result.stdout and "# Avg bus bandwidth" in result.stdout


def test_corrupted_result_is_counted_and_fails_the_run(tmp_path):
    result = run_mpi(2, "wb-coll", ["--collective", "all_reduce,all_gather", "--sizes", "1K", "--inject-fault", "corrupt",
                                    "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 1, result.stderr
    rows = read_results(tmp_path / "results.csv")
    assert rows and all(int(r["errors"]) > 0 for r in rows)


def test_unchecked_runs_leave_errors_empty(tmp_path):
    result = run_mpi(2, "wb-coll", ["--sizes", "1K", "-c", "0", "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 0, result.stderr
    assert all(r["errors"] == "" for r in read_results(tmp_path / "results.csv"))


@pytest.mark.mpi_library
def test_sub_communicators(tmp_path):
    for split in ("intra", "rails"):
        run_dir = tmp_path / split
        result = run_mpi(2, "wb-coll", ["--sizes", "1K", "--split", split, "--run-dir", str(run_dir), *QUICK])
        assert result.returncode == 0, result.stderr
        rows = read_results(run_dir / "results.csv")
        # one node: intra-node is everyone, rails are single ranks
        assert {r["ranks"] for r in rows} == ({"2"} if split == "intra" else {"1"})
        assert all(r["src"] == ("intra-node" if split == "intra" else "rails") for r in rows)
        # every communicator's own time: the node's, or each rail's
        for r in rows:
            items = dict(item.split("=", 1) for item in r["extra"].split(";"))
            times = dict(entry.split(":") for entry in items["per_comm_us"].split("|"))
            assert set(times) == ({socket.gethostname()} if split == "intra" else {"rail0", "rail1"})
            assert all(float(us) > 0 for us in times.values())
    world = run_mpi(2, "wb-coll", ["--sizes", "1K", "--run-dir", str(tmp_path / "world"), *QUICK])
    assert world.returncode == 0 and all("per_comm_us" not in r["extra"] for r in read_results(tmp_path / "world" / "results.csv"))


@pytest.mark.mpi_library
def test_mpich_algorithm_is_passed_and_recorded(tmp_path):
    result = run_mpi(2, "wb-coll", ["--sizes", "1K", "--mpich-algorithm", "allreduce=recursive_doubling",
                                    "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 0, result.stderr
    meta = read_meta(tmp_path)
    assert meta["environment"]["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"] == "recursive_doubling"
    rows = read_results(tmp_path / "results.csv")
    assert all("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling" in r["extra"] for r in rows)


def test_nccl_backend_writes_skip_rows_without_a_gpu(tmp_path):
    result = run_mpi(2, "wb-coll", ["--backend", "nccl", "--collective", "all_reduce,all_gather", "--sizes", "1K",
                                    "--run-dir", str(tmp_path), *QUICK])
    assert result.returncode == 0, result.stderr
    rows = read_results(tmp_path / "results.csv")
    if not Path("/dev/nvidia0").exists():
        assert rows and all(r["status"] == "SKIP" and r["reason"] and r["time_us"] == "" for r in rows)


@pytest.mark.parametrize("args,message", [
    (["--collective", "scan"], "unknown collective 'scan'"),
    (["--op", "all_reduce"], "use --collective all_reduce"),
    (["--minbyte", "8"], "did you mean --minbytes?"),
    (["-d", "float8"], "unknown datatype 'float8'"),
    (["-b", "4q"], "unknown size unit 'q' in '4q'"),
    (["-e", "-1"], "negative size"),
    (["-b"], "option -b needs a value"),
    (["-r", "5"], "rank 0: -r 5 is not a rank of a communicator of 2"),
])
def test_bad_arguments_exit_3(tmp_path, args, message):
    result = run_mpi(2, "wb-coll", [*args, "--run-dir", str(tmp_path)], timeout=60)
    assert result.returncode == 3, result.stderr
    assert message in result.stderr


@pytest.mark.parametrize("blocking", ["1", "0"])
def test_a_rank_that_never_returns_ends_the_run_within_the_timeout(tmp_path, blocking):
    """A stopped rank: the others give up at --timeout with a message naming the collective."""
    command = [mpiexec(), "-n", "2", str(bin_dir() / "wb-coll"), "--collective", "all_reduce", "-b", "8", "-e", "1M", "-f", "2",
               "-z", blocking, "--timeout", "3", "--run-dir", str(tmp_path), "--benchmark_min_time=0.2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    results = tmp_path / "results.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (results.exists() and len(read_results(results)) >= 2):
        assert process.poll() is None, process.stdout.read()
        time.sleep(0.05)
    os.kill(rank_pids(tmp_path, "wb-coll")[1], signal.SIGSTOP)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the run did not end within 60 s (timeout 3 s)")
    output = process.stdout.read()
    assert process.returncode == 2, output
    # rank 0 waited in the collective or at the start of the next batch: either way named
    assert "rank 0 on" in output and "did not complete within 3.0 s" in output, output
    assert "all_reduce" in output, output
    rows = read_results(results)
    assert rows[-1]["status"] == "ERROR" and rows[-1]["op"] == "all_reduce", rows[-1]
    assert "did not complete within 3.0 s" in rows[-1]["reason"]
