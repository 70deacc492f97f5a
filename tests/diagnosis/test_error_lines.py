"""The lines error_lines.py reads beside NCCL's: PyTorch's ProcessGroupNCCL lines that come
alone (the watchdog's timeout line cut off or never printed), a process killed by a signal (Open
MPI's handler), a library the loader did not find. Each becomes a finding that quotes it, with its
class. The lines are as the public threads named beside each test posted them, or as the tool's
own source prints them."""
from diagnosis_helpers import ROOT, found, parse
from wirebench.diagnosis import diagnose

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"


def quoting(findings, words):
    """The finding that quotes `words`."""
    hits = [f for f in findings if words in f.what]
    assert hits, [f.what for f in findings]
    return hits[0]


def test_pytorchs_handle_exception_alone_is_an_error():
    """huggingface/picotron_tutorial#6: the tail of a paste, after the watchdog's own line scrolled
    away (PyTorch 2.1's ProcessGroupNCCL.cpp:488/494)."""
    said = found("[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out. Due to the asynchronous "
                "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
                "[E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the entire process down.\n")
    f = quoting(said, "Some NCCL operations have failed or timed out")
    assert f.verdict == "FAIL" and f.line == 1 and "timeout" in f.why


def test_pytorchs_watchdog_exception_and_timeout_at_work_lines_are_errors():
    """mila-iqia/milabench#269 (PyTorch 2.4, a launcher's `host [stderr]` tag before each line) and
    PyTorch 2.2's `Timeout at NCCL work` (ProcessGroupNCCL.cpp's LOG(ERROR), as pasted in threads
    with its `[PG 0 Rank 2]` prefix)."""
    said = found("dinov2-giant-nodes.cn-d004 [stderr] [rank13]:[E909 09:55:29.340679605 ProcessGroupNCCL.cpp:1664] "
                "[PG 0 (default_pg) Rank 13] Exception (either an error or timeout) detected by watchdog at work: 2070, "
                "last enqueued NCCL work: 2070, last completed NCCL work: 2069.\n")
    assert quoting(said, "Exception (either an error or timeout) detected by watchdog at work: 2070").verdict == "FAIL"
    # The same thread's rank 7, wrapped by the paste after its first words
    said = found("dinov2-giant-nodes.cn-d003.nolog [stderr] [rank7]:[E909 09:55:29.974288167 ProcessGroupNCCL.cpp:1664] "
                "[PG 0 (default_pg) Rank 7] Exception (either an error or timeout) \n"
                "detected by watchdog at work: 2070, last enqueued NCCL work: 2082, last completed NCCL work: 2069.\n")
    assert quoting(said, "[PG 0 (default_pg) Rank 7] Exception (either an error or timeout)").verdict == "FAIL"
    said = found("[rank2]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 2] Timeout at NCCL work: 1, last enqueued NCCL "
                "work: 1, last completed NCCL work: 0.\n")
    f = quoting(said, "Timeout at NCCL work: 1")
    assert f.verdict == "FAIL" and f.why.startswith("timeout")


def test_pytorchs_heartbeat_monitor_is_an_error():
    """PyTorch 2.3+'s heartbeat monitor (ProcessGroupNCCL.cpp: logPrefix(), "ProcessGroupNCCL's watchdog
    got stuck for ", heartbeatTimeoutInSec_, " seconds without making progress in monitoring enqueued
    collectives. ..."), with the c10 log prefix it has in a torchrun log."""
    said = found("[rank1]:[E1111 17:10:53.412200000 ProcessGroupNCCL.cpp:1423] [PG 0 (default_pg) Rank 1] "
                "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
                "collectives. This typically indicates a NCCL/CUDA API (e.g., CudaEventDestroy) hang blocking the "
                "watchdog, and could be triggered by another thread holding the GIL inside a CUDA api (for example, "
                "CudaEventDestroy), or other deadlock-prone behaviors.\n")
    f = quoting(said, "watchdog got stuck for 480 seconds")
    assert f.verdict == "FAIL" and f.why.startswith("timeout")


def test_a_process_killed_by_a_signal_is_a_crash_finding():
    """NVIDIA/nccl#1669 (a train case of the corpus): NCCL 2.26.2's RAS queried while communicators
    initialised; the log ends in Open MPI's `*** Process received signal ***`. It read as nothing."""
    said = diagnose(parse((CORPUS / "nccl-1669.log").read_text(), "nccl-1669.log"))
    f = quoting(said, "*** Process received signal ***")
    assert f.verdict == "FAIL" and f.why.startswith("crash: a process died of a signal"), f.why
    # Open MPI's second line names the signal: a paste that starts there says it too.
    said = found("[node7:405884] Signal: Segmentation fault (11)\n[node7:405884] Signal code: Address not mapped (1)\n")
    assert quoting(said, "Signal: Segmentation fault (11)").why.startswith("crash")


def test_a_library_the_loader_did_not_find_is_named_with_its_fix():
    """glibc's ld.so refusing to start a program (`%s: error while loading shared libraries: %s: %s`), as
    nccl-tests users post it when libnccl is not on the loader's path."""
    said = found("$ mpirun -np 2 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1\n"
                "./build/all_reduce_perf: error while loading shared libraries: libnccl.so.2: cannot open shared object "
                "file: No such file or directory\n"
                "./build/all_reduce_perf: error while loading shared libraries: libnccl.so.2: cannot open shared object "
                "file: No such file or directory\n")
    f = quoting(said, "error while loading shared libraries: libnccl.so.2")
    assert f.verdict == "FAIL" and f.line == 2 and "LD_LIBRARY_PATH" in f.fix, (f.line, f.fix)
    assert len([x for x in said if "libnccl.so.2" in x.what]) == 1  # the two ranks' same line: one finding


def test_pytorchs_rendezvous_and_cuda_initialisation_errors_are_errors():
    """vllm-project/vllm#39015's title (PyTorch's TCPStore on a port another job holds); PyTorch 1.x's
    THCudaCheck (THCGeneral.cpp) and its CUDA initialisation warning (c10/cuda's
    `Unexpected error from cudaGetDeviceCount()` with CUDA's error 804), as threads post them."""
    said = found("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                "address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n")
    f = quoting(said, "DistNetworkError: The server socket has failed to listen")
    assert f.id == "rendezvous-port-in-use" and "(launcher error: " in f.why, (f.id, f.why)
    said = found("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=47 error=100 : no CUDA-capable device "
                "is detected\n")
    f = quoting(said, "THCudaCheck FAIL")
    assert f.id == "no-cuda-device-visible" and "(CUDA error: a CUDA call failed" in f.why, (f.id, f.why)
    said = found("/usr/lib/python3/dist-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: Unexpected "
                "error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that "
                "might have already set an error? Error 804: forward compatibility was attempted on non supported HW "
                "(Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n")
    f = quoting(said, "Unexpected error from cudaGetDeviceCount()")
    assert f.id == "cuda-compat-on-unsupported-gpu", f.id  # the catalogue's entry for error 804 now sees it


def test_a_programs_nccl_call_report_and_pytorchs_id_rendezvous_are_errors():
    """horovod's troubleshooting page (`ncclCommInitRank failed: unhandled cuda error`, the class from
    NCCL's own words), and PyTorch's store rendezvous of the NCCL id as users post it
    (`RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] ...`)."""
    f = quoting(found("horovod.common.exceptions.HorovodInternalError: ncclCommInitRank failed: unhandled cuda error\n"),
                "ncclCommInitRank failed: unhandled cuda error")
    assert f.why.startswith("ncclUnhandledCudaError"), f.why
    f = quoting(found("RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
                     "key-value store by key '0', but store->get('0') got error: wait timeout after 300000ms\n"),
                "is setting up NCCL communicator and retrieving ncclUniqueId from [0]")
    assert f.why.startswith("launcher error"), f.why


def test_the_shells_and_pythons_crash_words_and_cuda_out_of_memory_are_errors():
    """bash's report of a child killed by a signal (a DataLoader worker's Bus error on a small /dev/shm),
    Python's faulthandler, and PyTorch's CUDA out of memory, as threads post them."""
    said = found("train.sh: line 12: 40961 Bus error               (core dumped) python train.py --nproc 8\n")
    assert quoting(said, "40961 Bus error               (core dumped)").why.startswith("crash")  # bash pads the name
    said = found("./run.sh: line 3: 5127 Segmentation fault (core dumped) torchrun --nproc_per_node 8 train.py\n")
    assert quoting(said, "Segmentation fault (core dumped)").why.startswith("crash")
    said = found("Fatal Python error: Segmentation fault\n\nThread 0x00007f3e (most recent call first):\n")
    assert quoting(said, "Fatal Python error: Segmentation fault").why.startswith("crash")
    said = found("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total "
                "capacity; 75.01 GiB already allocated)\n")
    assert quoting(said, "CUDA out of memory").verdict == "FAIL"


def test_a_launchers_report_of_an_exit_is_said_only_where_nothing_else_is():
    """Open MPI's report of a rank's signal (as the open-mpi users list posts it, wrapped after `exited`)
    and torchrun's ChildFailedError alone become a finding; beside the rank's own error they add
    nothing (the own error is the cause)."""
    said = found("--------------------------------------------------------------------------\n"
                "mpirun noticed that process rank 0 with PID 21583 on node n316 exited\n"
                "on signal 6 (Aborted).\n")
    f = quoting(said, "mpirun noticed that process rank 0 with PID 21583")
    assert f.why.startswith("a process exited") and "-6 / 6 an abort" in f.why + f.fix, (f.why, f.fix)
    said = found("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                "============================================================\ntrain.py FAILED\n")
    assert quoting(said, "ChildFailedError").why.startswith("a process exited")
    said = found("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
    assert len(said) == 1 and "CUDA out of memory" in said[0].what, [x.what for x in said]


def test_a_log_with_nothing_else_to_read_says_its_exception_or_its_error_words():
    """Never silent: a paste holding no line of NCCL's or of a tool wirebench reads, but an exception
    (PyTorch's env:// rendezvous, torch/distributed/rendezvous.py's `_env_error`, as users paste it at
    the end of a traceback) or plain error words, is a FAIL quoting that line (issue 55: a file that says
    an error failed with it), not a refusal; where an NCCL line is read, the fallback says nothing (a
    healthy log's stray word is not an error)."""
    said = found("Traceback (most recent call last):\n  File \"train.py\", line 12, in <module>\n"
                "    dist.init_process_group(\"nccl\")\n"
                "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
                "MASTER_ADDR expected, but not set\n")
    f = quoting(said, "ValueError: Error initializing torch.distributed using env:// rendezvous")
    assert f.verdict == "FAIL" and f.line == 4 and "an error line no rule reads" in f.why, (f.verdict, f.line, f.why)
    assert "the file holds no line of NCCL's: set NCCL_DEBUG=INFO" in f.fix, f.fix
    said = found("job 4242 started on gpu[01-02]\nsomething went wrong: could not reach the head node\n")
    assert quoting(said, "could not reach the head node").verdict == "FAIL"
    healthy = found("n1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\nepoch 1: no error in 1000 steps\n")
    assert not [x for x in healthy if "no error in 1000 steps" in x.what], [x.what for x in healthy]


def test_each_exception_of_a_file_without_nccls_lines_is_quoted_with_its_line():
    """Every error line of such a file, not only its first: a traceback chained by `During handling of
    the above exception` ends in two exceptions (PyTorch's env:// rendezvous as above, then the
    program's own wrapper); each is a finding of its own, at its own line."""
    said = found("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
                "MASTER_ADDR expected, but not set\n\nDuring handling of the above exception, another exception "
                "occurred:\n\nRuntimeError: distributed init failed\n")
    assert [(f.id, f.verdict, f.line) for f in said] == [("error-not-in-catalogue", "FAIL", 1),
                                                          ("error-not-in-catalogue", "FAIL", 5)], [f.what for f in said]
    assert "RuntimeError: distributed init failed" in said[1].what


def test_a_file_with_an_error_line_and_no_line_of_nccls_is_read_and_one_without_either_refused(tmp_path):
    """The front door's contract (issue 55): a file with no line of NCCL's that carries an error line
    gives the finding quoting it; one with neither is not what it claims, exit 3 naming it."""
    import pytest
    from wirebench.contracts.input_files import InputError
    from wirebench.diagnosis import read_log
    log = tmp_path / "job.out"
    log.write_text("job 4242 started on gpu[01-02]\nsomething went wrong: could not reach the head node\n")
    said = diagnose(read_log(log))
    assert [(f.verdict, f.line) for f in said] == [("FAIL", 2)]
    assert '"something went wrong: could not reach the head node"' in said[0].what
    quiet = tmp_path / "quiet.out"
    quiet.write_text("job 4242 started on gpu[01-02]\nepoch 1 done\n")
    with pytest.raises(InputError, match=r"quiet.out: no line of NCCL's .* and no error line"):
        read_log(quiet)


def test_pytorchs_words_for_a_rank_that_cannot_use_cuda_are_cuda_errors():
    """vllm-project/vllm#12189 (vLLM's forked workers, their `(VllmWorkerProcess pid=N) ERROR ...` prefix) and
    meta-llama/codellama#125 (the NCCL process group without a GPU): CUDA errors of their own, each named by its
    catalogue entry, not the words of a log with nothing else to read."""
    said = found("(VllmWorkerProcess pid=307) INFO 01-19 03:55:24 multiproc_worker_utils.py:218] Worker ready; awaiting "
                "tasks\n"
                "(VllmWorkerProcess pid=305) ERROR 01-19 03:55:24 multiproc_worker_utils.py:233] RuntimeError: Cannot "
                "re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' "
                "start method\n")
    f = quoting(said, "Cannot re-initialize CUDA in forked subprocess")
    assert f.id == "cuda-initialized-before-fork" and f.line == 2 and "(CUDA error: a CUDA call failed" in f.why, \
        (f.id, f.line, f.why)
    said = found("RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!\n")
    f = quoting(said, "ProcessGroupNCCL is only supported with GPUs")
    assert f.id == "process-group-nccl-without-gpu" and "(CUDA error: " in f.why, (f.id, f.why)


def test_lines_of_a_lost_gpu_a_ucx_crash_a_cpu_tensor_and_the_launchers_refusals_are_read():
    """Lines the reader did not take as errors, from the public threads the catalogue's entries cite
    (tests/data/nccl/warn-lines-from-threads.log): each now reaches its entry, or its class."""
    cases = {
        "Failed to initialize NVML: Unknown Error\n": "container-lost-gpu-access",    # nvidia-container-toolkit#1227
        "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this "
        "GPU\n": "gpu-fell-off-the-bus",                                                # JosephKJ/OWOD#81
        "n1:3039:3095 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"
        "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)\n": "shm-bus-error",
        "RuntimeError: Tensors must be CUDA and dense\n": "nccl-backend-given-cpu-tensor",  # pytorch/examples#1030
    }
    for text, entry in cases.items():
        assert [f.id for f in found(text)] == [entry], (text, [f.id for f in found(text)])
    for text in ("Host key verification failed.\n",                                  # pmodels/mpich#4712
                 "There are not enough slots available in the system to satisfy the 16\nslots that were requested "
                 "by the application:\n"):                                             # Open MPI's help text
        said = found(text)
        assert said and said[0].why.startswith("launcher error"), (text, [f.why for f in said])


def test_the_literal_gate_hides_no_error_line():
    """errors.py searches a line with the patterns that require a literal only where one of their literals is in it
    (catalogue.required_literals): over every line of the corpus's and the threads' logs, the first pattern each line
    matches is the same with the gate as without it, and the gate passes every line some gated pattern matches."""
    from wirebench.diagnosis import errors
    from wirebench.diagnosis.error_lines import OTHER_ERRORS
    assert errors._GATE is not None and len(errors._UNGATED) < len(OTHER_ERRORS) // 4
    files = sorted(CORPUS.glob("*.log")) + sorted((ROOT / "tests" / "data" / "nccl").glob("*.log"))
    seen = 0
    for path in files:
        for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
            for variant in {text.strip(), errors.plain(text)}:
                ungated = next((k for p, k in OTHER_ERRORS if p.search(variant)), None)
                gated = next((k for p, k in (OTHER_ERRORS if errors._GATE.search(variant) else errors._UNGATED)
                              if p.search(variant)), None)
                assert gated == ungated, (path.name, variant)
                seen += ungated is not None
    assert seen > 100  # the corpus holds error lines of many kinds: the comparison saw them
