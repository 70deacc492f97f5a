"""What the second fresh set (tests/data/nccl-fresh-2026-12-07, collected blind, measured once before
anything was written from it: bench/MEASUREMENTS.md, session 33) showed the diagnosis did not know, each
read by a rule over NCCL's or a library's own printf, not by a thread's wording."""
from pathlib import Path

from diagnosis_helpers import TWO_NODES
from wirebench.diagnosis import diagnose, parse, read_log

ROOT = Path(__file__).resolve().parents[2]
FRESH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-07"
DATA = ROOT / "tests" / "data" / "nccl"


def found(path):
    log = read_log(path)
    return {f.id: f for f in diagnose(log)}, log


def test_ranks_that_chose_different_networks_are_named_from_the_socket_types_either_way():
    # NVIDIA/nccl-tests#188: this rank on sockets, its peer connected with IB's out-of-band socket
    said, _ = found(FRESH / "nccl-tests-188.log")
    f = said["network-differs-between-ranks"]
    assert f.verdict == "FAIL" and "uses NET/Socket and its peer connected with NET/IB" in f.what, f.what
    assert "error-not-in-catalogue" not in said  # the rule reads the error line: not said twice
    # NVIDIA/nccl-tests#373: the other way round (this rank on HPC-X's IB plugin, a peer with NCCL_IB_DISABLE=1)
    said, _ = found(DATA / "nccl-tests-373-p2p-level-loc-one-rank-a-host.log")
    assert "uses NET/IB and its peer connected with NET/Socket" in said["network-differs-between-ranks"].what


def test_other_socket_types_that_disagree_are_left_to_the_error_finder(tmp_path):
    # a bootstrap socket reached by a proxy's connection (types 2 and 1) is no choice of network
    line = "node1:100:200 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 2 != 1\n"
    log = tmp_path / "stray.log"
    log.write_text((FRESH / "nccl-tests-188.log").read_text().replace(
        "socketFinalizeAccept: wrong type 4 != 3", "socketFinalizeAccept: wrong type 2 != 1"))
    said, _ = found(log)
    assert "network-differs-between-ranks" not in said and "error-not-in-catalogue" in said, line


def test_two_machines_of_one_name_that_nccl_told_apart_are_no_p2p_to_another_host():
    # nccl-tests#188: both nodes print `user`; NET/Socket between ranks 9 and 0, P2P inside each node. GPU [6] is
    # rank 6's on one machine and rank 14's on the other: not a rank of another host taken for this one
    said, _ = found(FRESH / "nccl-tests-188.log")
    assert "p2p-to-another-host" not in said, said.get("p2p-to-another-host")


def test_a_missing_verbs_provider_is_said_where_the_job_failed_and_not_on_a_run_that_needed_none(tmp_path):
    said, _ = found(FRESH / "nccl-tests-41.log")  # one host, 4 GPUs, `Test NCCL failure ... 'internal error'`
    f = said["rdma-provider-missing"]
    assert f.verdict == "WARN" and "/sys/class/infiniband_verbs/uverbs0" in f.what and "the job failed" in f.why
    # its warning before a run on one host that worked (LlamaFactory#355's 8 GPUs, NET/Socket chosen, no error):
    # a run that needed no RDMA device
    warning = next(line for line in (FRESH / "nccl-tests-41.log").read_text().splitlines(keepends=True)
                   if line.startswith("libibverbs: Warning"))
    worked = tmp_path / "worked.log"
    worked.write_text(warning + (FRESH / "healthy" / "llamafactory-355.log").read_text())
    said, _ = found(worked)
    assert "rdma-provider-missing" not in said, said


def test_sockets_chosen_by_a_setting_on_nodes_showing_no_rdma_device_are_said_not_found():
    # pytorch/pytorch#38702: two nodes over eth0 with NCCL_IB_DISABLE=1, posted as the run that worked
    said, log = found(FRESH / "healthy" / "pytorch-38702.log")
    assert said == {}, said
    assert any("TCP sockets by the job's own choice (NCCL_IB_DISABLE is set (line 3))" in why
               for _, _, why in log.explained), log.explained


def test_a_cuda_failure_in_nvls_setup_reads_the_fabric_manager_whatever_cuda_error_it_is():
    said, _ = found(FRESH / "nccl-tests-276.log")  # Cuda failure 999 'unknown error' in transport/nvls.cc
    assert "'unknown error'" in said["nvls-after-fabric-manager-restart"].what


def test_the_healthy_logs_of_the_second_fresh_set_give_no_finding():
    # nccl-tests#323's excerpt ends at the table header where the collector's stored copy was cut (its index row):
    # nccl-tests' header and no result reads as a run that stopped, which the excerpt cannot tell from a cut
    for log in sorted((FRESH / "healthy").glob("*.log")):
        if log.name == "nccl-tests-323.log":
            continue
        said, _ = found(log)
        assert said == {}, (log.name, said)


# The third fresh set (tests/data/nccl-fresh-2026-12-07-b), collected blind: 4 of its 6 healthy logs gave a finding
THIRD = ROOT / "tests" / "data" / "nccl-fresh-2026-12-07-b"


def test_a_launchers_own_warning_is_no_error_line():
    # DeepSpeed's launcher: `[WARNING] [runner.py:117:fetch_hostfile] Unable to find hostfile, will proceed with
    # training with local resources only.` (DeepSpeed#716, #7128): the words `Unable to`, tagged WARNING by the program
    from wirebench.contracts.input_files import InputError
    import pytest
    for name in ("deepspeed-716.log", "deepspeed-7128.log"):
        with pytest.raises(InputError, match="no line of NCCL's"):  # nothing to read: not an error found
            found(THIRD / "healthy" / name)


def test_an_error_of_nccls_load_it_went_on_from_is_said_not_found(tmp_path):
    # DeepSpeed#8248: `misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.` and `gdr.cc:56 -> 3` on a laptop
    # without libibverbs, then `Using network Socket` and the same process' `Init START`
    said, log = found(THIRD / "healthy" / "deepspeed-8248.log")
    assert said == {}, said
    assert [(line, why.split(":")[0]) for line, _, why in log.explained] == [(1, "NCCL went on after it")]
    # the same error with no init after it stays a finding
    cut = tmp_path / "cut.log"
    cut.write_text("".join((THIRD / "healthy" / "deepspeed-8248.log").read_text().splitlines(keepends=True)[:3]))
    said, _ = found(cut)
    assert "error-not-in-catalogue" in said, said


def test_p2p_disabled_on_gpus_without_p2p_is_said_not_found():
    # nccl-tests#117: NCCL_P2P_DISABLE=1 on 4 GeForce RTX 4090, which NVIDIA's driver gives no P2P
    said, log = found(THIRD / "healthy" / "nccl-tests-117.log")
    assert "transport-disabled" not in said, said
    assert any(why.startswith("transport-disabled: the log's GPUs (NVIDIA GeForce RTX 4090) have no P2P")
               for _, _, why in log.explained), log.explained
    # the same run on GPUs with P2P (the thread's 2080 Tis, as nccl-tests' device list names them): the WARN stands
    text = (THIRD / "healthy" / "nccl-tests-117.log").read_text().replace("NVIDIA GeForce RTX 4090",
                                                                             "NVIDIA GeForce RTX 2080 Ti")
    assert "transport-disabled" in {f.id for f in diagnose(parse(text, "x"))}


def test_the_third_sets_healthy_logs_give_no_finding():
    # nccl-tests#117's excerpt ends at its table header (the collector's stored copy was cut): the header without a
    # result reads as a run that stopped, which the excerpt cannot tell from a cut
    for log in sorted((THIRD / "healthy").glob("*.log")):
        if log.name in ("deepspeed-716.log", "deepspeed-7128.log"):
            continue  # launcher lines only: no NCCL line to read (refused, test above)
        said = {f.id for f in diagnose(read_log(log))}
        assert said <= {"nccl-tests-stopped-before-first-size"} if log.name == "nccl-tests-117.log" else not said, \
            (log.name, said)


def test_rdma_devices_of_two_adapter_families_in_one_list_are_a_warn():
    # pytorch/pytorch#81628 (third fresh set): `NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]i40iw0:1/RoCE`
    said, _ = found(THIRD / "pytorch-81628.log")
    assert said["mixed-rdma-adapters"].what.endswith("2 adapter families: i40iw, mlx5")
    # NCCL 2.21's fused list of one family (NVIDIA/nccl-tests#373: [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} ...)
    said, _ = found(DATA / "nccl-tests-373-p2p-level-loc-one-rank-a-host.log")
    assert "mixed-rdma-adapters" not in said


def test_nccls_fused_device_list_is_read_as_its_devices():
    # NVIDIA/nccl-tests#373, NCCL 2.21's NIC fusion: `[0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]={[2] mlx5_0:1/RoCE,
    # [3] mlx5_1:1/RoCE}` read as ['={[0]', 'mlx5_3:1/RoCE}', ...] before: a channel's NET/IB/1 is the second fused one
    log = read_log(DATA / "nccl-tests-373-p2p-level-loc-one-rank-a-host.log")
    assert log.ib_devices == ["mlx5_2:1/RoCE+mlx5_3:1/RoCE", "mlx5_0:1/RoCE+mlx5_1:1/RoCE"]


def test_a_docker_networks_bridge_among_nccls_socket_interfaces_is_unreachable_from_other_hosts():
    # NVIDIA/nccl-tests#217 (third fresh set): NCCL's socket devices include two Docker networks' bridges, its line
    # wrapped by the terminal as pasted. On one host nothing crosses hosts; in a job of two nodes the bridges'
    # addresses are reachable from this host only
    line = next(l for l in (THIRD / "nccl-tests-217.log").read_text().splitlines() if "NET/Socket : Using" in l)
    said = {f.id: f for f in diagnose(parse(line + "\n" + TWO_NODES, "x"))}
    assert "br-93ef2f1539c5:172.25.0.1" in said["address-unreachable"].what, said
    assert "address-unreachable" not in found(THIRD / "nccl-tests-217.log")[0]
