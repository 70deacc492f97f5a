"""Session 39's blind sets (tests/data/nccl-fresh-2026-12-28, -28-b, -29: measured once before anything was written
from them, bench/MEASUREMENTS.md) and what was written from their misses: a line of NCCL's words without NCCL's prefix
that a FAIL entry of the catalogue reads is an error line (it was read as nothing, and a file of it alone refused);
PyTorch's older and source-line spellings; CUDA's error 217 as PyTorch's `Last error:` quotes it; a NIC without a PCI
bus id; libfabric's EFA provider as evidence of RDMA beside NET/Socket."""
from pathlib import Path

import pytest

from diagnosis_helpers import found
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, errors, parse, read_log

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
SET_29 = DATA / "nccl-fresh-2026-12-29"


def ids(findings):
    return [f.id for f in findings]


def test_nccls_warn_text_without_its_prefix_is_read_where_an_entry_reads_it():
    """ray-project/ray#48012: the code block holds NCCL's WARN text alone, `Duplicate GPU detected : rank 0 and rank 1
    both on CUDA device 3b000` (two Ray Train workers with fractional GPUs below 0.5 on one GPU). It was refused: no
    line of NCCL's, no error line."""
    said = diagnose(read_log(SET_29 / "ray-48012.log"))
    assert ids(said) == ["duplicate-gpu"] and said[0].verdict == "FAIL"
    assert '"Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 3b000"' in said[0].what


def test_a_line_is_an_error_by_the_catalogue_only_where_a_fail_entry_reads_it(tmp_path):
    bare = "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 3b000\n"
    assert [e.kind for e in errors.find(parse(bare, "x"))] == ["catalogued"]
    # prose without an entry's words is no error: a file of it alone is still refused
    prose = tmp_path / "prose.log"
    prose.write_text("We saw the GPUs duplicated in the dashboard yesterday.\n")
    with pytest.raises(InputError):
        read_log(prose)
    # the catalogue given to diagnose decides: without an entry reading it, the line is no finding
    assert diagnose(parse(bare, "x"), entries=[]) == []


def test_pytorchs_source_line_of_the_raise_names_a_build_without_nccl():
    """PlayVoice/whisper-vits-svc#97: the traceback's source line, whose message is two string literals
    (`raise RuntimeError("Distributed package doesn't have NCCL " "built in")`); the reporter was on Windows."""
    said = diagnose(read_log(SET_29 / "whisper-vits-svc-97.log"))
    assert ids(said) == ["pytorch-built-without-nccl"] and "gloo" in said[0].fix


def test_pytorch_1x_words_for_a_port_in_use_are_the_rendezvous_port():
    """huggingface/accelerate#508: `RuntimeError: Address already in use` from a second script while the first held the
    port (sgugger: give the second another port; --main_process_port fixed it)."""
    said = diagnose(read_log(SET_29 / "accelerate-508.log"))
    assert ids(said) == ["rendezvous-port-in-use"] and "--master_port" in said[0].fix
    # NCCL's own proxy socket in use is another entry's (uds-bind-address-in-use), not PyTorch's store
    uds = "node:1:2 [0] misc/socket.cc:540 NCCL WARN UDS: Binding to socket 4c3f failed : Address already in use (98)\n"
    assert "rendezvous-port-in-use" not in ids(found(uds))


def test_cuda_error_217_as_pytorch_quotes_it_is_gpus_without_peer_access():
    """NovaSky-AI/SkyRL#108: `Last error:` then `Cuda failure 217 'peer access is not supported between these two
    devices'` on L4/L40S under NCCL 2.26.2; the merged fix turns P2P and SHM off where peer access is missing."""
    said = diagnose(read_log(SET_29 / "SkyRL-108.log"))
    assert ids(said) == ["nccl-peer-access-unsupported"]
    assert "NCCL_CUMEM_HOST_ENABLE=0" in said[0].fix and "NCCL_P2P_DISABLE=1" in said[0].fix
    # NCCL's own line from shm.cc stays the exacter entry's, alone (NVIDIA/nccl#1838)
    shm = ("9b405963aa12:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda failure 217 'peer access is not supported "
           "between these two devices'\n")
    assert ids(found(shm)) == ["cumem-host-without-p2p"]


def test_a_nic_without_a_pci_bus_id_is_named():
    """NVIDIA/nccl#1125: `graph/xml.h:85 NCCL WARN Attribute busid of node nic not found` after `network path ... is not
    a PCI device (usb)` (a USB network device, which NCCL before 2.20 did not handle)."""
    said = diagnose(read_log(SET_29 / "nccl-1125.log"))
    nic = [f for f in said if f.id == "nic-without-pci-busid"]
    assert nic and nic[0].verdict == "FAIL" and "2.20" in nic[0].fix and "NCCL_TOPO_FILE" in nic[0].fix


def test_libfabrics_efa_provider_beside_socket_channels_is_the_socket_fallback():
    """aws/aws-k8s-tester#473: on a bad AMI libfabric's EFA provider could not register CUDA buffers, and the job's
    channels went via NET/Socket/0 (about 1 GB/s). Nothing was said before: no NCCL line names an RDMA device."""
    said = diagnose(read_log(SET_29 / "aws-k8s-tester-473.log"))
    assert ids(said) == ["socket-fallback"]
    assert "libfabric's EFA provider logs on the job's nodes (line 6: libfabric:22:1725400706::efa:domain:" in said[0].why
    assert "aws-ofi-nccl" in said[0].fix and "NCCL_IB_DISABLE" not in said[0].fix  # EFA's path, not InfiniBand's
    # a healthy EFA run whose libfabric logs the provider, and whose channels go over the OFI plugin, stays quiet
    healthy = DATA / "nccl-fresh-2026-12-17" / "healthy" / "awsome-distributed-training-slurm-104.log"
    assert "socket-fallback" not in ids(diagnose(read_log(healthy)))


def test_an_nccl_symbol_the_loaded_libnccl_lacks_is_named_as_another_nccl_loaded():
    """GoogleCloudPlatform/scientific-computing-examples#157: `libtorch_cuda.so: undefined symbol: ncclCommResume`
    (torch 2.13 needs NCCL 2.29+; the image's nvidia-nccl-cu12 2.21.5 loaded first). It was said as an error of the
    library-mismatch class the catalogue did not know."""
    said = diagnose(read_log(DATA / "nccl-fresh-2026-12-28-b" / "scientific-computing-examples-157.log"))
    assert ids(said) == ["nccl-symbol-missing"] and "ldd" in said[0].fix


def test_an_efa_device_named_in_nccls_own_lines_gets_efas_fix_too():
    # the OFI plugin's line naming the provider (aws-ofi-nccl's `Selected Provider is efa`), then sockets across two
    # hosts: the evidence is EFA's, so is the fix (the InfiniBand fix's NCCL_IB_HCA and ibv_devinfo do not apply)
    text = ("a:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)\n"
            "a:1:1 [0] NCCL INFO Using network Socket\n"
            "b:2:2 [0] NCCL INFO Using network Socket\n"
            "a:1:3 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n")
    f = next(f for f in found(text) if f.id == "socket-fallback")
    assert "the log names an RDMA device, efa" in f.why and "aws-ofi-nccl" in f.fix and "ibv_devinfo" not in f.fix
    mlx = found(text.replace("Selected Provider is efa (found 4 nics)", "IB device mlx5_0 port 1 not active"))
    assert "ibv_devinfo" in next(f for f in mlx if f.id == "socket-fallback").fix
