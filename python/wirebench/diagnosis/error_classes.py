"""What an error line means: NCCL's error classes (ncclResult_t) and the classes of the lines the
error finder reads beside NCCL's (a timeout, a CUDA error, a launcher's, a crash, ...), each with
what it means and the generic next step; and the class a line's own words say."""
import re
from dataclasses import dataclass

from .error_lines import CHAIN  # NCCL's error chain: its code is the class

SOURCE = ("NCCL documentation, API: ncclResult_t and ncclGetErrorString "
          "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html); NCCL documentation, Troubleshooting "
          "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)")
FIRST_FAILED = ("find the first rank that failed (its error comes first in time; a peer's `remote process exited` "
                "or `Connection closed` follows it) and rerun with NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET")



@dataclass(frozen=True)
class ErrorClass:
    name: str
    means: str
    next_step: str


# ncclResult_t by number (nccl.h), what ncclGetErrorString prints for each, and timeouts.
CLASSES = {
    1: ErrorClass("ncclUnhandledCudaError", "a CUDA call inside NCCL failed: the GPU, the driver, or a CUDA "
                  "runtime the driver does not support", "read NCCL's `Cuda failure` WARN before it; check nvidia-smi, "
                  "dmesg for Xid errors, and the driver against the CUDA NCCL was built for"),
    2: ErrorClass("ncclSystemError", "a system call or an external library failed (a socket, /dev/shm, libibverbs, "
                  "memory registration, a device)", "read NCCL's WARN before it: the interface NCCL_SOCKET_IFNAME "
                  "names, /dev/shm's size, ulimit -l, the RDMA devices (ibv_devinfo); " + FIRST_FAILED),
    3: ErrorClass("ncclInternalError", "NCCL met a state it does not expect: often a peer on another NCCL version or "
                  "plugin, or memory corrupted", "check that every rank runs one NCCL and one plugin; with the full "
                  "NCCL_DEBUG=INFO log, report it to NCCL's developers"),
    4: ErrorClass("ncclInvalidArgument", "the program gave NCCL a bad argument (a null or wrong-device buffer, a "
                  "count or datatype NCCL refuses)", "check the call NCCL's WARN names and its buffers' devices"),
    5: ErrorClass("ncclInvalidUsage", "the program used NCCL wrongly: two ranks on one GPU, collectives that differ "
                  "between ranks, a communicator used after an error", "check the rank-to-GPU mapping "
                  "(CUDA_VISIBLE_DEVICES, the local rank) and that every rank calls the same collectives in order"),
    6: ErrorClass("ncclRemoteError", "a peer process exited or the network between the ranks failed",
                  "this rank reports another's failure: " + FIRST_FAILED + "; check the links between the nodes "
                  "(ibstat, the fabric's counters)"),
    "timeout": ErrorClass("timeout", "a collective did not complete in its time: a rank stopped, hung or never "
                          "entered it, or the network stalled", "find the rank that did not reach the collective "
                          "(PyTorch's flight recorder, TORCH_NCCL_DUMP_ON_TIMEOUT=1, py-spy), then its own error; "
                          "check the links"),
    "cuda": ErrorClass("CUDA error", "a CUDA call failed: the GPU, the driver, or the program's kernel",
                       "check nvidia-smi, dmesg for Xid errors, the driver against the CUDA runtime; "
                       "CUDA_LAUNCH_BLOCKING=1 names the failing kernel"),
    "launcher": ErrorClass("launcher error", "the job's launcher or rendezvous failed before or beside NCCL "
                           "(mpirun's ORTE/PRTE daemons, ssh, Slurm's srun, PMIx, PyTorch's Gloo store): a process did "
                           "not start or could not reach another", "check that each node reaches the others as the "
                           "launcher does (ssh without a password, sshd in the container, the MPI runtime on the remote "
                           "PATH or mpirun --prefix, the interface GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME name); run "
                           "`mpirun -np 2 -H a,b hostname` before NCCL"),
    "crash": ErrorClass("crash", "a process died of a signal (a segmentation fault, an abort, a bus error): a bug "
                        "in the program, NCCL or a plugin, or memory the process lost", "read the backtrace lines "
                        "after it (the library they name); note NCCL's and the plugins' versions and rerun with "
                        "NCCL_DEBUG=INFO; a crash inside libnccl on a known version: check its release notes"),
    "loader": ErrorClass("library not found", "the program could not start: the dynamic loader did not find a "
                         "library it is linked against (libnccl, libcudart, a plugin)", "install the package that "
                         "ships it (libnccl2, the CUDA runtime, nvidia-nccl-cu12) or add its folder to "
                         "LD_LIBRARY_PATH; `ldconfig -p | grep NAME` shows what the loader can find"),
    "exited": ErrorClass("a process exited", "the launcher saw a rank's process end with an error or a signal "
                         "(torchrun's ChildFailedError, mpirun's `exited on signal`, srun's task exit); the log shows "
                         "no error line of its own", "read that rank's own output above the launcher's report (its "
                         "first error is the cause); exit code -9 / signal 9 is the kernel's OOM killer or the "
                         "scheduler (dmesg, sacct), -6 / 6 an abort, 11 a segmentation fault; rerun with "
                         "NCCL_DEBUG=INFO"),
    "gloo": ErrorClass("Gloo error", "PyTorch's Gloo backend failed, not NCCL: the CPU collectives and process groups "
                       "a job runs on Gloo beside NCCL's (or instead of it) could not find or bind the address they were "
                       "given, resolved the host to an address of another family than a peer's, or lost a peer",
                       "set GLOO_SOCKET_IFNAME to the interface the hosts reach each other on (`ip -br addr`; the one "
                       "NCCL_SOCKET_IFNAME names), check that the host name resolves to that interface's address on every "
                       "node (`getent hosts $(hostname)`) and to one address family (IPv4 or IPv6) everywhere; where a peer's "
                       "connection closed, " + FIRST_FAILED),
    "mismatch": ErrorClass("library mismatch", "a library was built against another NCCL than the one the loader "
                           "found: the NCCL it needs has a function (the undefined symbol) the loaded libnccl lacks (an "
                           "older libnccl first on LD_LIBRARY_PATH or in a second nvidia-nccl-cu* package)",
                           "find the libnccl loaded (`ldd .../libtorch_cuda.so | grep nccl`, `pip list | grep nccl`, "
                           "LD_LIBRARY_PATH) and keep one NCCL, the version the framework was built for: uninstall the "
                           "other nvidia-nccl package or take the older libnccl off LD_LIBRARY_PATH"),
    "service": ErrorClass("a service failed", "a system service the node's GPUs or network need did not start or "
                          "stopped (nvidia-fabricmanager on NVSwitch systems: without it CUDA says `system not yet "
                          "initialized` and NCCL cannot use NVLink; nvidia-persistenced; an InfiniBand subnet manager)",
                          "read the unit's own log (`journalctl -u UNIT -b`), fix what it says (a Fabric Manager of "
                          "another version than the driver, a masked unit: `systemctl unmask`), restart it and rerun"),
    "kernel": ErrorClass("kernel fault", "the kernel logged a fault below NCCL: the IOMMU refused a device's DMA (GPU "
                         "peer-to-peer writes that VT-d or AMD-Vi does not map)",
                         "read dmesg around it (`dmesg -T | grep -iE 'DMAR|AMD-Vi|Xid'`) and the device it names "
                         "(`lspci -s BUS`); an IOMMU fault on a GPU: boot with iommu=pt and rerun"),
    "fabric": ErrorClass("network library error", "the library below NCCL's or the MPI's transport failed (libfabric "
                         "and its EFA provider, UCX): no device it can open (a container started without /dev/infiniband "
                         "or the EFA devices), memory it cannot lock or allocate (ulimit -l, /dev/shm), a provider older "
                         "than the plugin", "run the library's own probe where the job runs, inside the container "
                         "(`fi_info -p efa`, `ucx_info -d`, `ibv_devinfo`), check `ulimit -l` (unlimited) and "
                         "`df -h /dev/shm` there, and the library versions the plugin was built against"),
    "unread": ErrorClass("an error line no rule reads", "a log with no line of NCCL's, of nccl-tests or of a "
                         "launcher wirebench reads, but this line says an error in words of its own (quoted as it is)",
                         "read it and the lines around it; search its words in NCCL's and the framework's issues"),
    "check": ErrorClass("wrong results", "nccl-tests checked a collective's output and found wrong values",
                        "rerun the size that failed with -c 1 on fewer GPUs to find the GPU or link; check the NCCL "
                        "version's release notes for a fixed bug, dmesg for Xid errors"),
    "memcheck": ErrorClass("invalid memory access (compute-sanitizer)", "a kernel read or wrote memory it may not "
                           "(out of any allocation it can reach, misaligned, or racing another thread): the kernel on "
                           "the report's `at` line did it",
                           "where that kernel is NCCL's (ncclDevFunc_, ncclDevKernel_), NCCL was given a buffer it "
                           "cannot reach: check each collective's count and datatype against its buffers' sizes, that "
                           "the buffers are on the rank's GPU (memory of a pool that belongs to another GPU needs peer "
                           "access) and are not freed before the stream finishes; else note the library's version and "
                           "search its issues for the kernel named"),
    "warn": ErrorClass("NCCL WARN", "NCCL printed a WARN here: a call failed or a setting is wrong",
                       "read the lines after it (NCCL's `file.cc:N -> code` chain names the failing call and its "
                       "class); " + FIRST_FAILED),
}
NAMES = {"unhandled cuda error": 1, "ncclUnhandledCudaError": 1, "unhandled system error": 2, "ncclSystemError": 2,
         "internal error": 3, "ncclInternalError": 3, "invalid argument": 4, "ncclInvalidArgument": 4,
         "invalid usage": 5, "ncclInvalidUsage": 5, "remote process exited": 6, "ncclRemoteError": 6}
CLASS_NAMED = re.compile("|".join(re.escape(name) for name in NAMES))


def class_of(text):
    """(ErrorClass, said) of a line's text: a chain's code, a class named, a timeout, a CUDA error."""
    found = CHAIN.match(text)
    if found and int(found.group(3)) in CLASSES:
        return CLASSES[int(found.group(3))], True
    if re.search(r"Cuda failure|CUDA failure|(?<!unhandled )\b[Cc][Uu][Dd][Aa] (?:runtime )?error|cudaError|CUDA_ERROR",
                 text):
        return CLASSES["cuda"], True  # before the class names: CUDA's own words ('invalid argument') are CUDA's
    found = CLASS_NAMED.search(text)
    if found:
        return CLASSES[NAMES[found.group()]], True
    # a socket's connect timing out (`Connection timed out`, NCCL 2.3's `Call to connect timeout : Connection
    # refused`) is a system error the chain after it names, not a collective's timeout
    if re.search(r"time(?:d)? ?out|timing out", text, re.I) and not re.search(r"[Cc]onnect(?:ion)? timed? ?out", text):
        return CLASSES["timeout"], True
    return CLASSES["warn"], False
