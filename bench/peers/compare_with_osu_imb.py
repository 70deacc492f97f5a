#!/usr/bin/env python3
"""wb-coll and wb-net against the real peers, OSU micro-benchmarks and Intel MPI Benchmarks, in
alternating rounds on one machine's MPI (issue 27).

The peers are built outside the repository from their public sources (bench/peers/build_osu_imb.sh)
against the MPI on PATH, the one wb-coll and wb-net link. Each round runs every tool once over all
sizes, in an order that turns from round to round; a figure is the median over the rounds, and
"wb / better peer" the median of the per-round ratios of wb's cost to the better peer's: time over
time for all_reduce and ping-pong, the peer's bandwidth over wb-net's for bw and bibw, so above 1
is wb slower. The target is at most 1.05 at every size.

  all_reduce   float32 sum, blocking, one call at a time: osu_allreduce (out of place), IMB-MPI1
               Allreduce (out of place, t_avg), wb-coll -z 1 out of place and in place (the average
               over ranks, as both peers report); 8 B .. 64 MiB, on --ranks ranks
  latency      osu_latency, IMB-MPI1 PingPong (t[usec], half the round trip), wb-net --tests latency
  bw, bibw     osu_bw, osu_bibw (MB/s = 10^6 B/s), wb-net --tests bw / bibw (--window osu)

Usage: compare_with_osu_imb.py --bin BUILD/bin --osu OSU_DIR --imb IMB_DIR [--rounds 5] [--ranks 2,3]
                               [--what allreduce,p2p]
"""
import argparse
import csv
import statistics
import subprocess
import tempfile
from pathlib import Path

ALLREDUCE_SIZES = [8 << i for i in range(24)]  # 8 B .. 64 MiB
P2P_SIZES = [8 << i for i in range(20)]        # 8 B .. 4 MiB (osu_latency's and osu_bw's default top)


def run(ranks, *command):
    return subprocess.run(["mpiexec", "-n", str(ranks), *map(str, command)], check=True, capture_output=True,
                          text=True, timeout=900).stdout


def table(text, columns):
    """{size: float} from the data lines of an OSU or IMB table: `columns` = (size column, value column)."""
    out = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > max(columns) and not line.lstrip().startswith("#") and fields[0].isdigit():
            out[int(fields[columns[0]])] = float(fields[columns[1]])
    return out


def osu(folder, name, ranks, sizes):
    """osu_allreduce: Avg Latency(us); osu_latency: us; osu_bw, osu_bibw: MB/s. OSU 5.3's point-to-point
    tests take no size range (-m): they run 0 B .. 4 MiB, P2P_SIZES' range."""
    sized = ["-m", f"{sizes[0]}:{sizes[-1]}"] if "allreduce" in name else []
    return table(run(ranks, Path(folder) / name, *sized), (0, 1))


def imb(folder, benchmark, ranks, sizes):
    """IMB-MPI1 Allreduce: t_avg[usec] (column 4); PingPong: t[usec] (column 2)."""
    log = lambda n: n.bit_length() - 1
    text = run(ranks, Path(folder) / "IMB-MPI1", benchmark, "-npmin", ranks, "-msglog", f"{log(sizes[0])}:{log(sizes[-1])}",
               "-mem", "2")
    return table(text, (0, 4 if benchmark == "Allreduce" else 2))


def wb_rows(binary, ranks, args, workdir):
    run_dir = Path(tempfile.mkdtemp(dir=workdir))
    run(ranks, binary, *args, "--run-dir", run_dir)
    return [r for r in csv.DictReader((run_dir / "results.csv").open()) if r["status"] == "OK"]


def wb_coll(folder, ranks, sizes, workdir):
    rows = wb_rows(Path(folder) / "wb-coll", ranks, ["--collective", "all_reduce", "-b", sizes[0], "-e", sizes[-1], "-f", "2",
                                                     "-z", "1", "--console", "plain"], workdir)
    return {placement: {int(r["bytes"]): float(r["time_us"]) for r in rows if r["case"] == placement}
            for placement in ("out_of_place", "in_place")}


def wb_net(folder, sizes, workdir):
    text = ",".join(str(s) for s in sizes)
    rows = wb_rows(Path(folder) / "wb-net", 2, ["--tests", "latency,bw,bibw", "--sizes", text, "--console", "plain"], workdir)
    pick = lambda case, column, scale: {int(r["bytes"]): float(r[column]) * scale for r in rows if r["case"] == case}
    return {"latency": pick("pingpong", "time_us", 1), "bw": pick("stream_bw", "algbw_GBps", 1000),
            "bibw": pick("bidir_bw", "algbw_GBps", 1000)}


def rounds_of(tools, rounds):
    """{tool: [result per round]}, the tools run in an order that turns each round."""
    results = {name: [] for name in tools}
    names = list(tools)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            results[name].append(tools[name]())
    return results


def report(title, unit, sizes, peers, wb, higher_is_better):
    """Prints a table: each peer's and wb's median, and the median per-round ratio of wb's cost to
    the better peer's; returns the sizes above 1.05."""
    m = statistics.median
    print(f"\n{title}")
    print(f"{'size':>10} " + " ".join(f"{p + ' ' + unit:>16}" for p in peers) + f" {'wb ' + unit:>16} {'wb/better peer':>15}")
    misses = []
    for size in sizes:
        per_round = []
        for r, wb_round in enumerate(wb):
            if size not in wb_round or any(size not in peers[p][r] for p in peers):
                continue
            values = [peers[p][r][size] for p in peers]
            better = max(values) if higher_is_better else min(values)
            per_round.append(better / wb_round[size] if higher_is_better else wb_round[size] / better)
        if not per_round:
            continue
        ratio = m(per_round)
        cells = " ".join(f"{m([peers[p][r][size] for r in range(len(wb))]):16.3f}" for p in peers)
        print(f"{size:>10} {cells} {m([w[size] for w in wb if size in w]):16.3f} {ratio:15.3f}"
              + ("  MISS" if ratio > 1.05 else ""))
        if ratio > 1.05:
            misses.append(size)
    return misses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder of wb-coll and wb-net")
    parser.add_argument("--osu", required=True, help="folder of osu_allreduce, osu_latency, osu_bw, osu_bibw")
    parser.add_argument("--imb", required=True, help="folder of IMB-MPI1")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--ranks", default="2,3", help="rank counts of the all_reduce comparison")
    parser.add_argument("--what", default="allreduce,p2p")
    args = parser.parse_args()
    misses = 0
    with tempfile.TemporaryDirectory() as workdir:
        if "allreduce" in args.what:
            for ranks in (int(n) for n in args.ranks.split(",")):
                s = ALLREDUCE_SIZES
                got = rounds_of({"osu": lambda: osu(args.osu, "osu_allreduce", ranks, s),
                                 "imb": lambda: imb(args.imb, "Allreduce", ranks, s),
                                 "wb": lambda: wb_coll(args.bin, ranks, s, workdir)}, args.rounds)
                peers = {"osu_allreduce": got["osu"], "IMB Allreduce": got["imb"]}
                for placement in ("out_of_place", "in_place"):
                    misses += len(report(f"all_reduce float32 sum on {ranks} ranks, wb-coll {placement}, {args.rounds} "
                                         "alternating rounds (time per call, us)", "us", s, peers,
                                         [w[placement] for w in got["wb"]], higher_is_better=False))
        if "p2p" in args.what:
            s = P2P_SIZES
            got = rounds_of({"osu_latency": lambda: osu(args.osu, "osu_latency", 2, s),
                             "imb": lambda: imb(args.imb, "PingPong", 2, s),
                             "osu_bw": lambda: osu(args.osu, "osu_bw", 2, s),
                             "osu_bibw": lambda: osu(args.osu, "osu_bibw", 2, s),
                             "wb": lambda: wb_net(args.bin, s, workdir)}, args.rounds)
            misses += len(report(f"latency (half the round trip, us), {args.rounds} alternating rounds", "us", s,
                                 {"osu_latency": got["osu_latency"], "IMB PingPong": got["imb"]},
                                 [w["latency"] for w in got["wb"]], higher_is_better=False))
            for test in ("bw", "bibw"):
                misses += len(report(f"{test} (MB/s, 10^6 B/s), {args.rounds} alternating rounds", "MB/s", s,
                                     {f"osu_{test}": got[f"osu_{test}"]}, [w[test] for w in got["wb"]],
                                     higher_is_better=True))
    print(f"\n{misses} size(s) above 1.05 of the better peer")
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
