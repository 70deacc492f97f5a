"""The report's plots (matplotlib, PNG): bandwidth against size per measurement with the ceiling
and its healthy band, latency against size, GPU x GPU heatmaps of bandwidth and of percent of
ceiling, node x node heatmaps from point-to-point pair sweeps, and the step emulation (each
wiring's breakdown, step time by wiring). Every line and bar carries a gid naming what it shows,
so tests (and people with an SVG viewer) can find the series."""
from collections import OrderedDict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .verdicts import extra_items  # noqa: E402

# A report builds its figures first and saves and closes each in write_plots: a full run has a few
# dozen small ones open at once, which is fine (matplotlib warns from 20).
plt.rcParams["figure.max_open_warning"] = 0


def _series_key(row):
    f = row.fields
    return f["src"] + (" -> " + f["dst"] if f["dst"] else "")


def _family_key(row):
    f = row.fields
    return f["bench"], f["case"], f["op"], f["dtype"], f["backend"]


def _safe(text):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)


def bandwidth_figures(verdicts):
    """One figure per measurement family with a size sweep: bandwidth against size."""
    families = OrderedDict()
    for v in verdicts:
        if v.metric in ("busbw_GBps", "algbw_GBps") and v.value is not None:
            families.setdefault(_family_key(v.row), []).append(v)
    figures = []
    for key, members in families.items():
        figure, axes = plt.subplots(figsize=(7, 4))
        series = OrderedDict()
        for v in members:
            series.setdefault(_series_key(v.row), []).append((int(v.row.text("bytes")), v.value))
        for name, points in series.items():
            points.sort()
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=name,
                      gid=f"series:{name}")
        ceilings = {(v.ceiling_GBps, v.row.fields.get("link_class")) for v in members if v.ceiling_GBps}
        for ceiling, link_class in sorted(ceilings):
            judged = next(v for v in members if v.ceiling_GBps == ceiling)
            axes.axhline(ceiling, color="black", linestyle="--", linewidth=1, gid=f"ceiling:{ceiling:g}")
            band = judged.healthy_fraction
            if band:
                axes.axhspan(ceiling * band, ceiling, color="green", alpha=0.1, gid=f"healthy-band:{ceiling:g}")
            axes.annotate(f"ceiling {ceiling:g} GB/s ({link_class})", (0.01, ceiling), xycoords=("axes fraction", "data"),
                          fontsize=7, va="bottom")
        floors = {v.floor_GBps for v in members if v.floor_GBps and v.floor_metric == members[0].metric}
        for floor in sorted(floors):
            bottom, top = axes.get_ylim()
            axes.set_ylim(min(bottom, floor * 0.95), top)  # the floor stays in sight below the points
            axes.axhline(floor, color="#c62828", linestyle=":", linewidth=1.2, gid=f"floor:{floor:g}")
            axes.annotate(f"profile floor {floor:g} GB/s", (0.99, floor), xycoords=("axes fraction", "data"),
                          fontsize=7, va="bottom", ha="right", color="#c62828")
        axes.set_xscale("log", base=2)
        axes.set_xlabel("bytes")
        axes.set_ylabel("busbw GB/s" if members[0].metric == "busbw_GBps" else "algbw GB/s")
        bench, case, op, dtype, backend = key
        axes.set_title(f"{bench} {case} {op} {dtype} ({backend})", fontsize=9)
        if len(series) <= 12:
            axes.legend(fontsize=6)
        figure.tight_layout()
        figures.append((f"bandwidth-{_safe('-'.join(key))}", f"{bench} {case} {op} {dtype}: bandwidth", figure))
    return figures


LATENCY_CASES = {"pingpong", "latency", "memory_latency", "gpu_host_latency"}


def latency_figures(verdicts):
    """Time per operation against size, for latency measurements (ping-pong at every size)."""
    families = OrderedDict()
    for v in verdicts:
        if v.row.text("bench") == "step":
            continue
        if v.row.number("time_us") is not None and (v.metric == "time_us" or v.row.text("case") in LATENCY_CASES):
            families.setdefault(_family_key(v.row), []).append(v)
    figures = []
    for key, members in families.items():
        figure, axes = plt.subplots(figsize=(7, 4))
        series = OrderedDict()
        for v in members:
            series.setdefault(_series_key(v.row), []).append((max(int(v.row.text("bytes")), 1), v.row.number("time_us")))
        for name, points in series.items():
            points.sort()
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=name,
                      gid=f"series:{name}")
        axes.set_xscale("log", base=2)
        axes.set_xlabel("bytes")
        axes.set_ylabel("time per operation (us)")
        axes.set_title(" ".join(key[:4]) + ": latency", fontsize=9)
        axes.legend(fontsize=6)
        figure.tight_layout()
        figures.append((f"latency-{_safe('-'.join(key))}", " ".join(key[:4]) + ": latency", figure))
    return figures


def gpu_heatmaps(verdicts):
    """GPU x GPU heatmaps of bandwidth and percent of ceiling, per p2p pattern (largest size)."""
    by_case = OrderedDict()
    for v in verdicts:
        if v.row.text("bench") == "p2p" and v.metric == "algbw_GBps" and v.value is not None and v.verdict != "SKIP":
            by_case.setdefault(v.row.text("case"), []).append(v)
    figures = []
    for case, members in by_case.items():
        gpus = sorted({int(name.rsplit("gpu", 1)[1]) for v in members for name in (v.row.text("src"), v.row.text("dst"))
                       if "gpu" in name and name.rsplit("gpu", 1)[1].isdigit()})
        if not gpus:
            continue
        index = {g: i for i, g in enumerate(gpus)}
        bandwidth = [[float("nan")] * len(gpus) for _ in gpus]
        percent = [[float("nan")] * len(gpus) for _ in gpus]
        for v in members:
            a = int(v.row.text("src").rsplit("gpu", 1)[1])
            b = int(v.row.text("dst").rsplit("gpu", 1)[1]) if v.row.text("dst").rsplit("gpu", 1)[-1].isdigit() else a
            bandwidth[index[a]][index[b]] = v.value
            if v.fraction is not None:
                percent[index[a]][index[b]] = 100 * v.fraction
        figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        for axes, data, title, gid in ((left, bandwidth, "GB/s", "heatmap:bandwidth"),
                                       (right, percent, "% of ceiling", "heatmap:percent")):
            image = axes.imshow(data, cmap="viridis", gid=gid)
            axes.set_xticks(range(len(gpus)), [f"gpu{g}" for g in gpus], fontsize=7)
            axes.set_yticks(range(len(gpus)), [f"gpu{g}" for g in gpus], fontsize=7)
            axes.set_xlabel("destination")
            axes.set_ylabel("source")
            axes.set_title(f"{case}: {title}", fontsize=9)
            figure.colorbar(image, ax=axes)
            for i in range(len(gpus)):
                for j in range(len(gpus)):
                    if data[i][j] == data[i][j]:  # not NaN
                        axes.text(j, i, f"{data[i][j]:.0f}", ha="center", va="center", fontsize=7, color="white")
        figure.tight_layout()
        figures.append((f"heatmap-{_safe(case)}", f"{case}: GPU x GPU", figure))
    return figures


def node_heatmaps(verdicts):
    """Node x node heatmaps of point-to-point bandwidth (largest size of each pair's sweep), per
    wb-net test, when the pairs span at least two nodes: one bad node pair stands out."""
    by_case = OrderedDict()
    for v in verdicts:
        if v.row.text("bench") != "net" or v.metric != "algbw_GBps" or v.value is None:
            continue
        src, dst = v.row.text("src").rpartition("/")[0], v.row.text("dst").rpartition("/")[0]
        if src and dst:
            by_case.setdefault((v.row.text("case"), v.row.text("backend")), []).append((src, dst, v))
    figures = []
    for (case, backend), members in by_case.items():
        nodes = sorted({n for src, dst, _ in members for n in (src, dst)})
        if len(nodes) < 2:
            continue
        largest = {}
        for src, dst, v in members:
            size = int(v.row.text("bytes"))
            if size >= largest.get((src, dst), (0, None))[0]:
                largest[(src, dst)] = (size, v.value)
        index = {n: i for i, n in enumerate(nodes)}
        data = [[float("nan")] * len(nodes) for _ in nodes]
        for (src, dst), (_, value) in largest.items():
            data[index[src]][index[dst]] = value
        figure, axes = plt.subplots(figsize=(1.2 * len(nodes) + 3, 1.0 * len(nodes) + 2))
        image = axes.imshow(data, cmap="viridis", gid="heatmap:nodes")
        axes.set_xticks(range(len(nodes)), nodes, fontsize=7, rotation=45)
        axes.set_yticks(range(len(nodes)), nodes, fontsize=7)
        axes.set_title(f"net {case} ({backend}): GB/s, node to node", fontsize=9)
        figure.colorbar(image, ax=axes)
        for i in range(len(nodes)):
            for j in range(len(nodes)):
                if data[i][j] == data[i][j]:
                    axes.text(j, i, f"{data[i][j]:.3g}", ha="center", va="center", fontsize=7, color="white")
        figure.tight_layout()
        figures.append((f"nodes-{_safe(case)}-{_safe(backend)}", f"net {case}: node x node", figure))
    return figures


def _measured_steps(verdicts, key):
    """Measured step-emulation rows grouped by key(row), in order of appearance."""
    groups = OrderedDict()
    for v in verdicts:
        if v.row.text("bench") == "step" and v.row.status == "OK" and v.row.number("time_us") is not None:
            groups.setdefault(key(v.row), []).append(v)
    return groups


def _finish_step_figure(figure, axes, title, name, caption):
    """The labels every step-emulation figure shares; returns the (name, caption, figure) entry."""
    axes.set_ylabel("time per step (ms)")
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=7)
    figure.tight_layout()
    return name, caption, figure


def step_breakdown_figures(verdicts):
    """Per model and wiring: each strategy's step as compute plus exposed communication, with the
    communication hidden under compute (overlapped) beside it, measured and predicted side by side."""
    figures = []
    groups = _measured_steps(verdicts, lambda row: (row.text("src"), row.text("dst"), row.text("nodes")))
    for (model, wiring, nodes), members in groups.items():
        figure, axes = plt.subplots(figsize=(max(6, 1.3 * len(members)), 4))
        width = 0.38
        for index, v in enumerate(members):
            e = extra_items(v.row)
            try:
                measured = (float(e["compute_us"]), float(e["exposed_us"]), float(e.get("comm_us", "nan")))
                predicted_step = float(e["predicted_us"])
                predicted = (float(e.get("predicted_compute_us", e["compute_us"])),
                             max(0.0, predicted_step - float(e.get("predicted_compute_us", e["compute_us"]))),
                             float(e.get("predicted_comm_us", "nan")))
            except (KeyError, ValueError):
                continue
            for offset, (compute, exposed, comm), kind in ((-width / 2, measured, "measured"),
                                                          (width / 2, predicted, "predicted")):
                x = index + offset
                hatch = "//" if kind == "predicted" else None
                axes.bar(x, compute / 1e3, width, color="#4c72b0", hatch=hatch, gid=f"{v.row.text('case')}:{kind}:compute",
                         label="compute" if index == 0 and kind == "measured" else None)
                axes.bar(x, exposed / 1e3, width, bottom=compute / 1e3, color="#c44e52", hatch=hatch,
                         gid=f"{v.row.text('case')}:{kind}:exposed",
                         label="exposed communication" if index == 0 and kind == "measured" else None)
                overlapped = comm - exposed
                if overlapped == overlapped and overlapped > 0:  # not NaN
                    axes.bar(x, overlapped / 1e3, width * 0.35, color="#dd8452", alpha=0.8,
                             gid=f"{v.row.text('case')}:{kind}:overlapped",
                             label="overlapped communication" if index == 0 and kind == "measured" else None)
        axes.set_xticks(range(len(members)))
        axes.set_xticklabels([f"{m.row.text('case')}\n(left: measured,\nright: predicted)" if i == 0
                              else m.row.text("case") for i, m in enumerate(members)], fontsize=7)
        figures.append(_finish_step_figure(
            figure, axes, f"step emulation: {model}, {nodes} node(s), wiring {wiring}",
            f"step-{_safe(model)}-{_safe(wiring)}-{_safe(nodes)}",
            f"step emulation {model} on {wiring}: compute, exposed and overlapped communication"))
    return figures


def step_wiring_figures(verdicts):
    """Per model and node count measured on two wirings or more: each strategy's step time across
    the wirings (measured solid, predicted dashed), so where the sharded strategies lose to DDP
    shows at a glance."""
    figures = []
    for (model, nodes), members in _measured_steps(verdicts, lambda row: (row.text("src"), row.text("nodes"))).items():
        wirings = list(OrderedDict.fromkeys(m.row.text("dst") for m in members))
        if len(wirings) < 2:
            continue
        figure, axes = plt.subplots(figsize=(7, 4))
        strategies = list(OrderedDict.fromkeys(m.row.text("case") for m in members))
        for strategy in strategies:
            points = {m.row.text("dst"): m for m in members if m.row.text("case") == strategy}
            xs = [i for i, w in enumerate(wirings) if w in points]
            measured = [points[wirings[i]].row.number("time_us") / 1e3 for i in xs]
            line, = axes.plot(xs, measured, marker="o", label=strategy, gid=f"measured:{strategy}")
            predicted = [float(extra_items(points[wirings[i]].row).get("predicted_us", "nan")) / 1e3 for i in xs]
            axes.plot(xs, predicted, linestyle="--", color=line.get_color(), gid=f"predicted:{strategy}")
        axes.set_xticks(range(len(wirings)))
        axes.set_xticklabels(wirings, fontsize=7)
        axes.set_yscale("log")
        figures.append(_finish_step_figure(
            figure, axes, f"step emulation: {model}, {nodes} node(s), by wiring (dashed: predicted)",
            f"step-wirings-{_safe(model)}-{_safe(nodes)}",
            f"step emulation {model}: step time by wiring, measured and predicted"))
    return figures


def write_plots(verdicts, out_dir: Path):
    """Writes every figure as out_dir/plots/NAME.png; returns [(title, path)]."""
    plot_dir = out_dir / "plots"
    plot_dir.mkdir(parents=True, exist_ok=True)
    written = []
    figures = (bandwidth_figures(verdicts) + latency_figures(verdicts) + gpu_heatmaps(verdicts) + node_heatmaps(verdicts)
               + step_breakdown_figures(verdicts) + step_wiring_figures(verdicts))
    for name, title, figure in figures:
        path = plot_dir / f"{name}.png"
        figure.savefig(path, dpi=90)
        plt.close(figure)
        written.append((title, path))
    return written
