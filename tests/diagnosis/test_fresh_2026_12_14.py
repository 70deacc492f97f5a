"""The nineteenth and twentieth fresh sets (tests/data/nccl-fresh-2026-12-14 and -14-b, measured blind in session 36,
bench/MEASUREMENTS.md) and what was written from them. horovod/horovod#1523's healthy excerpt (NCCL 2.4.7, two nodes on
IB) was cut before the second node's NET/IB line: its NET/Socket line alone (2.4 prints it on every host) read as
that node on sockets, FAIL socket-fallback and network-differs. A node's network before 2.6 is its NET/IB line's."""
from pathlib import Path

from diagnosis_helpers import found as found_in_text
from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, read_log

NINETEENTH = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-14"


def test_a_node_whose_paste_ends_before_its_net_ib_line_has_not_said_its_network():
    assert ids(diagnose(read_log(NINETEENTH / "healthy" / "horovod-1523.log"))) == []
    text = (NINETEENTH / "healthy" / "horovod-1523.log").read_text()
    # the second node saying it found no IB device (NVIDIA/nccl#234's shape): on sockets beside an IB node
    said = ids(found_in_text(text.rstrip("\n") + ".2<0>\nsecondary_node:41:312 [0] NCCL INFO NET/IB : No device found.\n"))
    assert "network-differs:FAIL@5" in said and any(s.startswith("socket-fallback:FAIL") for s in said), said
    # or NCCL_IB_DISABLE set on it
    said = ids(found_in_text(text.rstrip("\n") + ".2<0>\nsecondary_node:41:312 [0] NCCL INFO NCCL_IB_DISABLE set by "
                                                  "environment to 1.\n"))
    assert "network-differs:FAIL@5" in said, said


def test_the_ofi_plugins_info_lines_pasted_bare_are_not_errors():
    """aws-samples/aws-do-eks#54: a summary of NCCL's lines without their prefix; `NET/OFI Using transport protocol RDMA
    (platform set)` was quoted as the error (and given the class of the RuntimeError eleven lines below). The first
    line that says a failure is the error now."""
    said = diagnose(read_log(NINETEENTH.parent / "nccl-fresh-2026-12-14-b" / "aws-do-eks-54.log"))
    assert ids(said) == ["error-not-in-catalogue:FAIL@4"], ids(said)
    assert "NET/OFI No eligible providers were found" in said[0].what
    # aws/aws-ofi-nccl#663's WARN text pasted alone is still an error line (its catalogue entry reads it)
    assert ids(found_in_text("[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. "
                             "RC: 0\n")) == ["efa-peer-unreachable-security-group:FAIL@1"]


def test_a_crash_inside_ncclShmOpen_is_dev_shm_that_cannot_back_it():
    """NVIDIA/JAX-Toolbox#183: gdb's `received signal SIGBUS, Bus error.` and its backtrace in ncclShmOpen (read before
    as an error line no rule reads). The same frame under Open MPI's handler reads the same; a crash elsewhere does not."""
    said = diagnose(read_log(NINETEENTH / "JAX-Toolbox-183.log"))
    assert ids(said) == ["crash-in-nccl-shm-open:FAIL@2"], ids(said)
    assert "its backtrace in ncclShmOpen (line 4)" in said[0].what and "--shm-size=1g" in said[0].fix
    handler = ("[node1:4242] *** Process received signal ***\n[node1:4242] Signal: Bus error (7)\n"
               "[node1:4242] [ 2] /usr/lib/x86_64-linux-gnu/libnccl.so.2(ncclShmOpen+0x1b2)[0x7f0a]\n")
    assert [i.split("@")[0] for i in ids(found_in_text(handler))] == ["crash-in-nccl-shm-open:FAIL"]
    elsewhere = handler.replace("ncclShmOpen", "ncclTransportP2pSetup")
    assert "crash-in-nccl-shm-open" not in " ".join(ids(found_in_text(elsewhere)))
