"""ci/gpu-check's one table from the stage outputs it saves (python/tools/gpu_check_table.py): the peers'
outputs as nvbandwidth and nccl-tests print them (tests/data/gpu-check, origins in its ORIGINS.md),
wirebench's results.csv, and stages.tsv saying why a row was not measured."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "gpu-check"
TOOL = ROOT / "python" / "tools" / "gpu_check_table.py"
sys.path.insert(0, str(TOOL.parent))
import gpu_check_table  # noqa: E402

HEADER = (DATA / "h200-one-gpu" / "round-1" / "wb-p2p" / "results.csv").read_text().splitlines()[0]
STAGES_HEADER = "stage\tkind\tneeds_s\tstarted_s\twall_s\tcpu_s\tstatus\tdetail\n"


def row_of(text, path):
    """The table's row that starts with `path` (its cells, stripped)."""
    found = [line for line in text.splitlines() if line.startswith(f"| {path} |")]
    assert found, f"no row '{path}' in:\n{text}"
    return [cell.strip() for cell in found[0].strip("|").split("|")]


def test_one_h200_two_rounds_medians_and_ratios():
    text = gpu_check_table.table(DATA / "h200-one-gpu")
    assert text.startswith("gpu-check: 1 GPU(s): NVIDIA H200, 2 round(s)")
    h2d = row_of(text, "host to device, pinned, CE, 512 MiB")
    # the median of nvbandwidth's 55.42 and 55.36; wb-host's local NUMA node only (not numa1's 27.67)
    assert h2d[1:] == ["gpu0", "nvbandwidth host_to_device_memcpy_ce", "55.39 GB/s", "wb-host h2d_pinned (local NUMA)",
                       "55.34 GB/s", "0.9991"]
    d2h = row_of(text, "device to host, pinned, CE, 512 MiB")
    assert d2h[3] == "55.29 GB/s" and d2h[5] == "55.23 GB/s" and d2h[6] == "0.9990"
    local = row_of(text, "device-local copy, CE, 512 MiB")
    assert local[3] == "2084.17 GB/s" and local[5] == "2076.04 GB/s" and local[6] == "0.9955"  # one round's ratio: round 2 skipped wb-p2p
    latency = row_of(text, "GPU reads host memory, latency, 2 MiB chase")
    assert latency[3] == "0.814 us" and latency[5] == "0.821 us"   # nvbandwidth's ns read as us
    for pair_row in ("GPU to GPU, CE write, 512 MiB", "GPU to GPU, SM read, 512 MiB",
                     "GPU reads a peer's memory, latency, 2 MiB chase"):
        assert row_of(text, pair_row)[3] == "one GPU: no pair"


def test_a_stage_cut_off_or_skipped_keeps_what_finished_and_says_why():
    text = gpu_check_table.table(DATA / "h200-one-gpu")
    # nccl-tests was cut off after two binaries: theirs are compared, the rest say so
    all_reduce = row_of(text, "all_reduce_perf, out of place, 256 MiB (algbw)")
    assert all_reduce[3] == "1031.20 GB/s" and all_reduce[5] == "1023.01 GB/s" and all_reduce[6] == "0.9921"
    assert row_of(text, "reduce_scatter_perf, out of place, 256 MiB (algbw)")[3] == "cut off (budget)"
    assert row_of(text, "sendrecv_perf, out of place, 256 MiB (algbw)")[3] == "cut off (budget)"
    step = row_of(text, "step on NCCL, model tiny")
    assert step[5] == "skipped (budget: needs 15s, 6s left of 280s)"


def write_no_gpu_run(run_dir, **status):
    """What ci/gpu-check saves on a machine without a GPU: every GPU stage ran to its first CUDA call
    (`status`: another status for a stage, by its name's first word)."""
    (run_dir / "round-1" / "wb-host").mkdir(parents=True)
    (run_dir / "round-1" / "wb-host" / "results.csv").write_text(
        HEADER + "\nhost,h2d_pinned,cuda,,dev-vm,,,copy,uint8,0,0,0,0,,,,,,,,SKIP,no CUDA device visible,,,,\n")
    (run_dir / "gpus.txt").write_text("/bin/sh: 1: nvidia-smi: not found\n")
    stages = [("nvbandwidth, round 1", "not built", "ci/gpu-check-peers: nvbandwidth compiled; not linked"),
              ("wb-host, round 1", "no GPU", "host/h2d/pinned SKIP no CUDA device visible"),
              ("wb-p2p, round 1", "no GPU", "p2p SKIP no CUDA device visible"),
              ("nccl-tests, round 1", "no GPU", "dev-vm: Test CUDA failure common.cu:1180 'no CUDA-capable device is detected'"),
              ("wb-coll --backend nccl, round 1", "no GPU", "SKIP"),
              ("wb-step --backend nccl", "no GPU", "SKIP")]
    stages = [(s, status.get(s.split(",")[0].split()[0].replace("-", "_"), st), d) for s, st, d in stages]
    (run_dir / "stages.tsv").write_text(STAGES_HEADER + "".join(f"{s}\tgpu\t15\t10\t1\t0.5\t{st}\t{d}\n" for s, st, d in stages))


def test_without_a_gpu_every_row_is_listed_not_measured(tmp_path):
    write_no_gpu_run(tmp_path)
    text = gpu_check_table.table(tmp_path)
    assert text.startswith("gpu-check: 0 GPU(s), 1 round(s)")
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| path")]
    assert len(rows) == len(gpu_check_table.TESTCASES) + 1  # each testcase once, and the step
    h2d = row_of(text, "host to device, pinned, CE, 512 MiB")
    assert h2d[3] == "not built (compiled; not linked)"  # what the peers' build said
    assert h2d[5] == "not measured (no GPU)" and h2d[6] == "-"
    assert row_of(text, "all_reduce_perf, out of place, 256 MiB (algbw)")[3:6:2] == ["not measured (no GPU)"] * 2
    assert row_of(text, "step on NCCL, model tiny")[5] == "not measured (no GPU)"
    assert not any(cell.endswith("GB/s") or cell.endswith(" us") for line in rows for cell in line.split("|"))


def test_two_gpus_pairs_in_one_row_each_with_the_lowest_ratio(tmp_path):
    shutil.copy(DATA / "nvbandwidth-two-gpus.txt", (tmp_path / "round-1").mkdir() or tmp_path / "round-1" / "nvbandwidth.txt")
    (tmp_path / "round-1" / "wb-p2p").mkdir()
    lines = [HEADER]
    for case, figures in {"ce/write": (385.2, 388.72), "ce/read": (376.0, 377.01), "sm/write": (410.35, 400.0),
                          "sm/read": (402.11, 401.70)}.items():
        for (src, dst), value in zip(((0, 1), (1, 0)), figures):
            lines.append(f"p2p,{case},cuda,nvlink,dgx01/gpu{src},dgx01/gpu{dst},uni,copy,uint8,536870912,1,1,5,1,1,1,"
                         f"{value},{value},0,copies=1,OK,,5,0.5,algbw_GBps@largest,wb-p2p")
    lines.append("p2p,latency,cuda,nvlink,dgx01/gpu0,dgx01/gpu1,uni,pointer_chase,uint8,2097152,1,1,5,1.0,1,1,,,,,OK,,5,1,t,w")
    (tmp_path / "round-1" / "wb-p2p" / "results.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "gpus.txt").write_text("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-b)\n")
    (tmp_path / "stages.tsv").write_text(STAGES_HEADER + "nvbandwidth, round 1\tgpu\t15\t1\t9\t8\tdone\t\n"
                                         "wb-p2p, round 1\tgpu\t15\t10\t9\t8\tdone\t\n")
    text = gpu_check_table.table(tmp_path)
    write = row_of(text, "GPU to GPU, CE write, 512 MiB")
    # nvbandwidth's write matrix: row pushes to column; gpu0->gpu1 389.10, gpu1->gpu0 388.72
    assert write[1] == "2 pairs" and write[3] == "388.91 GB/s" and write[5] == "386.96 GB/s"
    assert write[6] == f"{(385.2 / 389.10 + 1.0) / 2:.4f} (lowest {385.2 / 389.10:.4f})"
    sm_write = row_of(text, "GPU to GPU, SM write, 512 MiB")
    assert sm_write[6].endswith(f"(lowest {400.0 / 409.88:.4f})")  # gpu1->gpu0, not gpu0->gpu1's 1.0
    latency = row_of(text, "GPU reads a peer's memory, latency, 2 MiB chase")
    assert latency[3] == "1.021 us" and latency[5] == "1.000 us"  # gpu0 reading gpu1's memory: the row 0, column 1 cell
    assert [row_of(text, "host to device, pinned, CE, 512 MiB")[1]] == ["gpu0"]  # a row per GPU
    assert "| host to device, pinned, CE, 512 MiB | gpu1 |" in text


def test_a_broken_peer_output_is_refused_naming_the_file_and_line(tmp_path):
    write_no_gpu_run(tmp_path, nvbandwidth="done")
    broken = (DATA / "h200-one-gpu" / "round-1" / "nvbandwidth.txt").read_text().replace(" 0    812.47", " 0    812.47 ms")
    (tmp_path / "round-1" / "nvbandwidth.txt").write_text(broken)
    result = subprocess.run([sys.executable, str(TOOL), str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 3
    line = broken.splitlines().index(" 0    812.47 ms") + 1
    assert f"nvbandwidth.txt:{line}: not a line of nvbandwidth's latency matrix" in result.stderr


def test_the_command_line_prints_the_table_and_refuses_a_missing_folder(tmp_path):
    result = subprocess.run([sys.executable, str(TOOL), str(DATA / "h200-one-gpu")], capture_output=True, text=True)
    assert result.returncode == 0 and "| device-local copy, CE, 512 MiB | gpu0 |" in result.stdout
    missing = subprocess.run([sys.executable, str(TOOL), str(tmp_path / "nothing")], capture_output=True, text=True)
    assert missing.returncode == 3 and "no such run folder" in missing.stderr
    # a reader gone before the table is written (`| true` ends at once; `| head -1` on a longer table): the table
    # dropped quietly, no BrokenPipeError traceback, exit 0
    piped = subprocess.run(f"{sys.executable} {TOOL} {DATA / 'h200-one-gpu'} | true; echo \"rc=${{PIPESTATUS[0]}}\"",
                           shell=True, executable="/bin/bash", capture_output=True, text=True)
    assert piped.stdout.splitlines()[-1] == "rc=0" and "Traceback" not in piped.stderr, piped.stderr


def test_a_peer_stopped_at_its_first_cuda_call_reads_not_measured_and_a_finished_one_is_held_to_its_table(tmp_path):
    # nccl-tests' all_reduce_perf without a GPU, as the offline proof captured it: no table, a CUDA failure
    write_no_gpu_run(tmp_path)
    (tmp_path / "round-1" / "nccl-tests").mkdir()
    shutil.copy(DATA / "nccl-tests-no-gpu-all_reduce_perf.txt", tmp_path / "round-1" / "nccl-tests" / "all_reduce_perf.txt")
    text = gpu_check_table.table(tmp_path)
    assert row_of(text, "all_reduce_perf, out of place, 256 MiB (algbw)")[3] == "not measured (no GPU)"
    # the same output from a stage that ended "done" is not nccl-tests' table: refused, naming the file
    write_no_gpu_run(tmp_path / "done", nccl_tests="done")
    (tmp_path / "done" / "round-1" / "nccl-tests").mkdir()
    shutil.copy(DATA / "nccl-tests-no-gpu-all_reduce_perf.txt", tmp_path / "done" / "round-1" / "nccl-tests" / "all_reduce_perf.txt")
    result = subprocess.run([sys.executable, str(TOOL), str(tmp_path / "done")], capture_output=True, text=True)
    assert result.returncode == 3 and "all_reduce_perf.txt:" in result.stderr and "Test CUDA failure" in result.stderr
