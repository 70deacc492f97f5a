"""Where a step's ranks run and how many: the launcher (WB_LAUNCHER's template, srun inside a Slurm
allocation, mpiexec outside one, the virtual cluster's), one rank per GPU or per node, and
one-process steps on every node of a Slurm job."""
import functools
import os
import shlex
import socket
import subprocess
from pathlib import Path

from .paths import BIN, VCLUSTER


def gpu_count():
    """GPUs visible on this node, at least 1."""
    return max(1, len([p for p in Path("/dev").glob("nvidia[0-9]*")]))


def gpu_ranks():
    """`ranks: gpus` in a suite: one rank per GPU of the job. Inside a Slurm allocation that is
    its task count (the templates ask for a task per GPU on every node); elsewhere this node's."""
    tasks = os.environ.get("SLURM_NTASKS", "")
    if os.environ.get("SLURM_JOB_ID") and tasks.isdigit() and int(tasks) > 0:
        return int(tasks)
    return gpu_count()


def slurm_nodes():
    nodes = os.environ.get("SLURM_JOB_NUM_NODES", "")
    return int(nodes) if os.environ.get("SLURM_JOB_ID") and nodes.isdigit() and int(nodes) > 0 else 1


def step_ranks(step):
    """`gpus`: one rank per GPU of the job; `nodes`: one rank per node of the job (a Slurm
    allocation's; one outside Slurm); else the number given."""
    ranks = step.get("ranks", 1)
    if ranks == "gpus":
        return gpu_ranks()
    if ranks == "nodes":
        return slurm_nodes()
    return int(ranks)


def step_env(step):
    """The step's own environment variables (e.g. NCCL_ALGO=Ring: one more wiring to measure)."""
    return {name: str(value) for name, value in step.get("env", {}).items()}


@functools.cache
def mpiexec_is_hydra():
    """MPICH's launcher (Hydra) takes -disable-auto-cleanup; other MPIs' mpiexec may not."""
    try:
        out = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "HYDRA" in out


def slurm_launch():
    """How ranks start inside a Slurm allocation: `hydra` (MPICH's mpiexec, its proxies started by
    srun, its own PMI server) or `srun` (Slurm's PMI). WB_SLURM_LAUNCH chooses; by default hydra
    when mpiexec is MPICH's Hydra. Why: an MPICH with PMI-1 only (PyPI's 5.0.2) under srun's pmi2
    plugin reads its business card 4096 bytes past UCX's shorter address, and where those stale heap
    bytes do not compress a PMI line passes the 1024 bytes slurmstepd reads: MPI_Init aborts or
    hangs, depending on PATH (docs/mpi-and-slurm.md, "A long PATH under srun")."""
    chosen = os.environ.get("WB_SLURM_LAUNCH", "")
    if chosen in ("hydra", "srun"):
        return chosen
    return "hydra" if mpiexec_is_hydra() else "srun"


def slurm_launcher(ranks):
    """The launcher's words inside an allocation; a task per GPU where the job has GPUs (srun)."""
    if slurm_launch() == "hydra":
        return ["mpiexec", "-launcher", "slurm", "-disable-auto-cleanup", "-n", str(ranks)]
    gpus = ["--gpus-per-task=1"] if os.environ.get("SLURM_GPUS_ON_NODE") or os.environ.get("SLURM_JOB_GPUS") else []
    return ["srun", f"--ntasks={ranks}", "--kill-on-bad-exit=0", *gpus]


def launcher(step, cluster):
    """The launcher's command line. A rank that dies must not take the others with it at once:
    they then time out, and the first to notice names the dead one from its heartbeat
    (bench/harness/rank_presence.h), where Hydra or srun alone would only say "bad termination"."""
    ranks = step_ranks(step)
    template = os.environ.get("WB_LAUNCHER")
    if cluster and step.get("where") == "cluster":
        return [str(VCLUSTER), "exec"]
    if template and ranks > 1:
        command = shlex.split(template.format(ranks=ranks))
    elif ranks > 1 and os.environ.get("SLURM_JOB_ID"):
        command = slurm_launcher(ranks)
    elif ranks > 1:
        command = ["mpiexec", *(["-disable-auto-cleanup"] if mpiexec_is_hydra() else []), "-n", str(ranks)]
    else:
        return []
    if step.get("ranks") == "nodes":  # one rank on each node: the pairs cross the network
        name = Path(command[0]).name
        command += ["--ntasks-per-node=1"] if name == "srun" else ["-ppn", "1"] if name == "mpiexec" else []
    return command


def step_nodes(step, cluster):
    """The nodes a step's ranks ran on, by name: the virtual cluster's, a Slurm job's (its node list
    as Slurm writes it), else this host."""
    if cluster and step.get("where") == "cluster":
        return [f"node{i}" for i in range(int(cluster.get("nodes", 2)))]
    if os.environ.get("SLURM_JOB_ID") and os.environ.get("SLURM_JOB_NODELIST"):
        return [os.environ["SLURM_JOB_NODELIST"]]
    return [socket.gethostname()]


def too_few_nodes(step):
    """Why a step cannot run in this job (it needs more nodes than the job has), or None."""
    needed, have = step.get("min_nodes", 1), slurm_nodes()
    return f"needs at least {needed} nodes; this job has {have}" if have < needed else None


# A one-process step on every node of a Slurm job: each writes into RUN_DIR/nodes/<node>.
NODE_WRAPPER = 'exec "$0" "$@" --run-dir "$WB_NODE_RUN_DIRS/${SLURMD_NODENAME:-$(hostname)}"'


def on_every_node(step):
    return bool(step.get("on_every_node")) and slurm_nodes() > 1


def step_command(step, cluster, run_dir=None, extra_args=()):
    """The step's command line (without --run-dir when run_dir is None: the dry run's)."""
    program = [str(BIN / step["binary"]), *map(str, step.get("args", [])), *extra_args]
    if on_every_node(step):
        nodes = slurm_nodes()
        # --mpi=none: each node's process is an MPI job of its own (a singleton), not one rank of N
        return ["srun", f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1", "--mpi=none",
                "--kill-on-bad-exit=0", "bash", "-c", NODE_WRAPPER, *program]
    return launcher(step, cluster) + program + (["--run-dir", str(run_dir)] if run_dir else [])
