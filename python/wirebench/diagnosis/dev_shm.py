"""/dev/shm, where NCCL keeps its shared-memory segments. Smaller than NCCL needs, where the log states its size and
shows two or more GPUs of one host: NCCL's shared-memory transport between the host's processes, and its proxies'
buffers, are files in /dev/shm, several MB per pair of local ranks and channel. A container gets 64 MB unless told
otherwise (Docker's default; a Kubernetes pod without a memory-backed emptyDir at /dev/shm). The log states the size
in Ray's warning (`/dev/shm has only N bytes available`, kserve/kserve#3791: vLLM's tensor-parallel workers in a pod of
64 MB), a `df` line of /dev/shm, or a `docker run` with `--shm-size`. Said as a WARN: a small job may fit; a job that
fails there prints NCCL's own error (the catalogue's shm-too-small), which this finding then leaves to it. And a
process that crashed inside NCCL's shared-memory setup (a backtrace's frame in ncclShmOpen under a SIGBUS or SIGSEGV):
touching a segment past what /dev/shm can hold is a bus error."""
import re

from . import errors
from .registry import rule

NEEDED = 1 << 30  # NCCL's docs: `--shm-size=1g --ulimit memlock=-1` for a container
UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
# Ray (python/ray/_private/services.py): `... using /tmp instead of /dev/shm because /dev/shm has only N bytes available`
RAY = re.compile(r"/dev/shm has only (\d+) bytes available")
# df's line of /dev/shm: `shm 64M 0 64M 0% /dev/shm` (-h), `shm 65536 0 65536 0% /dev/shm` (1K blocks)
DF = re.compile(r"^\s*(?:shm|tmpfs|none|overlay)\s+(\d+(?:\.\d+)?)([KMGT]?)i?\s+\S+\s+\S+\s+\d+%\s+/dev/shm\s*$", re.I)
# docker run's --shm-size: a number and an optional unit (b, k, m, g), bytes without one
DOCKER_SHM = re.compile(r"\b(?:nvidia-)?docker\s+(?:container\s+)?run\b.*?--shm-size[= ](\d+(?:\.\d+)?)([bkmg]?)\b", re.I)


def stated_size(log):
    """(line, bytes, how the log says it) of the first statement of /dev/shm's size, or None."""
    for o in log.others:
        text = o.text.strip()
        if found := RAY.search(text):
            return o.line, int(found.group(1)), f"Ray: /dev/shm has only {found.group(1)} bytes available"
        if found := DF.match(text):
            unit = found.group(2).lower() or "k"  # df without -h counts 1K blocks
            return o.line, int(float(found.group(1)) * UNITS[unit]), f"df: {' '.join(text.split())}"
        if found := DOCKER_SHM.search(text):
            return o.line, int(float(found.group(1)) * UNITS[found.group(2).lower()]), \
                f"docker run --shm-size={found.group(1)}{found.group(2)}"
    return None


def gpus_of_one_host(log):
    """The most GPUs NCCL's lines show on one host: its topology's GPUs (path lines, the dump's ranks) and the
    devices its lines are printed from."""
    by_host = {}
    for host, paths in log.gpu_paths.items():
        by_host.setdefault(host, set()).update(bus for pair in paths for bus in pair)
    for host, ranks in log.gpu_ranks.items():
        by_host.setdefault(host, set()).update(ranks.values())
    devices = {}
    for m in log.messages:
        if m.host and m.device >= 0:
            devices.setdefault(m.host, set()).add(m.device)
    return max([len(v) for v in by_host.values()] + [len(v) for v in devices.values()] + [0])


# a backtrace's frame in NCCL's shared-memory setup (gdb's `#0 0x00007f6b59544f3b in ncclShmOpen(char*, ...)`, Open
# MPI's handler's `[h:1] [ 3] /usr/lib/libnccl.so.2(ncclShmOpen+0x1a)`)
SHM_FRAME = re.compile(r"\bncclShmOpen\b|\bmisc/shmutils\.cc\b")
FRAMES_AFTER = 20  # a crash's backtrace follows it within these lines


def _human(size):
    return f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size / (1 << 20):.0f} MiB"


@rule("shm-size-below-nccls-need", "WARN", "node",
      "a statement of /dev/shm's size below 1 GiB (Ray's `/dev/shm has only N bytes available`, a `df` line of "
      "/dev/shm, `docker run --shm-size=X`) in a log whose NCCL lines show two or more GPUs of one host; not where "
      "an error line names /dev/shm (the catalogue's shm-too-small says it)",
      "NCCL's shared-memory transport between the host's processes and its proxies' buffers are files in /dev/shm, "
      "several MB per pair of local ranks and channel: a container's default 64 MB can run out as ranks or channels "
      "grow, and NCCL fails (`Error while creating shared memory segment`) or the job stalls",
      "give the container more shared memory: `docker run --shm-size=1g --ulimit memlock=-1` (or --ipc=host); "
      "Kubernetes: an emptyDir of medium Memory mounted at /dev/shm (KServe: hostIPC in RawDeployment mode); check "
      "with `df -h /dev/shm` inside the container",
      "NCCL User Guide, Troubleshooting: Docker (`--shm-size=1g --ulimit memlock=-1`); kserve/kserve#3791 (vLLM on two "
      "GPUs in a KServe pod: Ray said /dev/shm had 64 MB; hostIPC fixed it)")
def shm_size_below_nccls_need(r, c):
    stated = stated_size(c.log)
    if stated is None or stated[1] >= NEEDED:
        return None
    gpus = gpus_of_one_host(c.log)
    if gpus < 2 or any("/dev/shm" in e.quote for e in errors.find(c.log)):
        return None
    line, size, how = stated
    return r.finding(line, f"/dev/shm holds {_human(size)} ({how}) on a host where NCCL shows {gpus} GPUs: below the "
                           "1 GiB NCCL's docs ask of a container",
                     "NCCL's shared-memory transport and proxy buffers live in /dev/shm: a small one fails or stalls "
                     "the job as ranks and channels grow")


@rule("crash-in-nccl-shm-open", "FAIL", "node",
      "a crash line (a SIGBUS or SIGSEGV as gdb, Open MPI's or UCX's handler, or the shell says it) with a backtrace "
      "frame in NCCL's shared-memory setup (`ncclShmOpen`) within the 20 lines after it",
      "NCCL maps a segment in /dev/shm and touches it: where /dev/shm cannot back it (a container's 64 MB, or a full "
      "one) the kernel answers the first touch past its room with a bus error, and the process dies there",
      "give the container more shared memory: `docker run --shm-size=1g` (or --ipc=host); Kubernetes: an emptyDir of "
      "medium Memory at /dev/shm; check `df -h /dev/shm` where the ranks run and remove stale /dev/shm/nccl-* files",
      "NVIDIA/JAX-Toolbox#183 (a maintainer's SIGBUS in ncclShmOpen under ncclProxyService, avoided with "
      "--shm-size=1g); pytorch/tutorials#2475 (CI's container without --shm-size crashed in ncclShmOpen at "
      "nn.DataParallel: --shm-size=2gb)")
def crash_in_nccl_shm_open(r, c):
    for error in errors.find(c.log):
        if error.kind != "crash":
            continue
        frame = next((o for o in c.log.others if error.line < o.line <= error.line + FRAMES_AFTER
                      and SHM_FRAME.search(o.text)), None)
        if frame is not None:
            return r.finding(error.line, f"a process crashed inside NCCL's shared-memory setup: {error.quote!r}, "
                                         f"its backtrace in ncclShmOpen (line {frame.line})",
                             "a bus error where NCCL touches its /dev/shm segment: /dev/shm cannot back it")
    return None
