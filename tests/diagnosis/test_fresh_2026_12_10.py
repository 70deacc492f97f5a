"""What the eleventh and twelfth fresh sets (tests/data/nccl-fresh-2026-12-10 and -10-b, collected blind, measured once
before anything was written from them: bench/MEASUREMENTS.md, session 35) showed the diagnosis did not read, each
read over the printing program's own format; the healthy logs: test_fresh_healthy_logs.py."""
from pathlib import Path

import pytest

from diagnosis_helpers import ids
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import diagnose, read_log

ROOT = Path(__file__).resolve().parents[2]
ELEVENTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-10"
TWELFTH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-10-b"


def found(path):
    return diagnose(read_log(path))


def write(tmp_path, text, name="note.md"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- XLA's quote of NCCL's last WARN, hard-wrapped ----------------------------------------------------------------------

def test_xlas_quote_of_nccls_last_warn_is_read_across_wrapped_lines():
    # AI-Hypercomputer/xpk#492: XLA's `... Last NCCL warning(error) log entry (may be unrelated)  'Error` / `while
    # creating shared memory segment /dev/shm/nccl-TfciGV (size 31850880), error: No space` / `left on device (28)'.`
    # inside a Markdown quote (nccl_api.cc's ToStatus: `Last NCCL warning(error) log entry (may be unrelated) '%s'.`)
    said = found(ELEVENTH / "xpk-492.log")
    assert ids(said) == ["error-not-in-catalogue:FAIL@3", "shm-too-small:FAIL@4"]
    assert "'Error while creating shared memory segment /dev/shm/nccl-TfciGV (size 31850880), error: No space left " \
           "on device (28)'" in said[1].what


def test_a_quote_that_never_closes_takes_no_more_than_its_next_lines(tmp_path):
    # an opening quote with no closing one within 6 lines joins nothing: the line stands alone, as before
    text = ("E0605 failed: INTERNAL: NCCL operation ncclGroupEnd() failed: unhandled system error. Last NCCL "
            "warning(error) log entry (may be unrelated) 'Error\n" + "".join(f"line {k}\n" for k in range(7))
            + "end'\n")
    said = found(write(tmp_path, text, "xla.log"))
    assert [f.id for f in said] == ["error-not-in-catalogue"] and said[0].line == 1


# -- the kernel's IOMMU faults ----------------------------------------------------------------------------------------------

def test_an_iommu_dma_fault_in_dmesg_is_the_cause_of_a_p2p_hang():
    # tensorflow/tensorflow#32654: NCCL's all-reduce hung in gdb; dmesg showed `DMAR: [DMA Write] Request device [02:00.0]
    # fault addr cd139000 [fault reason 05] PTE Write access is not set` (intel_iommu=off fixed it). The excerpt's gdb
    # block lost its closing fence, so the dmesg lines sit outside the note's blocks: a dmesg line is read wherever it is.
    said = found(ELEVENTH / "tensorflow-32654.log")
    assert ids(said) == ["iommu-dma-fault:FAIL@34"]
    assert "device 02:00.0" in said[0].what and "iommu=pt" in said[0].fix


def test_amd_vi_io_page_faults_read_the_same(tmp_path):
    # AMD's IOMMU driver (drivers/iommu/amd/iommu.c): `AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e address=...`
    said = found(write(tmp_path, "[ 1234.567890] amd_iommu: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e "
                                 "address=0xfd000000 flags=0x0020]\n", "dmesg.txt"))
    assert [f.id for f in said] == ["iommu-dma-fault"]


def test_a_dmar_line_that_is_no_fault_is_not_read(tmp_path):
    # the kernel's boot lines name DMAR too (`DMAR: IOMMU enabled`): no error, nothing of NCCL's: refused as before
    with pytest.raises(InputError):
        found(write(tmp_path, "[    0.000000] DMAR: IOMMU enabled\n[    0.012345] DMAR: Host address width 46\n",
                    "dmesg.txt"))


# -- NCCL refusing graph capture ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, line", [("vllm-3069.log", 10), ("lmdeploy-2433.log", 10)])
def test_nccl_built_for_an_old_cuda_cannot_be_captured_in_a_graph(name, line):
    # vllm-project/vllm#3069 (NCCL's WARN: `NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime
    # >= 11.3 or if the installed CUDA driver < R465.`, NCCL 2.19.3+cuda11.0) and InternLM/lmdeploy#2433 (the same
    # text in PyTorch's DistBackendError)
    said = found(TWELFTH / name)
    assert ids(said) == [f"nccl-graph-capture-unsupported:FAIL@{line}"]
    assert "NCCL version X+cudaY" in said[0].fix and "--enforce-eager" in said[0].fix
