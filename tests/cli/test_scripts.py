"""The project's shell scripts pass shellcheck (Debian `shellcheck`, installed by ci/setup)."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ["ci/setup", "ci/test", "ci/run", "ci/fuzz", "ci/package", "ci/deb-check", "ci/tested-mpi",
           "bench/peers/finalize_hang_rate.sh", "bench/peers/vcluster_soak.sh", "ci/gpu-check", "ci/vcluster", "ci/vcluster.d/launch", "ci/vcluster.d/slurm", ".ci/run",
           "ci/templates/slurm-acceptance.sbatch", "ci/gpu-bundle", "ci/gpu-check-peers", "ci/gpu-offline-proof"]
SOURCED = ["ci/gpu-offline-env"]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_shell_scripts_are_shellcheck_clean():
    result = subprocess.run(["shellcheck", *SCRIPTS], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    # sourced, not run: no shebang of its own, bash declared inside
    sourced = subprocess.run(["shellcheck", *SOURCED], cwd=ROOT, capture_output=True, text=True)
    assert sourced.returncode == 0, sourced.stdout


def test_every_script_is_executable_and_strict():
    for script in SCRIPTS:
        path = ROOT / script
        assert path.stat().st_mode & 0o111, f"{script} is not executable"
        text = path.read_text()
        assert text.startswith("#!/usr/bin/env bash"), script
        assert "set -euo pipefail" in text, f"{script} does not stop at the first error"
