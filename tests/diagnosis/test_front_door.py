"""`wirebench topo --nccl-log` hands over to the Python diagnosis (bench/topology/nccl_handover.cpp):
the `nccl` section keeps its shape, the node's wiring reaches the rules, a FAIL is exit 1, and a
log that cannot be read is said naming the file, exit 3. `wirebench import` diagnoses NCCL's lines
inside the outputs it imports."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, ROOT

SHAPE = {"source", "network", "ib_devices", "rings", "trees", "channels", "problems", "diagnoses"}


def wirebench(*args, cwd=None):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


@pytest.mark.parametrize("name, text, said", [
    ("a-folder", None, "is a directory"),
    ("empty.log", "", "empty"),
    ("no-nccl.log", "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728\n#\n# Using devices\n", "no line of NCCL's"),
])
def test_a_log_that_cannot_be_read_is_said_naming_the_file_exit_3(tmp_path, name, text, said):
    path = tmp_path / name
    path.mkdir() if text is None else path.write_text(text)
    result = wirebench("topo", "--nccl-log", path, "--json")
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout == "" and f"error: {path}: " in result.stderr and said in result.stderr


def test_the_nccl_section_keeps_its_shape_and_the_wiring_reaches_the_rules():
    result = wirebench("topo", "--nvidia-smi-topo", ROOT / "tests/data/topo/h100-8gpu-8nic.txt",
                       "--nccl-log", DATA / "pcie-8gpu-p2p-shm.log", "--json")
    assert result.returncode == 0, result.stderr
    nccl = json.loads(result.stdout)["nccl"]
    assert set(nccl) == SHAPE
    assert set(nccl["channels"][0]) == {"line", "host", "device", "channel", "src_rank", "dst_rank", "src", "dst",
                                        "transport", "via", "gdrdma", "net_device", "old_format"}
    assert [(d["id"], d["line"]) for d in nccl["diagnoses"]] == [("shm-instead-of-p2p", 5)]
    assert "GPU3 and GPU4 are NV18" in nccl["diagnoses"][0]["what"]  # the matrix's wiring, read by Python


def test_a_fail_is_exit_1_in_json_and_in_the_table():
    log = DATA / "nccl-tests-166-shm-chain.log"
    result = wirebench("topo", "--nccl-log", log, "--json")
    assert result.returncode == 1, result.stderr
    assert [d["id"] for d in json.loads(result.stdout)["nccl"]["diagnoses"]] == ["shm-too-small"]
    table = wirebench("topo", "--nccl-log", log)
    assert table.returncode == 1 and "  FAIL shm-too-small: " in table.stdout and f"where: {log}:13" in table.stdout


def test_the_healthy_single_host_log_is_exit_0_without_findings():
    result = wirebench("topo", "--nccl-log", DATA / "single-node-8gpu-socket-no-ib.log", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["nccl"]["diagnoses"] == []


def test_nccl_lines_inside_an_imported_nccl_tests_output_are_diagnosed(tmp_path):
    """NVIDIA/nccl-tests#293's output as posted (tests/data/imports/real/): `mpirun ... -x
    NCCL_SHM_DISABLE=1` on its command line, NCCL's INFO lines without their ENV lines. The setting
    is read from the command line (it was read only from NCCL's `NCCL_SHM_DISABLE set by environment
    to 1.`, which this log lacks: no finding); the import's topology.json carries the finding with
    the file and line, and the report says it. With NCCL's own lines put among its INFO lines, the
    command line still says it first."""
    real = ROOT / "tests/data/imports/real/nccl-tests-293-nccl-info-interleaved.txt"
    lines = real.read_text().splitlines(True)
    assert "-x NCCL_SHM_DISABLE=1" in lines[0]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    for name, extra in (("as-posted.txt", ()), ("with-env-lines.txt", ("test1:3595:3595", "test2:4017:4017"))):
        at = next(i for i, l in enumerate(lines) if "NCCL INFO" in l)
        text = lines[:at] + [f"{host} [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n" for host in extra] + \
            lines[at:]
        pasted = tmp_path / name
        pasted.write_text("".join(text))
        result = subprocess.run([sys.executable, "-m", "wirebench", "import", str(pasted), "--out",
                                 str(tmp_path / name.replace(".txt", ""))], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode in (0, 1), result.stdout + result.stderr
        nccl = json.loads((tmp_path / name.replace(".txt", "") / "topology.json").read_text())["nccl"]
        assert nccl["source"] == str(pasted)
        assert [(d["id"], d["line"]) for d in nccl["diagnoses"]] == [("transport-disabled", 1)]
        assert "NCCL_SHM_DISABLE is set" in nccl["diagnoses"][0]["what"]
        assert "NCCL log: transport-disabled" in result.stdout
