"""Runs of results schema 1 and 2, whose rows do not say how they are judged: the `judged` and
`rerun` columns those rows would have carried, from their bench and case as the binaries of schema 3
declare them (bench/*/..._main.cpp, harness/judging.h). The one place the reporter reads bench
names to judge; results.py calls it for an older run, and the rest of the reporter never knows."""
from .extra import command_item, parse as parse_extra
from ..contracts.input_files import InputError
from .judging import STEP_AGAINST_PREDICTION, declare, small_message_latency

LATENCY_CASES = ("latency", "memory_latency", "gpu_host_latency")  # pointer chases: no bandwidth
NET_TESTS = {"pingpong": "latency", "stream_bw": "bw", "bidir_bw": "bibw"}


def fill(fields):
    """Adds `judged` and `rerun` to a schema 1 or 2 row's fields (a runner's step row: its rerun
    moves from `extra` to the column)."""
    try:
        items = parse_extra(fields.get("extra", ""))
    except InputError:
        items = {}
    fields["judged"] = judged(fields, items)
    fields["rerun"] = rerun(fields, items)


def judged(f, items):
    bench, case = f["bench"], f["case"]
    if bench == "step":
        return declare(latency=[STEP_AGAINST_PREDICTION])
    size = int(f["bytes"]) if f.get("bytes", "").isdigit() else 0
    # Whether it moves bytes: a measured row by its bandwidth; one that was not measured (SKIP,
    # ERROR) by its size, as its binary declared it before measuring.
    if (f.get("status") or "OK") == "OK":
        moves = bool(f.get("busbw_GBps") if bench == "coll" else f.get("algbw_GBps"))
    else:
        moves = size > 0 and case not in LATENCY_CASES
    metric = ("busbw_GBps" if bench == "coll" else "algbw_GBps") if moves else None
    alltoall_pair = items.get("pairs") == "alltoall" and f["src"] != "all"
    return declare(metric, "culprits" if alltoall_pair else "ceiling",
                   latency=small_message_latency(size) if bench == "net" and case == "pingpong" else ())


def rerun(f, items):
    """The command that measures the row again, as schema 3's binaries write it."""
    bench, case, size = f["bench"], f["case"], f["bytes"]
    if f["backend"] == "run":  # the runner's row of a step that failed
        return command_item(items, "rerun") or ""
    if bench == "net":
        test = NET_TESTS.get(case.removeprefix("bisection_").removeprefix("alltoall_"), "latency,bw,bibw")
        if f["src"] == "all":
            return (f"mpiexec -n {f['ranks']} wb-net --tests {test} --sizes {size} --backend {f['backend']} "
                    f"--pairs {items.get('pairs', 'all')}")
        return f"mpiexec -n 2 wb-net --tests {test} --sizes {size} --backend {f['backend']}"
    if bench == "coll":
        algorithm = items.get("NCCL_ALGO")
        placement = {"in_place": " --in-place yes", "out_of_place": " --in-place no"}.get(case, "")
        return (f"{'NCCL_ALGO=' + algorithm + ' ' if algorithm else ''}mpiexec -n {f['ranks']} wb-coll --backend "
                f"{f['backend']} --collective {f['op']} -d {f['dtype']} -b {size} -e {size}{placement} -c 1")
    if bench == "host":
        if case == "numa_copy":
            return f"wb-host --tests numa_copy --sizes {size}"
        if case == "memory_latency":
            return f"wb-host --tests latency --latency-bytes {size}"
        return "wb-host --tests gpu" + ("" if case == "gpu_host_latency" else f" --sizes {size}")
    if bench == "p2p":
        if case == "latency":
            return f"wb-p2p --tests latency --latency-bytes {size}"
        return f"wb-p2p --tests copy --patterns {case} --sizes {size}"
    return ""
