"""report.html as a person sees it: opened in headless Chromium (Debian `chromium`), screenshot
taken, the embedded plots present in the page Chromium built."""
import json
import re
import shutil
import struct
import subprocess
import zlib
from html import unescape as html_unescape
from pathlib import Path

import pytest

from wirebench.report.__main__ import main

DATA = Path(__file__).resolve().parents[1] / "data" / "reports" / "basic"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def png_pixels(path):
    """Width, height and the decompressed scanlines of a PNG (enough to tell blank from drawn)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    chunks, offset = [], 8
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        if kind == b"IDAT":
            chunks.append(data[offset + 8:offset + 8 + length])
        offset += 12 + length
    return width, height, zlib.decompress(b"".join(chunks))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (ci/setup installs it)")
def test_report_html_renders_with_its_plots(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(DATA, run)
    main(["wirebench report", str(run)])
    page = (run / "report.html").as_uri()
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", page], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count("data:image/png;base64,") == len(list((run / "plots").glob("*.png"))) >= 5
    assert "wirebench report" in dom.stdout and "<h2>FAIL</h2>" in dom.stdout and "<h2>ERROR</h2>" in dom.stdout
    shot = tmp_path / "report.png"
    result = subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,2400", page],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1280, 2400)
    assert len(set(pixels[::97])) > 20  # drawn: text, tables and plots, not one flat colour


HEADER = ("bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,time_us,time_us_p05,"
          "time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason,samples,spread_pct\n")


def planted_run(tmp_path):
    """Three virtual nodes at 1 Gb/s (0.125 GB/s), with planted faults: a data error (node0-node1), a
    path at half rate (node1-node2), a figure at 124% of its ceiling (node0-node2's ping-pong) and a
    missing GPU; the other items healthy."""
    def net(case, a, b, size, bw, errors=0):
        t = size / (bw * 1e3) if bw else 1.0
        return (f"net,{case},mpi,eth,node{a}/rank{a},node{b}/rank{b},uni,send_recv,uint8,{size},3,3,640,{t:.6g},"
                f"{t * 0.99:.6g},{t * 1.01:.6g},{bw},{bw},{errors},window=64;rounds=1,OK,,20,2\n")
    rows = ""
    for a, b, bw in ((0, 1, 0.119), (0, 2, 0.120), (1, 2, 0.06)):
        rows += net("stream_bw", a, b, 8, 0.0005) + net("stream_bw", a, b, 1048576, bw)
    rows += net("pingpong", 0, 1, 1048576, 0.118) + net("pingpong", 0, 2, 1048576, 0.155)
    rows += net("pingpong", 1, 2, 1048576, 0.119, errors=12)
    rows += ("p2p,ce/write,cuda,nvlink,vm/gpu0,vm/gpu1,uni,copy,uint8,0,0,0,0,,,,,,0,,SKIP,"
             "no CUDA device visible: no NVIDIA driver is loaded,,\n")
    run = tmp_path / "planted"
    run.mkdir()
    (run / "results.csv").write_text(HEADER + rows)
    (run / "meta.json").write_text(json.dumps({"results_schema_version": 2}))
    (run / "suite.json").write_text(json.dumps({"expectations": [
        {"link_class": "eth", "ceiling_GBps": 0.125, "reason": "links shaped to 1000 Mbit/s", "healthy_fraction": 0.8,
         "source": "ci/vcluster tbf shaping"}]}))
    return run


def test_planted_faults_get_their_verdicts_and_the_failures_come_first(tmp_path, capsys):
    run = planted_run(tmp_path)
    assert main(["wirebench report", str(run)]) == 1
    console = capsys.readouterr().out.splitlines()
    verdict_lines = [l.strip() for l in console if l.strip().split(" ")[0] in ("FAIL", "WARN", "SKIP")]
    assert [l.split(" ")[0] for l in verdict_lines] == ["FAIL", "FAIL", "WARN", "SKIP"]
    assert "data check" in verdict_lines[0] + verdict_lines[1] and "node1/rank1 -> node2/rank2" in verdict_lines[1]
    assert "0.06 GB/s (48.0% of the ceiling) vs expected >= 0.1 GB/s" in "".join(verdict_lines[:2])
    assert "124.0% of the ceiling" in verdict_lines[2] and "ci/vcluster tbf shaping" in verdict_lines[2]
    assert verdict_lines[3] == ("SKIP 1 case (p2p 1): no CUDA device visible: no NVIDIA driver is loaded")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["counts"]["FAIL"] == 2 and summary["counts"]["WARN"] == 1 and summary["counts"]["SKIP"] == 1
    assert summary["data_points"] == 3  # the 8 B points: shown, not counted
    html = (run / "report.html").read_text()
    first_plot, fails = html.index("<figure>"), [html.index(f"verdict-fail'>") for _ in range(1)]
    assert fails[0] < html.index("verdict-warn'>") < first_plot


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (ci/setup installs it)")
def test_the_failures_are_on_the_first_screen_in_chromium(tmp_path):
    """Where Chromium lays the FAIL lines out: a script in a copy of the page writes each one's
    position into the DOM, which --dump-dom prints; a screenshot of that first screen is taken too."""
    run = planted_run(tmp_path)
    main(["wirebench report", str(run)])
    probe = run / "probe.html"
    probe.write_text((run / "report.html").read_text().replace("</body>", (
        "<script>document.body.dataset.fails = JSON.stringify([...document.querySelectorAll('.verdict-fail')]"
        ".map(e => [e.getBoundingClientRect().top, e.getBoundingClientRect().bottom]));"
        "document.body.dataset.plot = document.querySelector('figure').getBoundingClientRect().top;</script></body>")))
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,900",
              f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*common, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    fails = json.loads(html_unescape(re.search(r'data-fails="([^"]*)"', dom.stdout).group(1)))
    plot_top = float(re.search(r'data-plot="([^"]*)"', dom.stdout).group(1))
    assert len(fails) == 2 and all(bottom <= 900 for _, bottom in fails), fails  # both within the first screen
    assert fails[1][1] < plot_top
    shot = tmp_path / "first-screen.png"
    result = subprocess.run([*common, f"--screenshot={shot}", (run / "report.html").as_uri()], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
