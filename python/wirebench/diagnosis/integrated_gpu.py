"""GPUs on the SoC, not on PCIe (Jetson's Orin, Thor and Xavier; the DGX Spark's GB10): NVML answers part of what NCCL
asks of it there `Not Supported` (nvmlDeviceGetP2PStatus), and finds no device at the GPU's bus id 0000:00:00.0.
NCCL prints WARNs and goes on (dusty-nv/jetson-containers#1636: NCCL 2.29.3 on a Jetson Orin AGX, nccl-tests ran).
Where the log shows such a GPU these WARNs are said as not findings."""
import re

# nccl-tests' device line (`device  0 [0000:00:00] Orin`), NCCL's busId, or the SoC's name
INTEGRATED = re.compile(r"\[0000:00:00(?:\.0)?\]|\bbusId 0000:00:00\.0\b|\b(?:Orin|Thor|Xavier|NVIDIA GB10)\b")
NVML_ON_SOC = re.compile(r"\bnvmlDeviceGetP2PStatus\(.*\) failed: Not Supported|"
                         r"\bFailed to find nvml device for busId 0000:00:00\.0\b")


def moot_nvml_warn(log, error):
    """Why an NVML WARN says nothing of this job (the log's GPU is integrated), or None."""
    if not NVML_ON_SOC.search(error.said):
        return None
    soc = next((item.text.strip() for item in [*log.others, *log.messages] if INTEGRATED.search(item.text)), None)
    if soc is None:
        return None
    return ("the log's GPU is integrated (" + INTEGRATED.search(soc).group(0).strip("[]") + "): NVML answers NCCL's "
            "queries there `Not Supported` and has no device at bus 0000:00:00.0; NCCL goes on without them")
