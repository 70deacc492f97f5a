"""What the thirteenth and fourteenth fresh sets (tests/data/nccl-fresh-2026-12-11 and -11-b, collected blind, measured
once before anything was written from them: bench/MEASUREMENTS.md, session 35) showed the diagnosis did not read or
read wrong; the healthy logs: test_fresh_healthy_logs.py."""
from pathlib import Path

from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

ROOT = Path(__file__).resolve().parents[2]
THIRTEENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-11"
FOURTEENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-11-b"


def found(path):
    return diagnose(read_log(path))


# -- NCCL's network transport at work: the job crosses hosts, whatever one host's log shows ----------------------------

def test_an_error_chain_through_the_network_transport_shows_the_job_across_hosts(tmp_path):
    # dmlc/xgboost#7982: machine 1's log (four processes, one address) with NET/Socket listing a Docker network's bridge
    # (`[1]br-8a9e04832258:172.18.0.1<0>`) and proxies failing through transport/net_socket.cc and transport/net.cc:
    # NCCL connects through its network transport only to another node, so the bridge's address is one the other
    # machine cannot reach (held back before: the log read as a job on one host)
    log = FOURTEENTH / "xgboost-7982.log"
    said = found(log)
    unreachable = [f for f in said if f.id == "address-unreachable"]
    assert [f.line for f in unreachable] == [11] and "br-8a9e04832258:172.18.0.1" in unreachable[0].what
    assert "NCCL_SOCKET_IFNAME" in unreachable[0].fix
    # the same lines without the chain through the network transport: one host's processes, nothing crossed a network
    alone = tmp_path / "one-host.log"
    alone.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                             if "transport/net" not in line))
    assert "address-unreachable" not in {f.id for f in found(alone)}


# -- EFA: a peer that ended is not a security group -----------------------------------------------------------------------

def test_an_efa_receiver_queue_pair_gone_is_a_peer_that_ended_not_the_security_group():
    # awslabs/awsome-distributed-ai#312: `NET/OFI Request ... completed with error. RC: 5. Error: Invalid receiver queue
    # pair number (QPN)` after the pod's 8 GB limit OOM-killed a rank (read as EFA's security group before)
    said = found(FOURTEENTH / "awsome-distributed-ai-312.log")
    assert ids(said) == ["ofi-peer-queue-pair-gone:FAIL@8"]
    assert "OOM" in said[0].why and "OOMKilled" in said[0].fix


def test_the_security_groups_completion_error_still_reads_as_before(tmp_path):
    # aws/aws-ofi-nccl#156's line (RC 20, unknown error): the security group's row, not the peer's
    line = ("nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed with "
            "error. RC: 20. Error: unknown error. Completed length: 0, Request: { buffer_index: 255, dev: 1, size: 0, "
            "state: CREATED, direction: SEND }\n")
    path = tmp_path / "efa.log"
    path.write_text(line)
    assert [f.id for f in found(path)] == ["ofi-request-completed-with-error"]


# -- TensorRT-LLM's custom all-reduce ---------------------------------------------------------------------------------------

def test_tensorrt_llms_custom_all_reduce_without_peer_access():
    # NVIDIA/TensorRT-LLM#1625: `[TensorRT-LLM][ERROR] CUDA runtime error in error: peer access is not supported between
    # these two devices` on two RTX 4090D (#1588: use_custom_all_reduce disabled worked)
    said = found(THIRTEENTH / "TensorRT-LLM-1625.log")
    assert ids(said) == ["trtllm-custom-allreduce-no-peer-access:FAIL@2"]
    assert "--use_custom_all_reduce disable" in said[0].fix
