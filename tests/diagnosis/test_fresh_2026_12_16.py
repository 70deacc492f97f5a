"""The twenty-third and twenty-fourth fresh sets (tests/data/nccl-fresh-2026-12-16 and -16-b: healthy logs only,
measured blind in session 36, bench/MEASUREMENTS.md) and what was written from them. RCCL looks for its profiler
plugin under its own name on every run (`PROFILER/Plugin: Could not find: librccl-profiler.so.`, Ahalperin/amd-dev's
healthy MI355X runs): read as a file the job named, a WARN plugin-not-loaded. A paste of two runs on different nodes
(aws-samples/aws-do-eks' Karpenter README) read as one job whose hosts differ."""
from pathlib import Path

import pytest
from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

HEALTHY = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-16-b" / "healthy"


def test_rccls_own_plugin_names_are_its_defaults_not_the_jobs():
    said = ids(diagnose(read_log(HEALTHY / "amd-dev-scale_2x8gpu_all_reduce-nccl_debug.log")))
    assert not any(s.startswith("plugin-not-loaded") for s in said), said
    # a profiler the job named and NCCL did not find is still said
    named = ("h:1:2 [0] NCCL INFO NCCL_PROFILER_PLUGIN set by environment to libmyprof.so\n"
             "h:1:2 [0] NCCL INFO PROFILER/Plugin: Could not find: libmyprof.so.\n")
    assert any(s.startswith("plugin-not-loaded") for s in ids(found_in_text(named)))


def test_two_runs_on_different_nodes_in_one_paste_are_two_jobs():
    """aws-samples/aws-do-eks' Karpenter README: `kubectl logs` of an MPIJob over TCP sockets on one node group, then of
    one over EFA on another: read as one job, FAIL network-differs and socket-fallback (the EFA of the other run taken
    for the first's). Each command line starts a run; runs that share no host are separate jobs."""
    assert ids(diagnose(read_log(HEALTHY / "aws-do-eks-karpenter-README.log"))) == []
    # one job whose hosts differ, a command between their lines: one host in both runs joins them, still compared
    a = "a:1:1 [0] NCCL INFO Using network Socket\nb:2:2 [0] NCCL INFO Using network IB\n"
    joined = a + "$ kubectl logs launcher\na:1:1 [0] NCCL INFO Init COMPLETE\nc:3:3 [0] NCCL INFO Using network IB\n"
    assert any(s.startswith("network-differs") for s in ids(found_in_text(joined)))
    apart = "a:1:1 [0] NCCL INFO Using network Socket\n$ kubectl logs launcher\nb:2:2 [0] NCCL INFO Using network IB\n"
    assert not any(s.startswith("network-differs") for s in ids(found_in_text(apart)))
    assert any(s.startswith("network-differs") for s in ids(found_in_text(apart.replace("$ kubectl logs launcher\n", ""))))


MODERN = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-16" / "healthy"


def test_three_healthy_modern_logs_read_without_a_false_alarm():
    """The twenty-third set's false alarms: NVIDIA/nccl#1584's INFO texts pasted without NCCL's prefix, its plugin
    probing (`NET/Plugin: Failed to find ncclNetPlugin_v9 symbol.`) read as three errors (refused now: nothing of
    NCCL's the reader knows); a DGX Spark pair's `GPU Direct RDMA Disabled` (GB10's memory is the system's: GPUDirect
    RDMA is not supported there) read WARN gdrdma-disabled; aws-ofi-nccl 1.9's `Adding NCCL_TOPO_FILE=... to
    environment` for p4d read WARN topology-file."""
    with pytest.raises(InputError):
        read_log(MODERN / "nccl-1584.log")
    log = read_log(MODERN / "dgx_spark_cluster2-Step011-1.9.log")
    said = ids(diagnose(log))
    assert not any(s.startswith("gdrdma-disabled") for s in said), said
    assert any("DGX Spark's GB10" in why for _, _, why in log.explained)
    assert ids(diagnose(read_log(MODERN / "training-on-eks-c7-intra-topology.log"))) == []
    # GPUDirect RDMA off on a discrete GPU is still said
    off = ("n1:1:1 [0] NCCL INFO Using network IB\nn1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
           "'mlx5_0'\nn2:2:2 [0] NCCL INFO Using network IB\n")
    assert any(s.startswith("gdrdma-disabled") for s in ids(found_in_text(off)))
