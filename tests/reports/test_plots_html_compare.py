"""The report's plots, report.html and wirebench compare (ctest label: unit)."""
import base64
import json
import shutil
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from wirebench.report import compare as compare_module
from wirebench.report.__main__ import main
from wirebench.report.ceilings import Ceilings
from wirebench.report.plots import bandwidth_figures, gpu_heatmaps, latency_figures, node_heatmaps
from wirebench.report.results import read_results
from wirebench.report.verdicts import judge

DATA = Path(__file__).resolve().parents[1] / "data" / "reports" / "basic"


@pytest.fixture
def run(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(DATA, run_dir)
    return run_dir


def verdicts(run_dir):
    return judge(read_results(run_dir / "results.csv"), Ceilings.load(run_dir))


def test_bandwidth_plot_per_link_class_on_log_axes_with_the_ceiling_and_its_band(run):
    figures = {name: figure for name, _, figure in bandwidth_figures(verdicts(run))}
    assert {"bandwidth-nvlink", "bandwidth-pcie"} <= set(figures)
    axes = figures["bandwidth-nvlink"].axes[0]
    assert axes.get_xscale() == "log" and axes.get_yscale() == "log"
    gids = {line.get_gid() for line in axes.get_lines()}
    assert {"series:ce/write copy (cuda) n1/gpu0 -> n1/gpu1", "series:ce/write copy (cuda) n1/gpu1 -> n1/gpu2",
            "ceiling:450", "ceiling:900", "fail:ce/write copy (cuda) n1/gpu1 -> n1/gpu2"} <= gids
    band = [p for p in axes.patches if p.get_gid() == "healthy-band:450"]
    assert len(band) == 1
    bottom, top = band[0].get_y(), band[0].get_y() + band[0].get_height()
    assert bottom == pytest.approx(360) and top == pytest.approx(450)  # 80% to 100% of the ceiling
    sweep = next(l for l in axes.get_lines() if l.get_gid() == "series:ce/write copy (cuda) n1/gpu0 -> n1/gpu1")
    assert list(sweep.get_xdata()) == [1048576, 268435456] and list(sweep.get_ydata()) == [209.7, 383.5]
    plt.close("all")


def test_a_single_size_is_a_bar_per_link_and_latency_is_on_log_axes(run):
    figures = {name: (caption, figure) for name, caption, figure in bandwidth_figures(verdicts(run))}
    caption, figure = figures["bandwidth-pcie"]  # host copies at one size each
    assert [p.get_gid() for p in figure.axes[0].patches][:1] == ["bars"] and "a bar per link" in caption
    latency = {name: figure for name, _, figure in latency_figures(verdicts(run))}
    assert "latency-shm" in latency and latency["latency-shm"].axes[0].get_xscale() == "log"
    plt.close("all")


def test_gpu_heatmap_is_coloured_by_fraction_of_the_ceiling_with_the_failing_cell_framed(run):
    heatmaps = {name: figure for name, _, figure in gpu_heatmaps(verdicts(run))}
    axes = heatmaps["heatmap-ce_write"].axes[0]
    [image] = axes.get_images()
    assert image.get_gid() == "heatmap:gpus" and image.get_clim() == (0, 1.05)
    data = image.get_array()
    assert data[0][1] == pytest.approx(383.5 / 450) and data[1][2] == pytest.approx(0.4)
    assert [p.get_gid() for p in axes.patches] == ["fail:gpu1->gpu2"]
    plt.close("all")


def node_run(tmp_path, figures):
    """A run directory of three nodes' stream pairs at `figures` (GB/s of n1-n2, n1-n3, n2-n3) over
    an eth link with a 0.125 GB/s ceiling, healthy from 80%."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    header = (DATA / "results.csv").read_text().splitlines()[0]
    rows = []
    for (a, b), bw in zip([("n1", "n2"), ("n1", "n3"), ("n2", "n3")], figures):
        rows.append(f"net,stream_bw,mpi,eth,{a}/rank0,{b}/rank1,uni,send_recv,uint8,4194304,6,3,10,40,39,41,"
                    f"{bw},{bw},0,,OK,")
    (run_dir / "results.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    (run_dir / "suite.json").write_text(json.dumps({"expectations": [
        {"link_class": "eth", "ceiling_GBps": 0.125, "reason": "1 Gb/s shaping", "healthy_fraction": 0.8,
         "source": "tc shaping"}]}))
    return run_dir


def test_node_heatmap_marks_the_half_rate_pair(tmp_path):
    """Measured on the virtual cluster: coloured by GB/s, a pair at half rate looked like the healthy
    ones beside a fast shared-memory cell. By fraction of the ceiling, it is red and framed."""
    run_dir = node_run(tmp_path, (0.11, 0.12, 0.06))
    figures = {name: figure for name, _, figure in node_heatmaps(verdicts(run_dir))}
    axes = figures["nodes-stream_bw-mpi-eth"].axes[0]
    data = axes.get_images()[0].get_array()
    assert data.shape == (3, 3)
    assert data[1][2] == pytest.approx(0.06 / 0.125) and data[0][1] == pytest.approx(0.11 / 0.125)
    assert [p.get_gid() for p in axes.patches] == ["fail:n2->n3"]
    assert any(t.get_text() == "48%\nFAIL" for t in axes.texts)
    plt.close("all")


def test_a_cell_just_below_its_threshold_does_not_read_as_at_it(tmp_path):
    """79.9% of the ceiling FAILs below a healthy 80%; in whole percent the cell read "80% FAIL". Near
    a threshold (the healthy fraction, 105%) it keeps a tenth; elsewhere whole percent."""
    run_dir = node_run(tmp_path, (0.11, 0.1312, 0.0999))
    axes = next(f for name, _, f in node_heatmaps(verdicts(run_dir)) if name == "nodes-stream_bw-mpi-eth").axes[0]
    texts = {t.get_text() for t in axes.texts}
    assert "79.9%\nFAIL" in texts and "88%" in texts, texts
    assert "105.0%" in texts, texts  # 104.96%: a PASS, not at the 105% above which a ceiling is doubted
    plt.close("all")


def test_html_embeds_the_plots_and_escapes_the_data(run):
    csv_path = run / "results.csv"
    csv_path.write_text(csv_path.read_text().replace('says ""the driver""', 'says <script>alert(1)</script>'))
    main(["wirebench report", str(run)])
    page = (run / "report.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    images = page.count("src='data:image/png;base64,")
    assert images == len(list((run / "plots").glob("*.png"))) >= 5
    encoded = page.split("src='data:image/png;base64,")[1].split("'")[0]
    assert base64.b64decode(encoded)[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_flags_a_planted_twenty_percent_drop(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(DATA, a)
    shutil.copytree(DATA, b)
    text = (b / "results.csv").read_text()
    (b / "results.csv").write_text(text.replace(",700,690,710,383.5,383.5,0,copies=1,OK,",
                                                ",875,860,890,306.8,306.8,0,copies=1,OK,"))
    out = tmp_path / "cmp"
    assert compare_module.main(["compare", str(a), str(b), "--out", str(out)]) == 1
    doc = json.loads((out / "compare.json").read_text())
    failed = [e for e in doc["entries"] if e["verdict"] == "FAIL"]
    assert len(failed) == 1 and failed[0]["ratios"] == [pytest.approx(0.8)]
    assert "n1/gpu0/n1/gpu1/268435456" in failed[0]["key"]
    assert all(e["ratios"] == [pytest.approx(1.0)] for e in doc["entries"] if e["verdict"] == "PASS")
    # the same two runs compared the other way round: an improvement, no FAIL
    assert compare_module.main(["compare", str(b), str(a), "--out", str(out)]) == 0
    assert list((out / "plots").glob("*.png"))


def test_compare_latency_drops_are_drops_too(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(DATA, a)
    shutil.copytree(DATA, b)
    text = (b / "results.csv").read_text()
    # the 8-byte ping-pong takes 50% longer: its bandwidth falls by a third
    (b / "results.csv").write_text(text.replace(",1000,0.3,0.29,0.32,0.02667,0.02667,", ",1000,0.45,0.44,0.46,0.01778,0.01778,"))
    assert compare_module.main(["compare", str(a), str(b), "--out", str(tmp_path / "c")]) == 1


def test_compare_bad_usage(tmp_path, capsys):
    assert compare_module.main(["compare", str(DATA)]) == 3
    assert compare_module.main(["compare", str(DATA), str(tmp_path / "nope")]) == 3
    assert "no such file" in capsys.readouterr().err


def test_compare_matches_step_rows_whose_results_differ(tmp_path):
    """A step row's extra carries results (compute, exposed, the prediction): two runs of the same
    step differ there and are still the same measurement; a slower step is a drop."""
    header = (DATA / "results.csv").read_text().splitlines()[0]

    def step_run(name, step_us, compute_us, predicted_us):
        run = tmp_path / name
        run.mkdir()
        extra = (f"scale=0.1;tflops=0.5;compute_us={compute_us};exposed_us={step_us - compute_us};"
                 f"exposed_pct=10;comm_us=1;predicted_us={predicted_us};predicted_compute_us=1;predicted_comm_us=1;"
                 f"predicted_exposed_us=1;bytes_all_reduce=100")
        (run / "results.csv").write_text(header + "\n" + f"step,ddp,mpi,eth,tiny,1gbit,uni,step,fp32,100,4,2,8,"
                                         f"{step_us},{step_us},{step_us},,,,\"{extra}\",OK,\n")
        return run
    a = step_run("a", 100000, 80000, 101000)
    b = step_run("b", 130000, 79000, 99000)
    out = tmp_path / "cmp"
    assert compare_module.main(["compare", str(a), str(b), "--out", str(out)]) == 1
    [entry] = json.loads((out / "compare.json").read_text())["entries"]
    assert entry["verdict"] == "FAIL" and entry["ratios"] == [pytest.approx(100000 / 130000)]


def test_compare_holds_a_latency_by_its_time_weighs_its_spread_and_sorts_sizes_as_numbers(tmp_path, capsys):
    """Issue 44: an 8 B ping-pong was compared as bandwidth (0.375, FAIL) whatever its spread, and
    sizes sorted as text (1048576 before 8)."""
    header = ("bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,time_us,time_us_p05,"
              "time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason,samples,spread_pct,judged,rerun")

    def run(name, small_us, small_spread, large_us):
        folder = tmp_path / name
        folder.mkdir()
        judged = "time_us@smallest:typical_latency algbw_GBps@largest:ceiling"
        rows = [f"net,pingpong,mpi,eth,a/rank0,b/rank1,uni,send_recv,uint8,{size},2,2,100,{us},{us},{us},"
                f"{size / us / 1e3},{size / us / 1e3},0,window=1,OK,,9,{spread},{judged},"
                for size, us, spread in ((1048576, large_us, 1), (8, small_us, small_spread), (1024, 40, 2))]
        (folder / "results.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
        return folder
    a, noisy, slow = run("a", 30, 5, 9000), run("noisy", 80, 574, 9000), run("slow", 80, 4, 9000)
    out = tmp_path / "cmp"
    assert compare_module.main(["compare", str(a), str(noisy), "--out", str(out)]) == 0
    entries = {e["bytes"]: e for e in json.loads((out / "compare.json").read_text())["entries"]}
    assert entries[8]["metric"] == "time_us" and entries[8]["verdict"] == "NOISY"
    assert entries[8]["ratios"] == [pytest.approx(30 / 80)]
    assert "1 too noisy to tell" in capsys.readouterr().out
    table = (out / "compare.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| PASS")]
    assert [r.split("|")[2].split("/")[9] for r in rows] == ["1024", "1048576"]  # 8 is NOISY, first
    assert compare_module.main(["compare", str(a), str(slow), "--out", str(out)]) == 1  # a clear latency drop


def test_compare_help_is_exit_0(capsys):
    assert compare_module.main(["compare", "--help"]) == 0
    assert "a drop beyond" not in capsys.readouterr().err
