"""The lines the error finder reads (errors.py), as the tools print them: NCCL's error chain, the
lines of nccl-tests, PyTorch, XLA, CUDA, the launchers and the shell that say an error without
NCCL's prefix (each with the kind of error it is), the runtime noise a job goes on from, and the
ranks and collectives PyTorch's lines name."""
import re

# compute-sanitizer's lines under a report that say where: the kernel (`=========     at ncclDevFunc_...`), the thread,
# the address and the allocation it missed (`=========     Address 0x1bc00031d0 is out of bounds`, `... and is N bytes
# after the nearest allocation at 0x13c0000000 of size 2,097,152 bytes`)
SANITIZER_DETAIL = re.compile(r"^=+\s+(?:at\s+\S|by thread\b|Address\s+0x|and is\s+[\d,]+ bytes)")
SANITIZER_MARGIN = re.compile(r"^=+\s+")  # its `=========` before each line
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
    # Python's words for the same (`import torch` ending in `ImportError: libnccl.so.2: cannot open shared object file:
    # No such file or directory`, pinokiocomputer/pinokio#193), and a library built against another NCCL than the one
    # the loader found: `ImportError: .../torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister`
    # (THU-MIG/yolov10#306; pytorch/pytorch#119932: another package's older libnccl loaded first)
    (re.compile(r"\b(?:ImportError|OSError): (?:\S*/)?lib[\w.+-]*\.so[\w.]*: cannot open shared object file\b.*"), "loader"),
    (re.compile(r"\bundefined symbol: nccl[A-Z]\w*.*"), "mismatch"),
    # the shell's and Python's words for a process killed by a signal (`... 4242 Bus error (core dumped) python
    # train.py`: a DataLoader's /dev/shm too small; `Fatal Python error: Segmentation fault`)
    # UCX's and HPC-X's handler among NCCL's lines: `[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error:
    # nonexistent physical address)` (a /dev/shm segment that cannot be backed: msr-fiddle/pipedream#76)
    (re.compile(r"\bCaught signal \d+ \([A-Z][^)]*\).*"), "crash"),
    # gdb's own (`Thread 787 "imagenet_fake_d" received signal SIGBUS, Bus error.`, NVIDIA/JAX-Toolbox#183;
    # `Program received signal SIGSEGV, Segmentation fault.`)
    (re.compile(r"\breceived signal SIG[A-Z]+, [A-Z][\w ]+\.?.*"), "crash"),
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
    # compute-sanitizer's memcheck (`========= Invalid __global__ write of size 16 bytes`, then `=========     at
    # ncclDevFunc_AllReduce_Sum_bf16_RING_SIMPLE()+0x14440`: ggml-org/llama.cpp#24489; its other reports, tools/
    # compute-sanitizer's documented words: `Program hit cudaErrorInvalidValue (error 1) due to ...`, `Misaligned
    # Shared or Local Address`, `Race reported between Write access at ...`, `ERROR SUMMARY: 3 errors`)
    (re.compile(r"^=+\s+(?:Invalid __(?:global|shared|local)__ (?:read|write|atomic)\b.*|Program hit \w+ \(error \d+\).*|"
                r"(?:Out-of-range|Misaligned) (?:Shared or Local )?[Aa]ddress\b.*|Race reported between\b.*|"
                r"ERROR SUMMARY: [1-9]\d* errors?\b.*)"), "memcheck"),
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
    (re.compile(r"\bPMIX ERROR: .*|\bOPAL ERROR: .*"), "launcher"),
    # UCX, the MPI's transport beside NCCL: its log's errors (`[1591868130.001133] [host:15407:0]  sys.c:762  UCX  ERROR
    # shmget(...) failed: No space left on device`, openucx/ucx#5280), and its shared-memory transport's words posted
    # without that prefix (`mm_iface failed to allocate receive FIFO`, NVIDIA/ai-cloud-validation#643)
    (re.compile(r"\bUCX\s+ERROR\b.*|^\s*mm[ _](?:iface|ep)\b.*\bfailed\b.*"), "fabric"),
    # libfabric's: its probe's answer where no provider matches (`fi_info -p efa` in a container without the EFA
    # devices: `fi_getinfo: -61 (No data available)`, aws/aws-ofi-nccl#879), and the EFA provider's errors with
    # their code (`Unable to write to EQ: ... err: Unknown error -12 (-12) prov_errno: ... prov/efa/...`, #107)
    (re.compile(r"^\s*fi_getinfo: -\d+ \(.*\).*|\berr: .*\bprov_errno: .*\bprov/\w+/.*"), "fabric"),
    # MPICH's MPI_Init failing (`Abort(3712399) on node 0 (rank 0 in comm 0): Fatal error in PMPI_Init: Other MPI error,
    # error stack:` ... `PMI_KVS_Get returned -1`: the launcher and the library do not work together, NVIDIA/nccl-tests#92)
    (re.compile(r"\bFatal error in P?MPI_\w+: .*"), "launcher"),  # Open MPI's runtime under srun: its PMIx client
    # PyTorch's Gloo store on a host whose name resolves to no local address: it falls back to 127.0.0.1, so
    # the ranks of another node dial their own loopback (awslabs/aws-do-eks#50)
    (re.compile(r"\bUnable to resolve hostname to a \(local\) address\. Using the loopback.*"), "launcher"),
    (re.compile(r"\bGloo connectFullMesh failed\b.*"), "launcher"),
    # PyTorch's Gloo backend (its CPU collectives and the groups a job builds beside NCCL's) failing on its own: its
    # enforce (`RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr.
    # Unable to find address for: bond1`, NVIDIA/Megatron-LM#436; `ss1.ss_family == ss2.ss_family. 2 vs 10`,
    # pytorch/gloo#399, its location a Markdown link there), C++'s `terminate called after throwing an instance of
    # 'gloo::EnforceNotMet'` (horovod/horovod#1341), a pair's I/O (`[../third_party/gloo/gloo/transport/tcp/pair.cc:534]
    # Connection closed by peer [127.0.0.1]:10895`, RVC-Project/Retrieval-based-Voice-Conversion-WebUI#1882)
    (re.compile(r"\[enforce fail at \S*gloo/.*|\bgloo::(?:EnforceNotMet|IoException)\b.*|"
                r"\[\S*gloo/transport/\S+:\d+\] .*"), "gloo"),
    # systemd's word for a service that failed: `systemctl status`'s `Active: failed (Result: exit-code) since ...`
    # under the unit's line (errors.py joins the unit's line to it; mrzenc/vgpu4nixos#4's nvidia-vgpu-mgr.service), and
    # `Job for nvidia-fabricmanager.service failed because the control process exited with error code.`
    # (NVIDIA/gpu-operator#356); the unit is what the error is said of (its `host` group, as a tool's host is)
    (re.compile(r"^Active: failed \(Result: [\w-]+\).*|\bJob for (?P<host>[\w@.:-]+\.service) failed\b.*"), "service"),
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
    # `RuntimeError: Distributed package doesn't have NCCL built in`, or its traceback's source line, whose string is
    # two literals (`raise RuntimeError("Distributed package doesn't have NCCL " "built in")`, PlayVoice/whisper-vits-svc#97)
    (re.compile(r"\bDistributed package doesn't have NCCL[\s\"]+built in\b.*"), "program"),
    # aws-ofi-nccl's WARN text as PyTorch quotes it on the line after `Last error:` (read there as that error's),
    # pasted alone: `[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0`
    # (aws/aws-ofi-nccl#663); the plugin's INFO lines pasted without NCCL's prefix are not errors (`NET/OFI Using
    # transport protocol RDMA`, aws-samples/aws-do-eks#54's summary): a line that says a failure
    # (and `NET/OFI Unexpected number of remote rails for dev 0. Expected 3 but got 2`, NVIDIA/nccl#1921)
    (re.compile(r"^(?:\[rank\d+\]:\s*)?NET/OFI (?=.*\b(?:[Ff]ail\w*|[Ee]rror|ERROR|Unable|[Cc]ould(?:n't| not)|[Cc]annot|"
                r"No eligible|RC: -?\d+|Unexpected)\b)\S.*"), "pytorch"),
    # CUDA's own error strings: PyTorch's `CUDA error: ...` and `cuda runtime error (101) : ...`, vLLM's
    # `Cuda error FILE:LINE '...'`, the enums' names
    (re.compile(r"\b[Cc][Uu][Dd][Aa] (?:runtime )?error\b.*|\bcudaError[A-Z]\w+.*|\bCUDA_ERROR_[A-Z_]+.*"), "cuda"),
    # PyTorch 1.x's `THCudaCheck FAIL file=... line=47 error=100 : no CUDA-capable device is detected`, and its
    # CUDA initialisation failing: `Unexpected error from cudaGetDeviceCount(). ... Error 804: forward compatibility
    # was attempted on non supported HW` (a UserWarning: the process goes on without a GPU)
    # CUDA's runtime error strings themselves (cudaGetErrorString's text, CUDA Runtime API: enum cudaError), where a
    # program or a person quotes one without its prefix: lmdeploy's `详细信息是：CUDA driver version is insufficient for
    # CUDA runtime version` (InternLM/lmdeploy#1267). Only strings that name a failure by themselves.
    (re.compile(r"(?:CUDA driver version is insufficient for CUDA runtime version|no CUDA-capable device is detected|"
                r"all CUDA-capable devices are busy or unavailable|system has unsupported display driver / cuda driver "
                r"combination|forward compatibility was attempted on non supported HW|system not yet initialized|"
                r"an illegal memory access was encountered|unspecified launch failure|no kernel image is available for "
                r"execution on the device|peer access is not supported between these two devices|uncorrectable ECC "
                r"error encountered)\b.*"), "cuda"),
    (re.compile(r"\bTHCudaCheck FAIL\b.*|\bUnexpected error from cudaGetDeviceCount\(\).*|\bCUDA out of memory\b.*"),
     "cuda"),
    # the GPU or its driver gone from under the job: NVML inside a container that lost its devices
    # (`Failed to initialize NVML: Unknown Error`), a GPU off the PCIe bus (dmesg's Xid 79 `GPU has fallen off the
    # bus`, nvidia-smi's `... GPU is lost. Reboot the system to recover this GPU`)
    (re.compile(r"\bFailed to initialize NVML: .*|\bGPU has fallen off the bus\b.*|: GPU is lost\b.*"), "cuda"),
    # the kernel's IOMMU refusing a device's DMA, as dmesg prints it: Intel VT-d's `DMAR: [DMA Write] Request device
    # [02:00.0] fault addr cd139000 [fault reason 05] PTE Write access is not set` (drivers/iommu/intel/dmar.c; newer
    # kernels `[DMA Write NO_PASID]`), AMD's `AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000e address=...]`
    (re.compile(r"\bDMAR: \[DMA (?:Read|Write)\b.*\bfault addr\b.*|\bAMD-Vi: Event logged \[IO_PAGE_FAULT\b.*"), "kernel"),
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
# A line its program tagged as a warning or a note (DeepSpeed's `[WARNING] [runner.py:215:fetch_hostfile] Unable to
# find hostfile, will proceed with training with local resources only`, logging's `WARNING:root:`, PyTorch's
# `[W ProcessGroupNCCL.cpp:...]`, Python's `UserWarning:`) is not an unread error whatever its words
SELF_TAGGED = re.compile(r"^\s*(?:\[\s*)?(?:WARNING|Warning|WARN|INFO|Info|DEBUG|NOTICE)\b(?:\s*\]|:)|^\s*\[[WID] |"
                         r"^\s*(?:\[\S+\]\s*)?[WI]\d{4} |\b[A-Z]\w*Warning:|" + "|".join((
                             # NCCL's own INFO texts of its plugins' probing, pasted without NCCL's prefix (NVIDIA/nccl#1584:
                             # a healthy log's `NET/Plugin: Failed to find ncclNetPlugin_v9 symbol.`, then the v8 it loaded)
                             r"^\s*(?:NET|PROFILER|TUNER|ENV)/Plugin ?: (?:Failed to find \w+ symbol|Could not find: \S+)",
                             # compute-sanitizer's summary of a run it found nothing in
                             r"^=+\s+ERROR SUMMARY: 0 errors\b")))
UNREAD = (re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?:\s*:.*|\s*$)"),
          re.compile(r"\b(?:[Ee]rror|ERROR|[Ff]ailed|FAILED|[Ff]ailure|[Ee]xception|[Ff]atal|FATAL|[Aa]borted|"
                     r"timed out|[Rr]efused|[Dd]enied|[Cc]annot|[Cc]ould not|[Uu]nable to)\b"))
PYTORCH_RANK = re.compile(r"^\[rank(\d+)\]:|\[(?:PG [^\]]*? )?Rank (\d+)\]")  # [Rank 3], [PG 0 (default_pg) Rank 3]
# The collective a ProcessGroupNCCL line names: the watchdog's WorkNCCL(SeqNum=N, ...), its `detected by watchdog
# at work: N`, its `Timeout at NCCL work: N`. Ranks that say any of them of one work saw one timeout.
PYTORCH_WORK = re.compile(r"\bWorkNCCL\(SeqNum=(\d+)|\bdetected\s+by watchdog at work: (\d+)|\bTimeout at NCCL work: (\d+)")
# PyTorch's WorkNCCL, the work a rank's report names: `WorkNCCL(SeqNum=15037, OpType=_ALLGATHER_BASE,
# NumelIn=131072512, NumelOut=524290048, Timeout(ms)=600000)` (NumelIn/Out from 2.1): its number, its collective,
# its element counts. WORK_OP finds it in any report of one rank's timed-out work: the watchdog's line (`[Rank 7]
# Watchdog caught collective operation timeout: WorkNCCL(SeqNum=80078, OpType=BROADCAST, ...)`) and the blocking
# wait's (`[Rank 1] Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, ...) timed out in blocking wait`)
WORK_NCCL = r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?"
WORK_OP = re.compile(r"\b" + WORK_NCCL)
# the process group PyTorch names beside a work's number: `[PG ID 0 PG GUID 0(default_pg) Rank 2] Exception (either an
# error or timeout) detected by watchdog at work: 808` (2.5 on), `[PG 1 Rank 0] ...` and `[PG 0 (default_pg) Rank 7]`
PG_OF = re.compile(r"\[PG (?:ID )?(\d+)(?: PG GUID (\d+))?[^\]]*? Rank (\d+)\]")
# systemd's line of the unit `Active: failed` is said of: `× nvidia-vgpu-mgr.service - NVIDIA vGPU Manager Daemon`
# (`●` or `*` before it in older systemd)
UNIT = re.compile(r"^[\u25cf\u00d7*x]?\s*([\w@.:-]+\.(?:service|socket|mount|target)) - ")
# Markdown's emphasis around a pasted error (`> **RuntimeError: ...**`, `[rank0]: **...**`, a line in backticks): off
# for reading the line; the quote keeps it as the file has it
# Markdown's emphasis: ** and __, a line's outer * and `, and _ around a word (`_Check_ failed: ... unhandled cuda
# _error_`, NVIDIA/caffe#492's paste), never an _ inside a name (NCCL_IB_HCA)
# (each alternative opens with its literal, so the search skips to the next `*`, `` ` `` or `_`: a long log's every line
# is read without emphasis once)
EMPHASIS = re.compile(r"\*\*|__|^[*`]+|[*`]+$|_(?:(?<![\w/.]_)(?=[^\W_])|(?<=[^\W_]_)(?![\w/.]))")
GLOG = re.compile(r"\[[EWIF]\d{3,4} [\d:.]+ [\w.]+:\d+\]")  # PyTorch's c10 log prefix: [E321 02:07:08.408 File.cpp:607]
LAST_ERROR = re.compile(r"(?:^|\]:)\s*Last error:\s*$")


# libibverbs' warning that an RDMA device has no user-space driver (verbs_provider.py's rule): not an error, but a line
# a file may hold alone, so the reader reads it. rdma-core prints it with its `libibverbs: ` tag; older libibverbs
# (horovod/horovod#1117) without it
NO_PROVIDER = re.compile(r"(?:libibverbs: )?Warning: no userspace device-specific driver found for (\S+)")

# A Python package of NCCL as PyTorch's collect_env lists it (`[pip3] nvidia-nccl-cu12==2.29.3`, `[conda]
# nvidia-nccl-cu12 2.21.5 pypi_0 pypi`) or pip lists it (`nvidia-nccl-cu13==2.29.7`, `nvidia-nccl-cu12   2.21.5`):
# nccl_wheels.py's rule; a line a file may hold alone, so the reader reads it
NCCL_WHEEL = re.compile(r"^\s*(?:\[(?:pip3?|conda)\]\s+)?(nvidia-nccl-cu\d+)(?:==|\s+)(\d+\.\d+\.\d+)\b")


# A framework's distributed code on Windows, where no NCCL runs (windows_host.py's rule): PyTorch c10d's log prefix with
# its Windows build path (`[W C:\actions-runner\...\torch\csrc\distributed\c10d\socket.cpp:601]`) or a Winsock error
# it quotes (`system error: 10049 - The requested address is not valid in its context.`), a traceback through a
# framework installed on a drive letter, torchelastic's `of binary: C:\...\python.exe`; a line a file may hold alone
WINDOWS_FRAMEWORK = re.compile(r"^\[[WEI]\d* ?[A-Za-z]:\\[^\]]*\\torch\\csrc\\distributed\\|\(system error: 1\d{4} - [A-Z]|"
                               r"\bFile \"[A-Za-z]:\\[^\"]*\\(?:site-packages|dist-packages)\\(?:torch|tensorflow\w*|"
                               r"pytorch_lightning|lightning|accelerate|deepspeed|transformers)\\|"
                               r"\bof binary: [A-Za-z]:\\\S*\\python\.exe\b")


def read_alone(texts):
    """Whether lines that are neither NCCL's nor errors say something to read in a file holding nothing else:
    libibverbs' warning, a framework's distributed code on Windows, or NCCL installed as more than one Python package
    (one package alone judges nothing)."""
    wheels = set()
    for text in texts:
        if NO_PROVIDER.search(text) or WINDOWS_FRAMEWORK.search(text):
            return True
        if (found := NCCL_WHEEL.search(text)):
            wheels.add(found.group(1))
    return len(wheels) > 1
