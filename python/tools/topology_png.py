#!/usr/bin/env python3
"""Draws `wirebench topo --json` output as a picture: per node, CPUs (NUMA nodes) at the top,
GPUs in a row, NICs below; links coloured by class and labelled with their ceiling.

Usage: wirebench topo --json | topology_png.py OUT.png     (or: topology_png.py OUT.png IN.json)
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CLASS_COLOURS = {
    "nvlink": "#76b900",  # NVIDIA green
    "pcie": "#1f77b4",
    "c2c": "#9467bd",
    "ib": "#d62728",
    "roce": "#ff7f0e",
    "eth": "#8c564b",
    "shm": "#7f7f7f",
    "host": "#7f7f7f",
}


def ceiling_label(link):
    ceiling = link.get("ceiling_GBps")
    return "?" if ceiling is None else f"{ceiling:g}"


def node_positions(node):
    """x, y of every device of one node: NUMA nodes on top, GPUs in the middle, NICs below."""
    gpus = [f"gpu{g['index']}" for g in node["gpus"]]
    nics = [n["name"] for n in node["nics"]]
    cpus = [f"numa{n['id']}" for n in node["numa_nodes"]] or ["host"]
    width = max(len(gpus), len(nics), len(cpus), 1)
    positions = {}
    for row, names in ((2.0, cpus), (1.0, gpus), (0.0, nics)):
        for i, name in enumerate(names):
            positions[name] = ((i + 0.5) * width / max(len(names), 1), row)
    positions.setdefault("host", positions[cpus[0]])
    positions["network"] = (width / 2, -1.0)
    return positions, gpus, nics, cpus


def draw_node(axes, node):
    positions, gpus, nics, cpus = node_positions(node)
    links = node["links"]
    nvlink_pairs = [l for l in links if l["class"] == "nvlink"]
    dense = len(nvlink_pairs) > 12  # all-to-all through NVSwitch: draw one label, not 28
    used_classes = set()
    gpu_numa = {f"gpu{g['index']}": g.get("numa_node") for g in node["gpus"]}
    far = {"NODE", "SYS"}
    for link in links:
        if link.get("distance") in far and link["b"] in nics:
            continue  # every GPU reaches every NIC; draw the near ones only (the legend says so)
        b_name = link["b"]
        if b_name == "host" and gpu_numa.get(link["a"]) is not None and f"numa{gpu_numa[link['a']]}" in positions:
            b_name = f"numa{gpu_numa[link['a']]}"  # a GPU's host link ends at its own NUMA node
        a, b = positions.get(link["a"]), positions.get(b_name)
        if a is None or b is None:
            continue
        colour = CLASS_COLOURS.get(link["class"], "black")
        used_classes.add(link["class"])
        style = "--" if link.get("degraded") or link.get("inactive") else "-"
        if link["class"] == "nvlink" and a[1] == b[1]:
            # GPUs share a row: bow the NVLink arcs above it, higher for farther pairs
            xs = [a[0], (a[0] + b[0]) / 2, b[0]]
            ys = [a[1], a[1] + 0.12 + 0.05 * abs(a[0] - b[0]), b[1]]
            axes.plot(xs, ys, style, color=colour, linewidth=1.2, alpha=0.7, gid=f"link:{link['a']}-{link['b']}")
            if not dense:
                axes.annotate(ceiling_label(link), (xs[1], ys[1]), fontsize=7, color=colour, ha="center")
        else:
            axes.plot([a[0], b[0]], [a[1], b[1]], style, color=colour, linewidth=1.0, alpha=0.6,
                      gid=f"link:{link['a']}-{link['b']}")
            label = ceiling_label(link) if not link.get("distance") else f"{link['distance']} {ceiling_label(link)}"
            axes.annotate(label, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), fontsize=7, color=colour)
    if dense:
        top = max((p[1] for n, p in positions.items() if n in gpus), default=1.0)
        axes.annotate(f"NVLink all-to-all: {ceiling_label(nvlink_pairs[0])} GB/s per pair", (0.1, top + 0.6),
                      fontsize=8, color=CLASS_COLOURS["nvlink"])
    for names, colour, shape in ((cpus, "#dddddd", "s"), (gpus, "#b6e37f", "o"), (nics, "#f4b183", "D")):
        for name in names:
            x, y = positions[name]
            axes.plot([x], [y], shape, markersize=18, color=colour, markeredgecolor="black", gid=f"device:{name}")
            axes.annotate(name, (x, y), fontsize=7, ha="center", va="center")
    axes.set_title(f"{node['hostname']}: {len(gpus)} GPUs, {len(nics)} NICs, {len(cpus)} NUMA nodes", fontsize=10)
    handles = [plt.Line2D([], [], color=CLASS_COLOURS.get(c, "black"), label=c) for c in sorted(used_classes)]
    if handles:
        axes.legend(handles=handles, loc="upper right", fontsize=7, title="link class (GB/s)", title_fontsize=7)
    if nics and gpus:
        axes.annotate("GPU-NIC: PIX/PXB/PHB paths drawn; NODE/SYS omitted", (0.0, -0.35), fontsize=7, color="#555555")
    axes.set_axis_off()
    axes.margins(0.1)


def draw(doc, out_path):
    nodes = doc.get("nodes", [])
    if not nodes:
        raise SystemExit("topology_png.py: the document has no nodes")
    columns = min(len(nodes), 2)
    rows = math.ceil(len(nodes) / columns)
    width = max(6.0, 1.1 * max(max(len(n["gpus"]), len(n["nics"])) for n in nodes))
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, 4.5 * rows), squeeze=False)
    for axis, node in zip(axes.flat, nodes):
        draw_node(axis, node)
    for axis in list(axes.flat)[len(nodes):]:
        axis.set_axis_off()
    figure.tight_layout()
    figure.savefig(out_path, dpi=110)
    plt.close(figure)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 3
    text = open(argv[2]).read() if len(argv) == 3 else sys.stdin.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        print(f"topology_png.py: input is not JSON: line {error.lineno}: {error.msg}", file=sys.stderr)
        return 3
    draw(doc, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
