#!/usr/bin/env python3
"""Draws `wirebench topo --json` output as a picture: per node, CPUs (NUMA nodes) at the top,
GPUs in a row, NICs below; links coloured by class and labelled with their ceiling. What the
topology found wrong is drawn as such (issue 54): a degraded or inactive link red and dashed with
its real trained rate, a GPU with NVLinks down red and named DEGRADED with why, and no caption
claims the NVLinks all-to-all at one rate where some pairs are slower.

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
DEGRADED = "#c62828"          # a link or GPU the topology found degraded or inactive
DEGRADED_GPU_FACE = "#f4a6a6"
GPU_FACE = "#b6e37f"


def ceiling_label(link):
    ceiling = link.get("ceiling_GBps")
    return "?" if ceiling is None else f"{ceiling:g}"


def is_degraded(link):
    return bool(link.get("degraded") or link.get("inactive"))


def link_label(link):
    """A link's label: its ceiling (the rate it trained at), and what is wrong with it."""
    label = ceiling_label(link) if not link.get("distance") else f"{link['distance']} {ceiling_label(link)}"
    if link.get("inactive"):
        return label + " INACTIVE"
    return label + " DEGRADED" if link.get("degraded") else label


def _width(link):
    """An NVLink pair's bundle width from nvidia-smi's NV# (None where the matrix gave none)."""
    distance = link.get("distance") or ""
    return int(distance[2:]) if distance.startswith("NV") and distance[2:].isdigit() else None


def degraded_gpus(node):
    """{gpu name: why} for each GPU with NVLinks down: nvidia-smi's own count of its inactive links
    (live discovery), or, from a saved matrix, the GPU in every degraded NVLink pair (two pairs or
    more: one slow pair alone does not say which end is at fault), counted against the healthy
    pairs' bundle width."""
    out = {}
    for gpu in node["gpus"]:
        up, total = gpu.get("nvlinks_up"), gpu.get("nvlinks_total")
        if up is not None and total and up < total:
            out[f"gpu{gpu['index']}"] = f"{total - up} of {total} NVLinks inactive"
    pairs = [l for l in node["links"] if l["class"] == "nvlink"]
    slow = [l for l in pairs if is_degraded(l)]
    if len(slow) < 2:
        return out
    healthy = [_width(l) for l in pairs if not is_degraded(l) and _width(l)]
    norm = max(set(healthy), key=healthy.count) if healthy else None
    for name in sorted({l["a"] for l in slow} | {l["b"] for l in slow}):
        if name in out or not all(name in (l["a"], l["b"]) for l in slow):
            continue
        widths = {_width(l) for l in slow}
        if norm and len(widths) == 1 and None not in widths and norm > min(widths):
            out[name] = f"{norm - min(widths)} of {norm} NVLinks down"
        else:
            out[name] = "its NVLink pairs degraded"
    return out


def nvlink_caption(node):
    """The lines a dense NVLink mesh is drawn with instead of a label per pair: all-to-all only
    where every GPU pair has NVLink, one rate only where every pair trained at it; the slower pairs
    on a line of their own, DEGRADED, with the GPUs at fault."""
    pairs = [l for l in node["links"] if l["class"] == "nvlink"]
    if not pairs:
        return None
    n = len(node["gpus"])
    every = n * (n - 1) // 2
    slow = [l for l in pairs if is_degraded(l)]
    rates = [ceiling_label({"ceiling_GBps": c}) for c in sorted(
        {l.get("ceiling_GBps") for l in pairs if not is_degraded(l)}, key=lambda c: (c is None, c or 0))]
    shape = "NVLink all-to-all" if len(pairs) == every else f"NVLink on {len(pairs)} of {every} GPU pairs"
    if not slow:
        return f"{shape}: {'/'.join(rates)} GB/s per pair"
    text = f"{shape}: {'/'.join(rates) or 'no pair at full rate'}"
    if rates:
        text += f" GB/s on {len(pairs) - len(slow)} of {len(pairs)} pairs"
    by_rate = {}
    for l in slow:
        by_rate.setdefault(ceiling_label(l), []).append(l)
    at_fault = degraded_gpus(node)
    parts = [f"{len(ls)} pair{'s' if len(ls) > 1 else ''} at {rate} GB/s" for rate, ls in by_rate.items()]
    whose = f" ({'; '.join(f'{g}: {why}' for g, why in at_fault.items())})" if at_fault else ""
    return f"{text}\nDEGRADED: {', '.join(parts)}{whose}"


def node_title(node):
    gpus, nics, cpus = node["gpus"], node["nics"], node["numa_nodes"] or [None]
    title = f"{node['hostname']}: {len(gpus)} GPUs, {len(nics)} NICs, {len(cpus)} NUMA nodes"
    at_fault = degraded_gpus(node)
    if at_fault:
        title += f"; DEGRADED: {', '.join(at_fault)}"
    return title


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
        if link["a"] == link["b"]:
            continue  # a GPU's copy inside its own memory (`device`): no wire to draw
        if link.get("distance") in far and link["b"] in nics:
            continue  # every GPU reaches every NIC; draw the near ones only (the legend says so)
        b_name = link["b"]
        if b_name == "host" and gpu_numa.get(link["a"]) is not None and f"numa{gpu_numa[link['a']]}" in positions:
            b_name = f"numa{gpu_numa[link['a']]}"  # a GPU's host link ends at its own NUMA node
        a, b = positions.get(link["a"]), positions.get(b_name)
        if a is None or b is None:
            continue
        bad = is_degraded(link)
        colour = DEGRADED if bad else CLASS_COLOURS.get(link["class"], "black")
        used_classes.add(link["class"])
        style = "--" if bad else "-"
        gid = f"link:{link['a']}-{link['b']}"
        if link["class"] == "nvlink" and a[1] == b[1]:
            # GPUs share a row: bow the NVLink arcs above it, higher for farther pairs
            xs = [a[0], (a[0] + b[0]) / 2, b[0]]
            ys = [a[1], a[1] + 0.12 + 0.05 * abs(a[0] - b[0]), b[1]]
            axes.plot(xs, ys, style, color=colour, linewidth=1.6 if bad else 1.2, alpha=0.9 if bad else 0.7, gid=gid,
                      zorder=3 if bad else 2)
            if bad or not dense:  # a dense mesh's healthy pairs share the caption; a degraded one has its own rate
                axes.annotate(ceiling_label(link), (xs[1], ys[1]), fontsize=7, color=colour, ha="center", gid=f"label:{gid}")
        else:
            axes.plot([a[0], b[0]], [a[1], b[1]], style, color=colour, linewidth=1.4 if bad else 1.0,
                      alpha=0.9 if bad else 0.6, gid=gid)
            axes.annotate(link_label(link), ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), fontsize=7, color=colour,
                          gid=f"label:{gid}")
    caption = nvlink_caption(node)
    if dense:
        top = max((p[1] for n, p in positions.items() if n in gpus), default=1.0)
        slow = any(is_degraded(l) for l in nvlink_pairs)
        axes.annotate(caption, (0.1, top + 0.6), fontsize=8, color=DEGRADED if slow else CLASS_COLOURS["nvlink"],
                      gid="nvlink-caption")
    at_fault = degraded_gpus(node)
    for names, colour, shape in ((cpus, "#dddddd", "s"), (gpus, GPU_FACE, "o"), (nics, "#f4b183", "D")):
        for name in names:
            x, y = positions[name]
            bad = name in at_fault
            axes.plot([x], [y], shape, markersize=18, color=DEGRADED_GPU_FACE if bad else colour,
                      markeredgecolor=DEGRADED if bad else "black", markeredgewidth=2.5 if bad else 1.0,
                      gid=f"device:{name}", zorder=4)
            axes.annotate(name, (x, y), fontsize=7, ha="center", va="center", zorder=5)
            if bad:
                axes.annotate(f"DEGRADED\n{at_fault[name]}", (x, y - 0.2), fontsize=6, ha="center", va="top",
                              color=DEGRADED, gid=f"degraded:{name}",
                              bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})
    axes.set_title(node_title(node), fontsize=10, color=DEGRADED if at_fault else "black")
    handles = [plt.Line2D([], [], color=CLASS_COLOURS.get(c, "black"), label=c) for c in sorted(used_classes)]
    if any(is_degraded(l) for l in links):
        handles.append(plt.Line2D([], [], color=DEGRADED, linestyle="--", label="degraded / inactive"))
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
