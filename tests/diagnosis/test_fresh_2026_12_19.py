"""The twenty-seventh and twenty-eighth fresh sets (tests/data/nccl-fresh-2026-12-19 and -19-b, measured blind in
session 37, bench/MEASUREMENTS.md) and what was written from their misses, each on its thread's real text."""
from pathlib import Path

from diagnosis_helpers import found, ids
from wirebench.diagnosis import diagnose, parse, read_log

SET_Y = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-19"
SET_Z = SET_Y.parent / "nccl-fresh-2026-12-19-b"
TWO_HOSTS = ("a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n"
             "b:2:2 [0] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n")


def test_a_network_finding_the_log_cannot_place_is_said_as_not_a_finding():
    """sgl-project/sglang#1427: `NCCL INFO Failed to open libibverbs.so[.1]` and NET/Socket over ib0, no host, no
    nNodes. The catalogue's libibverbs-missing read it and the finding was dropped without a word (a network cause
    needs the network to carry data), so the paste read as nothing at all. It is said now as not a finding, with
    why; on two nodes it is the WARN it was."""
    log = read_log(SET_Y / "sglang-1427.log")
    assert diagnose(log) == []
    [(line, quote, why)] = log.explained
    assert line == 3 and "Failed to open libibverbs" in quote
    assert why.startswith("libibverbs-missing: NCCL could not load libibverbs")
    assert "does not show the job's data crossing the network" in why and why.endswith("(WARN where it does)")
    two_nodes = parse((SET_Y / "sglang-1427.log").read_text() + TWO_HOSTS, "two.log")
    assert [i for i in ids(diagnose(two_nodes)) if i.startswith("libibverbs")] == ["libibverbs-missing:WARN@3"]


def test_libibverbs_warning_alone_is_read_and_said():
    """horovod/horovod#1117: the reporter's one line, `Warning: no userspace device-specific driver found for
    /sys/class/infiniband_verbs/uverbs0` (an older libibverbs, without rdma-core's `libibverbs: ` tag), and NCCL on
    TCP; installing libibverbs-dev and libmlx5-dev in the image fixed it. Refused before (no line of NCCL's)."""
    said = diagnose(read_log(SET_Y / "horovod-1117.log"))
    assert ids(said) == ["rdma-provider-missing:WARN@13"]
    assert "uverbs0" in said[0].what and "alone" in said[0].why
    # rdma-core's spelling, in a log that shows one host whose run went on: harmless there, said as not a finding
    log = parse("libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\n"
                "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
                "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n", "one-host.log")
    assert diagnose(log) == []
    assert [why.split(":")[0] for _, _, why in log.explained] == ["rdma-provider-missing"]
    # the same across two nodes is the cause it names
    assert "rdma-provider-missing:WARN@1" in ids(found(
        "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs1\n"
        + TWO_HOSTS))


def test_the_engines_python_error_for_peer_access_names_the_custom_all_reduce():
    """sgl-project/sglang#4814: `RuntimeError: CUDART error: peer access is not supported between these two devices`
    on two RTX 4090, quoted in prose: the engines' cuda_wrapper.py raises `CUDART error: ...` for the custom
    all-reduce's cudaIpcOpenMemHandle (the fix, #4815, falls back to NCCL)."""
    said = diagnose(read_log(SET_Z / "sglang-4814.log"))
    assert ids(said) == ["custom-allreduce-no-peer-access:FAIL@1"]
    assert "--disable-custom-all-reduce" in said[0].fix


def test_a_custom_all_reduce_refused_under_expandable_segments_names_the_setting():
    """vllm-project/vllm#42609: `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True vllm serve ... --data-parallel-size
    2 --tensor-parallel-size 2` and `Failed: Cuda error custom_all_reduce.cuh:455 'invalid argument'`: CUDA IPC
    cannot export expandable segments' virtual memory (vLLM #55135, #56193; ROCm/aiter#4174)."""
    said = diagnose(read_log(SET_Z / "vllm-42609.log"))
    assert ids(said) == ["custom-allreduce-expandable-segments:FAIL@7"]
    assert "(line 2)" in said[0].what and "custom_all_reduce.cuh:455" in said[0].what
    # without the setting in the log the same error is one the catalogue does not know (vllm#9774's was a MoE bug)
    bare = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:336 'invalid argument'\n"
    assert ids(found(bare)) == ["error-not-in-catalogue:FAIL@1"]
    # ROCm's aiter says it through hipIpcGetMemHandle, and the setting may be PYTORCH_HIP_ALLOC_CONF
    rocm = ("export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n"
            "RuntimeError: custom_all_reduce.cu:397 hipIpcGetMemHandle [HIP error](invalid argument)\n")
    assert ids(found(rocm)) == ["custom-allreduce-expandable-segments:FAIL@2"]
    # expandable segments turned off is not the cause
    assert ids(found("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False\n" + bare)) == ["error-not-in-catalogue:FAIL@2"]


def test_p2p_that_nvml_refuses_on_pcie_is_a_warn_and_on_nvlink_a_fail():
    """pytorch/pytorch#150734's healthy tail (two RTX 5090, training went on): NCCL's INFO `P2P is disabled between
    connected GPUs 0 and 1. You can repress this message ...` read FAIL p2p-disabled-by-hardware, whose words said
    NCCL stops. graph/paths.cc prints that INFO for a PCIe pair and goes on through host memory; only the NVLink
    pair's WARN stops it (ncclUnhandledCudaError)."""
    healthy = SET_Z / "healthy" / "pytorch-150734.log"
    assert ids(diagnose(read_log(healthy))) == ["p2p-disabled-on-pcie:WARN@2"]
    # the log naming its GPUs as GeForce cards, which NVIDIA's driver gives no PCIe P2P: said, not a finding
    log = parse(healthy.read_text().replace("```\n", "```\nGPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-1)\n"
                                            "GPU 1: NVIDIA GeForce RTX 5090 (UUID: GPU-2)\n", 1), "geforce.log")
    assert diagnose(log) == []
    assert any(why.startswith("p2p-disabled-on-pcie: the log's GPUs (NVIDIA GeForce RTX 5090)") for _, _, why in
               log.explained)
    nvlink = ("n:1:1 [0] graph/paths.cc:330 NCCL WARN P2P is disabled between NVLINK connected GPUs 0 and 1. This "
              "should not be the case given their connectivity, and is probably due to a hardware issue. If you still "
              "want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")
    assert ids(found(nvlink))[0] == "p2p-disabled-by-hardware:FAIL@1"
