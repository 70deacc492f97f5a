"""Each NCCL_* the log says is set (`NCCL_X set by environment to V`), checked against the hardware
the log (and the node's wiring, where given) shows: a setting that forces a slower path than the
wiring offers, or names a device the log and the wiring show absent. The settings that switch a
transport off outright are structural.py's (transport-disabled, p2p-level, nvls-unavailable,
socket-fallback's evidence)."""

from .log_reader import BRACKETED, IB_LIST  # the reader's own patterns
from .registry import rule
from .structural import ENV_DOCS, settings

GDR_LEVELS = ("LOC", "PIX", "PXB", "PHB", "SYS")  # NCCL_NET_GDR_LEVEL's names, nearest first
GDR_NUMBERS = {"0": "LOC", "1": "PIX", "2": "PXB", "3": "PHB", "4": "SYS", "5": "SYS"}


@rule("gdr-level-below-wiring", "WARN", "network",
      "`NCCL_NET_GDR_LEVEL set by environment to L` nearer than the distance of the node's NICs to their GPUs "
      "(nvidia-smi topo -m)",
      "the setting forbids GPUDirect RDMA on the paths the wiring offers: the network's data is staged through "
      "host memory",
      "unset NCCL_NET_GDR_LEVEL (NCCL allows GPUDirect RDMA up to PXB by default) or set it to the NICs' distance",
      f"{ENV_DOCS}: NCCL_NET_GDR_LEVEL", needs=("topology",))
def gdr_level_below_wiring(r, c):
    for m in settings(c.log).get("NCCL_NET_GDR_LEVEL", [])[:1]:
        value = m.value
        level = GDR_NUMBERS.get(value, value.upper())
        if level not in GDR_LEVELS:
            continue
        nearest = [d for nic in c.wiring.nics.values() for d in nic.values() if d in GDR_LEVELS]
        if nearest and min(GDR_LEVELS.index(d) for d in nearest) > GDR_LEVELS.index(level):
            best = GDR_LEVELS[min(GDR_LEVELS.index(d) for d in nearest)]
            return r.finding(m.line, f"NCCL_NET_GDR_LEVEL={value} forbids GPUDirect RDMA: the node's nearest NIC is "
                                     f"{best} to its GPU", f"NCCL uses GPUDirect RDMA only up to {level}; the wiring "
                                     f"puts every NIC {best} or farther from the GPUs")
    return None


@rule("algo-excludes-nvls", "WARN", "node",
      "`NCCL_ALGO set by environment to ...` without NVLS on GPUs that all sit on NVSwitches (NV18 every pair)",
      "the setting keeps NCCL off NVLS (NVLink SHARP), the fastest all_reduce the wiring offers (about 480 against "
      "370 GB/s of the ring on 8 H100)",
      "unset NCCL_ALGO (NCCL picks NVLS where it is faster), or add NVLS to it",
      f"{ENV_DOCS}: NCCL_ALGO; NVIDIA/nccl-tests#212", needs=("topology",))
def algo_excludes_nvls(r, c):
    for m in settings(c.log).get("NCCL_ALGO", [])[:1]:
        value = m.value
        names = value.lower()
        excluded = names.startswith("^") and "nvls" in names
        if (excluded or (not names.startswith("^") and "nvls" not in names)) and c.wiring.nvswitch_with_nvls():
            return r.finding(m.line, f"NCCL_ALGO={value} keeps NCCL off NVLS on NVSwitch GPUs",
                             "every GPU pair is NV18 on NVSwitches, where NCCL's NVLS all_reduce is the fastest; this "
                             "setting forbids it")
    return None


def _hca_names(value):
    """NCCL_IB_HCA's device names: `^` excludes, `=` asks exact names, `:port` follows a name."""
    value = value.lstrip("^=")
    return [item.split(":")[0] for item in value.split(",") if item]


@rule("setting-names-absent-device", "WARN", "network",
      "`NCCL_IB_HCA set by environment to NAMES` where no name is a device the log's `NET/IB : Using` lists or the "
      "node's wiring has",
      "the setting names RDMA devices this node does not have: NCCL finds none and falls back (another device, or "
      "TCP sockets)",
      "name the node's devices (ibv_devices; NCCL_IB_HCA matches names by prefix: mlx5 takes every mlx5_N), or unset it",
      f"{ENV_DOCS}: NCCL_IB_HCA")
def setting_names_absent_device(r, c):
    for m in settings(c.log).get("NCCL_IB_HCA", [])[:1]:
        value = m.value
        if value.startswith("^"):
            return None  # an exclusion names what not to use: absent is fine
        shown = {d.split(":")[0] for msg in c.log.messages if (found := IB_LIST.search(msg.text))
                 for d in BRACKETED.findall(found.group(1))}
        if c.wiring is not None:
            shown |= set(c.wiring.nics)
        exact = value.startswith("=")
        names = _hca_names(value)
        if not shown or not names:
            return None
        if not any(d == n or (not exact and d.startswith(n)) for n in names for d in shown):
            return r.finding(m.line, f"NCCL_IB_HCA={value} names no device of this node's",
                             f"the node's RDMA devices are {', '.join(sorted(shown))} (the log's NET/IB list"
                             f"{' and nvidia-smi topo -m' if c.wiring is not None else ''})")
    return None
