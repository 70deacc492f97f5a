"""NCCL 2.0-2.2's lines (released as binaries only; NCCL's repository goes from v1.3.4 to v2.3.5,
whose debug.h added `NCCL ` before INFO and WARN): `host:pid:tid [dev] INFO ...` without `NCCL`,
as NVIDIA/nccl#187 posted them (a train case of the corpus), and the rule they make possible."""
import csv

from diagnosis_helpers import DATA, ROOT, diagnose, found, ids, parse, read_log

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
NCCL_187 = CORPUS / "nccl-187.log"


def test_nccl_187_is_a_train_case():
    rows = {row["file"]: row for row in csv.DictReader((CORPUS / "index.csv").open())}
    assert rows["nccl-187.log"]["split"] == "train"


def test_nccl_2_2s_info_lines_are_nccls():
    """Its seven INFO lines were other lines: no channel, no ring, only PyTorch's error read."""
    log = read_log(NCCL_187)
    assert len(log.messages) == 7 and {m.host for m in log.messages} == {"learngpu060"}
    assert [(c.src_rank, c.dst_rank, c.transport) for c in log.channels] == [
        (2, 3, "P2P"), (4, 5, "P2P"), (1, 2, "P2P"), (3, 7, "P2P"), (7, 4, "P2P"), (6, 10, "P2P")]
    assert log.rings == [[0, 1, 2, 3, 7, 4, 5, 6, 10, 8, 9, 11, 15, 12, 13, 14, 18, 16, 19, 17]]
    assert log.messages[1].pid == "3728589" and log.messages[1].device == 2 and not log.messages[1].warn
    # a program's own INFO line (a logger's) is not NCCL's: the whole line must be NCCL's prefix and INFO
    other = parse("2019-02-11 10:01:02,345 INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
                  "trainer INFO learngpu060:1:2 [0] INFO started\n", "x")
    assert other.messages == [] and other.channels == []


def test_p2p_to_a_rank_of_another_host_is_said_with_the_gpu_that_shows_it():
    """NVIDIA/nccl#187: rank 6 sends to rank 10 via P2P/IPC, but GPU [2] of learngpu060 is rank 2's:
    rank 10 is on another host NCCL took for this one (hostnames equal up to the first dot)."""
    said = diagnose(read_log(NCCL_187))
    assert ids(said) == ["error-not-in-catalogue:FAIL@3", "p2p-to-another-host:FAIL@10"]
    assert "GPU [2] of learngpu060 is rank 2's" in said[1].what and "NVIDIA/nccl#187" in said[1].source


def test_p2p_inside_hosts_and_repeated_brackets_say_nothing():
    # every rank's device 0 (CUDA_VISIBLE_DEVICES per rank): the brackets are no GPU's identity
    one_each = ("h:1:1 [0] INFO Ring 00 : 0[0] -> 1[0] via P2P/IPC\n"
                "h:2:2 [0] INFO Ring 00 : 1[0] -> 2[0] via P2P/IPC\n"
                "h:3:3 [0] INFO Ring 00 : 2[0] -> 5[0] via P2P/IPC\n")
    assert found(one_each) == []
    # a ring inside one host (NCCL 2.19's nvmlDev) and the rank after it on another host over the network
    inside = ("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
              "h:2:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read\n"
              "h:3:3 [2] NCCL INFO Channel 00/0 : 2[2] -> 3[3] via P2P/CUMEM/read\n"
              "h:4:4 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[0] [send] via NET/IB/0/GDRDMA\n")
    assert [f for f in found(inside) if f.id == "p2p-to-another-host"] == []
    for log in sorted(DATA.glob("*.log")):
        if log.name != "a3-mega-tcpxo-exports.log":
            assert not [f for f in diagnose(read_log(log)) if f.id == "p2p-to-another-host"], log.name
