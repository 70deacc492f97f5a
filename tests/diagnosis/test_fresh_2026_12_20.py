"""The twenty-ninth and thirtieth fresh sets (tests/data/nccl-fresh-2026-12-20, error cases, and -20-b, healthy logs
only, measured blind in session 37, bench/MEASUREMENTS.md) and what was written from their misses and false alarms,
each on its source's real text."""
from pathlib import Path

import pytest
from diagnosis_helpers import found, ids
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, parse, read_log

SET_AA = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-20"
HEALTHY_AB = SET_AA.parent / "nccl-fresh-2026-12-20-b" / "healthy"


def test_a_host_name_torn_by_another_process_output_is_the_host_it_is_part_of():
    """argonne-lcf/alcf-nccl-tests' Polaris log (two nodes, DDP over aws-ofi-nccl on Slingshot): interleaved output
    tore three lines' host names (`n0:3804613:...`, `3x3207c0s25b1n0:...`, `x3207c0s25b1x3207c0s25b1n0:...`), read as
    three more hosts, one of which had set no NCCL_* variable: three WARN settings-differ on a healthy run."""
    log = read_log(HEALTHY_AB / "alcf-nccl-tests-polaris-resnet50-aws-ofi-cxi.log")
    assert log.hosts() == ["x3207c0s25b0n0", "x3207c0s25b1n0"]
    assert diagnose(log) == []
    # two hosts whose names end alike but whose processes differ stay two hosts
    two = parse("gpu-n1:10:10 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n"
                "n1:20:20 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n", "two.log")
    assert two.hosts() == ["gpu-n1", "n1"]


def test_a_bare_chain_after_which_the_process_completed_its_init_is_one_nccl_went_on_from():
    """cybertronai/aws-network-benchmarks' NCCL 2.4.6 EFA run (16 V100, the table to 8 MB): each rank's
    `NET/OFI No NIC info for dev 0`, `include/net.h:24 -> 2`, then `NIC distance : SYS` and `Init COMPLETE`. The chain
    read FAIL error-not-in-catalogue on a run that worked."""
    log = read_log(HEALTHY_AB / "aws-network-benchmarks-nccl246-efa.log")
    assert diagnose(log) == []
    [(line, quote, why)] = log.explained
    assert line == 89 and "include/net.h:24 -> 2" in quote
    assert why.startswith("NCCL went on after it: line 200, the same process completes its communicator's init")
    # the same chain where the process never completed its init stays the job's failure
    lines = (HEALTHY_AB / "aws-network-benchmarks-nccl246-efa.log").read_text().splitlines()
    stopped = "\n".join(line for line in lines if "Init COMPLETE" not in line and not line.lstrip()[:1].isdigit())
    assert "error-not-in-catalogue" in [f.id for f in diagnose(parse(stopped, "stopped.log"))]


def test_two_nccl_packages_in_one_environment_are_said():
    """pytorch/pytorch#186591: ptrblck quoting the reporter's collect_env, `[pip3] nvidia-nccl-cu12==2.29.3` and
    `[pip3] nvidia-nccl-cu13==2.29.7` (import torch failed on an undefined symbol): refused before (no NCCL line)."""
    said = diagnose(read_log(SET_AA / "pytorch-186591.log"))
    assert ids(said) == ["two-nccl-wheels:WARN@1"]
    assert "nvidia-nccl-cu12 2.29.3 (line 1), nvidia-nccl-cu13 2.29.7 (line 2)" in said[0].what
    # conda's and pip's listings say it too; one package is nothing
    conda = "[conda] nvidia-nccl-cu11 2.14.3 pypi_0 pypi\n[conda] nvidia-nccl-cu12 2.21.5 pypi_0 pypi\n"
    assert ids(found(conda)) == ["two-nccl-wheels:WARN@1"]
    assert found("[pip3] nvidia-nccl-cu12==2.21.5\n[pip3] torch==2.5.1\nh:1:1 [0] NCCL INFO NCCL version 2.21.5\n") == []


def test_a_file_of_one_nccl_package_alone_judges_nothing_and_is_refused(tmp_path):
    one = tmp_path / "env.txt"
    one.write_text("[pip3] nvidia-nccl-cu12==2.21.5\n[pip3] numpy==1.26.4\n")
    with pytest.raises(InputError, match="no line of NCCL's"):
        read_log(one)
