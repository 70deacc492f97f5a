#!/usr/bin/env python3
"""The one table ci/gpu-check prints, from the stage outputs it saved in RUN_DIR: wirebench beside
nvbandwidth for each host and device testcase both have, nccl-tests beside wb-coll --backend nccl
for the nccl-tests names on every GPU, and wb-step on NCCL. A figure is the median of the rounds
that measured it; the ratio wirebench / peer the median of the rounds' own ratios (pairs of GPUs:
over every pair too, with the lowest). A row a stage did not measure says why, from
RUN_DIR/stages.tsv: not measured (no GPU), skipped or cut off (budget), not built, failed.

The peers' outputs are read with wirebench import's own readers (nvbandwidth's text, nccl-tests'
text); the latency matrices, which import passes by, are read here.

Usage: gpu_check_table.py RUN_DIR   (RUN_DIR/round-N/{nvbandwidth.txt, nccl-tests/*.txt, wb-host,
wb-p2p, wb-coll}, RUN_DIR/wb-step, RUN_DIR/stages.tsv, RUN_DIR/gpus.txt, as ci/gpu-check saves them)
"""
import argparse
import csv
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # python/: wirebench's readers
from wirebench.contracts.console import quiet_when_closed  # noqa: E402
from wirebench.contracts.input_files import InputError  # noqa: E402
from wirebench.importer import nccl_tests, nvbandwidth  # noqa: E402
from wirebench.report.extra import parse as parse_extra  # noqa: E402


@dataclass(frozen=True)
class Testcase:
    key: str        # what both sides' figures are filed under
    path: str       # the row's name
    per: str        # gpu: a row per GPU; pair: one row over every GPU pair; all: every GPU at once
    unit: str
    peer: str       # the peer's testcase, as its command names it
    ours: str       # wirebench's binary and case
    peer_stage: str
    ours_stage: str


NCCL_TESTS = ("all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "reduce_perf",
              "alltoall_perf", "sendrecv_perf")
TESTCASES = [
    Testcase("h2d", "host to device, pinned, CE, 512 MiB", "gpu", "GB/s", "nvbandwidth host_to_device_memcpy_ce",
             "wb-host h2d_pinned (local NUMA)", "nvbandwidth", "wb-host"),
    Testcase("d2h", "device to host, pinned, CE, 512 MiB", "gpu", "GB/s", "nvbandwidth device_to_host_memcpy_ce",
             "wb-host d2h_pinned (local NUMA)", "nvbandwidth", "wb-host"),
    Testcase("local", "device-local copy, CE, 512 MiB", "gpu", "GB/s", "nvbandwidth device_local_copy",
             "wb-p2p ce/write gpuN->gpuN", "nvbandwidth", "wb-p2p"),
    Testcase("host_latency", "GPU reads host memory, latency, 2 MiB chase", "gpu", "us",
             "nvbandwidth host_device_latency_sm", "wb-host gpu_host_latency", "nvbandwidth", "wb-host"),
    *[Testcase(f"{engine}/{way}", f"GPU to GPU, {engine.upper()} {way}, 512 MiB", "pair", "GB/s",
               f"nvbandwidth device_to_device_memcpy_{way}_{engine}", f"wb-p2p {engine}/{way}", "nvbandwidth", "wb-p2p")
      for engine in ("ce", "sm") for way in ("write", "read")],
    Testcase("peer_latency", "GPU reads a peer's memory, latency, 2 MiB chase", "pair", "us",
             "nvbandwidth device_to_device_latency_sm", "wb-p2p latency", "nvbandwidth", "wb-p2p"),
    *[Testcase(name, f"{name}, out of place, 256 MiB (algbw)", "all", "GB/s", f"nccl-tests {name} -g N",
               f"wb-coll --backend nccl -n N ({nccl_tests.op_from(name, None)})", "nccl-tests", "wb-coll --backend nccl")
      for name in NCCL_TESTS],
]
# nvbandwidth's testcases, by the case and ends wirebench import gives their rows
FROM_NVBANDWIDTH = {"host_to_device_memcpy_ce": "h2d", "device_to_host_memcpy_ce": "d2h", "device_local_copy": "local",
                    **{f"device_to_device_memcpy_{w}_{e}": f"{e}/{w}" for e in ("ce", "sm") for w in ("write", "read")}}
# nvbandwidth's latency matrices (ns), which wirebench import passes by: testcase, title
LATENCY_TITLES = {"memory latency SM CPU(row) <-> GPU(column) (ns)": "host_latency",
                  "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)": "peer_latency"}
GPU = re.compile(r"gpu(\d+)$")


def gpu_of(name):
    found = GPU.search(name or "")
    return int(found.group(1)) if found else None


def where_of(key, per, src, dst):
    """The GPU or pair a figure belongs to: 'gpu0', 'gpu0->gpu1', 'all'."""
    if per == "all":
        return "all"
    if per == "pair":
        return f"gpu{src}->gpu{dst}" if src is not None and dst is not None and src != dst else None
    gpu = dst if key == "h2d" else src
    return f"gpu{gpu}" if gpu is not None else None


PER = {t.key: t.per for t in TESTCASES}


def results(path):
    return list(csv.DictReader(path.open())) if path.exists() else []


def figure(r, unit):
    value = r.get("time_us") if unit == "us" else r.get("algbw_GBps")
    return float(value) if value not in (None, "") else None


def ours(round_dir):
    """{(testcase, where): figure} of wirebench's rows of one round."""
    found = {}
    rows = results(round_dir / "wb-host" / "results.csv") + results(round_dir / "wb-p2p" / "results.csv")
    for r in rows:
        if r["status"] != "OK":
            continue
        src, dst = gpu_of(r["src"]), gpu_of(r["dst"])
        case, extra = r["case"], r.get("extra", "")
        key = {"h2d_pinned": "h2d", "d2h_pinned": "d2h", "gpu_host_latency": "host_latency"}.get(case)
        if key in ("h2d", "d2h") and "numa=local" not in extra:
            continue
        if case in ("ce/write", "ce/read", "sm/write", "sm/read"):
            key = "local" if case == "ce/write" and src == dst else (case if src != dst else None)
        if case == "latency" and src != dst:
            key = "peer_latency"
        if key is None:
            continue
        unit = "us" if "latency" in key else "GB/s"
        where = where_of(key, PER[key], src, dst)
        if where and figure(r, unit) is not None:
            found.setdefault((key, where), figure(r, unit))
    for r in results(round_dir / "wb-coll" / "results.csv"):
        if r["case"] == "out_of_place" and r["status"] in ("OK", "SKIP") and r.get("algbw_GBps"):
            name = next((n for n in NCCL_TESTS if nccl_tests.op_from(n, None) == r["op"]), None)
            if name:
                found.setdefault((name, "all"), float(r["algbw_GBps"]))
    return found


def latency_matrices(path, text):
    """{(testcase, where): us} from nvbandwidth's latency matrices (printed in ns, output.cpp)."""
    found, key, columns = {}, None, None
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() in LATENCY_TITLES:
            key, columns = LATENCY_TITLES[line.strip()], None
            continue
        if key is None:
            continue
        if columns is None and nvbandwidth.HEADER.match(line):
            columns = [int(c) for c in line.split()]
            continue
        cells = nvbandwidth.CELLS.match(line) if columns is not None else None
        if cells is None:
            key = None if not line.strip() or line.startswith("SUM ") else key
            if key and columns is not None:
                raise InputError(f"{path}:{number}: not a line of nvbandwidth's latency matrix: {line.strip()[:80]!r}")
            continue
        row = int(cells.group(1))
        for column, value in zip(columns, cells.group(2).split()):
            if value == "N/A":
                continue
            # host latency: the CPU's one row, a column per GPU; a peer's: row reads column's memory
            src, dst = (column, None) if key == "host_latency" else (row, column)
            where = where_of(key, PER[key], src, dst)
            if where:
                found[(key, where)] = float(value) / 1000.0
    return found


def read_peer(parse, path, stage):
    """The rows of a peer's output. One its stage did not end "done" (no GPU, cut off, failed) may
    hold no table at all ("Test CUDA failure ..."): its stage says why, nothing is read; a finished
    stage's output that is not the peer's is refused (exit 3, naming the file and line)."""
    try:
        return parse(path, path.read_text(errors="replace"))
    except InputError:
        if stage is not None and stage["status"] != "done":
            return []
        raise


def peers(round_dir, stages):
    """{(testcase, where): figure} of the peers' outputs of one round."""
    found, round_ = {}, round_dir.name.split("-")[1]
    path = round_dir / "nvbandwidth.txt"
    if path.exists():
        stage = stages.get(f"nvbandwidth, round {round_}")
        rows = read_peer(lambda p, text: nvbandwidth.parse(p, text)[0], path, stage)
        for r in rows:
            key = FROM_NVBANDWIDTH.get(parse_extra(r["extra"]).get("nvbandwidth_test", ""))
            if key and r["status"] == "OK" and r["algbw_GBps"] != "":
                where = where_of(key, PER[key], gpu_of(r["src"]), gpu_of(r["dst"]))
                if where:
                    found[(key, where)] = float(r["algbw_GBps"])
        for latencies in read_peer(lambda p, text: [latency_matrices(p, text)], path, stage):
            found.update(latencies)
    for name in NCCL_TESTS:
        path = round_dir / "nccl-tests" / f"{name}.txt"
        if not path.exists():
            continue
        rows = read_peer(lambda p, text: nccl_tests.parse(p, text, op=nccl_tests.op_from(name, None))[0], path,
                         stages.get(f"nccl-tests, round {round_}"))
        for r in rows:
            if r["case"] == "out_of_place" and r["status"] in ("OK", "SKIP") and r["algbw_GBps"] != "":
                found.setdefault((name, "all"), float(r["algbw_GBps"]))
    return found


def stage_statuses(run_dir):
    path = run_dir / "stages.tsv"
    return {r["stage"]: r for r in csv.DictReader(path.open(), delimiter="\t")} if path.exists() else {}


def why_not(stages, stage, gpus):
    """Why a side has no figure: its first round's stage, as stages.tsv tells it."""
    found = stages.get(f"{stage}, round 1")
    if found is None:
        return "not run"
    status = found["status"]
    if status == "no GPU":
        return "not measured (no GPU)"
    if status == "skipped":
        return f"skipped ({found['detail']})"
    if status == "cut off":
        return "cut off (budget)"
    if status == "not built":  # the peers' build said why: "ci/gpu-check-peers: nvbandwidth compiled; not linked: ..."
        why = re.sub(r"^ci/gpu-check-peers: \S+ ", "", found["detail"]).split(":")[0].strip()
        return f"not built ({why})" if why else status
    if status == "failed":
        return f"failed (see logs/, {found['detail'][:40]})" if found["detail"] else status
    return "not in its output" if gpus else "not measured (no GPU)"


def gpu_names(run_dir):
    path = run_dir / "gpus.txt"
    return [line for line in path.read_text().splitlines() if line.startswith("GPU ")] if path.exists() else []


def median(values):
    return statistics.median(values) if values else None


def table(run_dir):
    run_dir = Path(run_dir)
    stages, names = stage_statuses(run_dir), gpu_names(run_dir)
    gpus = len(names)
    rounds = sorted((p for p in run_dir.glob("round-*") if p.is_dir()), key=lambda p: int(p.name.split("-")[1]))
    theirs, mine = [peers(r, stages) for r in rounds], [ours(r) for r in rounds]
    title = (f"gpu-check: {gpus} GPU(s){': ' + names[0].split(' (UUID')[0].split(': ', 1)[-1] if names else ''}, "
             f"{len(rounds)} round(s) of peer then wirebench; a figure is the median of its rounds, the ratio "
             "wirebench / peer the median of the rounds' ratios (GPU pairs: over every pair, lowest beside it)")
    lines = [title, "",
             "| path | GPU | peer | peer figure | wirebench | wirebench figure | wirebench / peer |",
             "|---|---|---|---|---|---|---|"]
    for t in TESTCASES:
        for where in wheres(t, gpus):
            keys = [(t.key, w) for w in ([where] if t.per != "pair" else pairs(gpus))]
            peer_values = [m[k] for m in theirs for k in keys if k in m]
            our_values = [m[k] for m in mine for k in keys if k in m]
            ratios = [b[k] / a[k] for a, b in zip(theirs, mine) for k in keys if k in a and k in b and a[k] > 0]
            peer_cell = fmt(median(peer_values), t.unit) or why_not(stages, t.peer_stage, gpus)
            our_cell = fmt(median(our_values), t.unit) or why_not(stages, t.ours_stage, gpus)
            if t.per == "pair" and gpus == 1:
                peer_cell = our_cell = "one GPU: no pair"
            ratio = f"{median(ratios):.4f}" if ratios else "-"
            if ratios and t.per == "pair" and len(ratios) > 1:
                ratio += f" (lowest {min(ratios):.4f})"
            label = where if t.per == "gpu" else (f"{len(pairs(gpus))} pairs" if t.per == "pair" and gpus > 1 else
                                                  f"{gpus} GPU(s)" if t.per == "all" and gpus else "-")
            lines.append(f"| {t.path} | {label} | {t.peer} | {peer_cell} | {t.ours} | {our_cell} | {ratio} |")
    lines += step_rows(run_dir, stages, gpus)
    return "\n".join(lines) + "\n"


def wheres(t, gpus):
    if t.per == "gpu":
        return [f"gpu{g}" for g in range(gpus)] or ["-"]
    return ["all"]


def pairs(gpus):
    return [f"gpu{a}->gpu{b}" for a in range(gpus) for b in range(gpus) if a != b]


def fmt(value, unit):
    if value is None:
        return ""
    return f"{value:.3f} us" if unit == "us" else f"{value:.2f} GB/s"


def step_rows(run_dir, stages, gpus):
    rows = [r for r in results(run_dir / "wb-step" / "results.csv") if r["bench"] == "step" and r["status"] == "OK"]
    if not rows:
        found = stages.get("wb-step --backend nccl")
        why = ("not run" if found is None else "not measured (no GPU)" if found["status"] == "no GPU" else
               f"{found['status']} ({found['detail'][:60]})" if found["status"] != "done" else "not in its output")
        return [f"| step on NCCL, model tiny | - | - | - | wb-step --backend nccl | {why} | - |"]
    lines = []
    for r in rows:
        items = parse_extra(r.get("extra", ""))
        predicted = items.get("predicted_us")
        model = f" (its model: {float(predicted) / 1000:.2f} ms)" if predicted else ""
        lines.append(f"| step on NCCL, {r['case']}, model {r['src']} | {r['ranks']} rank(s) | - | - | "
                     f"wb-step --backend nccl | {float(r['time_us']) / 1000:.2f} ms{model} | - |")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(prog="gpu_check_table.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    args = parser.parse_args(argv[1:])
    if not args.run_dir.is_dir():
        print(f"gpu_check_table.py: {args.run_dir}: no such run folder", file=sys.stderr)
        return 3
    try:
        with quiet_when_closed():  # `gpu_check_table.py RUN | head`: the rest dropped, no traceback
            sys.stdout.write(table(args.run_dir))
    except InputError as error:
        print(f"gpu_check_table.py: {error}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
