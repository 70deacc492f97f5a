"""A queue pair NCCL's IB transport could not move to its next state with `Invalid argument` (EINVAL), on a
RoCE NIC it did not set up as one: Intel's RDMA adapters (irdma, E810 and X722; i40iw, X722 on older
kernels), or a RoCE device that reports a non-zero LID. NCCL tells RoCE from InfiniBand by the port's LID: a
LID of 0 means RoCE, addressed by its GID; any other, an InfiniBand address by LID (src/transport/net_ib.cc,
ncclIbRtrQp: `if (info->lid == 0) { qpAttr.ah_attr.is_global = 1; ...`), which an Ethernet port refuses.
NVIDIA/nccl#622 (an Intel E810, `rocep216s0f0`, whose ibstat shows `Base lid: 1`; sjeaugey: "In NCCL we expect
RoCE to have a lid of 0, which is actually how we detect that we're using RoCE"; AddyLaddy: "Intel RoCE NICs seem
to use a non-zero lid, causing the code to use the IB code path", fixed in the plugin,
Mellanox/nccl-rdma-sharp-plugins#81) and jax-ml/jax#22740 (`irdma0:1/RoCE`; NVIDIA's diagnosis: the NIC is not
configured properly for RoCE; NCCL_IB_DISABLE=1 ran). Said only where the log names the device and it is of
that family: a Mellanox (mlx5) port's EINVAL has other causes."""
import re

from .registry import rule
from .sources import ENV_DOCS

# NCCL's WARN (misc/ibvwrap.cc, wrap_ibv_modify_qp): `Call to ibv_modify_qp failed with error %s` (strerror),
# later `... with error %s errno %d`, 2.19 on `... failed with %d %s, on dev %s:%d, curr state ...`
QP_EINVAL = re.compile(r"ibv_modify_qp failed with (?:error |22 )?Invalid argument")
ON_DEV = re.compile(r"\bon dev ([\w.-]+):\d+")
# the devices a log names: NCCL's list (`NET/IB : Using [0]irdma0:1/RoCE`), ibstat's `CA 'rocep216s0f0'`,
# ibv_devinfo's `hca_id: irdma0`
DEVICE_SAID = re.compile(r"^\s*CA '([\w.-]+)'|^\s*hca_id:\s*([\w.-]+)")
INTEL = re.compile(r"^(?:irdma|i40iw)\d*$")
# rdma-core's udev name for a RoCE device by its PCI place (rdma_rename NAME_PCI: `rocep<bus>s<slot>f<fn>`): any
# vendor's, so a RoCE device of this family only where the log shows its port's LID non-zero
ROCE_BY_PLACE = re.compile(r"^rocep\d+s\d+f\d+$")
LID = re.compile(r"^\s*(?:Base lid|port_lid):\s*(0x[0-9a-fA-F]+|\d+)\s*$")


def devices(log):
    """{name: line} of the RDMA devices the log names, in its order."""
    out = {}
    for name in (d.split(":")[0] for d in log.ib_devices):
        for part in name.split("+"):  # a fused device's ports
            out.setdefault(part, 0)
    for o in log.others:
        found = DEVICE_SAID.search(o.text)
        if found:
            out.setdefault(found.group(1) or found.group(2), o.line)
    return out


def nonzero_lid(log):
    """(line, LID) of the first non-zero port LID ibstat or ibv_devinfo shows, or None."""
    for o in log.others:
        found = LID.match(o.text)
        if found and int(found.group(1), 0) != 0:
            return o.line, int(found.group(1), 0)
    return None


@rule("roce-nic-qp-invalid", "FAIL", "any",
      "`NCCL WARN Call to ibv_modify_qp failed with error Invalid argument` where the NIC the log names is Intel's "
      "(irdma, i40iw) or a RoCE device (`rocep...`) whose ibstat/ibv_devinfo shows a non-zero LID",
      "a RoCE NIC NCCL's IB transport did not set up as RoCE: NCCL takes a port with a non-zero LID for InfiniBand and "
      "addresses the queue pair by LID, which the Ethernet port refuses (EINVAL); Intel's RoCE NICs report one, or "
      "the NIC is not configured for RoCE",
      "confirm with NCCL_IB_DISABLE=1 (NCCL over sockets runs); check `ibv_devinfo -v`: link_layer Ethernet with a "
      "non-zero port_lid is a RoCE port NCCL reads as InfiniBand, and `show_gids` for a RoCE v2 GID holding the "
      "port's IP address (set NCCL_IB_GID_INDEX to it); install a current rdma-core and Intel's irdma driver, or the "
      "NCCL net plugin with Intel's fix (Mellanox/nccl-rdma-sharp-plugins#81); else run over sockets",
      "NVIDIA/nccl#622 (sjeaugey: NCCL expects RoCE to have a LID of 0, that is how it detects RoCE; AddyLaddy: Intel "
      "RoCE NICs use a non-zero LID, causing the IB code path; fixed in Mellanox/nccl-rdma-sharp-plugins#81); "
      "jax-ml/jax#22740 (irdma0 RoCE: the NIC not configured properly for RoCE; NCCL_IB_DISABLE=1 worked); NCCL "
      f"src/transport/net_ib.cc (ncclIbRtrQp: a LID of 0 means a RoCE peer, by GID), misc/ibvwrap.cc; {ENV_DOCS}: "
      "NCCL_IB_DISABLE, NCCL_IB_GID_INDEX")
def roce_nic_qp_invalid(r, c):
    warn = next((m for m in c.log.messages if m.warn and QP_EINVAL.search(m.text)), None)
    if warn is None:
        return None
    named = ON_DEV.search(warn.text)
    shown = [named.group(1)] if named else list(devices(c.log))
    lid = nonzero_lid(c.log)
    # every device the log names must be of the family: one mlx5 port (or another vendor's) among them says nothing
    if not shown or not all(INTEL.match(d) or (ROCE_BY_PLACE.match(d) and lid) for d in shown):
        return None
    said = ", ".join(shown)
    how = "Intel's RDMA adapter" if all(INTEL.match(d) for d in shown) else \
        f"a RoCE device whose port shows LID {lid[1]} at line {lid[0]}"
    return r.finding(warn.line, f"a queue pair on {said} ({how}) could not be connected: Invalid argument",
                     "NCCL's IB transport did not set this RoCE NIC up as RoCE: it takes a port with a non-zero LID "
                     "for InfiniBand and addresses the queue pair by LID, which the Ethernet port refuses (EINVAL); "
                     "Intel's RoCE NICs report one, or the NIC is not configured for RoCE")
