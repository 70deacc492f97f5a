"""Judged items: the results schema, the extra grammar, how sure a verdict is, FAILs measured once
more, and SKIPs grouped by reason (ctest label: unit)."""
import csv
import io
import json

from wirebench.report.__main__ import main
from wirebench.report.ceilings import Ceilings
from wirebench.report.extra import kind_of, kinds, parse
from wirebench.report.wording import skip_lines
from wirebench.report.results import InputError, read_results
from wirebench.report.verdicts import judge

import pytest

HEADER = ("bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,time_us,time_us_p05,"
          "time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason,samples,spread_pct\n")
ETH = {"expectations": [{"link_class": "eth", "ceiling_GBps": 0.125, "reason": "1 Gb/s shaping",
                         "healthy_fraction": 0.8, "source": "tc shaping"}]}


def stream(pair="0,1", bw=0.11, p05=None, p95=None, samples=20, errors=0, extra="window=64;rounds=1"):
    a, b = pair.split(",")
    t = 1048576 / (bw * 1e3)
    p05, p95 = p05 or t * 0.99, p95 or t * 1.01
    return (f"net,stream_bw,mpi,eth,node{a}/rank{a},node{b}/rank{b},uni,send_recv,uint8,1048576,2,2,640,{t:.7g},"
            f"{p05:.7g},{p95:.7g},{bw},{bw},{errors},{extra},OK,,{samples},{100 * (p95 - p05) / t:.3g}\n")


def make_run(path, rows, schema=2):
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.csv").write_text(HEADER + "".join(rows))
    (path / "meta.json").write_text(json.dumps({"results_schema_version": schema}))
    (path / "suite.json").write_text(json.dumps(ETH))
    return path


def judged(run):
    return judge(read_results(run / "results.csv"), Ceilings.load(run))


def test_a_results_schema_this_reporter_does_not_know_is_refused(tmp_path, capsys):
    run = make_run(tmp_path / "run", [stream()], schema=99)
    assert main(["wirebench report", str(run)]) == 3
    err = capsys.readouterr().err
    assert "results_schema_version 99 is not one this reporter reads (1, 2, 3)" in err and "meta.json" in err
    with pytest.raises(InputError):
        read_results(run / "results.csv")


def test_an_extra_that_breaks_the_grammar_names_its_line_and_loses_only_its_row(tmp_path):
    run = make_run(tmp_path / "run", [stream("0,1"), stream("0,2", extra="window=64;broken")])
    results = read_results(run / "results.csv")
    assert len(results.rows) == 1
    assert results.problems == [f"{run / 'results.csv'}:3: extra item 'broken' is not key=value "
                                "(docs/results.md, 'extra'); row skipped"]
    assert main(["wirebench report", str(run)]) == 2


def test_the_catalogue_gives_every_key_one_kind_and_the_reader_follows_it():
    assert set(kinds().values()) == {"identity", "batching", "result", "fact"}
    assert kind_of("window") == "batching" and kind_of("bytes_all_gather_shard") == "result"
    assert kind_of("NCCL_ALGO") == "identity" and kind_of("redop") == "identity"
    assert parse("redop=sum;per_comm_us=a:1|b:2") == {"redop": "sum", "per_comm_us": "a:1|b:2"}


def test_a_verdict_says_when_its_samples_straddle_the_threshold_or_are_too_few(tmp_path):
    threshold_time = 1048576 / (0.1 * 1e3)  # 0.1 GB/s: the healthy threshold, 80% of 0.125
    run = make_run(tmp_path / "run", [
        stream("0,1", bw=0.105, p05=threshold_time * 0.9, p95=threshold_time * 1.1),  # PASS, but not surely
        stream("0,2", bw=0.12, samples=3),                                          # PASS on 3 samples
        stream("1,2", bw=0.12)])
    v = judged(run)
    assert v[0].verdict == "WARN" or v[0].verdict == "PASS"
    assert "across the threshold 0.1 GB/s: the verdict is not certain" in v[0].reason, v[0].reason
    assert "rests on 3 samples (5 wanted): not enough to be sure" in v[1].reason
    assert "not certain" not in v[2].reason and "samples (5 wanted)" not in v[2].reason


def remeasured(run, rows):
    make_run(run / "remeasured", rows)


def test_a_fail_that_does_not_reproduce_is_an_intermittent_warn_with_both_figures(tmp_path, capsys):
    run = make_run(tmp_path / "run", [stream("0,1", bw=0.05), stream("0,2", bw=0.04), stream("1,2", bw=0.119)])
    remeasured(run, [stream("0,1", bw=0.118), stream("0,2", bw=0.045)])
    assert main(["wirebench report", str(run)]) == 1  # one of the two FAILs stands
    summary = json.loads((run / "summary.json").read_text())
    by_pair = {v["item"].split(": ")[1].split(",")[0]: v for v in summary["verdicts"]}
    first, second = by_pair["node0/rank0 -> node1/rank1"], by_pair["node0/rank0 -> node2/rank2"]
    assert first["verdict"] == "WARN" and first["reason"].startswith(
        "intermittent: 0.05 GB/s (40.0% of the ceiling) (FAIL) the first time, 0.118 GB/s (94.4% of the ceiling) "
        "(PASS) when measured again")
    assert second["verdict"] == "FAIL" and second["reason"].startswith(
        "reproduced: measured again, 0.045 GB/s (36.0% of the ceiling) (FAIL)")
    assert "intermittent" in capsys.readouterr().out


def pingpong(pair, us, p05, p95, samples=98):
    """A ping-pong's 8 B latency with its percentiles, as wb-net writes it."""
    a, b = pair.split(",")
    return (f"net,pingpong,mpi,shm,node0/rank{a},node0/rank{b},uni,send_recv,uint8,8,3,1,32400,{us},{p05},{p95},"
            f"{8 / (us * 1e3):.7g},{8 / (us * 1e3):.7g},0,pairs=all,OK,,{samples},{100 * (p95 - p05) / us:.3g}\n")


def test_a_pass_whose_samples_cross_the_bound_the_siblings_set_says_so_and_is_measured_again(tmp_path):
    """The issue's default run: `PASS ... 12.22 us <= 15.64 us | 98 samples | spread 638%`, p05/p95
    9.8/87.8 us, with no word that the samples cross the bound (the siblings', which replaced the
    typical latency's). The runner measures such an item again (remeasurable)."""
    from wirebench.report.verdicts import remeasurable
    run = make_run(tmp_path / "run", [pingpong("0,1", 12.22, 9.8, 87.8), pingpong("0,2", 13.03, 12.5, 13.6),
                                      pingpong("1,2", 13.5, 13.0, 14.1)])
    v = judged(run)[0]
    assert v.verdict == "PASS" and v.bound is not None and v.value <= v.bound, (v.expected, v.reason)
    assert f"across the threshold {v.bound:.4g} us: the verdict is not certain" in v.reason, v.reason
    assert v.uncertain and remeasurable(v)
    steady = judged(run)[1]
    assert not steady.uncertain and not remeasurable(steady)


def test_the_second_look_decides_an_uncertain_verdict_clear_of_its_bound_and_not_across_it(tmp_path):
    first = [stream("0,1", bw=0.105, p05=1048576 / 0.1e3 * 0.9, p95=1048576 / 0.1e3 * 1.1),  # across 0.1 GB/s
             stream("0,2", bw=0.105, p05=1048576 / 0.1e3 * 0.9, p95=1048576 / 0.1e3 * 1.1), stream("1,2", bw=0.12)]
    clear = make_run(tmp_path / "clear", first)
    remeasured(clear, [stream("0,1", bw=0.12), stream("0,2", bw=0.09)])  # clear above; clear below: a FAIL
    assert main(["wirebench report", str(clear)]) == 1
    by_pair = {v["item"].split(": ")[1].split(",")[0]: v for v in json.loads((clear / "summary.json").read_text())["verdicts"]}
    up, down = by_pair["node0/rank0 -> node1/rank1"], by_pair["node0/rank0 -> node2/rank2"]
    assert up["verdict"] == "PASS" and up["reason"].startswith("decided by a second look, 0.12 GB/s (96.0% of the "
                                                               "ceiling) (PASS), clear of its threshold"), up["reason"]
    assert down["verdict"] == "FAIL" and down["measured"].startswith("0.09 GB/s"), down  # the figure that decided
    across = make_run(tmp_path / "across", first)
    remeasured(across, first[:2])  # as uncertain again
    assert main(["wirebench report", str(across)]) == 0
    again = json.loads((across / "summary.json").read_text())["verdicts"][0]
    assert again["reason"].endswith("its samples across the threshold again: the first verdict stands, not certain")


def test_two_uncertain_looks_on_opposite_sides_of_the_bound_are_not_judged(tmp_path):
    """The default run of 2026-12-07 on a busy 2-core VM: node0 -> node1's 8 B latency 65.21 us (WARN, its
    samples 14.88-102.2 us across the 15.94 us threshold), measured again 11.57 us (PASS, across it again);
    the first verdict stood and a healthy cluster read 1 WARN. Neither look decides."""
    siblings = [pingpong("0,2", 13.03, 12.5, 13.6), pingpong("1,2", 13.5, 13.0, 14.1)]
    run = make_run(tmp_path / "run", [pingpong("0,1", 65.21, 14.88, 102.2)] + siblings)
    first = judged(run)[0]
    assert first.verdict == "WARN" and first.uncertain, first.reason
    remeasured(run, [pingpong("0,1", 11.57, 9.9, 40.0)] + siblings)
    assert main(["wirebench report", str(run)]) == 0
    v = json.loads((run / "summary.json").read_text())["verdicts"][0]
    assert v["verdict"] == "NOT JUDGED", v
    assert v["reason"].startswith("not judged: two looks disagree, each with its samples across the threshold: "
                                  "65.21 us (WARN) the first time, 11.57 us (PASS) when measured again"), v["reason"]


def test_wrong_data_stands_however_often_it_is_measured(tmp_path):
    run = make_run(tmp_path / "run", [stream("0,1", errors=4)])
    remeasured(run, [stream("0,1")])
    assert main(["wirebench report", str(run)]) == 1


def test_skips_are_one_line_per_reason_whichever_rank_said_it(tmp_path):
    skip = ("{bench},h2d,cuda,,vm/gpu{n},,,copy,uint8,0,0,0,0,,,,,,0,,SKIP,{who}no CUDA device visible: "
            "no NVIDIA driver is loaded,,\n")
    rows = [skip.format(bench="host", n=n, who="") for n in range(3)] + [
        skip.format(bench="net", n=0, who="rank 0: "), skip.format(bench="net", n=1, who="rank 1: ")]
    run = make_run(tmp_path / "run", rows)
    assert skip_lines(judged(run)) == ["5 cases (host 3, net 2): no CUDA device visible: no NVIDIA driver is loaded"]


def small_stream(pair):
    """The 8 B point of a pair's stream sweep: far below any link's ceiling, as small messages are."""
    a, b = pair.split(",")
    return (f"net,stream_bw,mpi,eth,node{a}/rank{a},node{b}/rank{b},uni,send_recv,uint8,8,2,2,640,4.0,3.9,4.1,"
            f"0.002,0.002,0,window=64;rounds=1,OK,,20,5\n")


def step_timeout_row():
    """The runner's ERROR row of a step it stopped at its timeout (python/wirebench/run/run_files.py)."""
    fields = dict.fromkeys(HEADER.strip().split(","), "")
    fields.update({"bench": "net", "case": "point-to-point, every node pair", "backend": "run",
                   "src": "node0,node1,node2", "bytes": "0", "ranks": "3", "nodes": "3", "iters": "0",
                   "extra": "binary=wb-net", "status": "ERROR",
                   "reason": "step 'point-to-point, every node pair' did not finish within 120 s"})
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(fields.values())
    return out.getvalue()


def test_a_sweep_its_step_ended_in_is_not_judged_by_its_small_sizes(tmp_path):
    # Recorded on the virtual cluster (tests/data/recorded-runs/vcluster-slow-node): the step timed
    # out after node0 -> node2's 8 B point; that point was judged against the link's ceiling as the
    # sweep's largest and failed a healthy pair at 1.6%.
    rows = [small_stream("1,2"), stream("1,2", bw=0.012), small_stream("0,1"), stream("0,1"), small_stream("0,2"),
            step_timeout_row()]
    verdicts = {(v.row.text("src"), v.row.text("dst"), v.row.text("bytes")): v
                for v in judged(make_run(tmp_path / "run", rows))}
    cut = verdicts[("node0/rank0", "node2/rank2", "8")]
    assert cut.verdict == "NOT JUDGED"
    assert ("the sweep is incomplete (its step ended, results.csv line 7 is an ERROR, before its 1048576 B point"
            in cut.reason)
    assert verdicts[("node1/rank1", "node2/rank2", "1048576")].verdict == "FAIL"  # a slow pair that finished fails
    assert verdicts[("node0/rank0", "node1/rank1", "1048576")].verdict == "PASS"
    assert verdicts[("node1/rank1", "node2/rank2", "8")].verdict == "DATA"


def test_a_sweep_before_a_failed_step_that_finished_is_judged(tmp_path):
    # The step ended after its last pair's sweep was complete: nothing is cut.
    rows = [small_stream("0,1"), stream("0,1"), small_stream("0,2"), stream("0,2"), step_timeout_row()]
    verdicts = {(v.row.text("src"), v.row.text("dst"), v.row.text("bytes")): v for v in judged(make_run(tmp_path / "run", rows))}
    assert verdicts[("node0/rank0", "node2/rank2", "1048576")].verdict == "PASS"
    assert verdicts[("node0/rank0", "node2/rank2", "8")].verdict == "DATA"


# The 0 B shared-memory ping-pong of the 20-run series (bench/MEASUREMENTS.md, session 28), run 2:
# 0.7511 us, 2.5x the typical 0.3 us, on a healthy 2-vCPU VM where osu_latency itself read 1.05-1.36 us.
SHM_ROW = ("net,pingpong,mpi,shm,vm/rank0,vm/rank1,uni,send_recv,uint8,0,2,1,611600,0.75114,0.7123945,0.853987,,,0,"
           "window=1;rounds=100,OK,,3058,18.85035,time_us@smallest:typical_latency,"
           "mpiexec -n 2 wb-net --tests latency --sizes 0 --backend mpi\n")
SHM_TYPICAL = {"schema_version": 1, "nodes": [], "typical_latency_us": [
    {"generation": "any", "latency_us": 0.3, "link_class": "shm",
     "source": "latency: MVAPICH's published intra-node osu_latency with shared memory (0.2-0.4 us)"}]}


@pytest.mark.parametrize("machine", [None, {"virtual": False, "evidence": ""},
                                     {"virtual": True, "evidence": "the hypervisor CPU flag in /proc/cpuinfo"}])
def test_a_virtual_machine_s_shared_memory_latency_is_not_held_to_bare_metal_s_typical(tmp_path, machine):
    """The series' three WARNs on a healthy machine were this item (the bare-metal typical figure on a
    VM): on a VM it is NOT JUDGED, saying why; on bare metal, or a run that does not say, as before."""
    header = HEADER.rstrip("\n") + ",judged,rerun\n"
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "results.csv").write_text(header + SHM_ROW)
    meta = {"results_schema_version": 2, "schema_version": 1}
    if machine is not None:
        meta["machine"] = machine
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    (tmp_path / "topology.json").write_text(json.dumps(SHM_TYPICAL))
    v = next(v for v in judged(tmp_path) if v.item)
    if machine and machine["virtual"]:
        assert v.verdict == "NOT JUDGED" and "virtual machine (the hypervisor CPU flag in /proc/cpuinfo)" in v.reason
        assert "bare metal's" in v.reason
    else:
        assert v.verdict == "WARN" and "2.50x the typical 0.3 us" in v.reason
