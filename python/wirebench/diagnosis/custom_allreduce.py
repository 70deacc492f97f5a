"""The serving engines' custom all-reduce (vLLM's csrc/custom_all_reduce.cuh, which SGLang uses; ROCm's aiter) and
PyTorch's expandable segments. The kernel shares its buffers with the other ranks through CUDA IPC
(cudaIpcGetMemHandle; hipIpcGetMemHandle on ROCm), which takes memory of one cudaMalloc only. With
`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` PyTorch's allocator backs tensors with CUDA's virtual memory
(cuMemAddressReserve + cuMemMap), whose pointers the IPC call refuses with `invalid argument`: the engine dies at
start (vllm-project/vllm#42609, where only DP x TP with the setting crashed; the fix PRs #55135 and #56193 and
ROCm/aiter#4174 name that cause; SGLang's #27593 exports such memory with fabric handles instead)."""
import re

from . import errors
from .registry import rule

# vLLM's CUDACHECK (`Failed: Cuda error custom_all_reduce.cuh:455 'invalid argument'`), aiter's
# (`custom_all_reduce.cu:397 hipIpcGetMemHandle [HIP error](invalid argument)`)
IPC_INVALID = re.compile(r"\bcustom_all_reduce\.cuh?:\d+\b.*\binvalid argument\b|\bhipIpcGetMemHandle\b.*\binvalid argument\b"
                         r"|\bcudaIpcGetMemHandle\b.*\binvalid argument\b")
# the allocator's setting as a command line, an environment dump or a launcher's YAML gives it
EXPANDABLE = re.compile(r"\bPYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF\b\W{0,4}[^\s\"']*\bexpandable_segments\s*:\s*True\b", re.I)


def _setting(log):
    """The first line of the log that sets expandable_segments:True, or None."""
    lines = sorted([(m.line, m.raw) for m in log.messages] + [(o.line, o.text) for o in log.others])
    return next((line for line, text in lines if EXPANDABLE.search(text)), None)


@rule("custom-allreduce-expandable-segments", "FAIL", "node",
      "a custom all-reduce's `invalid argument` (vLLM's `Failed: Cuda error custom_all_reduce.cuh:N 'invalid argument'`, "
      "aiter's hipIpcGetMemHandle, cudaIpcGetMemHandle) in a log that sets "
      "`PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True` (or PYTORCH_HIP_ALLOC_CONF, PYTORCH_ALLOC_CONF)",
      "the custom all-reduce shares its buffers through CUDA IPC, which takes memory of one cudaMalloc; expandable "
      "segments back tensors with CUDA's virtual memory (cuMemAddressReserve + cuMemMap), whose pointers "
      "cudaIpcGetMemHandle refuses as an invalid argument: the engine dies at start. Not NCCL's fault",
      "drop expandable_segments:True from PYTORCH_CUDA_ALLOC_CONF for the server, or keep it and disable the custom "
      "all-reduce (vLLM and SGLang: --disable-custom-all-reduce) so NCCL does the all-reduce",
      "vllm-project/vllm#42609 (the reporter's DP x TP matrix: only with the setting and both dimensions above 1); "
      "vllm-project/vllm#55135 and #56193 (the root cause: VMM-backed allocations cannot be exported through "
      "cudaIpcGetMemHandle); ROCm/aiter#4174 (the same on ROCm); sgl-project/sglang#27593 (fabric handles instead)")
def custom_allreduce_expandable_segments(r, c):
    error = next((e for e in errors.find(c.log) if IPC_INVALID.search(e.quote)), None)
    setting = _setting(c.log) if error is not None else None
    if setting is None:
        return None
    return r.finding(error.line, f"the custom all-reduce failed with `invalid argument` where PyTorch's allocator "
                                 f"uses expandable segments (line {setting})",
                     "CUDA IPC cannot export expandable segments' virtual memory: the custom all-reduce cannot share "
                     "its buffers")
