"""Thresholds held to real figures (issue 57): healthy figures people published (issue threads, vendor
material, this project's own lent H200) read PASS and sick ones FAIL, imported as their outputs were
pasted (`wirebench import`), against the ceilings the project derives: PCIe from the protocol (what a
link carries after each TLP's overhead), a GPU's own copies from its model's memory bandwidth
(suites/gpu-memory.csv), NVLink through NCCL's algorithms, InfiniBand ports. Where each output comes
from: tests/data/published/ORIGINS.md; the table of them all: docs/ceilings.md."""
import csv
import json
import os
from pathlib import Path

import pytest

from wirebench.importer.__main__ import main

DATA = Path(__file__).resolve().parents[1] / "data"
PUBLISHED = DATA / "published"
REAL = DATA / "imports" / "real"
TOPO = DATA / "topo"


def judged(tmp_path, files, *args):
    """(exit code, {(case, src, dst, bytes): (verdict, reason, ceiling)}) of one import."""
    out = tmp_path / "run"
    code = main(["wirebench import", *[str(f) for f in files], "--out", str(out), *args])
    rows = list(csv.DictReader((out / "results.csv").open()))
    summary = json.loads((out / "summary.json").read_text())
    by_line = {v["line"]: v for v in summary["verdicts"]}
    verdicts = {}
    for line, r in enumerate(rows, start=2):
        v = by_line.get(line)
        if v:
            verdicts[(r["case"], r["src"].rsplit("/", 1)[-1], r["dst"].rsplit("/", 1)[-1], r["bytes"])] = (
                v["verdict"], v["reason"], v.get("ceiling_GBps"))
    return code, verdicts


def only(verdicts, case=None):
    """The verdicts of a case (all, without one), each once."""
    return [v for (c, _, _, _), v in verdicts.items() if case in (None, c)]


# (figure, files, import arguments, case, expected verdict of every row of that case); the docs'
# table (docs/ceilings.md, "Published figures") lists the same.
FIGURES = [
    ("A100-SXM4-40GB host to device, SM, 25.13 GB/s, PCIe Gen4 x16 (NVIDIA/nvbandwidth#42)",
     [PUBLISHED / "nvbandwidth-42-a100-sxm4-h2d-sm.md"], ["--gpu-model", "NVIDIA A100-SXM4-40GB", "--bytes", "536870912"],
     "h2d_pinned/sm", "PASS"),
    ("8x RTX 4090 host to device, CE, 23.90-26.38 GB/s, PCIe Gen4 x16 (NVIDIA/nvbandwidth#15)",
     [PUBLISHED / "nvbandwidth-15-rtx4090-8gpu-host-copies.txt"], ["--gpu-model", "NVIDIA GeForce RTX 4090"],
     "h2d_pinned", "PASS"),
    ("8x RTX 4090 device to host, CE, 26.25-27.11 GB/s, PCIe Gen4 x16 (NVIDIA/nvbandwidth#15)",
     [PUBLISHED / "nvbandwidth-15-rtx4090-8gpu-host-copies.txt"], ["--gpu-model", "NVIDIA GeForce RTX 4090"],
     "d2h_pinned", "PASS"),
    ("8x H100 device to host, SM, 52.77 GB/s, PCIe Gen5 x16 (NVIDIA/nvbandwidth#24)",
     [PUBLISHED / "nvbandwidth-24-h100-8gpu-sm-host-copies.md"], ["--gpu-model", "H100-SXM"], "d2h_pinned/sm", "PASS"),
    ("8x H100 host to device, SM, 35.03-35.39 GB/s, PCIe Gen5 x16: the thread's complaint (NVIDIA/nvbandwidth#24)",
     [PUBLISHED / "nvbandwidth-24-h100-8gpu-sm-host-copies.md"], ["--gpu-model", "H100-SXM"], "h2d_pinned/sm", "FAIL"),
    ("H200 host to device, CE, 55.42 GB/s, PCIe Gen5 x16 (the lent H200, bench/MEASUREMENTS.md)",
     [REAL / "nvbandwidth-h200-host_to_device.txt"], ["--gpu-model", "NVIDIA H200"], "h2d_pinned", "PASS"),
    ("H200 device-local copy, CE, 2,085.44 GB/s of 4.8 TB/s HBM3e (the lent H200, bench/MEASUREMENTS.md)",
     [REAL / "nvbandwidth-h200-device_local_copy.txt"], ["--gpu-model", "NVIDIA H200"], "ce/write", "PASS"),
    ("8x H100 SXM device-local copy, CE, 1,519 GB/s of 3.35 TB/s HBM3 (Hugging Face, Smol Training Playbook)",
     [PUBLISHED / "nvbandwidth-smol-playbook-h100-device-local.txt"],
     ["--gpu-model", "NVIDIA H100 80GB HBM3", "--bytes", "2147483648"], "ce/write", "PASS"),
    ("6x RTX A6000 peer reads over PCIe Gen4 x16 behind one CPU, 26.34 GB/s (NVIDIA/nvbandwidth#50)",
     [PUBLISHED / "nvbandwidth-50-a6000-6gpu-d2d-read-ce.md"], ["--gpu-model", "NVIDIA RTX A6000", "--link-class", "pcie"],
     "ce/read", None),  # pairs across the two CPUs: below; checked in their own test
    ("8x H100 SXM one node, NCCL all_reduce busbw 476 GB/s over NVLink 4 (NVLS) (NVIDIA/nccl-tests#290)",
     [PUBLISHED / "nccl-tests-290-one-node-8xh100-nvls.md"],
     ["--nvidia-smi-topo", str(TOPO / "h100-8gpu-8nic.txt"), "--gpu-model", "NVIDIA H100 80GB HBM3", "--op", "all_reduce"],
     "out_of_place", "PASS"),
    ("2 nodes of 8x H100, NCCL ring busbw 175.8 GB/s over 8x NDR 400G: maintainers expect 368-384 (NVIDIA/nccl-tests#290)",
     [REAL / "nccl-tests-290-two-nodes-ring-export.md"], ["--nics", "8x400G", "--op", "all_reduce"], "out_of_place", "FAIL"),
    ("InfiniBand EDR 100 Gb/s, ib_write_bw 11,728.47 MB/s, 'within the expected range' (linux-rdma/perftest#225)",
     [PUBLISHED / "perftest-225-edr-100g-write-bw.txt"], ["--nics", "1x100G", "--hosts", "node2,node1"], None, "PASS"),
]


@pytest.mark.parametrize("figure,files,args,case,expected", FIGURES, ids=[f[0].split(",")[0] for f in FIGURES])
def test_each_published_figure_reads_as_its_thread_says(tmp_path, figure, files, args, case, expected):
    if "--nvidia-smi-topo" in args and not os.environ.get("WB_BIN_DIR"):
        pytest.skip("a saved topology is read by the build's `wirebench topo`: WB_BIN_DIR is not set (run through ctest)")
    code, verdicts = judged(tmp_path, files, *args)
    mine = only(verdicts, case)
    assert mine, f"{figure}: no row of case {case} in {sorted(verdicts)}"
    if expected is None:
        return
    # the sweep's largest size judges a collective; every other row is DATA
    levels = {v for v, _, _ in mine if v != "DATA"}
    assert levels == {expected}, f"{figure}: {[(v, reason) for v, reason, _ in mine]}"


def test_a_healthy_a100_host_copy_passes_against_what_pcie_carries_not_its_line_rate(tmp_path):
    """The issue's own case: 25.13 GB/s read FAIL as 79.8% of 31.5 GB/s (the line rate after
    128b/130b); what Gen4 x16 carries in TLPs of 256 bytes is 28.39 GB/s, and 25.13 is 88.5% of it.
    The reason names the protocol's arithmetic and the MaxPayload assumed for a saved input."""
    _, verdicts = judged(tmp_path, [PUBLISHED / "nvbandwidth-42-a100-sxm4-h2d-sm.md"],
                         "--gpu-model", "NVIDIA A100-SXM4-40GB", "--bytes", "536870912")
    (verdict, reason, ceiling), = only(verdicts)
    assert verdict == "PASS" and ceiling == pytest.approx(31.5 * 256 / 284), reason
    assert "88.5% of the 28.39 GB/s ceiling" in reason and "MaxPayload 256 B assumed" in reason, reason
    assert "256 / (256 + 20 TLP + 8 DLLP bytes)" in reason and "WP350" in reason, reason


def test_a_link_trained_at_x8_still_fails_against_its_x16(tmp_path):
    """An A100's host link trained at Gen4 x8 copies about 12 GB/s: held to the x16 its datasheet
    gives (a saved input cannot see the link as trained), 42% of 28.39 GB/s: FAIL, as with the line
    rate before. Made from the A100 output of NVIDIA/nvbandwidth#42 at 12.04 GB/s."""
    text = (PUBLISHED / "nvbandwidth-42-a100-sxm4-h2d-sm.md").read_text().replace("25.13", "12.04")
    narrow = tmp_path / "x8.md"
    narrow.write_text(text)
    _, verdicts = judged(tmp_path, [narrow], "--gpu-model", "NVIDIA A100-SXM4-40GB")
    (verdict, reason, _), = only(verdicts)
    assert verdict == "FAIL" and "42.4% of the 28.39 GB/s ceiling" in reason, reason


def test_gpu_pairs_over_pcie_across_two_cpus_warn_and_behind_one_cpu_pass(tmp_path):
    """NVIDIA/nvbandwidth#50's six RTX A6000: pairs behind one CPU read 26.34 GB/s (92.8% of what
    Gen4 x16 carries: PASS); pairs across the two CPUs 21.8-22.7 GB/s, called good in the thread:
    the CPUs' own link is slower than a GPU's, which a paste without its topology cannot show, so
    they read WARN (76.8%) or PASS, never FAIL."""
    _, verdicts = judged(tmp_path, [PUBLISHED / "nvbandwidth-50-a6000-6gpu-d2d-read-ce.md"],
                         "--gpu-model", "NVIDIA RTX A6000", "--link-class", "pcie")
    near = {0: {1, 2}, 1: {0, 2}, 2: {0, 1}, 3: {4, 5}, 4: {3, 5}, 5: {3, 4}}
    for (case, src, dst, _), (verdict, reason, _) in verdicts.items():
        a, b = int(src[3:]), int(dst[3:])
        if b in near[a]:
            assert verdict == "PASS", reason
        else:
            assert verdict in ("PASS", "WARN"), reason
    assert sum(v == "WARN" for v, _, _ in verdicts.values()) >= 1


def test_a_device_local_copy_is_held_to_half_its_memory_bandwidth(tmp_path):
    """A copy reads and writes each byte, and nvbandwidth counts it once (NVIDIA/nvbandwidth#48):
    the H200's 2,085.44 GB/s is 86.9% of 4.8 TB/s / 2; without the GPU model nothing holds it."""
    _, verdicts = judged(tmp_path, [REAL / "nvbandwidth-h200-device_local_copy.txt"], "--gpu-model", "NVIDIA H200")
    (verdict, reason, ceiling), = only(verdicts)
    assert verdict == "PASS" and ceiling == 2400, reason
    assert "86.9% of the 2400 GB/s ceiling (H200, the GPU model NVIDIA H200 (--gpu-model NVIDIA H200): 4800 GB/s of " \
           "memory, a copy reads and writes each byte" in reason, reason
    _, unheld = judged(tmp_path / "bare", [REAL / "nvbandwidth-h200-device_local_copy.txt"])
    assert [v for v, _, _ in only(unheld)] == ["NOT JUDGED"]


def test_a_model_the_table_does_not_know_is_said(tmp_path):
    out = tmp_path / "run"
    main(["wirebench import", str(REAL / "nvbandwidth-h200-device_local_copy.txt"), "--out", str(out),
          "--gpu-model", "NVIDIA H20-3e"])
    notes = json.loads((out / "meta.json").read_text())["notes"]
    assert any("'NVIDIA H20-3e' (--gpu-model NVIDIA H20-3e) is not in suites/gpu-memory.csv" in n for n in notes), notes


def test_every_published_file_has_its_origin():
    origins = (PUBLISHED / "ORIGINS.md").read_text()
    for path in PUBLISHED.iterdir():
        if path.name != "ORIGINS.md":
            assert f"| {path.name} |" in origins, path.name
