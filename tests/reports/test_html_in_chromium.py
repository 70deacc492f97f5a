"""report.html as a person sees it: opened in headless Chromium (Debian `chromium`), screenshot
taken, the embedded plots present in the page Chromium built."""
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from wirebench_report.__main__ import main

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
    assert "wirebench report" in dom.stdout and "FAIL and ERROR" in dom.stdout
    shot = tmp_path / "report.png"
    result = subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,2400", page],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1280, 2400)
    assert len(set(pixels[::97])) > 20  # drawn: text, tables and plots, not one flat colour
