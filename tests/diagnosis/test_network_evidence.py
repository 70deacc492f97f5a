"""What counts as evidence about the network (issue 55): NCCL's "no external plugin" INFO line is no
evidence of RDMA hardware, and NCCL's "no InfiniBand here" INFO lines say nothing where no data
crossed the network. Each case is a real log (tests/data/nccl/ORIGINS.md, the corpus's index.csv
for tests/data/nccl-corpus/; train cases only) or lines as a thread posted them, named beside it."""
from diagnosis_helpers import DATA, ROOT, TWO_NODES, diagnose, found, ids, parse, read_log
from wirebench.diagnosis import network_carries_data

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"


def test_no_plugin_found_is_not_evidence_of_rdma():
    """NVIDIA/nccl#226: 64 AWS hosts without RDMA (NET/IB : No device found), NCCL 2.4 on TCP
    sockets as meant, and `NET/Plugin : No plugin found (libnccl-net.so).` on every host, which only
    says no external plugin is installed. It read FAIL socket-fallback ("a network plugin did not
    load")."""
    log = read_log(DATA / "nccl-226-aws-64-hosts-socket.log")
    assert network_carries_data(log)  # many hosts: a network finding would be said
    assert diagnose(log) == []


def test_nccl_2_4s_network_channel_lines_without_brackets_are_read():
    """NVIDIA/nccl#226 (NCCL 2.4): `Ring 00 : 35 -> 34 [send] via NET/Socket/0` names the ranks
    without a device in brackets; it was a 'channel line not understood' problem."""
    log = read_log(DATA / "nccl-226-aws-64-hosts-socket.log")
    assert log.problems == []
    assert [(c.line, c.src_rank, c.dst_rank, c.transport, c.src) for c in log.channels][:2] == \
        [(18, 35, 34, "NET/Socket", ""), (22, 34, 33, "NET/Socket", "")]


def test_could_not_find_the_plugin_of_newer_nccl_is_not_evidence_either():
    """NVIDIA/nccl-tests#291 (corpus, train; NCCL 2.25's `NET/Plugin: Could not find: libnccl-net.so.
    Using internal network plugin.`), its lines as if the job spanned two nodes: sockets with no sign
    of RDMA anywhere are the network, not a fallback."""
    said = found((CORPUS / "nccl-tests-291.log").read_text() + TWO_NODES)
    assert "socket-fallback" not in [f.id for f in said]


def test_rdma_evidence_still_makes_sockets_a_fail():
    """The evidence that stays: an RDMA device NCCL names (NCCL 2.3 printed `NET/IB: [0] mlx5_0:1/IB`,
    horovod/horovod#1097), beside the plugin line that is no evidence; a setting naming a device
    (NCCL_IB_HCA=mlx5_0) is what was asked for, not what the node has."""
    plugin = "n1:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n"
    sockets = "n1:1:1 [0] NCCL INFO Using network Socket\n"
    said = found(plugin + "n1:1:1 [0] NCCL INFO NET/IB: [0] mlx5_0:1/IB\n" + sockets + TWO_NODES)
    assert ids(said) == ["socket-fallback:FAIL@3"]
    assert "the log names an RDMA device, mlx5_0 (line 2)" in said[0].why and "plugin" not in said[0].why
    assert found(plugin + "n1:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n" + sockets + TWO_NODES) == []


def test_libibverbs_missing_on_one_host_is_said_only_as_a_warn_line():
    """NCCL prints `Failed to open libibverbs.so[.1]` as INFO (2.12 on) on every host without
    rdma-core: normal on one host or a socket-only cluster. NVIDIA/nccl-tests#291 (corpus, train:
    one RTX 5090, nranks 1) read WARN libibverbs-missing; the same lines on two nodes still do. A WARN
    line is never dropped, but where the log shows the job on one host it is explained, not a finding:
    pytorch/pytorch#73790 (corpus, train; NCCL 2.10's `misc/ibvwrap.cc:63 NCCL WARN`, one host, two
    processes; its hang was the IOMMU, the WARN harmless) read libibverbs-missing, a cause the thread
    ruled out, and later a WARN of its own on a healthy single-host log (NVIDIA/nccl#428)."""
    one_host = read_log(CORPUS / "nccl-tests-291.log")
    assert not network_carries_data(one_host)
    # its one finding is its cause, NCCL 2.25.1 on an RTX 5090 (fixed-in-later-nccl), not the network
    assert ids(diagnose(one_host)) == ["fixed-in-later-nccl:WARN@4"]
    # on two nodes over sockets, with no sign of an RDMA device anywhere, it is no finding either (session 40: a healthy
    # 2 x g5 nccl-tests run on AWS, aws-samples/aws-hpc-tutorials, read WARN libibverbs-missing); with one (ib0, IPoIB,
    # among the socket devices: the hosts have InfiniBand that the missing library keeps NCCL off), the WARN
    two_nodes = parse((CORPUS / "nccl-tests-291.log").read_text() + TWO_NODES, "two-nodes.log")
    assert ids(diagnose(two_nodes)) == ["fixed-in-later-nccl:WARN@4"]
    # NCCL's WARN-level line (before 2.12) on such a job: said, not a finding, with why
    warn = parse((CORPUS / "nccl-tests-291.log").read_text().replace(
        "NCCL INFO Failed to open libibverbs", "misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs") + TWO_NODES, "w.log")
    assert ids(diagnose(warn)) == ["fixed-in-later-nccl:WARN@4"]
    assert any(e[2].startswith("libibverbs-missing: the log shows NCCL on sockets and no RDMA device")
               for e in warn.explained), warn.explained
    ipoib = parse((CORPUS / "nccl-tests-291.log").read_text().replace("[0]ens49f1np1:", "[0]ib0:") + TWO_NODES, "ib.log")
    assert ids(diagnose(ipoib)) == ["fixed-in-later-nccl:WARN@4", "libibverbs-missing:WARN@9"]
    # NCCL (2.12 on) prints it as INFO for that reason: on a job the log shows on one host it is explained, not a
    # WARN of a cause the thread ruled out, and never dropped (the output says it with why)
    log = read_log(CORPUS / "pytorch-73790.log")
    assert diagnose(log) == []
    [(line, quote, why)] = [e for e in log.explained if e[2].startswith("libibverbs-")]
    assert line == 1 and "NCCL WARN Failed to open libibverbs" in quote
    assert why.startswith("libibverbs-missing: the log shows the job on one host")
    # the same WARN line alone (no host's job shown) is the entry's, as its thread's line is
    alone = diagnose(parse((CORPUS / "pytorch-73790.log").read_text().splitlines()[0] + "\n", "alone.log"))
    assert ids(alone) == ["libibverbs-missing:WARN@1"]


def test_libibverbs_missing_where_the_hosts_used_sockets_between_them():
    """horovod/horovod#288: two hosts (C4140-V100-1 and -2, NCCL 2.2) whose image lacked libibverbs,
    so NCCL used sockets over ib0 (lines as posted): the entry's case, said."""
    log = ("C4140-V100-1:24:201 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]\n"
           "C4140-V100-1:24:201 [0] INFO Using internal Network Socket\n"
           "C4140-V100-1:24:201 [0] INFO NET : Using interface ib0:192.168.11.1<0>\n"
           "NCCL version 2.2.12+cuda9.0\n"
           "C4140-V100-2:24:229 [0] misc/ibvwrap.cu:61 WARN Failed to open libibverbs.so[.1]\n")
    assert ids(found(log)) == ["libibverbs-missing:WARN@1"]  # the second host's same line: one finding


def test_a_libibverbs_warn_is_explained_where_ib_was_not_used_and_said_where_it_could_be():
    """Two healthy logs of the fresh set of 2026-12-06 (tests/data/nccl/ORIGINS.md) each read WARN
    libibverbs-missing: NVIDIA/nccl-tests#82, two hosts over sockets with `-x NCCL_IB_DISABLE=1` on a
    command line behind a conda prompt, and NVIDIA/nccl#428, one process on two GPUs of one host
    (nccl-tests' device list names one host). Both now explain the WARN, never drop it; the same
    lines without the setting, on two hosts, are the entry's case."""
    sockets = read_log(DATA / "nccl-tests-82-sockets-ib-disabled-conda-prompt.log")
    assert diagnose(sockets) == []
    [(line, quote, why)] = sockets.explained
    assert line == 9 and "Failed to open libibverbs" in quote and "NCCL_IB_DISABLE=1 (line 2) chose sockets" in why
    one_process = read_log(DATA / "nccl-428-one-process-two-t4-p2p-disabled.log")
    assert ids(diagnose(one_process)) == ["transport-disabled:WARN@2"]  # NCCL_P2P_DISABLE=1: its own, right finding
    assert [why.split(":")[0] for _, _, why in one_process.explained] == ["libibverbs-missing"]
    text = (DATA / "nccl-tests-82-sockets-ib-disabled-conda-prompt.log").read_text().replace(" -x NCCL_IB_DISABLE=1", "")
    assert ids(diagnose(parse(text, "ib-not-disabled.log"))) == ["libibverbs-missing:WARN@9"]


def test_a_warn_nccl_went_on_from_gives_its_ranks_slot_to_the_failure_after_it():
    """NVIDIA/nccl#573 (corpus, held-out; no entry written from it): `Failed to open libibverbs.so[.1]` as a WARN (NCCL
    2.7.8), NCCL going on over sockets, then `Could not find real path of /sys/class/pci_bus/...` heading a `-> 2`
    chain. The bare first WARN took its process' slot and borrowed the chain's class: the failure was never quoted and
    the finding was libibverbs-missing. Now the failure is quoted; the libibverbs line is said, not a finding (sockets,
    no RDMA device shown). A first WARN that is a failure (a FAIL entry's, pytorch/ci-infra#490's /dev/shm) keeps it."""
    log = read_log(CORPUS / "nccl-573.log")
    said = diagnose(log)
    assert [(f.id, f.verdict, f.line) for f in said] == [("error-not-in-catalogue", "FAIL", 9)]
    assert "Could not find real path of /sys/class/pci_bus" in said[0].what
    assert [e[0] for e in log.explained if e[2].startswith("libibverbs-missing")] == [4]
    shm = [f.id for f in diagnose(read_log(CORPUS / "pytorch-ci-infra-490.log"))]
    assert shm and shm[0] == "shm-too-small", shm
