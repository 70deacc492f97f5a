"""The log reader (log_reader.py): ported from tests/unit/topology/nccl_log_test.cpp, every case kept:
the network and HCAs, each channel line's transport in every spelling NCCL's versions print, the
old format's bus ids, and a line it does not understand said, never dropped."""
import pytest

from diagnosis_helpers import DATA, parse, read_log
from wirebench.contracts.input_files import InputError


def test_network_and_hcas_from_the_fixture():
    log = read_log(DATA / "ib-network-select.log")
    assert log.network == "IB" and log.ib_devices == ["mlx5_0:1/IB", "mlx5_2:1/IB"] and log.channels == []


def test_every_channel_line_of_the_pcie_fixture_gets_its_transport():
    log = read_log(DATA / "pcie-8gpu-p2p-shm.log")
    assert [c.transport for c in log.channels] == ["P2P", "SHM"]
    first = log.channels[0]
    assert (first.via, first.src_rank, first.dst_rank, first.line) == ("P2P/direct pointer/read", 2, 3, 4)
    assert log.channels[1].device == 3
    assert log.rings[0] == [0, 1, 2, 3, 4, 5, 6, 7] and len(log.rings) == 2
    assert log.trees == ["1/-1/-1->0->-1", "1/-1/-1->0->-1"] and log.problems == []


def test_old_format_with_bus_ids():
    log = read_log(DATA / "old-format-bus-ids.log")
    assert len(log.channels) == 4 and all(c.old_format for c in log.channels)
    assert log.channels[0].transport == "P2P"
    assert (log.channels[2].src, log.channels[2].dst, log.channels[2].channel) == ("c7000", "87000", 1)
    assert log.channels[3].transport == "SHM"  # "via direct shared memory"


def test_network_transports_with_and_without_gdrdma():
    log = read_log(DATA / "multinode-net.log")
    assert len(log.channels) == 5
    assert (log.channels[0].transport, log.channels[0].gdrdma, log.channels[0].net_device) == ("NET/IB", True, 0)
    assert not log.channels[1].gdrdma and log.channels[2].net_device == 1
    assert (log.channels[3].transport, log.channels[3].host) == ("P2P", "gpu-b")
    assert len(log.ib_devices) == 3 and log.rings[0] == [0, 1, 2, 3]


def test_every_spelling_of_nccls_versions_is_read():
    log = parse("h:1:2 [0] NCCL INFO Ring 00 : 3[3] -> 2[2] via P2P/IPC\n"                      # before 2.8, old ids
                "h:1:2 [0] NCCL INFO Ring 01 : 0[1b000] -> 1[1c000] via direct shared memory\n"
                "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/IPC/read\n"             # 2.8 to 2.11
                "h:1:2 [0] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read\n"         # 2.19 on
                "h:1:2 [0] NCCL INFO Channel 01/0 : 2[2] -> 3[3] via SHM/direct/direct\n"
                "h:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
                "h:1:2 [0] NCCL INFO Channel 03/0 : 8[0] -> 0[0] [receive] via NET/IBext_v8/1/GDRDMA\n"  # the IB plugin
                "h:1:2 [0] NCCL INFO Channel 04/0 : 0[0] -> 8[0] [send] via NET/IBext/2\n"
                "h:1:2 [0] NCCL INFO NET/IBext_v8 : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB ; OOB ib0:10.0.0.1<0>\n"
                "h:1:2 [0] NCCL INFO NVLS multicast support is available on dev 0\n"
                "h:1:2 [0] NCCL INFO NVLS comm 0x55 headRank 0 nHeads 8 buffSize 4194304 memSize 2097152\n"
                "h:1:2 [0] NCCL INFO Connected NVLS tree\n"
                "h:1:2 [0] NCCL INFO 16 coll channels, 16 nvls channels, 16 p2p channels, 16 p2p channels per peer\n",
                "v.log")
    assert log.problems == []
    assert [c.transport for c in log.channels] == ["P2P", "SHM", "P2P", "P2P", "SHM", "NET/IB", "NET/IB", "NET/IB"]
    assert log.channels[0].old_format and log.channels[1].old_format and not log.channels[3].old_format
    assert log.channels[1].src == "1b000"
    assert log.channels[5].gdrdma and log.channels[6].gdrdma and not log.channels[7].gdrdma
    assert (log.channels[6].net_device, log.channels[7].net_device) == (1, 2)
    assert len(log.ib_devices) == 3


def test_understood_or_said_so():
    log = parse("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
                "h:1:2 [0] NCCL INFO Channel 00/0 : zero -> one via P2P/IPC\n"
                "h:1:2 [0] NCCL INFO Bootstrap : Using eth0\n"
                "unrelated line\n", "x.log")
    assert len(log.channels) == 1
    assert len(log.problems) == 1 and "x.log:2: channel line not understood" in log.problems[0]
    with pytest.raises(InputError, match=r"^bin.log:1: not text: byte 0x00"):
        parse("a\0b", "bin.log")


def test_a_log_written_by_powershell_is_read_as_utf16(tmp_path):
    """NVIDIA/nccl#975's log (tests/data/nccl/ORIGINS.md) as Windows PowerShell 5.1's `>` writes a
    redirected output: UTF-16LE with its byte-order mark, CRLF line ends. It was refused: 'byte 0
    (0xff) is not UTF-8 text'. Another encoding is refused naming the line and the iconv."""
    utf8 = read_log(DATA / "nccl-975-socket-abort.log")
    utf16 = tmp_path / "nccl-975.log"
    utf16.write_bytes((DATA / "nccl-975-socket-abort.log").read_text().replace("\n", "\r\n").encode("utf-16"))
    log = read_log(utf16)
    assert [(m.line, m.text) for m in log.messages] == [(m.line, m.text) for m in utf8.messages]
    latin1 = tmp_path / "latin1.log"
    latin1.write_bytes("gpu-a:1:1 [0] NCCL INFO NET/Socket : Using [0]caf\u00e9:10.0.0.1<0>\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1.log:1: 0xe9 is not UTF-8 text.*iconv"):
        read_log(latin1)
