"""A rule's words for an NCCL line that lost its `host:pid:tid` prefix (pasted from an issue's title or
without it) say what the line tells, and leave no blank where the host would be."""
from diagnosis_helpers import found, ids


def test_a_completion_error_without_a_host_names_its_peer_and_no_blank_host():
    """NVIDIA/nccl#1814's title, as posted: NCCL's WARN without its host prefix; NVIDIA/nccl#1405's line with its
    `[4]` device tag kept and its host lost."""
    said = found("[Issue]: NCCL WARN NET/IB : Got completion from peer xxx.xxx.xxx.xxx<55921> with status=12 opcode=1 "
                 "len=0 vendor err 129 (Send) localGid ::ffff:29.87.4.221 remoteGids::ffff:29.87.88.182\n")
    assert ids(said) == ["ib-completion-error:FAIL@1"], ids(said)
    assert said[0].what.startswith("an InfiniBand completion error from xxx.xxx.xxx.xxx<55921>: 12"), said[0].what
    assert " on  " not in said[0].what and " on from" not in said[0].what
    said = found("[4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 "
                 "opcode=0 len=0 vendor err 129 (Recv) localGid fd00:1148:9000:5000:4:200:3:ff22 "
                 "remoteGidsfd00:1148:9000:5000:4:200:3:ff1f\n")
    assert said[0].what.startswith("an InfiniBand completion error from 10.216.210.236<54862>: 12"), said[0].what


def test_a_completion_error_of_older_nccl_names_neither_host_nor_peer():
    """NCCL's transport/net_ib.cc before the peer was named: `WARN("NET/IB : Got completion with error %d, opcode
    %d, len %d, vendor err %d", ...)`, pasted without NCCL's prefix."""
    said = found("NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n")
    assert ids(said) == ["ib-completion-error:FAIL@1"], ids(said)
    assert said[0].what.startswith("an InfiniBand completion error: 12"), said[0].what


def test_the_other_rules_words_leave_no_blank_host(h100):
    """espnet/espnet#1940's description quotes NCCL's WARN alone (`NCCL WARN Connect to 10.38.10.112<21724> failed :
    Connection refused`); NVIDIA/nccl#1235's `include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes` and
    pytorch/pytorch#130113's `NCCL INFO P2P is disabled between connected GPUs 2 and 1. ...` with their host prefix
    off, as a paste that lost it has them; NCCL's transport/nvls.cc `NVLS multicast support is not available on dev
    %d` likewise, on the H100 node whose NVSwitches offer it."""
    lines = {"connection-failed": ("NCCL WARN Connect to 10.38.10.112<21724> failed : Connection refused\n", None,
                                   "NCCL could not connect to 10.38.10.112<21724>"),
             "out-of-memory": ("include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456 bytes\n", None,
                               "NCCL could not allocate GPU memory:"),
             "p2p-disabled-on-pcie": ("NCCL INFO P2P is disabled between connected GPUs 2 and 1. You can repress "
                                      "this message with NCCL_IGNORE_DISABLED_P2P=1.\n", None,
                                      "NVML gives no P2P between PCIe-connected GPUs 2 and 1"),
             "nvls-unavailable": ("NCCL INFO NVLS multicast support is not available on dev 0\n", h100,
                                  "NVLS (NVLink SHARP) is not used")}
    for rule, (line, topology, words) in lines.items():
        hits = [f for f in found(line, topology) if f.id == rule]
        assert hits, (rule, ids(found(line, topology)))
        assert hits[0].what.startswith(words), hits[0].what
        assert " on  " not in hits[0].what and not hits[0].what.startswith(" ") and " on :" not in hits[0].what, \
            hits[0].what
