"""Slurm's view of the nodes, and the scontrol command lines that change it. Every reason wirebench
writes starts with REASON_PREFIX; it resumes only nodes whose reason does (as LBNL NHC does with its
"NHC:" notes), so a node someone else drained stays drained."""
import shlex
import subprocess
import time
from dataclasses import dataclass

REASON_PREFIX = "wirebench:"
REASON_LIMIT = 200  # a reason is one line of `sinfo -R`; keep it readable there


class SlurmError(RuntimeError):
    """A Slurm command failed or could not be started: the message says which and why."""


@dataclass(frozen=True)
class NodeState:
    name: str
    state: str       # sinfo's long state, lower case: idle, allocated, mixed, drained, draining, down, ...
    reason: str      # "" when there is none
    since: float | None = None  # when the reason was set (seconds since the epoch), if Slurm says

    @property
    def drained(self):
        return self.state.startswith("drain")  # drained, draining (drained*, a node not responding)

    @property
    def drained_by_wirebench(self):
        return self.drained and self.reason.startswith(REASON_PREFIX)


def run_slurm(argv, timeout=30):
    """stdout of a Slurm client command; SlurmError naming it when it fails or does not answer."""
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise SlurmError(f"{argv[0]} is not on PATH (a Slurm client is needed)") from None
    except subprocess.TimeoutExpired:
        raise SlurmError(f"`{shlex.join(argv)}` did not answer within {timeout} s (is slurmctld up?)") from None
    if result.returncode != 0:
        raise SlurmError(f"`{shlex.join(argv)}` failed (exit code {result.returncode}): {result.stderr.strip()}")
    return result.stdout


def _local_time(text):
    """sinfo's %H (the reason's time, in the controller's local time) in seconds since the epoch."""
    try:
        return time.mktime(time.strptime(text.strip(), "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def parse_sinfo(text):
    """{name: NodeState} from `sinfo -h -N -o '%N|%P|%T|%H|%E'` (a node is listed once per partition
    it is in; the lines agree)."""
    nodes = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, _partition, state, since, reason = (line.split("|", 4) + [""] * 4)[:5]
        reason = "" if reason.strip() in ("none", "(null)") else reason.strip()
        nodes[name] = NodeState(name, state.strip().lower(), reason, _local_time(since))
    return nodes


def read_nodes(partition=None):
    argv = ["sinfo", "-h", "-N", "-o", "%N|%P|%T|%H|%E"] + (["-p", partition] if partition else [])
    return parse_sinfo(run_slurm(argv))


def reason_text(text, suffix=""):
    """A reason as Slurm will keep it: wirebench's prefix, one line, at most REASON_LIMIT characters;
    a long text is cut, never its suffix (which run, which check)."""
    line = " ".join(text.split())
    if not line.startswith(REASON_PREFIX):
        line = f"{REASON_PREFIX} {line}"
    tail = f" {suffix}" if suffix else ""
    room = REASON_LIMIT - len(tail)
    return (line if len(line) <= room else line[:room - 3] + "...") + tail


def drain_command(node, reason, suffix=""):
    return ["scontrol", "update", f"NodeName={node}", "State=DRAIN", f"Reason={reason_text(reason, suffix)}"]


def resume_command(node):
    return ["scontrol", "update", f"NodeName={node}", "State=RESUME"]
