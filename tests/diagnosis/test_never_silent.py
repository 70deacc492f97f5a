"""Never silent: every error a log carries becomes a finding, known to the catalogue or not, the
first of each rank, quoted verbatim with its line, with what NCCL's error class means and the next
step; a catalogue entry that matches adds its cause, fix and thread. Each log is reconstructed from
the public thread tests/data/nccl/ORIGINS.md names."""
from diagnosis_helpers import DATA, ROOT, diagnose, found, ids, parse, read_log
from wirebench.diagnosis import errors


def uncatalogued(text):
    """The findings without the catalogue: what the error finder says by itself."""
    return diagnose(parse(text, "job.log"), entries=[])


def test_a_catalogued_warn_with_its_chain_and_nccl_tests_failure_is_one_finding_with_its_class():
    """NVIDIA/nccl-tests#166: /dev/shm too small; NCCL's chain returns 2 up to nccl-tests' `Test
    NCCL failure common.cu:958 'unhandled system error'` on the same host."""
    said = diagnose(read_log(DATA / "nccl-tests-166-shm-chain.log"))
    assert ids(said) == ["shm-too-small:FAIL@13"]
    assert "misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-zTYolS" in said[0].what
    assert "ncclSystemError" in said[0].why  # the chain's code 2, after the WARN
    assert "--shm-size" in said[0].fix and "NVIDIA/nccl#525" in said[0].source


def test_pytorchs_dist_backend_error_with_its_last_error_is_quoted_with_its_class():
    """hkproj/pytorch-transformer-distributed#1: no NCCL prefix anywhere; the line under PyTorch's `Last error:` is
    NCCL's last WARN (`socketStartConnect: Connect to ... failed : No route to host`), which connection-failed reads:
    PyTorch's error is quoted in that finding, with its class."""
    said = diagnose(read_log(DATA / "pytorch-distbackend-no-route.log"))
    assert ids(said) == ["connection-failed:FAIL@10"]
    assert "could not connect to 192.168.19.14<52822>" in said[0].what
    assert "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, " \
           "unhandled system error" in said[0].what
    assert "Last error: socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host" in said[0].what
    assert "No route to host" in said[0].why and "ncclSystemError: a system call" in said[0].why
    assert "NCCL_SOCKET_IFNAME" in said[0].fix and "the file holds no line of NCCL's" in said[0].fix


def test_a_remote_error_says_another_rank_failed_first():
    """NVIDIA/nccl#2076: ncclRemoteError, its Last error a reset connection."""
    said = diagnose(read_log(DATA / "nccl-2076-remote-error.log"))
    assert ids(said) == ["error-not-in-catalogue:FAIL@4"]
    assert said[0].why.startswith("ncclRemoteError: a peer process exited")
    assert "Connection reset by peer" in said[0].what
    assert "first rank that failed" in said[0].fix


def test_the_watchdogs_timeouts_of_several_ranks_fold_into_one_finding():
    """hiyouga/LlamaFactory#7396: ProcessGroupNCCL's watchdog on ranks 0, 4 and 2; rank 3 says only
    `Exception (either an error or timeout) detected by watchdog at work: 1580`, the same work."""
    said = diagnose(read_log(DATA / "pytorch-watchdog-timeout.log"))
    assert ids(said) == ["error-not-in-catalogue:FAIL@2"]
    assert "rank 0 (and 3 other rank(s) the same)" in said[0].what
    assert "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE" in said[0].what
    assert said[0].why.startswith("timeout: a collective did not complete")


def test_nccl_tests_cuda_failure_alone_is_read_and_the_catalogue_names_it():
    """NVIDIA/nccl-tests#264: `Test CUDA failure common.cu:941 'system not yet initialized'`, no
    NCCL line at all: the fabric manager's entry, the line quoted."""
    said = diagnose(read_log(DATA / "nccl-tests-264-system-not-initialized.log"))
    assert ids(said) == ["fabric-manager-down:FAIL@4"]
    assert "dgx-h100-12: Test CUDA failure common.cu:941 'system not yet initialized'" in said[0].what
    assert "CUDA error" in said[0].why and "nvidia-fabricmanager" in said[0].fix


def test_chains_without_a_warn_fold_by_their_code_and_the_warn_of_another_rank_stands():
    """NVIDIA/nccl#975: three ranks' chains return 2 (ncclSystemError) without a WARN of their own;
    a fourth rank's WARN says the connection it could not make."""
    said = diagnose(read_log(DATA / "nccl-975-socket-abort.log"))
    assert ids(said) == ["error-not-in-catalogue:FAIL@1", "connection-failed:FAIL@17"]
    assert "n122-246-085:12253 (and 2 other rank(s) the same)" in said[0].what
    assert '"n122-246-085:12253:12399 [7] NCCL INFO bootstrap.cc:270 -> 2"' in said[0].what
    assert "Software caused connection abort" in said[1].why
    assert "socketStartConnect: Connect to fe80::966d:ae03:a2:8cf0%ib1<17943>" in said[1].what


def test_a_warn_the_catalogue_does_not_know_is_said_with_the_generic_step():
    """NVIDIA/nccl-tests#188's title line, its socket types turned into a pair no rule reads (a proxy's connection
    at a bootstrap socket; the types as printed are read by socket_types.py): a WARN no entry knows, no chain after it."""
    line = "user:852751:852807 [1] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type 2 != 1\n"
    said = found(line)
    assert ids(said) == ["warn-not-in-catalogue:WARN@1"]
    assert "socketFinalizeAccept: wrong type 2 != 1" in said[0].what and said[0].why.startswith("NCCL WARN")
    # with NCCL's chain after it, the class is said and the job failed
    said = found(line + "user:852751:852807 [1] NCCL INFO misc/socket.cc:482 -> 3\n")
    assert ids(said) == ["error-not-in-catalogue:FAIL@1"] and said[0].why.startswith("ncclInternalError")


def test_the_first_error_of_each_rank_and_not_the_ones_after_it():
    two = ("a:1:1 [0] NCCL WARN Cuda failure 'an illegal memory access was encountered'\n"
           "a:1:1 [0] NCCL WARN Cuda failure 'unspecified launch failure'\n"
           "b:2:2 [0] NCCL WARN NET/IB : Got async event : local catastrophic error\n")
    said = found(two)
    assert [f.line for f in said] == [1, 3]
    assert ids(said)[1] == "ib-device-fatal:FAIL@3"


def test_lines_without_nccls_prefix_count_too():
    """NCCL's lines as pastes lose their prefix: NVIDIA/nccl#525's `[3] include/shm.h:28 NCCL WARN
    ...` (a launcher's `[3]`, no host:pid:tid), NVIDIA/nccl-tests#12's NCCL 2.2 `misc/ibvwrap.cu:60
    WARN ...` (no `NCCL`) and nccl-tests' old `Cuda failure common.cu:891 '...'`."""
    said = found("[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n"
                 "[3] NCCL INFO include/shm.h:41 -> 2\n")
    assert ids(said) == ["shm-too-small:FAIL@1"] and "ncclSystemError" in said[0].why
    said = found("./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8\n"
                 "misc/ibvwrap.cu:60 WARN Failed to open libibverbs.so[.1]\n"
                 "Cuda failure common.cu:891 'CUDA driver version is insufficient for CUDA runtime version'\n")
    assert "cuda-driver-too-old:FAIL@3" in ids(said)
    assert any("misc/ibvwrap.cu:60 WARN Failed to open libibverbs.so[.1]" in f.what for f in said)


def test_cuda_error_strings_and_other_programs_nccl_failures_are_errors():
    """pick-pytorch#14's `cuda runtime error (101) : invalid device ordinal`, vLLM's `Cuda error
    FILE:LINE '...'` (sgl-project/sglang#552) and XGBoost's `NCCL failure :remote process exited ...`
    (dmlc/xgboost#8929), each as posted, no NCCL line beside them. The first two are errors without the
    catalogue, and since their entries (invalid-device-ordinal, custom-allreduce-no-peer-access) the
    entries' findings, quoting the line and its class all the same."""
    ordinal = "RuntimeError: cuda runtime error (101) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:59\n"
    said = uncatalogued(ordinal)
    assert ids(said) == ["error-not-in-catalogue:FAIL@1"] and said[0].why.startswith("CUDA error")
    said = found(ordinal)
    assert ids(said) == ["invalid-device-ordinal:FAIL@1"] and "invalid device ordinal at /pytorch" in said[0].what
    assert "(CUDA error: " in said[0].why
    peer = ("Failed: Cuda error /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'peer access is not "
            "supported between these two devices'\n")
    said = uncatalogued(peer)
    assert ids(said) == ["error-not-in-catalogue:FAIL@1"] and "peer access is not supported" in said[0].what
    said = found(peer)
    assert ids(said) == ["custom-allreduce-no-peer-access:FAIL@1"] and "custom_all_reduce.cuh:307" in said[0].what
    said = found("Exception: \"XGBoostError('[18:46:50] ../src/collective/../common/device_helpers.cuh:135: NCCL failure "
                 ":remote process exited or there was a network error')\"\n")
    assert ids(said) == ["error-not-in-catalogue:FAIL@1"] and said[0].why.startswith("ncclRemoteError")
    # NCCL's own `unhandled cuda error` stays NCCL's class
    said = found("fastmoe: Test NCCL failure common.cu:777 'unhandled cuda error'\n")
    assert said[0].why.startswith("ncclUnhandledCudaError")


def test_xlas_and_tensorflows_nccl_failures_are_errors():
    """XLA's `NCCL operation ncclAllReduce(...) failed: invalid argument` (JAX, google/flax#4942) and
    TensorFlow's `No OpKernel was registered to support Op 'NcclAllReduce'` on a build without NCCL
    (tensorflow/tensorflow#44281), each as posted, no NCCL line beside them: both are errors: the first
    the entry tensorflow-gpu-in-jax-process's, the second the entry windows-no-nccl's."""
    xla = ("E0912 23:44:51.552719 2536982 pjrt_stream_executor_client.cc:3008] Execution of replica 0 failed: "
           "INTERNAL: NCCL operation ncclAllReduce( send_buffer.opaque(), recv_buffer.opaque(), ToNcclCount(dtype, "
           "count), nccl_dtype, ToNcclReduction(reduction_kind), comm_, se::gpu::AsGpuStreamValue(stream)) failed: "
           "invalid argument (run with NCCL_DEBUG=WARN for details). Last NCCL warning(error) log entry (may be "
           "unrelated) ''.\n")
    said = found(xla)
    # its NCCL warning empty: the entry tensorflow-gpu-in-jax-process (a GPU TensorFlow beside JAX), class said
    assert ids(said) == ["tensorflow-gpu-in-jax-process:FAIL@1"] and "ncclInvalidArgument" in said[0].why
    tf = ("No OpKernel was registered to support Op 'NcclAllReduce' used by {{node NcclAllReduce}} with these "
          "attrs: [reduction=\"sum\", shared_name=\"c1\", T=DT_FLOAT, num_devices=2]\n")
    said = uncatalogued(tf)
    assert ids(said) == ["warn-not-in-catalogue:WARN@1"] and "'NcclAllReduce'" in said[0].what  # no class said
    said = found(tf)
    assert ids(said) == ["windows-no-nccl:FAIL@1"] and "NcclAllReduce" in said[0].what


def test_pytorchs_build_without_nccl_is_an_error():
    """OFA-Sys/Chinese-CLIP#279, as posted: PyTorch on Windows has no NCCL backend, and torchrun's
    report after it. The RuntimeError is an error by itself, and the entry pytorch-built-without-nccl's."""
    posted = ("RuntimeError: Distributed package doesn't have NCCL built in\n"
              "EOFError: Ran out of input\n"
              "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 27316) "
              "of binary: C:\\anaconda\\envs\\clip\\python.exe\n")
    said = uncatalogued(posted)
    assert ids(said) == ["warn-not-in-catalogue:WARN@1"] and "NCCL built in" in said[0].what
    said = found(posted)
    assert ids(said) == ["pytorch-built-without-nccl:FAIL@1"] and said[0].source.startswith("OFA-Sys/Chinese-CLIP#279")



def test_the_ofi_plugins_warn_text_that_pytorch_quotes_is_an_error_alone_and_after_last_error():
    """aws/aws-ofi-nccl#663, as posted: PyTorch quotes the OFI plugin's last WARN text after `Last error:`.
    There it is the DistBackendError's (one finding, quoting both); pasted alone it is an error by itself.
    Either way the entry efa-peer-unreachable-security-group names its cause."""
    posted = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
              "ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, "
              "NCCL version 2.20.5\n"
              "[rank1]: ncclInternalError: Internal check failed.\n"
              "[rank1]: Last error:\n"
              "[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0\n")
    said = found(posted)
    assert ids(said) == ["efa-peer-unreachable-security-group:FAIL@4"]  # at the WARN text, quoting PyTorch's error
    assert "Last error: NET/OFI Unable to insert remote address" in said[0].what
    assert "torch.distributed.DistBackendError" in said[0].what
    alone = posted.splitlines()[-1] + "\n"
    assert ids(uncatalogued(alone)) == ["warn-not-in-catalogue:WARN@1"]
    assert ids(found(alone)) == ["efa-peer-unreachable-security-group:FAIL@1"]

def test_every_real_log_with_an_error_line_has_a_finding_quoting_it():
    """Issue 55's "done when": each real log with an error line (the corpus's train cases,
    tests/data/nccl-corpus/index.csv, and tests/data/nccl/'s logs) gives a finding quoting its first
    error verbatim, or explains it (a WARN NCCL itself now prints as INFO, where it says nothing of the job)."""
    import csv
    corpus = ROOT / "tests" / "data" / "nccl-corpus"
    with open(corpus / "index.csv", newline="") as index:
        logs = [corpus / row["file"] for row in csv.DictReader(index) if row["split"] == "train"]
    logs += sorted(DATA.glob("*.log"))
    checked = 0
    for path in logs:
        if path.name == "warn-lines-from-threads.log":
            continue  # one line per entry, each a log of its own (test_ported_cases.py)
        log = parse(path.read_text(encoding="utf-8"), str(path))
        first = errors.find(log)
        if not first:
            continue
        said = diagnose(log)
        # or it is a bare WARN of NCCL's that a network entry reads on a job that did not use that network (NCCL 2.12
        # on prints libibverbs' as INFO): said with why it is not a finding, never dropped
        explained = [quote for _, quote, why in log.explained if why]
        assert any(first[0].quote in f.what for f in said) or first[0].quote in explained, \
            f"{path.name}: no finding quotes {first[0].quote!r}"
        checked += 1
    assert checked >= 25
