"""The thirty-third and thirty-fourth fresh sets (tests/data/nccl-fresh-2026-12-22, slow-run cases, and -22-b, healthy
logs from threads, measured blind in session 37, bench/MEASUREMENTS.md) and what was written from their false alarms."""
from pathlib import Path

from diagnosis_helpers import found, ids
from wirebench.diagnosis import diagnose, parse, read_log

HEALTHY_AF = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-22-b" / "healthy"
ORIN = HEALTHY_AF / "jetson-containers-1636.log"


def _why(log):
    return [why for _, _, why in log.explained]


def test_jetsons_nvml_warns_and_nvls_off_on_one_gpu_are_not_findings():
    """dusty-nv/jetson-containers#1636: nccl-tests on a Jetson Orin AGX (one integrated GPU, NCCL 2.29.3) with
    NCCL_NVLS_ENABLE=0 on its command line; NVML answers `nvmlDeviceGetP2PStatus(0,0,...) failed: Not Supported` and
    has no device at bus 0000:00:00.0. Read WARN nvls-unavailable and WARN warn-not-in-catalogue: a false alarm. (The
    collector's copy ends at the table's header, which then reads as a test that stopped: the cut-excerpt limit.)"""
    log = read_log(ORIN)
    assert ids(diagnose(log)) == ["nccl-tests-stopped-before-first-size:FAIL@18"]
    why = _why(log)
    assert any(w.startswith("nvls-unavailable: NCCL_NVLS_ENABLE=0 on a job with no two GPUs of one host") for w in why)
    assert any(w.startswith("the log's GPU is integrated (0000:00:00)") for w in why)
    # the same NVML answer where the log shows a GPU on PCIe is still said
    pcie = ORIN.read_text().replace("0000:00:00", "0000:17:00").replace("] Orin", "] NVIDIA A100-SXM4-80GB")
    assert "warn-not-in-catalogue" in [f.id for f in diagnose(parse(pcie, "pcie.log"))]
    # NVLS turned off on eight GPUs of one host is the WARN it was
    eight = "".join(f"h:1:1 [{d}] NCCL INFO comm 0x1 rank {d} nRanks 8 nNodes 1 localRanks 8 localRank {d} MNNVL 0\n"
                    for d in range(8))
    assert ids(found("h:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0\n" + eight)) == \
        ["nvls-unavailable:WARN@1"]


def test_the_ofi_plugins_first_protocol_without_providers_is_one_it_went_on_from():
    """lumi-ai-factory/laifs-container-recipes#28: aws-ofi-rccl on LUMI's Slingshot, its lines pasted without NCCL's
    prefix: `NET/OFI No eligible providers were found` then `NET/OFI Selected provider is cxi ...` and `Using transport
    protocol SENDRECV` (the RDMA protocol had none; the test passed). Read WARN warn-not-in-catalogue before."""
    log = read_log(HEALTHY_AF / "laifs-container-recipes-28.log")
    assert diagnose(log) == []
    assert _why(log) == ["NCCL went on after it: line 5, the same process's plugin selects a provider: NET/OFI "
                         "Selected provider is cxi (a probe of one protocol, not the job)"]
    # with NCCL's prefix, the same process; and where no provider was selected after it, it stays said
    prefixed = ("n1:7:7 [0] NCCL INFO NET/OFI No eligible providers were found\n"
                "n1:7:7 [0] NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)\n")
    assert found(prefixed) == []
    assert found("NET/OFI No eligible providers were found\nNET/OFI Using aws-ofi-rccl 1.4.0\n") != []


IB_ASKED = Path(__file__).resolve().parents[2] / "tests" / "data" / "nccl-fresh-2026-12-22" / "pytorch-111424.log"


def test_infiniband_asked_for_and_no_device_found_is_said_with_the_settings_that_asked():
    """pytorch/pytorch#111424: a Slurm script exporting NCCL_IB_DISABLE=0 and NCCL_IB_CUDA_SUPPORT=1, NCCL then saying
    `NET/IB : No device found.` on node013 (the NeMo container was not given /dev/infiniband; mounting it fixed the
    run). Nothing was said before (session 37's blind measure): a setting the hardware contradicts, no signature."""
    text = IB_ASKED.read_text()
    assert ids(diagnose(read_log(IB_ASKED))) == ["rdma-asked-none-found:WARN@32"]
    finding = diagnose(read_log(IB_ASKED))[0]
    assert "NCCL_IB_DISABLE=0 (line 4)" in finding.what and "on node013" in finding.what
    # without a setting that asks for RDMA, `No device found` is any host without IB: quiet
    plain = "\n".join(line for line in text.splitlines() if "NCCL_IB_" not in line)
    assert "rdma-asked-none-found" not in [f.id for f in diagnose(parse(plain, "plain.log"))]
    # sockets chosen by the job (NCCL_IB_DISABLE=1 after it), or an RDMA network in use (a plugin's), say nothing
    for added in ("node013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
                  "node013:37715:38896 [0] NCCL INFO Using network AWS Libfabric"):
        assert "rdma-asked-none-found" not in [f.id for f in diagnose(parse(text + "\n" + added + "\n", "x.log"))]
