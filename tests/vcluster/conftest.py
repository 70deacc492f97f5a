"""The virtual cluster tests' fixtures: an installed copy in a site-like prefix (vcluster_helpers.py holds their
shared helpers)."""
import subprocess

import pytest
from vcluster_helpers import bin_dir


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`cmake --install` of the build tree into a site-like prefix, outside the repository."""
    prefix = tmp_path_factory.mktemp("site") / "apps" / "wirebench" / "0.1.0" / "gcc-12" / "mpich-5"
    subprocess.run(["cmake", "--install", str(bin_dir().parent), "--prefix", str(prefix)], check=True,
                   capture_output=True, timeout=180)
    return prefix
