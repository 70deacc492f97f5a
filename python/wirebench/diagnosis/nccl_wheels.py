"""NCCL's Python packages, as PyTorch's collect_env or pip lists them: more than one (nvidia-nccl-cu12 and
nvidia-nccl-cu13) in one environment. Each ships its own libnccl.so.2; which of them the process loads depends on the
search order, not on which build torch was made against, and a symbol the build expects can then be missing
(pytorch/pytorch#186591: `import torch` failed on an undefined symbol with nvidia-nccl-cu12 2.29.3 beside
nvidia-nccl-cu13 2.29.7; a maintainer: uninstall the cu12 package)."""
from .error_lines import NCCL_WHEEL
from .registry import rule


@rule("two-nccl-wheels", "WARN", "node",
      "two or more of NCCL's Python packages (`nvidia-nccl-cu12`, `nvidia-nccl-cu13` ...) in one listing of PyTorch's "
      "collect_env (`[pip3] nvidia-nccl-cu12==2.29.3`) or pip's",
      "each package ships a libnccl.so.2: the process loads whichever the search order finds first, which may not be "
      "the NCCL the framework was built against (an undefined symbol at import, or an NCCL older than the job needs)",
      "keep only the package that matches the framework's CUDA (PyTorch built for CUDA 13: nvidia-nccl-cu13; pip "
      "uninstall the other) and check `python -c 'import torch; print(torch.cuda.nccl.version())'`",
      "pytorch/pytorch#186591 (ptrblck: the environment mixes nvidia-nccl-cu12 2.29.3 and nvidia-nccl-cu13 2.29.7; "
      "uninstall the cu12 package)")
def two_nccl_wheels(r, c):
    listed = {}
    for o in c.log.others:
        found = NCCL_WHEEL.search(o.text)
        if found:
            listed.setdefault(found.group(1), (o.line, found.group(2)))
    if len(listed) < 2:
        return None
    line = min(at for at, _ in listed.values())
    said = ", ".join(f"{name} {version} (line {at})" for name, (at, version) in sorted(listed.items()))
    return r.finding(line, f"NCCL is installed as {len(listed)} Python packages: {said}",
                     "each ships a libnccl.so.2; the one the process loads is the search order's, not the framework's "
                     "build's")
