"""The report's plots (matplotlib, PNG): node x node, GPU x GPU and NUMA x NUMA heatmaps coloured
by the fraction of each link's ceiling (the failing cells framed), bandwidth and latency against
size on log-log axes per link class (a class measured at one size: a bar per link), and the step
emulation (each wiring's breakdown, step time by wiring). Every caption says what to look at.
Every line and bar carries a gid naming what it shows,
so tests (and people with an SVG viewer) can find the series."""
from collections import OrderedDict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from . import judging
from .extra import row_items  # noqa: E402
from .sizes import size_text  # noqa: E402
from .endpoints import nic_name, node_of, parse, rails_of, rank_of  # noqa: E402
from .findings.culprit import KIND as CULPRIT  # noqa: E402
from ..history.store import parse_time  # noqa: E402

# A report builds its figures first and saves and closes each in write_plots: a full run has a few
# dozen small ones open at once, which is fine (matplotlib warns from 20).
plt.rcParams["figure.max_open_warning"] = 0


def _series_key(row):
    f = row.fields
    link = f["src"] + (" -> " + f["dst"] if f["dst"] and f["dst"] != f["src"] else "")
    return f"{f['case']} {f['op']} ({f['backend'] or 'host'}) {link}"


def _safe(text):
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)


def _link_class(v):
    return v.row.text("link_class") or "unclassified"


def _grouped(verdicts, keep):
    groups = OrderedDict()
    for v in verdicts:
        # a fabric culprit is no sweep: its rows are drawn, each on its own line
        if v.row.status == "OK" and not v.row.origin and not judging.by_prediction(v.row) and keep(v):
            groups.setdefault(_link_class(v), []).append(v)
    return groups


def _ceiling_lines(axes, members):
    for ceiling in sorted({v.ceiling_GBps for v in members if v.ceiling_GBps}):
        judged = next(v for v in members if v.ceiling_GBps == ceiling)
        axes.axhline(ceiling, color="black", linestyle="--", linewidth=1, gid=f"ceiling:{ceiling:g}")
        if judged.healthy_fraction:
            axes.axhspan(ceiling * judged.healthy_fraction, ceiling, color="green", alpha=0.1,
                         gid=f"healthy-band:{ceiling:g}")
        axes.annotate(f"ceiling {ceiling:g} GB/s", (0.01, ceiling), xycoords=("axes fraction", "data"), fontsize=7,
                      va="bottom")
    for floor in sorted({v.floor_GBps for v in members if v.floor_GBps}):
        axes.axhline(floor, color="#c62828", linestyle=":", linewidth=1.2, gid=f"floor:{floor:g}")
        axes.annotate(f"profile floor {floor:g} GB/s", (0.99, floor), xycoords=("axes fraction", "data"), fontsize=7,
                      va="bottom", ha="right", color="#c62828")


def size_axis(axis):
    """A message-size axis on a base-2 log scale, its ticks as readers say sizes (8 B, 64 KiB, 1 MiB)."""
    axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: size_text(x) if x >= 1 and x == int(x) else ""))


class PlainLogFormatter(ticker.LogFormatter):
    """matplotlib's choice of which log ticks to label, each label a plain number (0.001, 0.2, 1000)."""

    def _num_to_string(self, x, vmin, vmax):
        return f"{x:g}"


def plain_log_axis(axis):
    """A log axis's ticks in plain numbers (0.1, 1, 10), not matplotlib's default 10^k: the default is
    typeset as mathtext, which took a quarter of the reports' time (tests/reports: 86 of 345 s parsing it)."""
    axis.set_major_formatter(PlainLogFormatter())
    axis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False))


LINESTYLES = ("-", "--", ":")  # the colour cycle has ten colours: the next ten lines are dashed


def _legend(axes):
    """The series' names beside the axes (a link class can have a few dozen lines)."""
    axes.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, ncol=1)


def _sweep_lines(axes, series, value, ylabel):
    """A line per measured link against size, on log-log axes, its FAIL points crossed."""
    for index, (name, points) in enumerate(series.items()):
        points.sort(key=lambda v: int(v.row.text("bytes")))
        sizes = [max(int(v.row.text("bytes")), 1) for v in points]
        axes.plot(sizes, [value(v) for v in points], marker="o", markersize=3, label=name, gid=f"series:{name}",
                  linestyle=LINESTYLES[index // 10 % 3])
        for size, v in zip(sizes, points):
            if v.verdict == "FAIL":
                axes.plot([size], [value(v)], marker="x", color="#c62828", markersize=10, gid=f"fail:{name}")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    size_axis(axes.xaxis)
    plain_log_axis(axes.yaxis)
    axes.set_xlabel("message size")
    axes.set_ylabel(ylabel)
    _legend(axes)


def _bars(axes, members, value, unit):
    """A measurement with one size per link: a bar per link, the failing ones red."""
    names = [_series_key(v.row) for v in members]
    colours = ["#c62828" if v.verdict == "FAIL" else "#ef6c00" if v.verdict == "WARN" else "#4c72b0" for v in members]
    axes.barh(range(len(members)), [value(v) for v in members], color=colours, gid="bars")
    axes.set_yticks(range(len(members)), names, fontsize=6)
    axes.set_xlabel(unit)


def bandwidth_figures(verdicts):
    """Per link class: bandwidth against size on log-log axes, a line per measured link, with the
    class's ceiling and healthy band; a class measured at one size only is a bar per link."""
    figures = []
    groups = _grouped(verdicts, lambda v: v.metric in ("busbw_GBps", "algbw_GBps") and v.value is not None)
    for link_class, members in groups.items():
        series = OrderedDict()
        for v in members:
            series.setdefault(_series_key(v.row), []).append(v)
        single = all(len(points) == 1 for points in series.values())
        figure, axes = plt.subplots(figsize=(7, max(3, 0.25 * len(series) + 1.5)) if single else (10, 4.5))
        if single:
            _bars(axes, [points[0] for points in series.values()], lambda v: v.value, "GB/s (busbw for collectives)")
            caption = (f"{link_class} links, one size each: a bar per link; look for a bar shorter than the others "
                       "(red: FAIL, orange: WARN)")
        else:
            _sweep_lines(axes, series, lambda v: v.value, "GB/s (busbw for collectives, algbw otherwise)")
            _ceiling_lines(axes, members)
            caption = (f"{link_class} links: bandwidth against size (log-log); the largest size of each line is judged "
                       "against the dashed ceiling; look for a line that flattens below the green band (x: FAIL)")
        axes.set_title(f"{link_class} links: bandwidth", fontsize=9)
        figure.tight_layout()
        figures.append((f"bandwidth-{_safe(link_class)}", caption, figure))
    return figures


LATENCY_CASES = {"pingpong", "latency", "memory_latency", "gpu_host_latency"}


def latency_figures(verdicts):
    """Per link class: time per operation against size (log-log), for latency measurements."""
    figures = []
    groups = _grouped(verdicts, lambda v: v.row.number("time_us") is not None and
                      (v.metric == "time_us" or v.row.text("case") in LATENCY_CASES))
    for link_class, members in groups.items():
        series = OrderedDict()
        for v in members:
            series.setdefault(_series_key(v.row), []).append(v)
        single = all(len(points) == 1 for points in series.values())
        figure, axes = plt.subplots(figsize=(7, max(3, 0.25 * len(series) + 1.5)) if single else (10, 4.5))
        if single:
            _bars(axes, [points[0] for points in series.values()], lambda v: v.row.number("time_us"), "us per operation")
            axes.set_xscale("log")
            plain_log_axis(axes.xaxis)
            caption = f"{link_class} links: latency, one size each; look for a bar longer than the others"
        else:
            _sweep_lines(axes, series, lambda v: v.row.number("time_us"), "time per operation (us)")
            caption = (f"{link_class} links: latency against size (log-log); the small sizes show each link's latency, "
                       "look for a line above the others")
        axes.set_title(f"{link_class} links: latency", fontsize=9)
        figure.tight_layout()
        figures.append((f"latency-{_safe(link_class)}", caption, figure))
    return figures


def _cell_percent(v):
    """A cell's fraction of its ceiling, in whole percent; with a tenth where a whole percent would
    round it onto a threshold it is not at (79.9% below a healthy 80% is no "80% WARN")."""
    percent = 100 * v.fraction
    thresholds = [100 * v.healthy_fraction] if v.healthy_fraction else []
    near = any(abs(percent - t) < 0.5 for t in thresholds + [105.0])
    return f"{percent:.1f}%" if near else f"{percent:.0f}%"


def _fraction_heatmap(title, labels, cells, gid, culprits=()):
    """A heatmap of the fraction of the ceiling, one colour scale for every link (0 to 105%): a cell
    is what its link reached of what it promises, so a bad link is red whatever its rate. Cells
    with a measured figure but no ceiling show the figure on grey; FAIL cells are framed and
    labelled; a culprit (culprits.py) is framed in blue: a node's row and column, a path's two cells,
    a NIC's row and column. cells: {(src, dst): verdict}; culprits: their findings (findings/culprit.py:
    subject node, place node3; path, node2-node5; nic, node3/rail1)."""
    import matplotlib.patches as patches

    index = {n: i for i, n in enumerate(labels)}
    data = [[float("nan")] * len(labels) for _ in labels]
    for (src, dst), v in cells.items():
        if v.fraction is not None:
            data[index[src]][index[dst]] = v.fraction
    size = max(4.0, 0.7 * len(labels) + 2.5)
    figure, axes = plt.subplots(figsize=(size + 1.5, size))
    cmap = plt.get_cmap("RdYlGn").with_extremes(bad="#dddddd")
    from matplotlib.colors import TwoSlopeNorm
    # Yellow at the healthy fraction, red below it, green above: a failing cell is red, whatever its rate.
    healthy = min((v.healthy_fraction for v in cells.values() if v.healthy_fraction), default=0.8)
    image = axes.imshow(data, cmap=cmap, norm=TwoSlopeNorm(vmin=0, vcenter=healthy, vmax=1.05), gid=gid)
    axes.set_xticks(range(len(labels)), labels, fontsize=7, rotation=45, ha="right")
    axes.set_yticks(range(len(labels)), labels, fontsize=7)
    axes.set_xlabel("destination")
    axes.set_ylabel("source")
    axes.set_title(title, fontsize=9)
    figure.colorbar(image, ax=axes, label="fraction of the ceiling")
    for (src, dst), v in cells.items():
        i, j = index[src], index[dst]
        text = _cell_percent(v) if v.fraction is not None else f"{v.value:.3g}"
        if v.verdict in ("FAIL", "WARN"):
            text += f"\n{v.verdict}"
        axes.text(j, i, text, ha="center", va="center", fontsize=7, color="black")
        if v.verdict == "FAIL":
            axes.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2.5,
                                             gid=f"fail:{src}->{dst}"))
    n = len(labels)
    for culprit in culprits:
        kind, name = culprit.subject, culprit.place
        # A node's row and column (with rails, each of its NICs'); a NIC's, or a miswired NIC's.
        framed = ([l for l in labels if l == name or l.startswith(name + "/")] if kind == "node" else
                  [name.partition("@")[0]] if kind in ("nic", "miswire") and name.partition("@")[0] in index else [])
        for label in framed:
            k = index[label]
            axes.add_patch(patches.Rectangle((-0.5, k - 0.5), n, 1, fill=False, edgecolor="#1565c0", linewidth=3,
                                             gid=f"culprit:{name}"))
            axes.add_patch(patches.Rectangle((k - 0.5, -0.5), 1, n, fill=False, edgecolor="#1565c0", linewidth=3))
        if kind == "path":
            a, _, b = name.partition("-")
            if a in index and b in index:
                for i, j in ((index[a], index[b]), (index[b], index[a])):
                    axes.add_patch(patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#1565c0",
                                                     linewidth=3, gid=f"culprit:{name}"))
    figure.tight_layout()
    return figure


def _natural(name):
    """node2 before node10."""
    head = name.rstrip("0123456789")
    return (head, int(name[len(head):]) if name[len(head):] else -1)


def _matrices(verdicts, name_of):
    """{(case, backend, link_class): {(src, dst): item}} of bandwidth items between the endpoints
    name_of names (a kind of endpoint: GPUs, NUMA nodes, ranks), with its names."""
    out = OrderedDict()
    for v in verdicts:
        if (v.row.origin or not (v.item or v.explained_by) or v.verdict in ("SKIP", "ERROR")
                or v.metric not in ("algbw_GBps", "busbw_GBps") or v.value is None):
            continue
        src, dst = name_of(v.row.text("src")), name_of(v.row.text("dst") or v.row.text("src"))
        if src and dst:
            out.setdefault((v.row.text("case"), v.row.text("backend"), _link_class(v)), {})[(src, dst)] = v
    return out


def gpu_heatmaps(verdicts):
    """GPU x GPU heatmaps of the fraction of the ceiling, per p2p pattern (largest size)."""
    def gpu(name):
        found = parse(name)
        return found.local if found and found.kind == "gpu" else None
    figures = []
    for (case, backend, link_class), cells in _matrices(verdicts, gpu).items():
        labels = sorted({n for pair in cells for n in pair}, key=lambda g: int(g[3:]))
        figure = _fraction_heatmap(f"p2p {case}: GPU x GPU, fraction of the ceiling", labels, cells, "heatmap:gpus")
        figures.append((f"heatmap-{_safe(case)}", f"p2p {case}: GPU x GPU by fraction of each link's ceiling; "
                        "look for a red or framed (FAIL) cell", figure))
    return figures


def numa_heatmaps(verdicts):
    """NUMA x NUMA heatmaps of host memory copies (nvbandwidth's matrix): the figure per pair."""
    def numa(name):
        found = parse(name)
        return name if found and found.kind == "numa" else None
    figures = []
    for (case, backend, link_class), cells in _matrices(verdicts, numa).items():
        labels = sorted({n for pair in cells for n in pair})
        figure = _fraction_heatmap(f"host {case}: NUMA x NUMA (GB/s where no ceiling is known)", labels, cells,
                                   "heatmap:numa")
        figures.append((f"numa-{_safe(case)}", f"host {case}: NUMA node x NUMA node copy bandwidth; look for a pair "
                        "far below the others (grey: no ceiling, the figure is shown)", figure))
    return figures


def node_heatmaps(verdicts, per_nic=False):
    """Node x node heatmaps of point-to-point bandwidth as the fraction of each link's ceiling
    (largest size of each pair's sweep), per wb-net test and link class, when the pairs span at
    least two nodes: one bad node pair stands out, framed when it FAILs. With a NIC per rank
    (`per_nic`: rails; a rank's place among its node's ranks is its rail), NIC x NIC (node3/rail1): a
    node's rails apart, as the screen judges them."""
    ranks = {rank_of(end): node_of(end) for v in verdicts if not v.row.origin
             for end in (v.row.text("src"), v.row.text("dst")) if rank_of(end) is not None}
    rails = rails_of(ranks) if per_nic else {}

    def node(name):  # a rank's node (its NIC with rails); other endpoints are in other matrices
        if rank_of(name) is None:
            return None
        if rank_of(name) in rails:
            return nic_name(*rails[rank_of(name)])
        return node_of(name) or None
    unit = "NIC x NIC" if rails else "node x node"
    figures = []
    for (case, backend, link_class), cells in _matrices(verdicts, node).items():
        labels = sorted({n for pair in cells for n in pair}, key=_natural)
        if len(labels) < 2:
            continue
        named = [v.record for v in verdicts if v.record and v.record.kind == CULPRIT
                 and (v.record.evidence.case, v.record.evidence.backend, v.record.evidence.link_class)
                 == (case, backend, link_class)]
        title = f"net {case} ({backend}, {link_class}): {unit}, fraction of the ceiling"
        if named:
            title += "\nculprit: " + ", ".join(c.place for c in named)
        figure = _fraction_heatmap(title, labels, cells, "heatmap:nodes", named)
        figures.append((f"nodes-{_safe(case)}-{_safe(backend)}-{_safe(link_class)}",
                        f"net {case} over {link_class}: {unit} by fraction of the ceiling; look for a red or "
                        "framed (FAIL) cell: its row and column name the pair"
                        + ("; the blue frame marks the culprit the pattern names (a node's or a NIC's row and column, "
                           "or a path)"
                           if named else ""), figure))
    return figures


def _measured_steps(verdicts, key):
    """Measured step-emulation rows grouped by key(row), in order of appearance."""
    groups = OrderedDict()
    for v in verdicts:
        if judging.by_prediction(v.row) and v.row.status == "OK" and v.row.number("time_us") is not None:
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
            e = row_items(v.row)
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
            # The step's own operations replayed under the overlap rules: where a prediction's miss went.
            replayed = e.get("replayed_us")
            if replayed:
                axes.plot([index - width, index + width], [float(replayed) / 1e3] * 2, color="black", linestyle=":",
                          linewidth=1.5, gid=f"{v.row.text('case')}:replayed",
                          label="its operations replayed" if index == 0 else None)
        axes.set_xticks(range(len(members)))
        axes.set_xticklabels([f"{m.row.text('case')}\n(left: measured,\nright: predicted)" if i == 0
                              else m.row.text("case") for i, m in enumerate(members)], fontsize=7)
        figures.append(_finish_step_figure(
            figure, axes, f"step emulation: {model}, {nodes} node(s), wiring {wiring}",
            f"step-{_safe(model)}-{_safe(wiring)}-{_safe(nodes)}",
            f"step emulation {model} on {wiring}: compute (blue), exposed communication (red) and communication "
            "hidden under compute (orange), measured beside predicted (hatched), the step's own operations replayed "
            "(dotted); look at the red share"))
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
            predicted = [float(row_items(points[wirings[i]].row).get("predicted_us", "nan")) / 1e3 for i in xs]
            axes.plot(xs, predicted, linestyle="--", color=line.get_color(), gid=f"predicted:{strategy}")
            replayed = [float(row_items(points[wirings[i]].row).get("replayed_us", "nan")) / 1e3 for i in xs]
            if any(r == r for r in replayed):  # not all NaN: runs from before replayed_us have none
                axes.plot(xs, replayed, linestyle=":", color=line.get_color(), gid=f"replayed:{strategy}")
        axes.set_xticks(range(len(wirings)))
        axes.set_xticklabels(wirings, fontsize=7)
        axes.set_yscale("log")
        plain_log_axis(axes.yaxis)
        figures.append(_finish_step_figure(
            figure, axes, f"step emulation: {model}, {nodes} node(s), by wiring (dashed: predicted, dotted: replayed)",
            f"step-wirings-{_safe(model)}-{_safe(nodes)}",
            f"step emulation {model}: step time by wiring, measured (solid), predicted (dashed) and its operations "
            "replayed (dotted); look at how much "
            "slower each strategy gets on the slower wiring"))
    return figures


def trend_figure(times, values, failed, title, ylabel, baseline=None, first=None):
    """An item's figures night by night (a FAIL crossed), its baseline's median dashed and the first
    night of a regression marked: `wirebench history show --plot` and the report's trend section."""
    figure, axes = plt.subplots(figsize=(8, 3.2))
    axes.plot(times, values, marker="o", color="#1565c0")
    axes.plot([t for t, f in zip(times, failed) if f], [v for v, f in zip(values, failed) if f], linestyle="",
              marker="x", markersize=11, color="#c62828", label="FAIL")
    if baseline is not None:
        axes.axhline(baseline, linestyle="--", color="#2e7d32", label=f"baseline median {baseline:.4g}")
    if first is not None:
        axes.axvline(first, linestyle=":", color="#c62828", label="first night of the change")
    axes.set_title(title if len(title) < 100 else title[:97] + "...", fontsize=8)
    axes.set_ylabel(ylabel)
    axes.legend(fontsize=7, loc="best")
    figure.autofmt_xdate()
    return figure


def write_trend_plots(trends, history, run, out_dir: Path):
    """A plot per item that moved against the history, up to this run: [(title, path)]."""
    written = []
    for index, t in enumerate(trends):
        v, r = t.verdict, t.regression
        if r is None:  # against the fleet: tonight's figure and the other nodes', no series of its own
            continue
        points = [(p.run.time, p.value, p.verdict) for p in history.series(v.row.key, v.metric, before=run.time)
                  if p.run.run_id != run.run_id] + [(run.time, v.value, v.verdict)]
        when = [parse_time(time) for time, _, _ in points]
        unit = judging.unit_of(v.metric)
        figure = trend_figure(when, [value for _, value, _ in points], [verdict == "FAIL" for _, _, verdict in points],
                              v.row.key,
                              f"{v.metric} ({unit})", r.baseline.median,
                              parse_time(r.first.time))
        path = out_dir / "plots" / f"trend-{index}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(figure)
        written.append((f"trend: {v.row.key} against its history ({r.change * 100:+.1f}% from the first night "
                        f"{r.first.time})", path))
    return written


def write_plots(verdicts, out_dir: Path, per_nic=False):
    """Writes every figure as out_dir/plots/NAME.png; returns [(title, path)]. per_nic: the suite gave
    each rank a NIC of its own (rails): the network heatmaps are NIC x NIC."""
    plot_dir = out_dir / "plots"
    plot_dir.mkdir(parents=True, exist_ok=True)
    for stale in plot_dir.glob("*.png"):  # a report written again shows only its own plots
        stale.unlink()
    written = []
    # The pictures that show a bad link first: heatmaps, then the sweeps, then the steps.
    figures = (node_heatmaps(verdicts, per_nic) + gpu_heatmaps(verdicts) + numa_heatmaps(verdicts) + bandwidth_figures(verdicts)
               + latency_figures(verdicts) + step_breakdown_figures(verdicts) + step_wiring_figures(verdicts))
    for name, title, figure in figures:
        path = plot_dir / f"{name}.png"
        figure.savefig(path, dpi=90, bbox_inches="tight")  # a legend beside the axes stays in the picture
        plt.close(figure)
        written.append((title, path))
    return written
