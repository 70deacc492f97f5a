"""`wirebench import` through the front door, from a folder outside the repository, as a site runs
it on the outputs it keeps (the fixtures: tests/data/imports)."""
import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"
# The commands run in a test's own folder, and wirebench hands WB_BIN_DIR on to what it starts: a
# relative folder (WB_BIN_DIR=build/ci/bin) would reach nothing from there.
if os.environ.get("WB_BIN_DIR"):
    os.environ["WB_BIN_DIR"] = os.path.abspath(os.environ["WB_BIN_DIR"])


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
    made = list((tmp_path / "runs").glob("import-*"))  # a new runs/import-TIME, as wirebench run makes runs/SUITE-TIME
    assert len(made) == 1
    for name in ("results.csv", "report.md", "junit.xml", "summary.json"):
        assert (made[0] / name).stat().st_size > 0


TESTS = Path(__file__).resolve().parents[1] / "data"


def wirebench_import(tmp_path, *args):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), "import", *map(str, args), "--out", "wirebench-import"],
                          cwd=tmp_path,
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
    finding = found[0]["finding"]
    assert {k: v for k, v in finding.items() if k != "evidence"} == {"kind": "nccl-log", "subject": "socket-fallback",
                                                                     "place": f"{log}:2", "node": None}
    assert finding["evidence"]["source"] == f"{log}:2" and finding["evidence"]["fix"].startswith("unset NCCL_IB_DISABLE")
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


TOPO = TESTS / "topo" / "h100-8gpu-8nic.txt"


def _ring_sweep(command):
    """A healthy 8 x H100 all_reduce with NCCL_ALGO=Ring, as nccl-tests prints it (its printf
    formats; ring on NVLink 4 reaches about 370 GB/s busbw at large sizes, NVLS about 480)."""
    lines = [command] if command else []
    lines += ["# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 "
              "agg iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    lines += [f"#  Rank {r:2d} Group  0 Pid {7100 + r:6d} on      dgx01 device {r:2d} [0x{0x18 + 16 * r:02x}] NVIDIA H100 "
              "80GB HBM3" for r in range(8)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
              "  busbw #wrong", "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)          "
              "  (us)  (GB/s)  (GB/s)"]
    for size, busbw in ((1 << 30, 362.1), (2 << 30, 368.4), (4 << 30, 371.0), (8 << 30, 372.2)):
        algbw = busbw / 1.75
        cell = f"{size / (algbw * 1e3):8.0f}  {algbw:6.2f}  {busbw:6.2f}       0"
        lines.append(f"{size:12d}  {size // 4:12d}     float     sum      -1  {cell}  {cell}")
    return "\n".join(lines + ["# Avg bus bandwidth    : 368.4 ", ""])


@pytest.mark.parametrize("how", ["command line", "nccl log"])
def test_a_ring_sweep_is_judged_against_rings_expectation_not_nvls(tmp_path, how):
    """issue 47: a healthy 8 x H100 Ring sweep got 2 FAILs against the NVLS floor (docs/ceilings.md:
    acceptance runs force Ring). NCCL_ALGO=Ring from the pasted command line (mpirun -x) or from
    NCCL's log (`NCCL_ALGO set by environment to Ring`) chooses the ring expectation."""
    path = tmp_path / "all_reduce_perf.txt"
    command = "$ mpirun -np 8 -x NCCL_ALGO=Ring ./build/all_reduce_perf -b 1G -e 8G -f 2 -g 1"
    path.write_text(_ring_sweep(command if how == "command line" else ""))
    args = ["--nvidia-smi-topo", str(TOPO)]
    if how == "nccl log":
        log = tmp_path / "nccl.log"
        log.write_text("dgx01:7100:7100 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                       "dgx01:7100:7160 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n")
        args += ["--nccl-log", str(log)]
    result = wirebench_import(tmp_path, path, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "NCCL_ALGO=Ring" in result.stdout
    rows = list(csv.DictReader((tmp_path / "wirebench-import" / "results.csv").open()))
    assert "NCCL_ALGO=Ring" in rows[0]["extra"]
    # the same sweep without the setting is held to NVLS, NCCL's own pick on this node: FAIL
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "all_reduce_perf.txt").write_text(_ring_sweep(""))
    assert wirebench_import(plain, "all_reduce_perf.txt", "--nvidia-smi-topo", TOPO).returncode == 1
