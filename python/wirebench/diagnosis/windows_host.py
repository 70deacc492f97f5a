"""A job on Windows: NCCL is built for Linux only, and PyTorch's and TensorFlow's Windows builds carry none. A job
there that asks for NCCL (init_process_group("nccl"), the default DDP backend of Lightning and Accelerate on GPUs,
TensorFlow MirroredStrategy's default all-reduce) cannot start; the log of such a job often holds only the framework's
own lines (torchgeo/torchgeo#1198's PyTorch c10d warnings, `[W C:\\actions-runner\\...\\c10d\\socket.cpp:601]`). Where
the catalogue reads the failure itself (pytorch-built-without-nccl, windows-no-nccl), its entry says it and this rule
is quiet; a log with NCCL's own lines comes from Linux (WSL2 included), where NCCL runs."""
from functools import lru_cache

from . import catalogue, errors
from .error_lines import WINDOWS_FRAMEWORK
from .registry import rule

SAID_BY_ENTRIES = ("pytorch-built-without-nccl", "windows-no-nccl")


@lru_cache(maxsize=None)
def _entries():
    return [e for e in catalogue.read() if e.id in SAID_BY_ENTRIES]


@rule("windows-host", "WARN", "node",
      "a framework's distributed code on Windows (PyTorch c10d's log prefix with a Windows path, a Winsock error it "
      "quotes such as `system error: 10049`, a traceback through torch, tensorflow, lightning, accelerate or "
      "deepspeed installed on a drive letter, torchelastic's `of binary: C:\\...\\python.exe`) in a log with no line "
      "of NCCL's own, where no catalogue entry reads the failure (pytorch-built-without-nccl, windows-no-nccl); FAIL "
      "where the log holds an error",
      "NCCL runs on Linux only: PyTorch's and TensorFlow's Windows builds carry no NCCL, so a job that asks for it "
      "(the nccl backend, Lightning's or Accelerate's default on GPUs, MirroredStrategy's default all-reduce) cannot "
      "start, and one on gloo moves every GPU tensor through host memory",
      "use the gloo backend on Windows (init_process_group(backend=\"gloo\"); Lightning: "
      "DDPStrategy(process_group_backend=\"gloo\"); TensorFlow: MirroredStrategy(cross_device_ops="
      "tf.distribute.HierarchicalCopyAllReduce())), or run the job on Linux or in WSL2, where NCCL runs",
      "PyTorch documentation, torch.distributed (Backends: on Windows every backend but NCCL); NCCL documentation, "
      "Installation Guide (Linux packages only); torchgeo/torchgeo#1198 (two GPUs on Windows: `Distributed package "
      "doesn't have NCCL built in`); tensorflow/tensorflow#28430 (MirroredStrategy on Windows: NCCL is for Linux only)")
def windows_host(r, c):
    if any(not m.quoted for m in c.log.messages):
        return None  # NCCL's own lines: the job ran on Linux
    lines = sorted(c.log.others, key=lambda o: o.line)
    shown = next((o for o in lines if WINDOWS_FRAMEWORK.search(o.text)), None)
    if shown is None:
        return None
    texts = [o.text for o in lines] + [m.said for m in c.log.messages]
    if any(e.signature.search(t) for e in _entries() for t in texts):
        return None  # the entry reading the failure says it, more exactly
    finding = r.finding(shown.line, f"the job runs on Windows: \"{shown.text.strip()}\"",
                        "NCCL is built for Linux only, and the Windows builds of PyTorch and TensorFlow carry none: a "
                        "job that asks for NCCL here cannot start")
    if errors.find(c.log):
        finding.verdict = "FAIL"
    return finding
