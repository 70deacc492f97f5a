"""`wirebench import` through the front door, from a folder outside the repository, as a site runs
it on the outputs it keeps (the fixtures: tests/data/imports)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"


def test_import_judges_nccl_tests_and_osu_outputs_in_one_run_directory(tmp_path):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    for name in ("all_reduce_perf-slow.txt", "osu_bw.txt"):
        shutil.copy(DATA / name, tmp_path / name)
    result = subprocess.run([str(Path(binary) / "wirebench"), "import", "all_reduce_perf-slow.txt", "osu_bw.txt",
                             "--link-class", "nvlink", "--rate", "370"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1, result.stderr  # the slow all_reduce FAILs
    assert "all_reduce_perf-slow.txt: nccl-tests, 4 row(s)" in result.stdout and "osu_bw.txt: osu, 3 row(s)" in result.stdout
    assert "rerun: mpirun -np 8 all_reduce_perf -b 134217728 -e 134217728" in result.stdout
    for name in ("results.csv", "report.md", "junit.xml", "summary.json"):
        assert (tmp_path / "wirebench-import" / name).stat().st_size > 0


TESTS = Path(__file__).resolve().parents[1] / "data"


def wirebench_import(tmp_path, *args):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), "import", *map(str, args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def verdicts_of(tmp_path, bench=None):
    summary = json.loads((tmp_path / "wirebench-import" / "summary.json").read_text())
    return [v for v in summary["verdicts"] if v["verdict"] != "DATA" and (bench is None or v["bench"] == bench)]


def test_a_saved_nvidia_smi_topo_gives_an_imported_collective_its_wirings_expectation(tmp_path):
    """An 8-GPU NVSwitch node's all_reduce is held against what NCCL reaches on that wiring (NVLS),
    not left NOT JUDGED for want of a --rate."""
    result = wirebench_import(tmp_path, DATA / "all_reduce_perf.txt", "--hosts", "dgx01",
                              "--nvidia-smi-topo", TESTS / "topo" / "h100-8gpu-8nic.txt")
    assert result.returncode in (0, 1), result.stderr
    topology = json.loads((tmp_path / "wirebench-import" / "topology.json").read_text())
    assert topology["nodes"][0]["hostname"] == "dgx01"
    judged = verdicts_of(tmp_path, "coll")
    assert len(judged) == 2 and all(v["verdict"] in ("PASS", "WARN", "FAIL") for v in judged)
    assert "NVLS" in result.stdout + (tmp_path / "wirebench-import" / "report.md").read_text()
    rows = (tmp_path / "wirebench-import" / "results.csv").read_text().splitlines()
    assert all(",nccl,nvlink," in line for line in rows[1:])  # the wiring names the link: every GPU pair NVLink


def test_the_nccl_log_beside_an_import_names_its_misconfiguration_with_file_and_line(tmp_path):
    log = TESTS / "nccl" / "socket-on-ib-machine.log"
    result = wirebench_import(tmp_path, DATA / "osu_bw.txt", "--nccl-log", log, "--nvidia-smi-topo",
                              TESTS / "topo" / "h100-8gpu-8nic.txt")
    assert result.returncode == 1, result.stdout + result.stderr
    found = verdicts_of(tmp_path, "nccl-log")
    assert [(v["verdict"], v["item"]) for v in found] == [("FAIL", "NCCL log: socket-fallback (docs/nccl-diagnosis.md)")]
    assert "FAIL NCCL log: socket-fallback" in result.stdout and f"where: {log}:2" in result.stdout
    assert "fix: unset NCCL_IB_DISABLE" in result.stdout


def test_a_healthy_nccl_log_adds_nothing_and_a_given_topology_json_keeps_its_wiring(tmp_path):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    saved = tmp_path / "saved-topology.json"
    saved.write_text(subprocess.run([str(Path(binary) / "wirebench"), "topo", "--json", "--nvidia-smi-topo",
                                     TESTS / "topo" / "h100-8gpu-8nic.txt"], capture_output=True, text=True,
                                    check=True).stdout)
    result = wirebench_import(tmp_path, DATA / "all_reduce_perf.txt", "--topology", saved,
                              "--nccl-log", TESTS / "nccl" / "ib-network-select.log")
    assert result.returncode in (0, 1), result.stderr
    assert verdicts_of(tmp_path, "nccl-log") == []
    topology = json.loads((tmp_path / "wirebench-import" / "topology.json").read_text())
    assert topology["nodes"][0]["hostname"] == "h100-8gpu-8nic" and topology["nccl"]["network"] == "IB"


def test_an_unreadable_topology_is_exit_3_naming_the_file_and_nothing_is_written(tmp_path):
    bad = tmp_path / "topo.txt"
    bad.write_text("GPU? nothing here\n")
    result = wirebench_import(tmp_path, DATA / "osu_bw.txt", "--nvidia-smi-topo", bad)
    assert result.returncode == 3
    assert f"error: {bad}" in result.stderr and result.stderr.count("exit code 3") == 1
    assert not (tmp_path / "wirebench-import").exists()


def test_a_grace_nodes_wiring_makes_nvbandwidths_host_copies_c2c(tmp_path):
    """nvbandwidth's text cannot tell NVLink-C2C from PCIe; the GB200 node's saved topology can,
    even where --link-class names the GPUs' link."""
    result = wirebench_import(tmp_path, DATA / "nvbandwidth.txt", "--hosts", "gb01", "--link-class", "nvlink",
                              "--nvidia-smi-topo", TESTS / "topo" / "gb200-4gpu-c2c.txt")
    assert result.returncode in (0, 1), result.stderr
    rows = (tmp_path / "wirebench-import" / "results.csv").read_text().splitlines()
    host = [line for line in rows if line.startswith("host,")]
    pairs = [line for line in rows if line.startswith("p2p,")]
    assert host and all(",cuda,c2c," in line for line in host), host
    assert pairs and all(",cuda,nvlink," in line for line in pairs), pairs
