"""wirebench import on outputs nobody here wrote to suit it (issue 47): tools' outputs captured on
real machines and outputs reconstructed from public issue threads and from the tools' own printf
formats, with the noise people paste around them. tests/data/imports/real/ORIGINS.md says where each
comes from. ctest label: unit."""
import csv
import json
from pathlib import Path

import pytest

from wirebench.importer.__main__ import main
from wirebench.report.__main__ import main as report_main
from wirebench.report.extra import parse
from wirebench.report.schema import ExitCode

REAL = Path(__file__).resolve().parents[1] / "data" / "imports" / "real"


def imported(tmp_path, files, *args):
    out = tmp_path / "run"
    code = main(["wirebench import", *[str(f) for f in files], "--out", str(out), *args])
    rows = list(csv.DictReader((out / "results.csv").open())) if (out / "results.csv").exists() else []
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return code, rows, summary


def nvbandwidth_matrix(test, title, matrix, sum_=None):
    """One testcase as nvbandwidth 0.8 prints it (output.cpp: the title, then the matrix with a
    2-wide row label and setw(10) fixed(2) cells, N/A where nothing was measured; `SUM test`)."""
    lines = [f"Running {test}.", title, "  " + "".join(f"{c:>10d}" for c in range(len(matrix[0])))]
    lines += [f"{r:2d}" + "".join(f"{v:>10s}" for v in row) for r, row in enumerate(matrix)]
    figures = [float(v) for row in matrix for v in row if v != "N/A"]
    return "\n".join(lines + ["", f"SUM {test} {sum_ if sum_ is not None else sum(figures):.2f}", ""])


NVBANDWIDTH_BANNER = ("nvbandwidth Version: v0.8\nBuilt from Git version: v0.8\n\nCUDA Runtime Version: 12080\n"
                      "CUDA Driver Version: 12080\nDriver Version: 570.124.06\n\ndgx07\n" +
                      "".join(f"Device {i}: NVIDIA H100 80GB HBM3 (00000000:{0x18 + 16 * i:02x}:00)\n" for i in range(8))
                      + "\n")


def eight_gpu_matrix(slow_row, slow_column, slow="181.40", healthy="389.50"):
    return [["N/A" if r == c else (slow if (r, c) == (slow_row, slow_column) else healthy) for c in range(8)]
            for r in range(8)]


def test_nvbandwidth_on_the_h200_a_local_copy_and_a_host_copy_named_by_its_host_line(tmp_path):
    """Captured on the lent H200: the device-local copy is wb-p2p's ce/write gpu0 -> gpu0, the host
    copy wb-host's h2d_pinned from the GPU's own NUMA node; the node's name is nvbandwidth's own
    line before `Device 0:`. Before: the local copy was 0 rows ("nothing was measured")."""
    code, rows, _ = imported(tmp_path, [REAL / "nvbandwidth-h200-device_local_copy.txt",
                                        REAL / "nvbandwidth-h200-host_to_device.txt"])
    got = [(r["bench"], r["case"], r["link_class"], r["src"], r["dst"], r["algbw_GBps"]) for r in rows]
    assert got == [("p2p", "ce/write", "device", "vm/gpu0", "vm/gpu0", "2085.44"),
                   ("host", "h2d_pinned", "pcie", "vm/numa0", "vm/gpu0", "55.42")]
    assert parse(rows[1]["extra"])["numa"] == "local"


def test_nvbandwidth_host_copies_meet_a_profiles_floor(tmp_path, capsys):
    """A platform profile's h2d_pinned floor judges nvbandwidth's host_to_device_memcpy_ce (before:
    "not measured (0 rows)")."""
    imported(tmp_path, [REAL / "nvbandwidth-h200-host_to_device.txt"])
    capsys.readouterr()
    report_main(["wirebench report", str(tmp_path / "run"), "--profile", "h100-sxm-8gpu"])
    out = capsys.readouterr().out
    assert "profile h100-sxm-8gpu: host-to-device copy (copy engine, pinned): PASS (1 rows, worst 55.42 GB/s" in out


def test_nvbandwidth_write_ce_goes_from_the_row_to_the_column(tmp_path, capsys):
    """write_ce's title says `GPU(row) <- GPU(column)` but its source copies row -> column with the
    row's GPU pushing (testcases_ce.cpp: value(src, peer) = doMemcpy(srcBuffer, peerBuffer)). All 56
    pairs are ce/write; the slow cell at row 5, column 2 is gpu5 -> gpu2. Before: 56 ce/read rows and
    gpu2 -> gpu5."""
    text = NVBANDWIDTH_BANNER + nvbandwidth_matrix("device_to_device_memcpy_write_ce",
                                                   "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
                                                   eight_gpu_matrix(5, 2))
    path = tmp_path / "nvbandwidth-write.txt"
    path.write_text(text)
    code, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink", "--rate", "450")
    assert len(rows) == 56 and {r["case"] for r in rows} == {"ce/write"}
    slow = next(r for r in rows if r["algbw_GBps"] == "181.4")
    assert (slow["src"], slow["dst"]) == ("dgx07/gpu5", "dgx07/gpu2")
    assert code == ExitCode.FAILED and "dgx07/gpu5 -> dgx07/gpu2" in capsys.readouterr().out


def test_nvbandwidth_read_ce_goes_from_the_column_to_the_row(tmp_path):
    """read_ce's title says `GPU(row) -> GPU(column)`; its source copies the peer (column) into the
    row's buffer, the row's GPU pulling: the slow cell at row 1, column 6 is gpu6 -> gpu1, ce/read."""
    path = tmp_path / "nvbandwidth-read.txt"
    path.write_text(NVBANDWIDTH_BANNER + nvbandwidth_matrix("device_to_device_memcpy_read_sm",
                                                            "memcpy SM GPU(row) -> GPU(column) bandwidth (GB/s)",
                                                            eight_gpu_matrix(1, 6)))
    _, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink")
    slow = next(r for r in rows if r["algbw_GBps"] == "181.4")
    assert (slow["case"], slow["src"], slow["dst"]) == ("sm/read", "dgx07/gpu6", "dgx07/gpu1")


def test_nvbandwidth_bidirectional_pairs_take_the_total_and_aggregates_name_every_gpu(tmp_path, capsys):
    """device_to_device_bidirectional_memcpy_write_ce prints Write1, Write2 and Total matrices: the
    Total is the pair's figure (wb-p2p's ce/write/bidir); all_to_one_write_ce's 1 x 8 matrix is each
    GPU receiving from all the others at once (wb-p2p's all-> destination)."""
    bidir = [nvbandwidth_matrix("device_to_device_bidirectional_memcpy_write_ce",
                                f"memcpy CE GPU(row) <-> GPU(column) {part} bandwidth (GB/s)",
                                eight_gpu_matrix(0, 3, healthy=figure, slow=figure))
             for part, figure in (("Write1", "370.10"), ("Write2", "370.20"), ("Total", "740.30"))]
    all_to_one = nvbandwidth_matrix("all_to_one_write_ce", "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
                                    [["2840.00"] * 8])
    path = tmp_path / "nvbandwidth-bidir.txt"
    path.write_text(NVBANDWIDTH_BANNER + "\n".join(bidir) + "\n" + all_to_one)
    _, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink")
    pairs = [r for r in rows if r["case"] == "ce/write/bidir"]
    assert len(pairs) == 56 and {(r["algbw_GBps"], r["direction"]) for r in pairs} == {("740.3", "bidir")}
    gathered = [r for r in rows if r["case"] == "ce/write/all_to_one"]
    assert [(r["src"], r["dst"]) for r in gathered][:2] == [("dgx07/gpu0", "all->"), ("dgx07/gpu1", "all->")]
