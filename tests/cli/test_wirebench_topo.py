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
    assert table.returncode == 1, table.stderr  # a DEGRADED link: topo's verdict is its exit code (issue 54)
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
    (["--nvidia-smi-topo", "/no/such/file"], "/no/such/file: no such file or directory"),
    # issue 54: a directory read as "file is empty"
    (["--nvidia-smi-topo", str(DATA / "topo")], f"{DATA / 'topo'}: is a directory"),
    (["--nccl-log", str(DATA / "nccl")], f"{DATA / 'nccl'}: is a directory"),
    (["--nccl-log", "/no/such/log"], "/no/such/log: no such file or directory"),
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
    assert result.returncode == 1, result.stderr  # 7 DEGRADED NVLinks: not 0 (issue 54); the JSON says which
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
    healthy = wirebench("topo", "--nvidia-smi-topo", str(H100), "--json")
    assert healthy.returncode == 0 and not any(l["degraded"] for l in json.loads(healthy.stdout)["nodes"][0]["links"])


def test_the_gpu_model_named_for_saved_text_sets_the_nvlink_generation_first():
    """Issue 44: the generation from the GPU's name first. Saved text names no model; --gpu-model
    does, as nvidia-smi -L prints it, and wins over a guess from the bundle width."""
    result = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/two-nvlink-islands-8gpu.txt"),
                       "--gpu-model", "NVIDIA H100 80GB HBM3", "--json")
    assert result.returncode == 0, result.stderr
    nvlinks = [l for l in json.loads(result.stdout)["nodes"][0]["links"] if l["class"] == "nvlink"]
    assert nvlinks and all("NVLink 4, from the GPU model NVIDIA H100 80GB HBM3" in l["reason"] for l in nvlinks)
    # issue 57: and each GPU's copy inside its memory, half the model's 3.35 TB/s (suites/gpu-memory.csv)
    device = [l for l in json.loads(result.stdout)["nodes"][0]["links"] if l["class"] == "device"]
    assert [(l["a"], l["ceiling_GBps"]) for l in device] == [(f"gpu{i}", 1675) for i in range(8)]


def _topology_png():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python/tools"))
    import topology_png
    return topology_png


def _drawn(node):
    """What draw_node put on the axes: {gid: line} and {gid or text: text}."""
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots()
    _topology_png().draw_node(axes, node)
    lines = {line.get_gid(): line for line in axes.get_lines()}
    texts = {t.get_gid() or t.get_text(): t.get_text() for t in axes.texts}
    title = axes.get_title()
    plt.close(figure)
    return lines, texts, title


def test_png_of_a_box_with_nvlinks_down_marks_the_gpu_and_its_links_at_their_rate(tmp_path):
    """Issue 54: `topo --png` drew "NVLink all-to-all: 450 GB/s per pair" over a box with 6 NVLinks
    down and the GPU unmarked. The saved matrix of an HGX H100 whose GPU3 is NV12 to every peer:
    GPU3 drawn DEGRADED with its 6 of 18 NVLinks down, its 7 pairs red at 300 GB/s, and the caption
    says 450 GB/s only for the 21 pairs that trained at it."""
    png = _topology_png()
    result = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/h100-gpu3-nv12.txt"), "--json")
    node = json.loads(result.stdout)["nodes"][0]
    assert png.degraded_gpus(node) == {"gpu3": "6 of 18 NVLinks down"}
    assert png.nvlink_caption(node) == ("NVLink all-to-all: 450 GB/s on 21 of 28 pairs\n"
                                        "DEGRADED: 7 pairs at 300 GB/s (gpu3: 6 of 18 NVLinks down)")
    assert png.node_title(node) == "h100-gpu3-nv12: 8 GPUs, 8 NICs, 2 NUMA nodes; DEGRADED: gpu3"
    lines, texts, title = _drawn(node)
    assert title.endswith("DEGRADED: gpu3") and texts["nvlink-caption"] == png.nvlink_caption(node)
    assert not any("per pair" in t for t in texts.values())  # no claim of one rate for every pair
    assert texts["degraded:gpu3"] == "DEGRADED\n6 of 18 NVLinks down" and "degraded:gpu5" not in texts
    assert lines["device:gpu3"].get_markeredgecolor() == png.DEGRADED
    assert lines["device:gpu5"].get_markeredgecolor() == "black"
    for peer in ("gpu0", "gpu7"):
        a, b = sorted(("gpu3", peer))
        slow = lines[f"link:{a}-{b}"]
        assert slow.get_color() == png.DEGRADED and slow.get_linestyle() == "--"
        assert texts[f"label:link:{a}-{b}"] == "300"  # the rate it trained at
    healthy = lines["link:gpu0-gpu7"]
    assert healthy.get_color() == png.CLASS_COLOURS["nvlink"] and healthy.get_linestyle() == "-"
    assert "label:link:gpu0-gpu7" not in texts  # the caption carries the healthy pairs' rate
    out = tmp_path / "topo.png"
    drawn = wirebench("topo", "--nvidia-smi-topo", str(DATA / "topo/h100-gpu3-nv12.txt"), "--png", str(out))
    assert drawn.returncode == 1, drawn.stderr  # drawn; the DEGRADED links are its verdict
    assert png_size(out)[0] > 400


def test_png_marks_a_gpu_whose_nvlinks_nvidia_smi_counts_inactive_and_blames_no_end_of_one_slow_pair():
    """Live discovery counts each GPU's NVLinks up (nvidia-smi nvlink -s): GPU5 with 12 of 18 up is
    DEGRADED by its own count. One slow pair alone does not say which end is at fault: the pair is
    marked, neither GPU. A healthy box keeps its one caption."""
    png = _topology_png()
    healthy = json.loads(wirebench("topo", "--nvidia-smi-topo", str(H100), "--json").stdout)["nodes"][0]
    assert png.nvlink_caption(healthy) == "NVLink all-to-all: 450 GB/s per pair" and png.degraded_gpus(healthy) == {}
    _, texts, title = _drawn(healthy)
    assert not [t for t in texts.values() if "DEGRADED" in t] and "DEGRADED" not in title
    live = json.loads(json.dumps(healthy))
    live["gpus"][5].update(nvlinks_up=12, nvlinks_total=18)
    for link in live["links"]:
        if link["class"] == "nvlink" and "gpu5" in (link["a"], link["b"]):
            link.update(degraded=["gpu5 has 6 of 18 NVLinks inactive"], ceiling_GBps=300.0, distance="NV12")
    assert png.degraded_gpus(live) == {"gpu5": "6 of 18 NVLinks inactive"}
    assert png.nvlink_caption(live).endswith("DEGRADED: 7 pairs at 300 GB/s (gpu5: 6 of 18 NVLinks inactive)")
    lines, texts, _ = _drawn(live)
    assert texts["degraded:gpu5"] == "DEGRADED\n6 of 18 NVLinks inactive"
    assert lines["device:gpu5"].get_markeredgecolor() == png.DEGRADED
    one = json.loads(json.dumps(healthy))
    pair = next(l for l in one["links"] if (l["a"], l["b"]) == ("gpu1", "gpu2"))
    pair.update(degraded=["6 of 18 NVLinks down"], ceiling_GBps=300.0, distance="NV12")
    assert png.degraded_gpus(one) == {}
    assert png.nvlink_caption(one) == "NVLink all-to-all: 450 GB/s on 27 of 28 pairs\nDEGRADED: 1 pair at 300 GB/s"
    lines, _, _ = _drawn(one)
    assert lines["link:gpu1-gpu2"].get_color() == png.DEGRADED
    assert lines["device:gpu1"].get_markeredgecolor() == "black"


def test_topo_keeps_its_verdict_in_its_exit_code():
    """Issue 54: topo exited 0 with 7 DEGRADED NVLinks and with an NCCL log's FAILs, and its callers
    scraped its stderr. A FAIL finding is exit 1, a WARN-only log 0; the JSON is written either way."""
    failing = wirebench("topo", "--nccl-log", str(DATA / "nccl/socket-on-ib-machine.log"), "--json")
    assert failing.returncode == 1, failing.stderr
    assert [d["verdict"] for d in json.loads(failing.stdout)["nccl"]["diagnoses"]] == ["FAIL"]
    warning = wirebench("topo", "--nccl-log", str(DATA / "nccl/old-format-bus-ids.log"))
    assert warning.returncode == 0, warning.stderr
