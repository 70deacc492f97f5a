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

from diagnosis_helpers import DATA, ROOT, diagnose, parse
from wirebench.diagnosis.log_facts import settings

SHAPE = {"source", "network", "ib_devices", "rings", "trees", "channels", "problems", "diagnoses", "explained"}


def wirebench(*args, cwd=None):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


@pytest.mark.parametrize("name, text, said", [
    ("a-folder", None, "is a directory"),
    ("empty.log", "", "empty"),
    ("no-nccl.log", "job 4242 started on gpu[01-02]\nall done\n", "no line of NCCL's"),
])
def test_a_log_that_cannot_be_read_is_said_naming_the_file_exit_3(tmp_path, name, text, said):
    path = tmp_path / name
    path.mkdir() if text is None else path.write_text(text)
    result = wirebench("topo", "--nccl-log", path, "--json")
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stdout == "" and f"error: {path}: " in result.stderr and said in result.stderr


def test_a_file_with_an_error_line_and_no_line_of_nccls_is_a_finding_exit_1_not_a_refusal(tmp_path):
    """Issue 55's done-when: every log with an error line gives a finding quoting it. A file of the
    program's output alone (no NCCL_DEBUG) ends as its finding's verdict does: FAIL, exit 1, never 0 or 3."""
    path = tmp_path / "job.out"
    path.write_text("job 4242 started on gpu[01-02]\nsomething went wrong: could not reach the head node\n")
    result = wirebench("topo", "--nccl-log", path, "--json")
    assert result.returncode == 1, result.stdout + result.stderr
    [said] = json.loads(result.stdout)["nccl"]["diagnoses"]
    assert said["verdict"] == "FAIL" and said["line"] == 2
    assert '"something went wrong: could not reach the head node"' in said["what"]
    assert "no line of NCCL's" in said["fix"] and "NCCL_DEBUG=INFO" in said["fix"]


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


def test_an_explained_warn_is_printed_with_why_and_exit_0():
    """NVIDIA/nccl-tests#82's healthy socket run (IB disabled on its command line): its libibverbs WARN is
    no finding, but the table says it, with why, as the JSON's `explained` does."""
    log = DATA / "nccl-tests-82-sockets-ib-disabled-conda-prompt.log"
    result = wirebench("topo", "--nccl-log", log)
    assert result.returncode == 0, result.stderr
    assert ("  not a finding, line 9: \"v100-gpu-1:14926:14926 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open "
            "libibverbs.so[.1]\": libibverbs-missing: NCCL_IB_DISABLE=1 (line 2) chose sockets") in result.stdout
    assert "WARN libibverbs-missing" not in result.stdout


def _import(pasted, out):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    result = subprocess.run([sys.executable, "-m", "wirebench", "import", str(pasted), "--out", str(out)],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode in (0, 1, 4), result.stdout + result.stderr
    topology = out / "topology.json"
    return result, json.loads(topology.read_text()).get("nccl") if topology.exists() else None


def test_nccl_lines_inside_an_imported_nccl_tests_output_are_diagnosed(tmp_path):
    """An 8-GPU one-node nccl-tests output under mpirun --tag-output (tests/data/imports/, nccl-tests'
    format), NCCL's `NCCL_SHM_DISABLE set by environment to 1.` among its NCCL lines: the import's
    topology.json carries the finding with the file and line, and the report says it."""
    lines = (ROOT / "tests/data/imports/all_reduce_perf-mpirun.txt").read_text().splitlines(True)
    at = next(i for i, l in enumerate(lines) if "NCCL INFO" in l)
    lines.insert(at, "[1,0]<stdout>:dgx01:4000:4000 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n")
    pasted = tmp_path / "all_reduce.txt"
    pasted.write_text("".join(lines))
    result, nccl = _import(pasted, tmp_path / "run")
    assert nccl["source"] == str(pasted)
    assert [(d["id"], d["line"]) for d in nccl["diagnoses"]] == [("transport-disabled", at + 1)]
    assert "NCCL log: transport-disabled" in result.stdout


def test_a_setting_on_the_command_line_is_read_and_judged_by_the_ranks_a_node_runs(tmp_path):
    """NVIDIA/nccl-tests#293 as posted (tests/data/imports/real/): `mpirun ... -x NCCL_SHM_DISABLE=1`
    on its command line, no ENV line of NCCL's. The setting is read from the command line, but each
    of its two hosts runs one rank (its Rank lines, NCCL's `rank 0 nranks 2`): no two GPUs of a node
    talk, so disabling SHM changes nothing and nothing is said; the import stays NOT JUDGED (exit 4)
    as before, where an NCCL line saying the same read a WARN."""
    real = ROOT / "tests/data/imports/real/nccl-tests-293-nccl-info-interleaved.txt"
    log = parse(real.read_text(), str(real))
    assert [(s.line, s.value) for s in settings(log)["NCCL_SHM_DISABLE"]] == [(1, "1")]
    result, nccl = _import(real, tmp_path / "run")
    assert result.returncode == 4 and nccl is None
    # the same command line on one node of two GPUs (its two Rank lines on test1, the second on its
    # own GPU: on one GPU they would be two ranks sharing it, ranks-share-gpu): a WARN
    one_node = (real.read_text().replace(" on      test2 device  0 [0x81]", " on      test1 device  1 [0xc1]")
                .replace("test2:4017:4017", "test1:4017:4017"))
    assert [f.id for f in diagnose(parse(one_node, "one-node.txt"))] == ["transport-disabled"]
