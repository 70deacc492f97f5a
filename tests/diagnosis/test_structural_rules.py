"""The rules that need no signature (network_rules.py, transport_rules.py, init_rules.py, agreement.py, settings.py): a network finding
only where the network carries data; what the hosts of one job must agree on; each NCCL_* set
against the hardware the log (and the wiring) shows; ranks on one GPU."""
from diagnosis_helpers import DATA, TWO_NODES, diagnose, found, ids, parse, read_log
from wirebench.diagnosis import network_carries_data, registry

SINGLE = DATA / "single-node-8gpu-socket-no-ib.log"


def test_a_healthy_single_host_log_gives_no_network_finding_with_or_without_channels(h100):
    """One node, eight GPUs on NVLink (P2P/IPC), `NET/IB : No device found.`, NET/Socket chosen
    (NCCL 2.18: no nNodes): it read FAIL socket-fallback; no byte crossed the network."""
    log = read_log(SINGLE)
    assert log.network == "Socket" and len(log.channels) == 16
    assert not network_carries_data(log)
    assert diagnose(log) == [] and diagnose(log, h100) == []
    without_channels = "".join(l for l in SINGLE.read_text().splitlines(True) if " via " not in l)
    bare = parse(without_channels, "no-channels.log")
    assert bare.channels == [] and not network_carries_data(bare)
    assert diagnose(bare) == [] and diagnose(bare, h100) == []


def test_the_network_carries_data_with_two_hosts_or_a_net_channel_or_nccls_nnodes():
    assert network_carries_data(parse(TWO_NODES, "x"))
    assert not network_carries_data(parse(TWO_NODES.replace("nNodes 2", "nNodes 1"), "x"))
    assert network_carries_data(parse("a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n", "x"))
    assert network_carries_data(parse("a:1:1 [0] NCCL INFO Using network IB\nb:1:1 [0] NCCL INFO Using network IB\n", "x"))


def test_hosts_must_agree_on_driver_settings_network_nics_and_ranks_per_node():
    log = ("a:1:1 [0] NCCL INFO cudaDriverVersion 12020\n"
           "b:2:2 [0] NCCL INFO cudaDriverVersion 12040\n"
           "a:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1\n"
           "a:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>\n"
           "b:2:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.2<0>\n"
           "a:1:1 [0] NCCL INFO Using network IB\n"
           "b:2:2 [0] NCCL INFO Using network Socket\n"
           "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 12 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"
           "b:2:2 [0] NCCL INFO comm 0x2 rank 8 nRanks 12 nNodes 2 localRanks 4 localRank 0 MNNVL 0\n"
           "b:2:2 [0] NCCL INFO ncclCommInitRank comm 0x2 rank 8 nranks 12 cudaDev 0 nvmlDev 0 busId 18000 "
           "commId 0x1 - Init COMPLETE\n")
    said = {f.id: f for f in found(log)}
    assert said["driver-mismatch"].what == "the hosts differ in the CUDA driver (cudaDriverVersion): 12020 on a; 12040 on b"
    assert said["settings-differ"].what == "the hosts differ in NCCL_IB_HCA: (not set) on b; mlx5_0,mlx5_1 on a"
    assert said["network-differs"].verdict == "FAIL" and "IB on a; Socket on b" in said["network-differs"].what
    assert "1 (IB) on b; 2 (IB) on a" in said["nics-differ"].what
    assert "4 on b; 8 on a" in said["gpus-per-node-differ"].what
    # one host alone agrees with itself
    assert not {"driver-mismatch", "settings-differ", "network-differs"} & {f.id for f in found(
        "a:1:1 [0] NCCL INFO cudaDriverVersion 12020\na:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n")}


def test_nics_rate_and_mtu_must_agree():
    # net_ib.cc's INFO(NCCL_NET) formats (NCCL_DEBUG_SUBSYS=NET): each device's speed, each QP's MTU
    log = ("a:1:1 [0] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=400000 context=0x55d0c0 "
           "pciPath=/sys/devices/pci0000:00/0000:00:01.0/0000:0c:00.0 ar=1\n"
           "b:2:2 [0] NCCL INFO NET/IB: [0] mlx5_0:uverbs0:1/IB provider=Mlx5 speed=200000 context=0x55d0c0 "
           "pciPath=/sys/devices/pci0000:00/0000:00:01.0/0000:0c:00.0 ar=1\n"
           "a:1:1 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1201 mtu 5 LID 12 subnet-prefix 65152  FLID 0 "
           "fifoRkey=0x1a2b fifoLkey=0x3c4d\n"
           "b:2:2 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1302 mtu 3 LID 14 subnet-prefix 65152  FLID 0 "
           "fifoRkey=0x1a2b fifoLkey=0x3c4d\n")
    whats = [f.what for f in found(log) if f.id == "nics-differ"]
    assert "the hosts differ in the NICs' rate: 200 Gb/s on b; 400 Gb/s on a" in whats
    assert "the hosts differ in the IB MTU (NCCL's mtu index): 3 on b; 5 on a" in whats


def test_two_processes_on_one_gpu_fail_but_one_process_in_two_communicators_does_not():
    init = "n:{pid}:{pid} [0] NCCL INFO comm 0x{pid} rank {rank} nranks 8 cudaDev 0 busId 18000 commId 0x1 - Init START\n"
    said = found(init.format(pid=11, rank=0) + init.format(pid=12, rank=1))
    assert ids(said) == ["ranks-share-gpu:FAIL@2"]
    assert "n:11 (rank 0, line 1) and n:12 (rank 1)" in said[0].what
    assert found(init.format(pid=11, rank=0) + init.format(pid=11, rank=3)) == []


def test_settings_against_the_hardware_the_log_and_the_wiring_show(h100):
    # a GDR level nearer than every NIC sits from its GPU (PIX on this wiring): GPUDirect RDMA forbidden
    said = found("n:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to LOC\n" + TWO_NODES, h100)
    assert ids(said) == ["gdr-level-below-wiring:WARN@1"] and "nearest NIC is PIX" in said[0].what
    assert found("n:1:1 [0] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PXB\n" + TWO_NODES, h100) == []
    # NCCL_ALGO without NVLS on NVSwitch GPUs
    assert ids(found("n:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n", h100)) == ["algo-excludes-nvls:WARN@1"]
    assert found("n:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n") == []  # no wiring: unknown
    assert found("n:1:1 [0] NCCL INFO NCCL_ALGO set by environment to NVLS,Ring\n", h100) == []
    # a device list naming no device of the node's
    said = found("n:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_9\n" + TWO_NODES, h100)
    assert "setting-names-absent-device:WARN@1" in ids(said)
    assert found("n:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5\n" + TWO_NODES, h100) == []  # a prefix


def test_every_rule_declares_its_words():
    for r in registry.RULES.values():
        assert r.verdict in ("FAIL", "WARN") and r.scope in registry.SCOPES
        assert r.signature and r.means and r.fix and r.source, r.id


def test_settings_on_a_command_line_or_an_export_are_read_and_zero_is_off():
    """NVIDIA/nccl#1773 as posted: `NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=SYS ... ./build/all_reduce_perf
    -g 8` at a root prompt, then P2P channels: 0 is off and SYS allows P2P everywhere, so nothing is
    said. The same command line with LOC, or an `export NCCL_NVLS_ENABLE=0` before it, is read as
    NCCL's own `set by environment` line is (which NCCL prints only with NCCL_DEBUG_SUBSYS's ENV)."""
    posted = ("root@10-4-3-3:/opt/nccl-tests# NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=SYS NCCL_DEBUG=info "
              "./build/all_reduce_perf -g 8 | tail -n 30\n"
              "10-4-3-3:97095:97196 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer\n"
              "10-4-3-3:97095:97191 [5] NCCL INFO Channel 00/0 : 5[5] -> 6[6] via P2P/direct pointer\n")
    assert found(posted) == []
    assert ids(found(posted.replace("NCCL_P2P_LEVEL=SYS", "NCCL_P2P_LEVEL=LOC"))) == ["p2p-level:WARN@1"]
    said = found("export NCCL_NVLS_ENABLE=0\n" + posted)
    assert ids(said) == ["nvls-unavailable:WARN@1"] and said[0].what == "NVLS (NVLink SHARP) is not used"


def test_a_host_local_address_in_a_job_across_hosts_fails():
    """horovod/horovod#584 (NCCL 2.3, two hosts): one host moves socket data on lo:127.0.0.1 among
    its interfaces, and the connections are refused. It read only the refused connect, as a
    collective's timeout; the address says why, and the connect's class is its chain's (-> 2)."""
    said = diagnose(read_log(DATA / "horovod-584-lo-across-hosts.log"))
    assert ids(said) == ["address-unreachable:FAIL@5", "error-not-in-catalogue:FAIL@10"]
    assert "paigcr-b-gpu-1012 uses lo:127.0.0.1" in said[0].what and "^docker0,lo" in said[0].fix
    assert said[1].why.startswith("ncclSystemError")


def test_loopback_on_one_host_and_distinct_addresses_across_hosts_say_nothing():
    """ParCIS/Chimera#2 as posted: one host (gpt-dev-ppt) with NCCL_SOCKET_IFNAME=lo, `Bootstrap :
    Using lo:127.0.0.1<0>`: nothing crosses a network, lo is right. NVIDIA/nccl#226's 64 hosts each
    on its own ens3 address: nothing. The same two-host lines with one address on both hosts (as
    containers on Docker's default bridge have): a FAIL naming both."""
    one_host = ("gpt-dev-ppt:65958:65958 [1] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n"
                "gpt-dev-ppt:65960:65960 [1] NCCL INFO cudaDriverVersion 12000\n"
                "gpt-dev-ppt:65960:65960 [1] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo\n"
                "gpt-dev-ppt:65960:65960 [1] NCCL INFO Bootstrap : Using lo:127.0.0.1<0>\n")
    assert found(one_host) == []
    assert "address-unreachable" not in [f.id for f in diagnose(read_log(DATA / "nccl-226-aws-64-hosts-socket.log"))]
    two = ("ip-172-31-12-210:45305:45305 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.12.210<0>\n"
           "ip-172-31-5-237:45266:45266 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.5.237<0>\n")
    assert found(two) == []
    said = found(two.replace("172.31.5.237<0>", "172.31.12.210<0>"))
    assert ids(said) == ["address-unreachable:FAIL@2"]
    assert said[0].what == "ip-172-31-12-210 (line 1) and ip-172-31-5-237 both use 172.31.12.210 (ens3)"
    # the loopback however NCCL prints it, on an interface not named lo (a renamed or bonded loopback): host-local
    mapped = found(two.replace("ens3:172.31.5.237<0>", "lo0:::ffff:127.0.0.1<0>"))
    assert ids(mapped) == ["address-unreachable:FAIL@2"] and "lo0:::ffff:127.0.0.1" in mapped[0].what
