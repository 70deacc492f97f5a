"""The GPU check's bundle and its offline call (issues 46, 57), proven here without a GPU: ci/gpu-bundle
makes the bundle from Debian's and PyPI's registries, then ci/gpu-offline-proof runs the whole
ci/gpu-check from it in a namespace with no network, every bundled package's files hidden and apt and
pip refusing to run: the build, each GPU stage up to its first CUDA call (SKIP rows here), the table
with its rows not measured, and the sum for a 16-core machine held to the 480 s budget. Root only
(namespaces and mounts). A clean clone has no peers' sources to bundle, so their offline build
(nvbandwidth, nccl-tests) is recorded in bench/MEASUREMENTS.md rather than run here."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 64 << 20  # what one device call may carry


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: namespaces and mounts")
def test_the_bundle_fits_a_device_call_and_builds_offline_up_to_the_first_cuda_call(tmp_path):
    bundle = tmp_path / "bundle"
    made = subprocess.run([str(ROOT / "ci" / "gpu-bundle"), "--out", str(bundle)], capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    assert 0 < size < LIMIT, size
    assert list((bundle / "wheels").glob("mpich-*.whl")) and len(list((bundle / "debs").glob("*.deb"))) >= 15
    manifest = (bundle / "MANIFEST").read_text().splitlines()
    assert len(manifest) == sum(1 for f in bundle.rglob("*") if f.is_file() and f.name != "MANIFEST")

    proof = subprocess.run([str(ROOT / "ci" / "gpu-offline-proof"), str(bundle), str(tmp_path / "work")],
                           capture_output=True, text=True, timeout=1500)
    said = proof.stdout[-4000:] + proof.stderr[-4000:]
    assert proof.returncode == 0, said
    assert "must not install anything" not in said
    assert "ci/gpu-offline-proof: hiding " in proof.stdout
    assert "ci/gpu-offline-proof: passed: built offline from" in proof.stdout, said
    assert "the table stage reached" in proof.stdout and "s budget; a second round needs" in proof.stdout, said
    table = (tmp_path / "work" / "run" / "gpu-check.txt").read_text()
    assert "| host to device, pinned, CE, 512 MiB | - |" in table and "not measured (no GPU)" in table
    # it built from the bundle: the configure step found the libraries under the unpacked folder
    cache = (tmp_path / "work" / "checkout" / "build" / "default" / "CMakeCache.txt").read_text()
    offline = tmp_path / "work" / "offline-root"
    for found in ("CLI11_DIR", "GTest_DIR", "benchmark_DIR", "nlohmann_json_DIR", "FCCP_INCLUDE_DIR", "MPI_CXX_COMPILER",
                  "PKG_CONFIG_EXECUTABLE"):
        line = next(l for l in cache.splitlines() if l.startswith(found + ":"))
        assert str(offline) in line, line
