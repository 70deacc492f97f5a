"""libibverbs' own warning that an RDMA device has no user-space driver: rdma-core's libibverbs/init.c
prints `libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbsN`
when the kernel exposes a device (uverbsN) and no provider library (libmlx5, libefa, ... from rdma-core's
ibverbs-providers or MOFED) in the process' image claims it: typical of a container built without them.
NCCL then finds no usable InfiniBand/RoCE device. Harmless where the job needed none; a cause where it
failed or its data crossed the network."""
from . import errors, nccl_tests
from .error_lines import NO_PROVIDER
from .network_use import network_carries_data, one_host_shown
from .registry import rule



def said(log):
    """(the line, its match) of libibverbs' warning in the log, or None."""
    return next(((o, found) for o in log.others if (found := NO_PROVIDER.search(o.text))), None)


@rule("rdma-provider-missing", "WARN", "any",
      "libibverbs' `Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbsN` "
      "(rdma-core, libibverbs/init.c), where the job failed or its data crossed the network (a run on one host that "
      "worked needed no RDMA device: nothing is said)",
      "the node has an RDMA device but the process' image lacks its user-space driver (libmlx5, libefa: rdma-core's "
      "ibverbs-providers or MOFED), so NCCL cannot open InfiniBand/RoCE: it fails or falls back to TCP sockets",
      "install the providers in the image (Debian/Ubuntu: ibverbs-providers; RHEL: rdma-core; or the host's MOFED "
      "user space, the same version as its driver) and check with ibv_devinfo inside the container",
      "rdma-core libibverbs/init.c (the warning); NVIDIA/nccl-tests#41 (the maintainer: the container lacks the "
      "verbs provider)")
def rdma_provider_missing(r, c):
    warning = said(c.log)
    if warning is None:
        return None
    other, found = warning
    failed = bool(errors.find(c.log))
    alone = not c.log.messages and not nccl_tests.header(c.log) and not nccl_tests.results(c.log)
    one_host = one_host_shown(c.log)
    if not failed and not alone and (one_host or not network_carries_data(c.log)):
        why = ("the log shows the job on one host, which needed no RDMA device" if one_host else
               "the log does not show the job's data crossing the network, nor a failure")
        c.log.explained.append((other.line, other.text.strip(), f"rdma-provider-missing: {why} (WARN where it did)"))
        return None
    because = ("the job failed" if failed else "the job's data crossed the network" if not alone else
               "the paste holds it alone, with nothing that shows it harmless (a job on one host, a run that worked)")
    return r.finding(other.line, f"libibverbs found no user-space driver for {found.group(1)}",
                     f"the node exposes an RDMA device the image has no provider library for, so NCCL cannot use "
                     f"InfiniBand/RoCE here; said because {because}")
