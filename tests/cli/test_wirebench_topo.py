"""`wirebench topo` as a user runs it, and the topology picture (ctest label: unit)."""
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
H100 = DATA / "topo/h100-8gpu-8nic.txt"


def wirebench(*args, timeout=120):
    binary = os.environ.get("WB_BIN_DIR")
    if not binary:
        pytest.skip("WB_BIN_DIR is not set (run through ctest)")
    return subprocess.run([str(Path(binary) / "wirebench"), *args], capture_output=True, text=True, timeout=timeout)


def test_saved_h100_matrix_as_json():
    result = wirebench("topo", "--nvidia-smi-topo", str(H100), "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    [node] = doc["nodes"]
    assert node["hostname"] == "h100-8gpu-8nic"
    assert len(node["gpus"]) == 8
    assert [n["name"] for n in node["nics"]] == [f"mlx5_{i}" for i in range(8)]
    nvlinks = [l for l in node["links"] if l["class"] == "nvlink"]
    assert len(nvlinks) == 28  # every pair of 8 GPUs
    assert {(l["a"], l["b"]) for l in nvlinks} == {(f"gpu{a}", f"gpu{b}") for a in range(8) for b in range(a + 1, 8)}
    assert all(l["ceiling_GBps"] == 450 for l in nvlinks)
    assert all(l["reason"].startswith("NV18 x 25 GB/s (NVLink 4") for l in nvlinks)
    # NIC distances exactly as printed: GPUk is PIX to NICk, NODE within its socket, SYS across.
    for nic_index, nic in enumerate(node["nics"]):
        for gpu in range(8):
            expected = "PIX" if gpu == nic_index else ("NODE" if (gpu < 4) == (nic_index < 4) else "SYS")
            assert nic["distance_to_gpus"][f"gpu{gpu}"] == expected, (nic["name"], gpu)
    gpu_nic = [l for l in node["links"] if l["b"].startswith("mlx5")]
    assert len(gpu_nic) == 64 and {l["distance"] for l in gpu_nic} == {"PIX", "NODE", "SYS"}


def test_saved_gb200_and_peer_access_as_a_user_reads_them():
    gb200 = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/gb200-4gpu-c2c.txt"), "--json")
    assert gb200.returncode == 0, gb200.stderr
    [node] = json.loads(gb200.stdout)["nodes"]
    host = next(l for l in node["links"] if l["a"] == "gpu0" and l["b"] == "host")
    assert host["class"] == "c2c" and host["ceiling_GBps"] == 450, host
    pair = next(l for l in node["links"] if (l["a"], l["b"]) == ("gpu0", "gpu1"))
    assert pair["ceiling_GBps"] == 900 and "Grace" in pair["reason"], pair
    # An NVSwitch node with no port rates (saved text): one node's NCCL all_reduce expected, and why no more.
    assert {(e["nodes"], e["algorithm"]) for e in node["nccl_expectations"]} == {("1", "ring"), ("1", "nvls")}
    assert "no network port" in node["nccl_expectations_note"]
    table = wirebench("topo", "--nvidia-smi-topo", str(H100), "--nvidia-smi-p2p", str(DATA / "topo/h100-p2p-read-dr.txt"))
    assert table.returncode == 0, table.stderr
    assert "DEGRADED: no peer access (DR, disabled by the driver's registry key" in table.stdout, table.stdout
    assert "NCCL all_reduce busbw expected (large sizes, at line rate): none: peer access is off" in table.stdout
    alone = wirebench("topo", "--nvidia-smi-p2p", str(DATA / "topo/h100-p2p-read-dr.txt"))
    assert alone.returncode == 3 and "needs --nvidia-smi-topo FILE" in alone.stderr


def test_this_machine_table_and_json():
    table = wirebench("topo")
    assert table.returncode == 0, table.stderr
    assert "NUMA nodes:" in table.stdout and "GPUs:" in table.stdout and "NICs:" in table.stdout
    doc = json.loads(wirebench("topo", "--json").stdout)
    [node] = doc["nodes"]
    assert node["numa_nodes"] and all(n["cpus"] for n in node["numa_nodes"])
    if not Path("/dev/nvidia0").exists():
        assert node["gpus"] == []
    # the typical latencies of ceilings.csv travel with the topology, for the reporter
    typical = {(e["link_class"], e["generation"]): e["latency_us"] for e in doc["typical_latency_us"]}
    assert typical[("shm", "any")] == 0.3 and typical[("ib", "ndr")] == 1.5
    assert all(e["source"] for e in doc["typical_latency_us"])


def test_nccl_log_names_every_channel_transport():
    result = wirebench("topo", "--nvidia-smi-topo", str(H100), "--nccl-log",
                       str(DATA / "nccl/pcie-8gpu-p2p-shm.log"), "--json")
    assert result.returncode == 0, result.stderr
    nccl = json.loads(result.stdout)["nccl"]
    assert [(c["line"], c["transport"]) for c in nccl["channels"]] == [(4, "P2P"), (5, "SHM")]
    assert [(d["id"], d["verdict"], d["line"]) for d in nccl["diagnoses"]] == [("shm-instead-of-p2p", "WARN", 5)]
    assert "goes through host memory (SHM) although GPU3 and GPU4 are NV18" in nccl["diagnoses"][0]["what"]


def test_a_log_alone_describes_its_own_machine_not_this_one():
    log = str(DATA / "nccl/pcie-8gpu-p2p-shm.log")
    doc = json.loads(wirebench("topo", "--nccl-log", log, "--json").stdout)
    assert doc["nodes"] == []  # this machine's live discovery is not the log's machine
    assert [c["transport"] for c in doc["nccl"]["channels"]] == ["P2P", "SHM"]
    table = wirebench("topo", "--nccl-log", log)
    assert table.returncode == 0, table.stderr
    assert "NUMA nodes:" not in table.stdout and table.stdout.startswith("NCCL log ")
    refused = wirebench("topo", "--nccl-log", log, "--png", "x.png")
    assert refused.returncode == 3 and "an NCCL log alone describes none" in refused.stderr


@pytest.mark.parametrize("args,message", [
    (["--nvidia-smi-topo", str(DATA / "topo-bad/unknown-cell.txt")], "unknown-cell.txt:2: unknown cell 'NVX'"),
    (["--nvidia-smi-topo", "/no/such/file"], "/no/such/file: cannot open file"),
    (["--nvlink-generation", "7"], "'7' is not 2, 3, 4, 5 or ga102"),
    (["--frobnicate"], "unknown option --frobnicate"),
    (["--png"], "option --png needs a value"),
])
def test_bad_input_exits_3_with_the_reason(args, message):
    result = wirebench("topo", *args)
    assert result.returncode == 3
    assert message in result.stderr


def test_unknown_command_is_a_usage_error():
    result = wirebench("frobnicate")
    assert result.returncode == 3 and "unknown command 'frobnicate'" in result.stderr


def png_size(path: Path):
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", header[16:24])


def test_png_is_drawn(tmp_path):
    out = tmp_path / "topo.png"
    result = wirebench("topo", "--nvidia-smi-topo", str(H100), "--png", str(out))
    assert result.returncode == 0, result.stderr
    width, height = png_size(out)
    assert width > 400 and height > 300


def test_plot_draws_every_device_and_the_near_links(tmp_path):
    """The plotting code itself: the right series are on the axes."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python/tools"))
    import matplotlib.pyplot as plt
    import topology_png

    result = wirebench("topo", "--nvidia-smi-topo", str(H100), "--json")
    doc = json.loads(result.stdout)
    figure, axes = plt.subplots()
    topology_png.draw_node(axes, doc["nodes"][0])
    gids = {line.get_gid() for line in axes.get_lines()}
    assert {f"device:gpu{i}" for i in range(8)} <= gids
    assert {f"device:mlx5_{i}" for i in range(8)} <= gids
    assert {f"device:numa{i}" for i in range(2)} <= gids
    assert "link:gpu0-gpu7" in gids  # NVLink pairs
    assert "link:gpu3-mlx5_3" in gids  # PIX: drawn
    assert "link:gpu3-mlx5_4" not in gids  # SYS: left out on purpose
    colours = {line.get_color() for line in axes.get_lines() if line.get_gid() == "link:gpu0-gpu7"}
    assert colours == {topology_png.CLASS_COLOURS["nvlink"]}
    texts = [t.get_text() for t in axes.texts]
    assert any("450 GB/s" in t for t in texts)
    plt.close(figure)


def test_a_saved_h100_box_with_one_gpu_s_nvlinks_down_reads_degraded_not_as_an_a100():
    """Issue 44: a saved `nvidia-smi topo -m` of an 8xH100 box where GPU3 is NV12 to every peer and
    the others NV18 read as "NVLink 3, assumed from NV12: A100", nothing degraded. The fixture is
    tests/data/topo/h100-8gpu-8nic.txt (an HGX H100 as nvidia-smi prints it) with GPU3's bundles at
    NV12, as the issue saw it. Each NV12 pair is degraded against the box's NV18, GPU3 named."""
    result = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/h100-gpu3-nv12.txt"), "--json")
    assert result.returncode == 0, result.stderr
    nvlinks = [l for l in json.loads(result.stdout)["nodes"][0]["links"] if l["class"] == "nvlink"]
    slow = [l for l in nvlinks if "gpu3" in (l["a"], l["b"])]
    assert len(slow) == 7 and all(l["ceiling_GBps"] == 300 for l in slow)
    assert all("NVLink 4" in l["reason"] and "A100" not in l["reason"] for l in nvlinks)
    for l in slow:
        assert l["degraded"] == ["NV12 where this box's other GPU pairs have NV18: 6 of 18 NVLinks down; gpu3 is in "
                                 "every such pair: its NVLinks (or its NVSwitch ports) are at fault"], l
    assert not any(l["degraded"] for l in nvlinks if l not in slow)
    table = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/h100-gpu3-nv12.txt"))
    assert "links: 100, 7 DEGRADED (below)" in table.stdout
    # A healthy box: nothing degraded; a hybrid cube mesh (two widths on purpose) has no norm to miss.
    healthy = json.loads(wirebench("topo", "--nvidia-smi-topo", str(H100), "--json").stdout)
    assert not any(l["degraded"] for l in healthy["nodes"][0]["links"])


def test_the_gpu_model_named_for_saved_text_sets_the_nvlink_generation_first():
    """Issue 44: the generation from the GPU's name first. Saved text names no model; --gpu-model
    does, as nvidia-smi -L prints it, and wins over a guess from the bundle width."""
    result = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/two-nvlink-islands-8gpu.txt"),
                       "--gpu-model", "NVIDIA H100 80GB HBM3", "--json")
    assert result.returncode == 0, result.stderr
    nvlinks = [l for l in json.loads(result.stdout)["nodes"][0]["links"] if l["class"] == "nvlink"]
    assert nvlinks and all("NVLink 4, from the GPU model NVIDIA H100 80GB HBM3" in l["reason"] for l in nvlinks)
