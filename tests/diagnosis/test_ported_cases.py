"""The NCCL diagnosis catalogue (docs/nccl-diagnosis.md): each entry named from a log that shows it,
and nothing said of healthy logs of each network. Ported from tests/unit/topology/nccl_diagnosis_test.cpp
(every case kept); the logs are in NCCL's format (host:pid:tid [dev] NCCL INFO|WARN ...), with
launchers' prefixes and other output among them. Where a case's log is one host's lines without a
channel, TWO_NODES says the job spans two nodes: a network finding needs a network that carries data."""
import re

from diagnosis_helpers import DATA, TWO_NODES, diagnose, found, ids, parse, read_log
from wirebench.diagnosis import catalogue, errors, network_carries_data, registry

IB_HEALTHY = ("gpu-a:1001:1001 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
              "gpu-a:1001:1001 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
              "gpu-a:1001:1001 [0] NCCL INFO Using network IB\n"
              "gpu-b:2001:2001 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
              "gpu-a:1001:1010 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n")


def test_healthy_logs_of_each_network_say_nothing():
    assert found(IB_HEALTHY) == []
    assert found("r1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB eth0:10.1.0.1<0>\n"
                 "r1:1:1 [0] NCCL INFO Using network IB\n" + TWO_NODES) == []
    assert found("ip-10-0-0-1:7:7 [0] NCCL INFO NET/OFI Selected provider is efa\n"
                 "ip-10-0-0-1:7:7 [0] NCCL INFO Using network AWS Libfabric\n" + TWO_NODES) == []
    # Ethernet only: no RDMA device anywhere, TCP sockets are the network
    assert found("e1:1:1 [0] NCCL INFO NET/IB : No device found.\n"
                 "e1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.0.1<0>\n"
                 "e1:1:1 [0] NCCL INFO Using network Socket\n" + TWO_NODES) == []


def test_the_network_is_named_whole():
    assert parse("h:1:1 [0] NCCL INFO Using network AWS Libfabric\n", "x").network == "AWS Libfabric"


def test_sockets_where_rdma_is_there_are_a_fail_with_their_evidence(h100):
    log = ("n1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
           "n1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
           "n1:1:1 [0] NCCL INFO Using network Socket\n")
    # the setting alone is the job's choice, not a device the node has: said, not a finding (pytorch/pytorch#38702)
    parsed = parse(log + TWO_NODES, "x")
    assert diagnose(parsed) == []
    assert [(line, why.split(":")[0]) for line, _, why in parsed.explained] == [(3, "socket-fallback")]
    # with the node's RDMA devices in the log too, the setting is part of the evidence
    said = found("n1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n" + log + TWO_NODES)
    assert ids(said) == ["socket-fallback:FAIL@4"]
    assert "NCCL_IB_DISABLE is set (line 2)" in said[0].why and "InfiniBand/RoCE devices" in said[0].why
    assert "NCCL_IB_DISABLE" in said[0].source
    # the same sockets with no evidence of RDMA, but the node's topology lists NICs
    assert ids(found("n1:1:1 [0] NCCL INFO Using network Socket\n" + TWO_NODES, h100)) == ["socket-fallback:FAIL@1"]
    # a log of channel lines only (no "Using network"): a socket channel where the log lists IB devices
    assert ids(diagnose(read_log(DATA / "socket-on-ib-machine.log"))) == ["socket-fallback:FAIL@2"]


def test_an_ib_list_mixing_roce_is_a_warn():
    assert ids(found("n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [8]mlx5_bond_0:1/RoCE ; "
                     "OOB ib0:10.0.0.1<0>\n" + TWO_NODES)) == ["mixed-link-layers:WARN@1"]


def test_completion_errors_are_read_by_their_number():
    said = found("some program output\n"
                 "gpu-a:1001:1020 [3] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<47019> with error 12, "
                 "opcode 0, len 0, vendor err 129 (Send)\n")
    assert ids(said) == ["ib-completion-error:FAIL@2"]
    assert "IBV_WC_RETRY_EXC_ERR" in said[0].why
    assert "gpu-a from 10.0.0.2<47019>: 12" in said[0].what
    # the newer spelling
    assert ids(found("g:1:1 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.3<1> with status=5 opcode=0\n")) \
        == ["ib-completion-error:FAIL@1"]


def test_launchers_prefixes_do_not_hide_nccls_lines():
    tagged = ("[1,0]<stdout>:n1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
              "[1,0]<stdout>:n1:1:1 [0] NCCL INFO Using network Socket\n")
    assert ids(found(tagged + TWO_NODES)) == ["socket-fallback:FAIL@2"]
    srun = ("0: n1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
            "0: n1:1:1 [0] NCCL INFO Using network Socket\n")
    assert ids(found(srun + TWO_NODES)) == ["socket-fallback:FAIL@2"]


def test_sharp_without_resource_turns_collnet_off():
    assert ids(found(IB_HEALTHY + "gpu-a:1001:1001 [0] NCCL INFO CollNet: SHARP allocation failed: No resource\n")) \
        == ["collnet-unavailable:WARN@6"]


def test_fastsocket_on_an_rdma_node_is_a_warn():
    log = ("n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
           "n:1:1 [0] NCCL INFO Using network FastSocket\n")
    assert ids(found(log + TWO_NODES)) == ["tcp-plugin-on-rdma:WARN@2"]  # its line, no longer 0


def test_gdrdma_off_says_nccls_reason():
    said = found("n:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n" + TWO_NODES)
    assert ids(said) == ["gdrdma-disabled:WARN@1"]
    assert "no module" in said[0].why


def test_environment_overrides_and_failures_are_named():
    assert ids(found("n:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n"
                     "n:1:1 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/topo.xml\n")) \
        == ["transport-disabled:WARN@1", "topology-file:WARN@2"]
    assert ids(found("n:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n"
                     "n:1:9 [0] NCCL WARN Net : Connect to 10.0.0.9<43211> failed : Connection refused\n"
                     "n:1:1 [0] NCCL WARN Cuda failure 'out of memory'\n")) \
        == ["bootstrap-interface:FAIL@1", "connection-failed:FAIL@2", "out-of-memory:FAIL@3"]


def test_ranks_on_different_versions_fail():
    said = found("a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                 "b:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n")
    assert [f.id for f in said] == ["version-mismatch"] and said[0].verdict == "FAIL"
    assert "2.18.3+cuda12.2 on b, 2.21.5+cuda12.4 on a" in said[0].what


def test_no_network_finding_where_the_log_proves_the_network_unused(h100):
    """A healthy single-node NVLS log (NCCL 2.18: no nNodes on its init line) in a container with
    NCCL_IB_DISABLE=1: NCCL chose Socket, yet every channel is P2P on one host; a network finding
    there (socket-fallback was a FAIL) cries wolf. tests/data/nccl/ORIGINS.md says where it comes from."""
    log = read_log(DATA / "nvls-8gpu-one-node-socket.log")
    assert not network_carries_data(log)
    assert diagnose(log) == [] and diagnose(log, h100) == []
    # the same lines with a second host's channel over the network: the finding stands
    text = (DATA / "nvls-8gpu-one-node-socket.log").read_text()
    text += "dgx-h100-08:5120:5180 [0] NCCL INFO Channel 00/0 : 7[7] -> 8[0] [send] via NET/Socket/0\n"
    two_nodes = parse(text, "two-nodes.log")
    assert network_carries_data(two_nodes)
    assert ids(diagnose(two_nodes, h100))[0] == "socket-fallback:FAIL@7"


def test_every_catalogue_entry_is_named_by_its_threads_line():
    """Every entry of suites/nccl-warnings.csv is named by a line as posted in a public thread
    (tests/data/nccl/warn-lines-from-threads.log: `# id: ENTRY | THREAD` above each line, or above two where the
    thread's line was wrapped after its colon): NCCL's line,
    or where the thread posted none the error line the signature is also searched in (nccl-tests',
    PyTorch's, a CUDA error string). A coded rule may read the same line beside it (ib-completion-error
    names the status whose cause ib-local-protection-acs names)."""
    named, excerpts = set(), []  # (entry, its lines): one line, or two where the thread wrapped it after its colon
    for line in (DATA / "warn-lines-from-threads.log").read_text().splitlines():
        if line.startswith("# id: "):
            excerpts.append((line[6:].split(" ")[0], []))
        else:
            excerpts[-1][1].append(line)
    for entry_id, lines in excerpts:
        assert len(lines) == 1 or (len(lines) == 2 and lines[0].endswith(":")), (entry_id, lines)
        line = "\n".join(lines)
        log = parse(line + "\n", f"{entry_id}.log")
        assert len(log.messages) == 1 or (not log.messages and len(errors.find(log)) == 1), \
            f"not read as an NCCL line nor as an error line: {line}"
        said = diagnose(log)
        assert said, f"{entry_id}: nothing named in {line}"
        # the line's one finding that no coded rule makes is the entry's
        assert [f.id for f in said if f.id not in registry.RULES] == [entry_id], line
        assert all(f.source for f in said)
        named.add(entry_id)
    entries = catalogue.read(coded_ids=registry.RULES)
    assert {e.id for e in entries} <= named, "entries without a line from a thread in warn-lines-from-threads.log"
    assert len(entries) >= 15


def test_the_memlock_failure_comes_before_the_setting_beside_it():
    """NVIDIA/nccl-tests#206: NCCL_SHM_DISABLE=1 set on purpose, then the registration failed on a
    low memlock limit. The failure is the cause and comes first; the setting is a WARN beside it."""
    said = found("gpu-node-01:31002:31002 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
                 "gpu-node-01:31002:31090 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with "
                 "error Cannot allocate memory\n", source="single.log")
    assert ids(said) == ["memlock-too-low:FAIL@2", "transport-disabled:WARN@1"]
    assert "ulimit -l" in said[0].fix


# The entries that need the node's wiring (a saved nvidia-smi topo -m) besides the log.

def test_shm_where_p2p_should_work_is_a_warn_with_its_reason(h100):
    log = read_log(DATA / "pcie-8gpu-p2p-shm.log")
    by_neighbours = diagnose(log)  # the node's other pairs use P2P
    assert ids(by_neighbours) == ["shm-instead-of-p2p:WARN@5"]
    assert "rank 3 -> 4 on " in by_neighbours[0].what and "other GPU pairs on" in by_neighbours[0].what
    by_topology = diagnose(log, h100)  # the topology puts GPU3 and GPU4 on NVLink
    assert ids(by_topology) == ["shm-instead-of-p2p:WARN@5"]
    assert "GPU3 and GPU4 are NV18" in by_topology[0].what


def test_no_gdrdma_beside_the_gpu_is_a_warn_only_with_the_topology(h100):
    log = read_log(DATA / "multinode-net.log")
    # line 6: device 0 on NET/IB/0 = mlx5_0, PIX to GPU0, without GDRDMA; lines 5 and 7 have it
    said = diagnose(log, h100)
    assert ids(said) == ["gdrdma-unused:WARN@6"]
    assert "mlx5_0 is PIX to GPU0" in said[0].why
    assert diagnose(log) == []  # without a topology nobody knows


def test_p2p_refused_or_forbidden_is_named():
    assert ids(found("n:1:1 [1] NCCL WARN P2P is disabled between connected GPUs 1 and 0. This should not be the "
                     "case given their connectivity, and is probably due to a hardware issue. If you still want to "
                     "proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.\n")) == ["p2p-disabled-by-hardware:FAIL@1"]
    assert ids(found("n:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC\n")) == ["p2p-level:WARN@1"]
    assert found("n:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL\n") == []


def test_nvls_missing_on_nvswitch_gpus_is_a_warn(h100):
    missing = "n:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0\n"
    assert ids(found(missing, h100)) == ["nvls-unavailable:WARN@1"]
    assert found(missing) == []  # a PCIe node says the same, rightly
    assert ids(found("n:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n")) == ["nvls-unavailable:WARN@1"]


def test_a_plugin_for_another_fabric_and_left_out_nics_are_warns(h100):
    assert ids(found("n:1:1 [0] NCCL INFO Using network AWS Libfabric\n" + TWO_NODES, h100)) == ["plugin-vs-nics:WARN@1"]
    two_of_eight = ("n:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1\n"
                    "n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
                    "n:1:1 [0] NCCL INFO Using network IB\n" + TWO_NODES)
    said = found(two_of_eight, h100)
    assert ids(said) == ["ib-hca-excludes-ports:WARN@1"]
    assert "uses 2 of the node's 8 network devices" in said[0].what
    assert found(two_of_eight) == []  # without the node's NICs nothing says ports are missing


def test_healthy_logs_say_nothing_beside_their_topology(h100):
    assert found(IB_HEALTHY, h100) == []
    assert diagnose(read_log(DATA / "ib-network-select.log"), h100) == []
