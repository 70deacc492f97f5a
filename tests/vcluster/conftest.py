"""What the Slurm tests of the virtual cluster share: the build tree's binaries, an installed copy in
a site-like prefix, and a Slurm brought up on the namespace nodes with the environment its clients
need."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VCLUSTER = ROOT / "ci" / "vcluster"


def bin_dir():
    return Path(os.environ.get("WB_BIN_DIR", ROOT / "build" / "ci" / "bin"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`cmake --install` of the build tree into a site-like prefix, outside the repository."""
    prefix = tmp_path_factory.mktemp("site") / "apps" / "wirebench" / "0.1.0" / "gcc-12" / "mpich-5"
    subprocess.run(["cmake", "--install", str(bin_dir().parent), "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=180)
    return prefix


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
