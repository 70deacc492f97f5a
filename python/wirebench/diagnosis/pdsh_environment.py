"""CUDA failing to start in a process DeepSpeed's multi-node launcher started over pdsh (each line of its output behind
pdsh's `HOST: `, importer/paste.py's _without_pdsh). That launcher passes the remote processes only the variables whose
names begin with MLFLOW, NCCL, PYTHON, MV2 or UCX, and those listed in a .deepspeed_env file (deepspeed/launcher/
runner.py: EXPORT_ENVS, DS_ENV_FILE): what the launching shell set for CUDA (PATH, LD_LIBRARY_PATH, CUDA_HOME,
CUDA_VISIBLE_DEVICES) does not reach them (NVIDIA/nccl#1029: `Cuda failure 'initialization error'` on the worker pods
until the CUDA variables and PATH were passed)."""
import re

from . import errors
from .registry import rule

# CUDA not starting, in its own words: cudaErrorInitializationError ('initialization error'), no device, a driver older
# than the runtime, the runtime's library not found
CUDA_NOT_STARTED = re.compile(r"'initialization error'|\bcudaErrorInitializationError\b|CUDA_ERROR_NOT_INITIALIZED|"
                              r"no CUDA-capable device is detected|CUDA driver version is insufficient|"
                              r"\blibcud(?:a|art)\.so[\w.]*: cannot open shared object file")


@rule("pdsh-worker-environment", "FAIL", "node",
      "CUDA not starting (`Cuda failure 'initialization error'`, `no CUDA-capable device is detected`, `CUDA driver "
      "version is insufficient`, libcudart not found) in a line behind pdsh's `HOST: ` (DeepSpeed's multi-node "
      "launcher), where half the paste's lines or more carry that prefix",
      "DeepSpeed's pdsh launcher passes the remote processes only the variables whose names begin with NCCL, PYTHON, "
      "UCX, MV2 or MLFLOW and those listed in .deepspeed_env: the CUDA settings of the launching shell (PATH, "
      "LD_LIBRARY_PATH, CUDA_HOME, CUDA_VISIBLE_DEVICES) do not reach them, and the remote shell's own profile decides",
      "list them in .deepspeed_env (one NAME=VALUE a line, in the home folder or the working directory of the node that "
      "launches; DS_ENV_FILE names another file), or set them in the workers' shell profile; check what a worker gets "
      "with `pdsh -w HOST env | grep -E 'CUDA|LD_LIBRARY|PATH'`",
      "DeepSpeed deepspeed/launcher/runner.py (EXPORT_ENVS = ['MLFLOW', 'NCCL', 'PYTHON', 'MV2', 'UCX'], "
      ".deepspeed_env); NVIDIA/nccl#1029 (the launcher did not pass the CUDA variables and PATH to the worker pods: "
      "`Cuda failure 'initialization error'` until it did)")
def pdsh_worker_environment(r, c):
    if not c.log.pdsh:
        return None
    for error in errors.find(c.log):
        host = c.log.pdsh.get(error.line) or c.log.pdsh.get(error.last_line)
        found = CUDA_NOT_STARTED.search(error.said)
        if host and found:
            return r.finding(error.line, f"CUDA did not start on {host}, a node DeepSpeed's launcher reached over pdsh: "
                                         f"\"{error.quote}\"",
                             f"{found.group(0)} in a process whose environment is what pdsh passed: the launching "
                             "shell's CUDA settings (PATH, LD_LIBRARY_PATH, CUDA_HOME) reach it only through "
                             ".deepspeed_env")
    return None
