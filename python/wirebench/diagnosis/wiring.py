"""The node's wiring as `wirebench topo --json` describes it (topology.json's `nodes[0]`): the
nvidia-smi distance between two GPUs (NV18, PIX, SYS) and from each NIC to each GPU. Some rules
need it: P2P where SHM went, GPUDirect RDMA beside the GPU, NVLS on an NVSwitch, the NICs NCCL left
out."""
import re
from dataclasses import dataclass, field

NVLINKS = re.compile(r"^NV(\d+)$")


@dataclass
class Wiring:
    gpu_pairs: dict = field(default_factory=dict)   # {(0, 1): "NV18"} both ways
    nics: dict = field(default_factory=dict)        # {"mlx5_0": {0: "PIX", 1: "NODE", ...}}

    def gpus(self):
        return sorted({a for a, _ in self.gpu_pairs})

    def pair(self, a, b):
        """The distance between CUDA devices a and b ("NV18", "PIX"), or None where unknown."""
        return self.gpu_pairs.get((a, b))

    def nvswitch_with_nvls(self):
        """Every GPU pair on the same number of NVLinks, NVLink 4 or later (NV18): NVSwitches that
        can reduce (NVLS, Hopper on)."""
        gpus = self.gpus()
        if len(gpus) < 4:
            return False
        for a in gpus:
            for b in gpus:
                found = NVLINKS.match(self.gpu_pairs.get((a, b), "")) if a != b else True
                if a != b and (not found or int(found.group(1)) < 18):
                    return False
        return True


def from_topology(doc):
    """The first node's wiring of a topology.json document, or None where it has no node."""
    nodes = [n for n in (doc or {}).get("nodes", []) if isinstance(n, dict)]
    if not nodes:
        return None
    node = nodes[0]
    wiring = Wiring()
    for link in node.get("links", []):
        a, b = str(link.get("a", "")), str(link.get("b", ""))
        if a.startswith("gpu") and b.startswith("gpu") and a[3:].isdigit() and b[3:].isdigit() and link.get("distance"):
            wiring.gpu_pairs[(int(a[3:]), int(b[3:]))] = wiring.gpu_pairs[(int(b[3:]), int(a[3:]))] = link["distance"]
    for nic in node.get("nics", []):
        distances = {int(g[3:]): d for g, d in (nic.get("distance_to_gpus") or {}).items() if g[3:].isdigit()}
        wiring.nics[nic.get("name", "")] = distances
    return wiring
