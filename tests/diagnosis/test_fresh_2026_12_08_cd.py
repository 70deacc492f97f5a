"""What the seventh and eighth fresh sets (tests/data/nccl-fresh-2026-12-08-c and -08-d, collected blind, measured
once before anything was written from them: bench/MEASUREMENTS.md, session 34) showed the diagnosis did not read,
each read over the library's own printf, not a thread's wording; and every fresh set's healthy logs, where each
new reading stays quiet."""
from pathlib import Path

import pytest

from diagnosis_helpers import ids
from wirebench.diagnosis import diagnose, parse, read_log
from wirebench.importer.paste import Paste

ROOT = Path(__file__).resolve().parents[2]
SEVENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08-c"
EIGHTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08-d"
HEALTHY = sorted(ROOT.glob("tests/data/nccl-fresh-*/healthy/*.log"))


def found(path):
    log = read_log(path)
    return diagnose(log), log


# -- NCCL's last WARN as PyTorch quotes it, on the line after `Last error:` -------------------------------------------

def test_the_line_after_pytorchs_last_error_is_read_as_nccls_last_warn():
    # EvolvingLMMs-Lab/open-r1-multimodal#7: `ncclInternalError ... Last error:` then `[rank0]: Bootstrap : no socket
    # interface found` (NCCLUtils.cpp's getNcclErrorDetailStr: "\nLast error:\n" + ncclGetLastError)
    said, log = found(SEVENTH / "open-r1-multimodal-7.log")
    assert ids(said) == ["bootstrap-interface:FAIL@7", "internal-error-on-old-nccl:WARN@4"]  # the cause first
    [m] = log.messages
    assert (m.warn, m.quoted, m.text, m.host) == (True, True, "Bootstrap : no socket interface found", "")
    f = said[0]
    assert "torch.distributed.DistBackendError" in f.what and "Last error: Bootstrap : no socket" in f.what
    assert "NCCL_SOCKET_IFNAME" in f.fix and "the file holds no line of NCCL's" in f.fix


def test_shm_read_at_the_last_error_line_quotes_pytorchs_error():
    # vllm-project/vllm#6689: the catalogue's shm-too-small now reads NCCL's WARN text itself (line 4)
    said, _ = found(EIGHTH / "vllm-6689.log")
    assert ids(said) == ["shm-too-small:FAIL@4"]
    assert "DistBackendError" in said[0].what and "Last error: Error while creating shared memory segment" in said[0].what


def test_only_the_line_right_after_a_last_error_line_alone_is_read():
    # a flattened paste's inline `Last error: ...` (awslabs/awsome-distributed-ai#192) is not split; nor is a line
    # after another line, nor PyTorch's `Last error: Unknown NCCL Error` when NCCL printed none
    for text in ("x 10: Last error: 10: socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused\n",
                 "Last error: Unknown NCCL Error\nBootstrap : no socket interface found\n",
                 "Last error:\n\nnext\nBootstrap : no socket interface found\n"):
        log = parse(text, "job.log")
        assert [m.text for m in log.messages if m.text.startswith("Bootstrap") or "socketStart" in m.text] == [], text
    log = parse("RuntimeError: NCCL error: unhandled system error\nLast error:\n\nBootstrap : no socket interface "
                "found\n", "job.log")
    assert [m.text for m in log.messages] == ["Bootstrap : no socket interface found"]  # an empty line is no line


# -- ibv_modify_qp's EINVAL on Intel's RoCE NICs (roce_qp_invalid.py) ------------------------------------------------

FIFTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-08"
EINVAL = "node1:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error Invalid argument\n"


def test_einval_on_an_irdma_nic_nccl_lists_names_the_roce_nic():
    # jax-ml/jax#22740: the two lines NVIDIA's reply quoted, in backticks: the WARN and `NET/IB : Using [0]irdma0:1/RoCE`
    said, _ = found(EIGHTH / "jax-22740.log")
    assert ids(said) == ["roce-nic-qp-invalid:FAIL@1"]
    f = said[0]
    assert "irdma0 (Intel's RDMA adapter)" in f.what and "errno 22" in f.what
    assert "NCCL_IB_DISABLE=1" in f.fix and "port_lid" in f.fix and "show_gids" in f.fix and "NCCL_IB_GID_INDEX" in f.fix
    assert "NVIDIA/nccl#622" in f.source and "jax-ml/jax#22740" in f.source and "net_ib.cc" in f.source


def test_einval_on_a_roce_device_whose_ibstat_shows_a_lid_names_the_roce_nic():
    # NVIDIA/nccl#622: the WARN and its chain, then the reporter's ibstat: CA 'rocep216s0f0', Base lid: 1
    said, _ = found(FIFTH / "nccl-622.log")
    assert ids(said) == ["roce-nic-qp-invalid:FAIL@2"]
    assert "rocep216s0f0 (a RoCE device whose port shows LID 1 at line 26)" in said[0].what
    assert "ncclSystemError" in said[0].why  # the chain's code 2, quoted with it


@pytest.mark.parametrize("text", [
    "node1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n" + EINVAL,  # Mellanox's
    "node1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]irdma0:1/RoCE ; OOB eth0:10.0.0.1<0>\n" + EINVAL,  # mixed
    EINVAL + "CA 'rocep216s0f0'\n\tBase lid: 0\n",  # a RoCE device by its PCI place, LID 0: NCCL reads it as RoCE
    EINVAL + "CA 'rocep216s0f0'\n",  # nor where no LID is shown
    EINVAL,  # no device named
    "node1:1:2 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE\nnode1:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to "
    "ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR\n",  # on dev: mlx5
    "node1:1:2 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE\nnode1:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to "
    "ibv_modify_qp failed with error Connection timed out\n",  # another error
])
def test_einval_is_not_said_of_a_roce_nic_the_log_does_not_show(text):
    assert "roce-nic-qp-invalid" not in [f.id for f in diagnose(parse(text, "job.log"))]


def test_nccls_newer_warn_names_the_device_it_failed_on():
    text = ("node1:1:2 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev "
            "irdma1:1, curr state INIT, next state RTR, local GID index 1\n")
    assert ids(diagnose(parse(text, "job.log"))) == ["roce-nic-qp-invalid:FAIL@1"]


# -- the healthy logs of every fresh set ---------------------------------------------------------------------------

NEW = {"bootstrap-interface", "connection-failed", "shm-too-small", "roce-nic-qp-invalid"}


@pytest.mark.parametrize("path", HEALTHY, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_no_new_reading_fires_on_a_healthy_log(path):
    from wirebench.contracts.input_files import InputError
    try:
        said, log = found(path)
    except InputError:
        return  # nothing of NCCL's to read (a launcher's warning alone): refused before, refused now
    assert not any(m.quoted for m in log.messages), path.name
    assert not ({f.id for f in said} & NEW), (path.name, [f.what for f in said if f.id in NEW])


def test_a_paste_flattened_into_one_line_is_split_again_at_the_srun_label_it_repeats():
    """awslabs/awsome-distributed-ai#192: the whole paste one line, srun's `10: ` before each of its lines (read as one
    error no entry knows before). Split again, PyTorch's `Last error:` and NCCL's WARN after it say the failed connect to
    127.0.0.1 (the thread's cause: the interface, NCCL_SOCKET_IFNAME)."""
    said, _ = found(EIGHTH / "awsome-distributed-ai-192.log")
    assert ids(said) == ["connection-failed:FAIL@1"], ids(said)
    assert "127.0.0.1<45069>" in said[0].what and "NCCL_SOCKET_IFNAME" in said[0].fix
    # a line with a label twice is its own text
    once = "torch 10: a 10: b\n"
    assert [line.text for line in Paste.of(once).lines] == ["torch 10: a 10: b"]
