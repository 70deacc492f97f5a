"""The leaf switch of every node of a Slurm job, from Slurm's own topology (the topology/tree plugin's
`scontrol show topology`: a leaf's line says `Level=0 ... Nodes=node[0-31]`), for the adaptive screen
and the report (wirebench/report/switches.py keeps the file's version). Nothing when Slurm has no
topology, or outside a job: the screen then treats the fabric as one switch."""
import os
import subprocess


def _scontrol(*args):
    try:
        result = subprocess.run(["scontrol", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def hostnames(expression):
    out = _scontrol("show", "hostnames", expression)
    return out.split() if out else []


def leaf_switches():
    """{node: leaf switch} of Slurm's topology; {} without one."""
    out = _scontrol("show", "topology")
    leaf_of = {}
    for line in (out or "").splitlines():
        fields = dict(token.partition("=")[::2] for token in line.split() if "=" in token)
        if "SwitchName" in fields and fields.get("Nodes") and fields.get("Level", "0") == "0":
            for node in hostnames(fields["Nodes"]):
                leaf_of[node] = fields["SwitchName"]
    return leaf_of


def job_nodes():
    """The job's nodes in the order Slurm lists them (the order one rank per node is placed in)."""
    listed = os.environ.get("SLURM_JOB_NODELIST", "")
    return hostnames(listed) if os.environ.get("SLURM_JOB_ID") and listed else []
