"""What the ninth and tenth fresh sets (tests/data/nccl-fresh-2026-12-09 and -09-b, collected blind, measured once
before anything was written from them: bench/MEASUREMENTS.md, session 35) showed the diagnosis did not read, each
read over the tool's own output or printf, not a thread's wording; the healthy logs: test_fresh_healthy_logs.py."""
from pathlib import Path

import pytest

from diagnosis_helpers import found as found_in_text, ids
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

ROOT = Path(__file__).resolve().parents[2]
NINTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-09"
TENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-09-b"


def found(path):
    return diagnose(read_log(path))


# -- NCCL's lines posted outside a note's code blocks -------------------------------------------------------------------

def test_nccls_lines_outside_a_notes_code_block_are_read():
    # InternLM/lmdeploy#1108: the versions fenced as ```Shell, the NCCL lines (lmdeploy strips NCCL's host:pid:tid
    # prefix: `init.cc:1582 NCCL WARN Cuda failure '...'`) posted as plain text. Refused (exit 3) before.
    said = found(TENTH / "lmdeploy-1108.log")
    assert ids(said) == ["cuda-driver-too-old:FAIL@16"]
    assert "init.cc:1582 NCCL WARN Cuda failure 'CUDA driver version is insufficient" in said[0].what


def test_prose_naming_nccl_warn_outside_the_code_block_is_not_nccls_line(tmp_path):
    note = tmp_path / "note.md"
    text = ("I see a lot of NCCL WARN lines, and the versions:\n```\ntorch 2.0.0\nDriver Version: 515.86.01\n```\n"
            "The NCCL WARN says nothing useful.\n")
    note.write_text(text)
    with pytest.raises(InputError):  # nothing of NCCL's: refused, as before
        found(note)
    # the same note with NCCL's own line after the block is read
    note.write_text(text + "init.cc:1582 NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime "
                           "version'\n")
    assert ids(found(note)) == ["cuda-driver-too-old:FAIL@7"]


# -- CUDA's error strings where a person or a program quotes them --------------------------------------------------------

def test_cudas_error_string_in_prose_is_an_error_line():
    # InternLM/lmdeploy#1267: `详细信息是：CUDA driver version is insufficient for CUDA runtime version` (cudaGetErrorString's
    # text for cudaErrorInsufficientDriver) after lmdeploy's own `Failed, NCCL error ... 'unhandled cuda error ...'`
    said = found(TENTH / "lmdeploy-1267.log")
    assert ids(said) == ["error-not-in-catalogue:FAIL@4", "cuda-driver-too-old:FAIL@8"]
    assert "详细信息是：CUDA driver version is insufficient" in said[1].what


def test_a_cuda_word_alone_is_no_error_line(tmp_path):
    # the strings are CUDA's whole messages: prose about "an illegal memory access" of another kind stays prose
    note = tmp_path / "note.txt"
    note.write_text("the job never hit an illegal memory access\nthe driver version is fine\n")
    with pytest.raises(InputError):
        found(note)


# -- nccl-tests whose processes did not join one MPI world --------------------------------------------------------------

def test_two_banners_under_one_launch_are_processes_that_ran_alone():
    # NVIDIA/nccl-tests#213: `mpirun -np 2 -H 10.0.0.15,10.0.0.16 ... all_reduce_perf -g 8` and nccl-tests' banner twice
    # (only rank 0 of one test prints it); the paste ends in the device list, so no summary says it
    said = found(NINTH / "nccl-tests-213.log")
    assert ids(said) == ["nccl-tests-ran-alone:FAIL@16"]
    assert "banner 2 times (from line 16) under one launch of 2 processes (line 10)" in said[0].what
    assert "did not join one MPI world" in said[0].why and "which mpirun" in said[0].fix
    # one banner under the same launch: one test starting, cut (the fallback says so, not ran-alone)
    lines = (NINTH / "nccl-tests-213.log").read_text().splitlines(keepends=True)
    one = "".join(lines[:18] + lines[21:])
    assert ids(found_in_text(one)) == ["nccl-tests-stopped-before-first-size:FAIL@16"]


def test_two_identical_summaries_fold_and_still_count_as_two():
    # NVIDIA/nccl-tests#107 (tests/data/imports/real): two one-GPU processes under `mpirun -np 2`, their two summaries
    # identical, so the reader folds them into one line with a count of 2 (missed before: one summary seen)
    said = found(ROOT / "tests" / "data" / "imports" / "real" / "nccl-tests-107-mpi0-two-hosts.txt")
    assert ids(said) == ["nccl-tests-ran-alone:FAIL@21"]
    assert "summary 2 times under one launch of 2 processes (line 1)" in said[0].what


# -- MPI that does not start; EFA's buffers ------------------------------------------------------------------------------

def test_mpichs_mpi_init_failure_is_read_before_the_second_commands_error():
    # NVIDIA/nccl-tests#92: MPICH's `Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI
    # error, error stack:` ... `PMI_KVS_Get returned -1` (sjeaugey: "Your MPI doesn't seem functional"), then a second
    # command's `Test CUDA failure common.cu:963 'invalid device ordinal'`
    said = found(NINTH / "nccl-tests-92.log")
    assert ids(said) == ["mpi-init-failed:FAIL@5", "invalid-device-ordinal:FAIL@21"]
    assert "MPI_Init failed (Other MPI error)" in said[0].what and "Fatal error in PMPI_Init" in said[0].what


def test_efa_failing_to_post_its_receive_buffers_is_the_memlock_limit():
    # awslabs/awsome-distributed-ai#647: `Libfabric error: (-12) Cannot allocate memory` / `EFA internal error: (4112)
    # Failure to post internal receive buffers` (ulimit -l 65536). Its lines are libfabric's, no line of NCCL's: the
    # entry's reading of them makes them the error (before, its heading was said apart as an unread error line)
    said = found(NINTH / "awsome-distributed-ai-647.log")
    assert [f.id for f in said] == ["efa-receive-buffers-enomem"]
    assert "ulimit -l" in said[0].why and "memlock" in said[0].fix
    assert '"Libfabric error: (-12) Cannot allocate memory"' in said[0].what and said[0].line == 6


def test_a_hung_mpi_hello_world_is_refused_not_called_healthy():
    # NVIDIA/nccl-tests#229: MPI's own hello world hangs; no line of NCCL's or of an error: exit 3, not "healthy"
    with pytest.raises(InputError):
        found(NINTH / "nccl-tests-229.log")
