"""What the virtual cluster's tests share: the build tree's binaries, a Slurm brought up on the namespace nodes
with the environment its clients need, a verdict's culprit (imported by name: a module named conftest would be
another folder's when several test folders run in one pytest session)."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VCLUSTER = ROOT / "ci" / "vcluster"


def bin_dir():
    return Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "ci" / "bin"))


def slurm_up(*up_args):
    """ci/vcluster up --slurm with up_args; the environment a Slurm client (sinfo, sbatch) needs."""
    up = subprocess.run([str(VCLUSTER), "up", "--slurm", *up_args], capture_output=True, text=True, timeout=120)
    assert up.returncode == 0, up.stdout + up.stderr
    exports = subprocess.run([str(VCLUSTER), "env"], capture_output=True, text=True, check=True).stdout
    env = dict(os.environ)
    for line in exports.splitlines():  # export A=1 B=2
        for item in line.removeprefix("export ").split():
            name, value = item.split("=", 1)
            env[name] = value
    return env


def slurm_down():
    assert subprocess.run([str(VCLUSTER), "down"], capture_output=True, timeout=120).returncode == 0


def culprit_of(v):
    """A verdict's culprit as "subject:place" (node:node3), from summary.json's typed finding; None."""
    found = v.get("finding") or {}
    return f"{found['subject']}:{found['place']}" if found.get("kind") == "culprit" else None
