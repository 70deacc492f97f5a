"""The older structural rules (issue 55) on real logs from public threads (tests/data/nccl/ORIGINS.md):
where each fires and where it must stay quiet. A WARN on a healthy machine is as serious as a
missed fault: each misfire found here was fixed in the rule, and the test says which."""
import json

import pytest

from diagnosis_helpers import DATA, TWO_NODES, diagnose, found, ids, parse, read_log
from wirebench.diagnosis import wiring
from wirebench.diagnosis.settings import allreduce_allows_nvls

AGREEING = DATA / "nccl-tests-311-four-hosts-agree.log"
COLLNET_FALLBACK = DATA / "nccl-tests-311-collnet-fallback.log"
PODS = DATA / "nccl-1781-two-pods-one-node-hostid.log"
AGREEMENT = {"version-mismatch", "driver-mismatch", "settings-differ", "network-differs", "nics-differ",
             "gpus-per-node-differ"}


@pytest.fixture(scope="module")
def a100():
    """NVIDIA/nccl-tests#311's node: 8 A100 on NVSwitches (NV12 every pair), two mlx5 NICs PXB to
    each GPU pair (its `nvidia-smi topo -m` as posted, glued columns split)."""
    return wiring.from_topology(json.loads((DATA / "nccl-tests-311-a100.topology.json").read_text()))


def test_four_hosts_that_agree_say_nothing_of_versions_drivers_settings_or_network(a100):
    """NVIDIA/nccl-tests#311's first run: 4 hosts x 2 A100, NCCL 2.23.4 printed by every process,
    cudaDriverVersion 12040, NCCL_COLLNET_ENABLE=1 and IBext_v8 on every rank: no host differs."""
    log = read_log(AGREEING)
    assert log.hosts() == ["gpu34", "gpu36", "gpu40", "gpu41"]
    assert not {f.id for f in diagnose(log)} & AGREEMENT
    assert not {f.id for f in diagnose(log, a100)} & AGREEMENT
    # the same lines where one host's driver is another: said (line 13 is gpu36's, the first cudaDriverVersion)
    other = AGREEING.read_text().replace("gpu41:63047:63047 [1] NCCL INFO cudaDriverVersion 12040",
                                         "gpu41:63047:63047 [1] NCCL INFO cudaDriverVersion 12020")
    said = [f for f in diagnose(parse(other, "x")) if f.id == "driver-mismatch"]
    assert [f.what for f in said] == ["the hosts differ in the CUDA driver (cudaDriverVersion): 12020 on gpu41; "
                                      "12040 on gpu34, gpu36, gpu40"]


def test_one_hosts_two_versions_are_two_runs_and_two_hosts_versions_a_mismatch():
    """version-mismatch read every value as another rank's: a thread pasting one host's run and its
    rerun after an upgrade (two versions of gpu34) read FAIL. It compares hosts now."""
    text = AGREEING.read_text()
    rerun = text + "gpu34:23700:23700 [0] NCCL INFO NCCL version 2.26.2+cuda12.4\n"
    assert not [f for f in diagnose(parse(rerun, "x")) if f.id == "version-mismatch"]
    other_host = text.replace("gpu41:63046:63046 [0] NCCL INFO NCCL version 2.23.4+cuda12.4",
                              "gpu41:63046:63046 [0] NCCL INFO NCCL version 2.26.2+cuda12.4")
    said = [f for f in diagnose(parse(other_host, "x")) if f.id == "version-mismatch"]
    assert len(said) == 1 and said[0].verdict == "FAIL"
    assert "2.26.2+cuda12.4 on gpu41" in said[0].what and "2.23.4+cuda12.4 on gpu34" in said[0].what


def test_a_line_without_nccls_host_prefix_is_no_other_host():
    """A paste mixing one host's prefixed lines with bare `NCCL INFO ...` ones (a blog's excerpt,
    a log collector that strips the prefix) read the bare lines as a second host, "", that
    differs: network-differs FAIL and driver-mismatch on one machine."""
    log = ("n1:1:1 [0] NCCL INFO cudaDriverVersion 12040\n"
           "n1:1:1 [0] NCCL INFO Using network IB\n"
           "NCCL INFO cudaDriverVersion 13000\n"
           "NCCL INFO Using network Socket\n"
           "n2:2:2 [0] NCCL INFO cudaDriverVersion 12040\n"
           "n2:2:2 [0] NCCL INFO Using network IB\n")
    assert not {f.id for f in found(log)} & AGREEMENT


def test_settings_both_pods_print_agree_and_a_missing_one_is_said_only_for_a_whole_init():
    """NVIDIA/nccl#1781's third run: two pods of one node, each printing NCCL_HOSTID,
    NCCL_CUMEM_ENABLE and NCCL_P2P_LEVEL=NVL, P2P/direct pointer between them: nothing to say. A
    host counts as not setting NCCL_X only where the log shows its init whole (Init COMPLETE, its
    channels): before, a host whose paste stopped after its first lines read '(not set)'."""
    text = PODS.read_text()
    assert diagnose(read_log(PODS)) == []
    dropped = text.replace("nccl-tests-gdr-1-worker-0:990669:990750 [0] NCCL INFO NCCL_CUMEM_ENABLE set by "
                           "environment to 0.\n", "")
    said = [f for f in diagnose(parse(dropped, "x")) if f.id == "settings-differ"]
    assert [f.what for f in said] == ["the hosts differ in NCCL_CUMEM_ENABLE: (not set) on nccl-tests-gdr-1-worker-0; "
                                      "0 on nccl-tests-gdr-1-worker-1"]
    # the same, cut before worker-0's channels: its ENV line may have come after the cut
    cut = "\n".join(line for line in dropped.splitlines() if "worker-0" not in line or " via " not in line)
    assert not [f for f in diagnose(parse(cut, "x")) if f.id == "settings-differ"]


def test_p2p_level_loc_on_hosts_of_one_rank_is_quiet():
    """NVIDIA/nccl-tests#373: NCCL_P2P_LEVEL=LOC and `export NCCL_P2P_DISABLE=1` on a host of a
    3-node job running one rank (`nNodes 3 localRanks 1`): no GPU pair inside the node, so neither
    setting slows anything. Its WARN, `socketFinalizeAccept: wrong type 3 != 4`, is a peer on sockets meeting this
    rank's IB (socket_types.py; AddyLaddy asks whether the NCCL_IB_DISABLE=1 of the start script reached every rank)."""
    log = read_log(DATA / "nccl-tests-373-p2p-level-loc-one-rank-a-host.log")
    said = diagnose(log)
    assert ids(said) == ["network-differs-between-ranks:FAIL@20"]
    assert "uses NET/IB and its peer connected with NET/Socket" in said[0].what
    # the same lines on a node running two ranks: P2P between them is forbidden, said once by what was set (the
    # export of NCCL_P2P_DISABLE, which NCCL prints as NCCL_P2P_LEVEL LOC: test_p2p_disabled_is_said_once...)
    two = parse((DATA / "nccl-tests-373-p2p-level-loc-one-rank-a-host.log").read_text()
                .replace("localRanks 1 localRank 0", "localRanks 2 localRank 0"), "x")
    assert ids(diagnose(two)) == ["network-differs-between-ranks:FAIL@20", "transport-disabled:WARN@29"]


def test_collnet_fallback_is_a_warn_quoting_the_setup_errors_nccl_went_on_from(a100):
    """NVIDIA/nccl-tests#311's second run: the SHARP aggregation manager had no resource, the
    SHARP plugin's WARN and NCCL's `-> 2` chains on each rank, then NCCL's own `Cannot initialize
    CollNet, using point-to-point network instead`: every rank completed its init and ran over
    IBext_v8. It read two FAIL error-not-in-catalogue findings and no collnet-unavailable (whose
    pattern knew none of NCCL's lines): now one WARN quoting them."""
    log = read_log(COLLNET_FALLBACK)
    said = diagnose(log, entries=[])
    assert ids(said) == ["collnet-unavailable:WARN@35"]
    assert "SHARP coll init error: Cannot create SHARP job(-11)" in said[0].what
    assert "transport/coll_net.cc:1358 -> 2" in said[0].what and "NCCL went on without it" in said[0].why
    # with the catalogue, its entry for the SHARP plugin's line (NVIDIA/nccl#1050) says it, quoting the chains too
    said = diagnose(log, a100)
    assert [f.verdict for f in said] == ["WARN"] and "coll_net.cc:1358 -> 2" in said[0].what
    # without NCCL's fallback line the SHARP plugin's WARN is still said; rank 1's bare chain, after which its process
    # completed its init, is said as one NCCL went on from
    lines = [line for line in COLLNET_FALLBACK.read_text().splitlines() if "Cannot initialize CollNet" not in line]
    log = parse("\n".join(lines), "x")
    said = diagnose(log, entries=[])
    assert [f.line for f in said] == [35]
    assert [(line, why.split(":")[0]) for line, _, why in log.explained] == [(42, "NCCL went on after it")]
    # and where no process completed its init the same errors stay failures of their own
    stopped = "\n".join(line for line in lines if "Init COMPLETE" not in line)
    assert "FAIL" in [f.verdict for f in diagnose(parse(stopped, "x"), entries=[])]
    # NCCL's choice on few nodes (init.cc) is no fault
    assert found("n:1:1 [0] NCCL INFO Communicator has 1 nodes which is less than CollNet node threshold 2, "
                 "disabling CollNet\n") == []


def test_gdr_level_against_nccl_tests_311s_wiring(a100):
    """The A100 node of NVIDIA/nccl-tests#311 (NICs PXB to their GPUs, GDRDMA channels): its log
    sets no GDR level, nothing is said. With NCCL_NET_GDR_LEVEL=PIX on its mpirun line GPUDirect
    RDMA is forbidden on every NIC (PXB is farther): said; PXB (NCCL's default) or SYS is not."""
    text = COLLNET_FALLBACK.read_text()
    assert not [f for f in diagnose(read_log(COLLNET_FALLBACK), a100) if f.id == "gdr-level-below-wiring"]
    for level, said in (("PIX", True), ("PXB", False), ("SYS", False)):
        with_level = text.replace("-x NCCL_DEBUG=info", f"-x NCCL_DEBUG=info -x NCCL_NET_GDR_LEVEL={level}")
        gdr = [f for f in diagnose(parse(with_level, "x"), a100) if f.id == "gdr-level-below-wiring"]
        assert bool(gdr) == said, level
    assert "the node's nearest NIC is PXB" in gdr[0].what if gdr else True


def test_nccl_algo_is_read_as_nccls_parser_reads_it(h100, a100):
    """NVIDIA/nccl#1455 (8 H100 SXM): `NCCL_ALGO=RING ./all_reduce_perf ...` reaches 365-370 GB/s,
    NVLS 480: RING keeps NCCL off NVLS on NVSwitch GPUs, said. `^Ring` excludes the ring only (it
    read as excluding NVLS), and the per-collective lists of NCCL 2.24's parseList (tuning.cc's
    own examples) are read for all_reduce."""
    command = "NCCL_ALGO={} ./all_reduce_perf -b 2G -e 4G -f 2 -g 8\n"
    assert ids(found(command.format("RING"), h100)) == ["algo-excludes-nvls:WARN@1"]
    assert found(command.format("NVLS"), h100) == []
    assert found(command.format("^Ring"), h100) == []
    assert found(command.format("RING"), a100) == []  # A100's NVSwitches (NV12) have no NVLS
    assert not allreduce_allows_nvls("ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring")
    assert allreduce_allows_nvls("ring;allreduce:nvls,ring")
    assert allreduce_allows_nvls("tree;broadcast:ring") is False and allreduce_allows_nvls("^ring;broadcast:ring")
    assert not allreduce_allows_nvls("^NVLS,NVLSTree")


def test_p2p_disabled_is_said_once_by_what_was_set():
    """NVIDIA/nccl#606: `NCCL_P2P_DISABLE=1 ... all_reduce_perf -g 2` on two RTX A6000 of one
    process. NCCL 2.11 prints it as `NCCL_P2P_LEVEL set by environment to LOC` (graph/paths.cc's
    ncclGetLevel takes NCCL_P2P_DISABLE first and names the level variable): p2p-level said a
    second WARN naming a variable nobody set. transport-disabled names NCCL_P2P_DISABLE once."""
    log = DATA / "nccl-606-p2p-disabled-level-loc.log"
    assert ids(diagnose(read_log(log))) == ["transport-disabled:WARN@1"]
    # without the command line (NCCL_P2P_DISABLE exported elsewhere), NCCL's LOC line is all there is: said,
    # naming both variables
    bare = "\n".join(line for line in log.read_text().splitlines() if not line.startswith("$ "))
    said = diagnose(parse(bare, "x"))
    assert ids(said) == ["p2p-level:WARN@12"] and "NCCL_P2P_DISABLE=1" in said[0].what


def test_fastsocket_over_ipoib_interfaces_is_the_wrong_plugin():
    """stas00/ml-engineering's network debugging guide, its line as written: `NCCL INFO
    NET/FastSocket : Using [0]ibs108:10.0.19.12<0> ... [7]ibs115:...`, "if you're using InfiniBand
    and get the above output ... very low internode speed: the wrong plugin". The rule read only
    `Using network FastSocket` with NET/IB devices or the node's NICs, so the line said nothing."""
    line = ("NCCL INFO NET/FastSocket : Using [0]ibs108:10.0.19.12<0> [1]ibs109:10.0.19.13<0> [2]ibs110:10.0.19.14<0> "
            "[3]ibs111:10.0.19.15<0> [4]ibs112:10.0.19.16<0> [5]ibs113:10.0.19.17<0> [6]ibs114:10.0.19.18<0> "
            "[7]ibs115:10.0.19.19<0>\n")
    said = found(line + TWO_NODES)
    assert ids(said) == ["tcp-plugin-on-rdma:WARN@1"] and "IPoIB (ibs108, ibs109, ibs110, ...)" in said[0].why
    # on Google Cloud's own NICs (gVNIC: ens*, eth*) it is the plugin meant (NVIDIA/nccl#1519's H100 host's names)
    gcp = ("nathan-h100-1:14492:14605 [0] NCCL INFO NET/FastSocket : Using [0]enp0s12:10.0.0.6<0> "
           "[1]enp6s0f0:10.0.1.4<0> [2]enp7s0f0:10.0.2.4<0> [3]enp13s0f0:10.0.3.2<0>\n")
    assert found(gcp + TWO_NODES) == []


def test_hosts_on_different_networks_before_nccl_printed_which():
    """NVIDIA/nccl#234 (NCCL 2.4.6): one host without IB used TCP, the other IB, and init hung. NCCL
    before 2.6 prints no `Using network X`: each host's NET/IB device list (IB) or its NET/Socket
    line alone (2.4 prints it on every host first, as its bootstrap network) says which. It read
    nothing of the kind; NVIDIA/nccl#226's 64 hosts all on sockets stay quiet."""
    said = [f for f in diagnose(read_log(DATA / "nccl-234-ib-on-one-host-tcp-on-other.log"))
            if f.id == "network-differs"]
    assert [(f.verdict, f.what) for f in said] == [
        ("FAIL", "the hosts differ in the network NCCL chose: IB on node-b; Socket on node-a")]
    assert not [f for f in diagnose(read_log(DATA / "nccl-226-aws-64-hosts-socket.log")) if f.id == "network-differs"]
    assert not [f for f in diagnose(read_log(AGREEING)) if f.id == "network-differs"]  # 2.23: `Using network` each


def test_collnet_fallback_of_nccl_1050_is_one_warn():
    """NVIDIA/nccl#1050 (a train case of the corpus): the SHARP plugin's WARN on one host, other ranks'
    `transport.cc:291 -> 2` / `init.cc:670 -> 2` chains, then NCCL's CollNet fallback: it read FAIL
    error-not-in-catalogue beside the entry. NCCL agrees on the fallback across ranks, so the
    chains before its last fallback line are CollNet's setup, quoted in the one WARN."""
    said = diagnose(read_log(DATA.parent / "nccl-corpus" / "nccl-1050.log"))
    assert ids(said) == ["sharp-job-not-created:WARN@1"]
    assert "transport.cc:291 -> 2" in said[0].what


def test_nccl_algo_against_nvls_channels_nccl_set_up_itself():
    """Without the node's topology: NCCL's init.cc line `24 coll channels, 24 collnet channels, 16 nvls
    channels, ...` (2.19 on) says NVLS is there; `NCCL_ALGO set by environment to ring,tree` keeps
    all_reduce off it. `0 nvls channels` (NVIDIA/nccl#1781's H20 pods, nccl-tests#311's A100) is no NVLS."""
    algo = "h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to ring,tree\n"
    nvls = "h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer\n"
    said = found(algo + nvls)
    assert ids(said) == ["algo-excludes-nvls:WARN@1"] and "NCCL set up NVLS itself (line 2" in said[0].why
    assert found(algo + nvls.replace("16 nvls", "0 nvls")) == []
    assert found(algo) == []  # neither the wiring nor NCCL's count: nothing known
    assert found(algo.replace("ring,tree", "ring,tree,nvls") + nvls) == []
