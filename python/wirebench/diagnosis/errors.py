"""The error-line finder: never silent on an error. The first error of each rank becomes a
finding, whether the catalogue knows it or not: an NCCL `WARN` line, an error chain of NCCL's
(`transport/net.cc:592 -> 2`), NCCL's own `NCCL error ...: <class>` text, NCCL 1.x's `NCCL Init
failed (10) '...'`, nccl-tests' `Test NCCL failure` / `Test CUDA failure common.cu:941 '...'` /
`Test timeout (30s) common.cu:N`, its data check (`Out of bounds values : 2 FAILED`, a result row
whose #wrong is not 0), a launcher's error (mpirun's ORTE/PRTE, ssh, Slurm's srun, PMIx, Gloo),
PyTorch's `DistBackendError`, its ProcessGroupNCCL watchdog's timeout and its `Last error:` text, a
CUDA error string, a process's death by a signal (Open MPI's handler), a library the loader did not find. Each is quoted verbatim with its line, with what NCCL's error class means and the
generic next step; the rank is NCCL's `host:pid`, PyTorch's `[rankN]`, nccl-tests' host, else the
program's output as one."""
import re
from dataclasses import dataclass

from .nccl_tests import RESULT, SUMMARY  # nccl-tests' result row and summary, as its reader reads them
from . import nccl_tests


def _table_seen(log):
    """nccl-tests' results or its header: a table (or one that stopped) is not an unread error."""
    return bool(nccl_tests.results(log)) or nccl_tests.stopped_before_a_result(log)

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
    "unread": ErrorClass("an error line no rule reads", "a log with no line of NCCL's, of nccl-tests or of a "
                         "launcher wirebench reads, but this line says an error in words of its own (quoted as it is)",
                         "read it and the lines around it; search its words in NCCL's and the framework's issues; "
                         "rerun with NCCL_DEBUG=INFO so NCCL's own lines say what it did"),
    "check": ErrorClass("wrong results", "nccl-tests checked a collective's output and found wrong values",
                        "rerun the size that failed with -c 1 on fewer GPUs to find the GPU or link; check the NCCL "
                        "version's release notes for a fixed bug, dmesg for Xid errors"),
    "warn": ErrorClass("NCCL WARN", "NCCL printed a WARN here: a call failed or a setting is wrong",
                       "read the lines after it (NCCL's `file.cc:N -> code` chain names the failing call and its "
                       "class); " + FIRST_FAILED),
}
NAMES = {"unhandled cuda error": 1, "ncclUnhandledCudaError": 1, "unhandled system error": 2, "ncclSystemError": 2,
         "internal error": 3, "ncclInternalError": 3, "invalid argument": 4, "ncclInvalidArgument": 4,
         "invalid usage": 5, "ncclInvalidUsage": 5, "remote process exited": 6, "ncclRemoteError": 6}
CLASS_NAMED = re.compile("|".join(re.escape(name) for name in NAMES))

# NCCL's error chain: an INFO line of a source location and the code it returns
CHAIN = re.compile(r"^(\S+\.(?:cc|cu|cpp|h)):(\d+) -> (\d+)\b")
# A line of the program's output that says an error (no NCCL prefix), with the rank it names
OTHER_ERRORS = (
    (re.compile(r"^(?:(?P<host>[\w.-]+): )?Test (?:NCCL|CUDA) failure \S+:\d+ '.*'"), "tool"),     # nccl-tests
    (re.compile(r"^(?:(?P<host>[\w.-]+): )?(?:NCCL|Cuda) failure \S+:\d+ '.*'"), "tool"),         # before 2.0
    (re.compile(r"\bNCCL [Ee]rror\b.*"), "pytorch"),                                             # NCCL's text
    (re.compile(r"\bDistBackendError\b.*"), "pytorch"),
    (re.compile(r"\bWatchdog caught collective operation timeout\b.*"), "timeout"),
    # PyTorch's ProcessGroupNCCL lines that come without the watchdog's timeout line: a failed or timed-out
    # work's handleException, 2.4's `Exception (either an error or timeout) detected by watchdog at work: N`,
    # 2.1-2.2's `Timeout at NCCL work: N, last enqueued NCCL work: N`, the heartbeat monitor's
    # `ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress`
    (re.compile(r"\bSome NCCL operations have failed or timed out\b.*"), "pytorch"),
    (re.compile(r"\bException \(either an error or timeout\)(?: detected\b.*|\s*$)"), "pytorch"),  # a paste may wrap it
    (re.compile(r"\bTimeout at NCCL work: \d+.*"), "timeout"),
    (re.compile(r"\bProcessGroupNCCL's watchdog got stuck for \d+ seconds\b.*"), "timeout"),
    # A process killed by a signal, as Open MPI's handler prints it (`[host:pid] *** Process received signal ***`,
    # then `[host:pid] Signal: Segmentation fault (11)`), and the loader's missing library (glibc's ld.so:
    # `PROG: error while loading shared libraries: libnccl.so.2: cannot open shared object file: ...`)
    (re.compile(r"\*\*\* Process received signal \*\*\*.*|(?:^|\] )Signal: [A-Z][\w ]+ \(\d+\)\s*$"), "crash"),
    (re.compile(r"\berror while loading shared libraries: \S+: .*"), "loader"),
    # the shell's and Python's words for a process killed by a signal (`... 4242 Bus error (core dumped) python
    # train.py`: a DataLoader's /dev/shm too small; `Fatal Python error: Segmentation fault`)
    # UCX's and HPC-X's handler among NCCL's lines: `[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error:
    # nonexistent physical address)` (a /dev/shm segment that cannot be backed: msr-fiddle/pipedream#76)
    (re.compile(r"\bCaught signal \d+ \([A-Z][^)]*\).*"), "crash"),
    (re.compile(r"\b(?:Bus error|Segmentation fault|Aborted|Floating point exception|Illegal instruction)\s+"
                r"\(core dumped\).*|\bFatal Python error: (?:Segmentation fault|Aborted|Bus error)\b.*"), "crash"),
    (re.compile(r"\bnccl(?:UnhandledCuda|System|Internal|InvalidArgument|InvalidUsage|Remote)Error\b.*"), "pytorch"),
    (re.compile(r"\bNCCL failure\b.*"), "program"),                                              # XGBoost's, ...
    # NCCL 1.x's end of init: `NCCL Init failed (10) 'cuda malloc failed'` (its codes differ from 2.x's)
    (re.compile(r"\bNCCL Init failed \(\d+\) '.*'.*"), "program"),
    # nccl-tests' data check: `# Out of bounds values : 2 FAILED` (its class: wrong results), and a result row
    # whose out-of-place or in-place #wrong is not 0 (src/common.cu's Reporter: `%12li  %12li  %8s  %6s  %6i`,
    # then `  %7s  %6.2f  %6.2f  %5li` twice; an in-place #wrong may be N/A): a run cut before its summary says it
    (re.compile(r"\bOut of bounds values\s*:\s*[1-9]\d*\s+FAILED\b.*"), "check"),
    (re.compile(r"^\s*\d+\s+\d+\s+\w+\s+\w+\s+-?\d+\s+\S+\s+[\d.]+\s+[\d.]+\s+"
                r"(?:[1-9]\d*\s+\S+\s+[\d.]+\s+[\d.]+\s+(?:\d+|N/A)|(?:0|N/A)\s+\S+\s+[\d.]+\s+[\d.]+\s+[1-9]\d*)\s*$"),
     "check"),
    # nccl-tests' -T timeout: `HOST: Test timeout (30s) common.cu:421` (src/common.cu's printf)
    (re.compile(r"^(?:(?P<host>[\w.-]+): )?Test timeout \(\d+s\) \S+:\d+.*"), "tool"),
    # a launcher's own error text, no NCCL line beside it (the job never reached NCCL): a missing remote
    # program (`bash: orted: command not found`, `/usr/sbin/sshd: No such file or directory`), ssh's,
    # Open MPI's ORTE/PRTE daemons', Slurm's srun's (not its report of a task's exit), PMIx's, PyTorch's Gloo store's
    (re.compile(r"\b(?:orted|prted|sshd|ssh|hydra_pmi_proxy|pmi_proxy): (?:command not found|No such file or directory)"
                r".*"), "launcher"),
    (re.compile(r"^ssh: (?:connect to host|Could not resolve hostname).*|Permission denied \(publickey.*"), "launcher"),
    # ssh refusing a node's changed or unknown host key (mpich#4712), Open MPI's `There are not enough slots
    # available in the system to satisfy the N slots` (more ranks than the hostfile gives)
    (re.compile(r"^Host key verification failed\..*|\bThere are not enough slots available in the system\b.*"),
     "launcher"),
    (re.compile(r"\b(?:ORTE|PRTE) (?:was unable to reliably start|has lost communication with)\b.*"), "launcher"),
    (re.compile(r"^srun: error: (?!.*\btask \d+: (?:Exited|Killed|Terminated)|.*Terminating).*"), "launcher"),
    (re.compile(r"\bPMIX ERROR: .*|\bOPAL ERROR: .*"), "launcher"),  # Open MPI's runtime under srun: its PMIx client
    # PyTorch's Gloo store on a host whose name resolves to no local address: it falls back to 127.0.0.1, so
    # the ranks of another node dial their own loopback (awslabs/aws-do-eks#50)
    (re.compile(r"\bUnable to resolve hostname to a \(local\) address\. Using the loopback.*"), "launcher"),
    (re.compile(r"\bGloo connectFullMesh failed\b.*"), "launcher"),
    # PyTorch's rendezvous: `torch.distributed.DistNetworkError: The server socket has failed to listen on any
    # local network address. port: 29500, ... EADDRINUSE` (vllm-project/vllm#39015), its store's DistStoreError
    (re.compile(r"\bDist(?:Network|Store)Error\b.*"), "launcher"),
    # XLA's (JAX, TensorFlow): `NCCL operation ncclAllReduce(...) failed: invalid argument`; TensorFlow's
    # MirroredStrategy on a build without NCCL: `No OpKernel was registered to support Op 'NcclAllReduce'`
    (re.compile(r"\bNCCL operation \w+\(.*\) failed: .*"), "program"),
    (re.compile(r"\bNo OpKernel was registered to support Op 'Nccl\w+'.*"), "program"),
    # a program's own report of an NCCL call's result, as Horovod and most C++ callers word it:
    # `ncclCommInitRank failed: unhandled cuda error` (horovod's docs/troubleshooting.rst)
    (re.compile(r"\bnccl[A-Z]\w* failed: .*"), "program"),
    # PyTorch's rendezvous of the NCCL id through its store, where a rank never got it: `[1] is setting up NCCL
    # communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0')
    # got error: Socket Timeout` (rank 0 died or never got there)
    (re.compile(r"\bis setting up NCCL communicator and retrieving [Nn]cclUniqueId\b.*"), "launcher"),
    # PyTorch's init_process_group(backend="nccl") on a build without NCCL (Windows, macOS):
    # `RuntimeError: Distributed package doesn't have NCCL built in`
    (re.compile(r"\bDistributed package doesn't have NCCL built in\b.*"), "program"),
    # aws-ofi-nccl's WARN text as PyTorch quotes it on the line after `Last error:` (read there as that error's),
    # pasted alone: `[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0`
    # (aws/aws-ofi-nccl#663)
    (re.compile(r"^(?:\[rank\d+\]:\s*)?NET/OFI \S.*"), "pytorch"),
    # CUDA's own error strings: PyTorch's `CUDA error: ...` and `cuda runtime error (101) : ...`, vLLM's
    # `Cuda error FILE:LINE '...'`, the enums' names
    (re.compile(r"\b[Cc][Uu][Dd][Aa] (?:runtime )?error\b.*|\bcudaError[A-Z]\w+.*|\bCUDA_ERROR_[A-Z_]+.*"), "cuda"),
    # PyTorch 1.x's `THCudaCheck FAIL file=... line=47 error=100 : no CUDA-capable device is detected`, and its
    # CUDA initialisation failing: `Unexpected error from cudaGetDeviceCount(). ... Error 804: forward compatibility
    # was attempted on non supported HW` (a UserWarning: the process goes on without a GPU)
    (re.compile(r"\bTHCudaCheck FAIL\b.*|\bUnexpected error from cudaGetDeviceCount\(\).*|\bCUDA out of memory\b.*"),
     "cuda"),
    # the GPU or its driver gone from under the job: NVML inside a container that lost its devices
    # (`Failed to initialize NVML: Unknown Error`), a GPU off the PCIe bus (dmesg's Xid 79 `GPU has fallen off the
    # bus`, nvidia-smi's `... GPU is lost. Reboot the system to recover this GPU`)
    (re.compile(r"\bFailed to initialize NVML: .*|\bGPU has fallen off the bus\b.*|: GPU is lost\b.*"), "cuda"),
    # PyTorch's NCCL process group given a CPU tensor (`RuntimeError: Tensors must be CUDA and dense`)
    (re.compile(r"\bTensors must be CUDA and dense\b.*"), "pytorch"),
    # PyTorch's own words where a rank cannot use CUDA at all: a worker forked after its parent initialised CUDA
    # (`RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use
    # the 'spawn' start method`, vLLM's workers), and the NCCL process group in a process that sees no GPU
    # (`RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!`)
    (re.compile(r"\bCannot re-initialize CUDA in forked subprocess\b.*|"
                r"\bProcessGroupNCCL is only supported with GPUs\b.*"), "cuda"),
    # A launcher's report that a rank's process ended badly: a consequence, said only where the log holds no
    # error line of its own (find()). torchrun's `torch.distributed.elastic.multiprocessing.errors.ChildFailedError`,
    # Open MPI's `mpirun noticed that process rank 0 with PID 21583 on node n316 exited on signal 6 (Aborted).` and
    # `Primary job  terminated normally, but 1 process returned a non-zero exit code`, Slurm's `srun: error: node1:
    # task 0: Exited with exit code 1`
    (re.compile(r"\bChildFailedError\b.*|\bmpirun noticed that process rank \d+\b.*|\bPrimary job\s+terminated "
                r"normally, but \d+ process(?:es)? returned\b.*|^srun: error: \S+: tasks? [\d,-]+: (?:Exited with exit "
                r"code [1-9]|Killed|Terminated).*"), "exited"),
)
# Open MPI's runtime (its PMIx and OPAL layers) prints errors that many runs go on from: `PMIX ERROR: BAD-PARAM in
# file base/bfrop_base_unpack.c at line 692` on every rank of a job that completes (open-mpi/ompi#8548: "the program
# doesn't stop"; #10902: all tests pass; #11964: the job finishes; NVIDIA/nccl-tests#190: a successful run). Such a
# line is an error only where the job did not go on after it: no later line shows NCCL's init completing, a channel
# connecting or a result of nccl-tests (hpc/charliecloud's doc/faq.rst: `0 (out of 1) procs` and the PMIX ERROR
# last; NVIDIA/deepops#642: OPAL ERROR in the PMIx client, no process started).
RUNTIME_NOISE = re.compile(r"\bPMIX ERROR: |\bOPAL ERROR: ")
WENT_ON = re.compile(r"\bInit COMPLETE\b|^Connected all (?:rings|trees)\b| via (?:P2P|SHM|NET|COLLNET)/|^(?:Channel|Ring) "
                     r"\d+(?:/\d+)? : \d+ .* via ")
# Where a log holds nothing else to read: a Python exception's line (`ValueError: ...`, the end of a
# traceback), else a line that says an error in plain words
UNREAD = (re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?:\s*:.*|\s*$)"),
          re.compile(r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]ailure|[Ee]xception|[Ff]atal|FATAL|[Aa]borted|"
                     r"timed out|[Rr]efused|[Dd]enied|[Cc]annot|[Cc]ould not|[Uu]nable to)\b"))
PYTORCH_RANK = re.compile(r"^\[rank(\d+)\]:|\[(?:PG [^\]]*? )?Rank (\d+)\]")  # [Rank 3], [PG 0 (default_pg) Rank 3]
# The collective a ProcessGroupNCCL line names: the watchdog's WorkNCCL(SeqNum=N, ...), its `detected by watchdog
# at work: N`, its `Timeout at NCCL work: N`. Ranks that say any of them of one work saw one timeout.
PYTORCH_WORK = re.compile(r"\bWorkNCCL\(SeqNum=(\d+)|\bdetected\s+by watchdog at work: (\d+)|\bTimeout at NCCL work: (\d+)")
GLOG = re.compile(r"\[[EWIF]\d{3,4} [\d:.]+ [\w.]+:\d+\]")  # PyTorch's c10 log prefix: [E321 02:07:08.408 File.cpp:607]
LAST_ERROR = re.compile(r"(?:^|\]:)\s*Last error:\s*$")


@dataclass
class Error:
    line: int
    rank: str        # host:pid, rank N, a host, or "" (the program's output)
    quote: str       # the line as the file has it, the launcher's tag off
    said: str        # what the catalogue's signatures are searched in
    error_class: ErrorClass
    classed: bool    # the class is said (a code, a name, a timeout), not guessed from a bare WARN
    kind: str = "nccl"  # nccl (a WARN, a chain), tool (nccl-tests), pytorch, program, timeout, cuda, launcher,
    #                     check, crash, loader, exited
    ranks: int = 1   # ranks whose first error says the same (errors of several ranks fold)


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


def find(log):
    """The first error of each rank, in the log's order; ranks whose first errors say the same
    thing fold into the first of them (with their count)."""
    lines = sorted([(m.line, m) for m in log.messages] + [(o.line, o) for o in log.others], key=lambda x: x[0])
    went_on = max((line for line, item in lines if (WENT_ON.search(item.text) if hasattr(item, "host") else
                                                    RESULT.match(item.text) or SUMMARY.search(item.text))), default=0)
    first, classed_later, last_error, previous = {}, {}, False, None
    for _, item in lines:
        nccl = hasattr(item, "host")
        error = _error_of(item, last_error)
        last_error = not nccl and bool(LAST_ERROR.search(item.text))
        if error is None or (error.kind == "launcher" and error.line < went_on and RUNTIME_NOISE.search(error.said)):
            continue  # Open MPI's runtime noise: the job went on after it
        # a line that names no rank: the first of each kind (NCCL's, the tool's, PyTorch's, ...)
        rank = error.rank or f"(the program's output: {error.kind})"
        if error.kind == "last" and previous in first:
            # PyTorch's `Last error:` and, on the next line, NCCL's last WARN's text: the error above's
            first[previous].quote += f" / Last error: {error.quote}"
            first[previous].said += f" {error.said}"
            continue
        if not nccl and error.rank and rank in {k.split(":")[0] for k in first if k != rank}:
            continue  # nccl-tests' line of a host whose NCCL lines said the error first
        previous = rank
        if rank not in first:
            first[rank] = error
        elif not first[rank].classed and error.classed and rank not in classed_later:
            classed_later[rank] = error.error_class  # a bare WARN's class: the chain after it says it
    # A launcher's report of a rank that exited is a consequence: said only where no error of the log's own is
    if any(e.kind != "exited" for e in first.values()):
        first = {rank: e for rank, e in first.items() if e.kind != "exited"}
    if not first and not log.messages and not _table_seen(log):
        # never silent: nothing this module reads, but a line says an error (the first exception, else words)
        for pattern in UNREAD:
            hit = next((o for o in log.others if pattern.search(o.text)), None)
            if hit is not None:
                text = hit.text.strip()
                first["(the program's output: unread)"] = Error(hit.line, "", text, text, CLASSES["unread"], False,
                                                                "unread")
                break
    out, by_text = [], {}
    for rank, error in first.items():
        if not error.classed and rank in classed_later:
            error.error_class, error.classed = classed_later[rank], True
        key = _fold_key(error)
        if key in by_text:
            by_text[key].ranks += 1
            continue
        by_text[key] = error
        out.append(error)
    return out


def _fold_key(error):
    """What ranks' first errors must share to fold into one finding: NCCL's chain of one code (the
    ranks a failure stopped), PyTorch's timeout of one work (its sequence number), or the same words
    but for the rank and a watchdog's elapsed time."""
    found = CHAIN.match(error.said)
    if found:
        return ("chain", found.group(3))
    work = PYTORCH_WORK.search(error.said)
    if work and error.error_class is CLASSES["timeout"]:
        return ("work", next(g for g in work.groups() if g))
    said = re.sub(r"\[(?:PG \d+ )?Rank \d+\]|\brank \d+\b", "", PYTORCH_RANK.sub("", error.said))
    said = GLOG.sub("", re.sub(r"ran for \d+ milliseconds", "ran for N milliseconds", said))
    return ("said", said.strip())


def _error_of(item, after_last_error):
    if hasattr(item, "host"):  # an NCCL line
        if item.warn or CHAIN.match(item.text):
            error_class, classed = class_of(item.text)
            return Error(item.line, item.rank, item.raw, item.said, error_class, classed)
        return None
    text = item.text.strip()
    if after_last_error and text:  # PyTorch's `Last error:` and, on the next line, NCCL's last WARN's text
        error_class, classed = class_of(text)
        return Error(item.line, _rank_of(text, None), text, text, error_class, classed, "last")
    for pattern, kind in OTHER_ERRORS:
        found = pattern.search(text)
        if found:
            # a launcher's and nccl-tests' data check's lines have their own class (a `timed out` in Gloo's is its)
            # (a heartbeat monitor's `got stuck for 480 seconds` names no timeout but is one)
            error_class, classed = ((CLASSES[kind], True) if kind in ("launcher", "check", "crash", "loader", "timeout",
                                                                     "cuda", "exited")
                                    else class_of(text))
            return Error(item.line, _rank_of(text, found), text, text, error_class, classed, kind)
    return None


def _rank_of(text, found):
    host = found.groupdict().get("host") if found is not None else None
    if host:
        return host
    ranked = PYTORCH_RANK.search(text)
    return f"rank {ranked.group(1) or ranked.group(2)}" if ranked else ""
