"""How a row is judged is what its binary declared (results.csv's `judged`, results schema 3), not
its bench name; an older run gets the declarations from legacy.py (ctest label: unit)."""
import csv
import io
import json

from wirebench.report.__main__ import main
from wirebench.report.ceilings import Ceilings
from wirebench.report.judging import Judgement, parse
from wirebench.report.legacy import fill
from wirebench.report.results import InputError, read_results
from wirebench.contracts.schema import RESULT_COLUMNS, ExitCode
from wirebench.report.verdicts import judge

import pytest

ETH = {"expectations": [{"link_class": "eth", "ceiling_GBps": 0.125, "reason": "1 Gb/s shaping",
                         "healthy_fraction": 0.8, "source": "tc shaping"}]}


def row(judged, bench="net", case="stream_bw", size=1048576, bw=0.05, time_us=None, src="node0/rank0",
        dst="node1/rank1", extra="window=64", link_class="eth", spread=1):
    t = time_us if time_us is not None else size / (bw * 1e3)
    fields = dict(bench=bench, case=case, backend="mpi", link_class=link_class, src=src, dst=dst, direction="uni",
                  op="send_recv", dtype="uint8", bytes=size, ranks=2, nodes=2, iters=100, time_us=f"{t:.7g}",
                  time_us_p05=f"{t:.7g}", time_us_p95=f"{t:.7g}", algbw_GBps=bw if size else "",
                  busbw_GBps=bw if size else "", errors=0, extra=extra, status="OK", reason="", samples=20,
                  spread_pct=spread, judged=judged, rerun="mpiexec -n 2 wb-net --tests bw --sizes 1048576 --backend mpi")
    out = io.StringIO()
    csv.DictWriter(out, RESULT_COLUMNS, lineterminator="\n").writerow(fields)
    return out.getvalue()


def run_dir(path, rows, schema=3):
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.csv").write_text(",".join(RESULT_COLUMNS) + "\n" + "".join(rows))
    (path / "meta.json").write_text(json.dumps({"results_schema_version": schema}))
    (path / "suite.json").write_text(json.dumps(ETH))
    return path


def verdicts(path):
    return judge(read_results(path / "results.csv"), Ceilings.load(path))


def test_the_grammar_reads_every_word_of_the_schema_and_refuses_others():
    assert parse("algbw_GBps@largest:ceiling time_us@smallest:typical_latency") == (
        Judgement("algbw_GBps", "largest", "ceiling"), Judgement("time_us", "smallest", "typical_latency"))
    assert parse("") == ()
    for bad in ("algbw@largest:ceiling", "time_us@biggest:ceiling", "time_us@each:luck", "time_us"):
        with pytest.raises(InputError, match="is not METRIC@AT:AGAINST"):
            parse(bad, "results.csv:2")


def test_the_same_figure_is_judged_as_each_row_declares_whatever_its_bench(tmp_path):
    # 0.05 GB/s on a 0.125 GB/s link: a FAIL against the ceiling; declared against its siblings
    # (with none beside it) it is NOT JUDGED; a bench name the reporter has never heard of changes nothing.
    run = run_dir(tmp_path / "run", [row("algbw_GBps@largest:ceiling"),
                                     row("time_us@smallest:siblings", src="node2/rank2", dst="node3/rank3"),
                                     row("algbw_GBps@largest:ceiling", bench="newbench", src="node4/rank4",
                                         dst="node5/rank5")])
    by_line = {v.row.line: v for v in verdicts(run)}
    assert by_line[2].verdict == "FAIL" and by_line[2].metric == "algbw_GBps" and "40.0%" in by_line[2].reason
    assert by_line[3].verdict == "NOT JUDGED" and by_line[3].metric == "time_us"
    assert by_line[4].verdict == "FAIL" and by_line[4].metric == "algbw_GBps"


@pytest.mark.parametrize("at, judged_sizes", [("largest", [4194304]), ("smallest", [65536]),
                                               ("each", [65536, 1048576, 4194304])])
def test_the_size_a_row_is_judged_at_is_the_one_it_declares(tmp_path, at, judged_sizes):
    """issue 45: the AT word was never read (a row declared @smallest:ceiling was judged at its
    largest size). A sweep at 0.05 GB/s of a 0.125 GB/s link: the declared size(s) FAIL, the rest are
    points of the sweep."""
    sizes = [65536, 1048576, 4194304]
    run = run_dir(tmp_path / "run", [row(f"algbw_GBps@{at}:ceiling", size=s) for s in sizes])
    by_size = {int(v.row.text("bytes")): v.verdict for v in verdicts(run)}
    assert [s for s in sizes if by_size[s] == "FAIL"] == judged_sizes
    assert all(by_size[s] == "DATA" for s in sizes if s not in judged_sizes)


def test_a_small_ping_pong_is_held_against_the_typical_latency_only_when_it_says_so(tmp_path):
    tiny = dict(case="pingpong", size=8, bw=0.0002, time_us=40.0, link_class="ib")  # ib: typically 1.5 us
    run = run_dir(tmp_path / "run", [row("algbw_GBps@largest:ceiling time_us@smallest:typical_latency", **tiny),
                                     row("algbw_GBps@largest:ceiling", src="node2/rank2", dst="node3/rank3", **tiny)])
    (run / "topology.json").write_text(json.dumps({"nodes": [], "typical_latency_us": [
        {"link_class": "ib", "latency_us": 1.5, "source": "a test"}]}))
    by_line = {v.row.line: v for v in verdicts(run)}
    assert by_line[2].metric == "time_us" and "typical" in by_line[2].reason
    assert by_line[3].metric == "algbw_GBps" and "typical" not in by_line[3].reason


def test_a_judgement_outside_the_grammar_names_file_and_line_and_keeps_the_rest(tmp_path, capsys):
    run = run_dir(tmp_path / "run", [row("algbw_GBps@largest:ceiling"), row("algbw_GBps@biggest:ceiling")])
    results = read_results(run / "results.csv")
    assert [r.line for r in results.rows] == [2]
    assert results.problems == [f"{run / 'results.csv'}:3: judgement 'algbw_GBps@biggest:ceiling' is not "
                                "METRIC@AT:AGAINST (metric: busbw_GBps, algbw_GBps, time_us; at: largest, smallest, "
                                "each; against: ceiling, typical_latency, siblings, culprits, prediction; "
                                "schema/judgements.csv); row skipped"]
    assert main(["wirebench report", str(run)]) == ExitCode.INFRASTRUCTURE


def test_the_rerun_a_row_carries_is_what_look_closer_prints(tmp_path):
    from wirebench.report.wording import look_closer
    run = run_dir(tmp_path / "run", [row("algbw_GBps@largest:ceiling")])
    (v,) = verdicts(run)
    assert look_closer(v).startswith("rerun the pair alone: mpiexec -n 2 wb-net --tests bw --sizes 1048576 "
                                     "--backend mpi with its ranks on node0 and node1;")


@pytest.mark.parametrize("fields, judged, rerun", [
    (dict(bench="net", case="pingpong", bytes="8", algbw_GBps="0.001"),
     "algbw_GBps@largest:ceiling time_us@smallest:typical_latency", "mpiexec -n 2 wb-net --tests latency --sizes 8 --backend mpi"),
    (dict(bench="net", case="pingpong", bytes="0", algbw_GBps=""),
     "time_us@smallest:typical_latency", "mpiexec -n 2 wb-net --tests latency --sizes 0 --backend mpi"),
    (dict(bench="net", case="stream_bw", bytes="65536", algbw_GBps="1", extra="pairs=alltoall;at_once=3"),
     "algbw_GBps@largest:culprits", "mpiexec -n 2 wb-net --tests bw --sizes 65536 --backend mpi"),
    (dict(bench="net", case="alltoall_stream_bw", bytes="65536", algbw_GBps="1", src="all", dst="all", ranks="3",
          extra="pairs=alltoall;at_once=3"),
     "algbw_GBps@largest:ceiling", "mpiexec -n 3 wb-net --tests bw --sizes 65536 --backend mpi --pairs alltoall"),
    (dict(bench="coll", case="in_place", op="all_reduce", dtype="float32", bytes="1024", algbw_GBps="1",
          busbw_GBps="1", ranks="4", extra="NCCL_ALGO=Ring", backend="nccl"),
     "busbw_GBps@largest:ceiling", "NCCL_ALGO=Ring mpiexec -n 4 wb-coll --backend nccl --collective all_reduce "
                                   "-d float32 -b 1024 -e 1024 --in-place yes -c 1"),
    (dict(bench="host", case="memory_latency", bytes="8388608", algbw_GBps=""),
     "time_us@smallest:siblings", "wb-host --tests latency --latency-bytes 8388608"),
    (dict(bench="step", case="ddp", bytes="100", algbw_GBps="5"), "time_us@each:prediction", ""),
    (dict(bench="net", case="job", backend="run", bytes="0", extra="binary=wb-net;rerun=srun wb-net --sizes 8%3B1"),
     "time_us@smallest:siblings", "srun wb-net --sizes 8;1"),
])
def test_an_older_run_gets_the_judgements_its_binaries_now_declare(fields, judged, rerun):
    base = dict(backend="mpi", src="node0/rank0", dst="node1/rank1", ranks="2", op="send_recv", dtype="uint8",
                busbw_GBps="", extra="")
    filled = {**base, **fields}
    fill(filled)
    assert (filled["judged"], filled["rerun"]) == (judged, rerun)


def test_a_schema_2_run_is_judged_as_before(tmp_path):
    # the recorded runs (test_golden_runs.py) are schema 2: their goldens hold the legacy path whole
    header = ",".join(RESULT_COLUMNS[:-2]) + "\n"
    text = row("").rsplit(",", 2)[0] + "\n"
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.csv").write_text(header + text)
    (run / "meta.json").write_text(json.dumps({"results_schema_version": 2}))
    (run / "suite.json").write_text(json.dumps(ETH))
    (v,) = verdicts(run)
    assert v.verdict == "FAIL" and v.row.text("judged") == "algbw_GBps@largest:ceiling"


def test_the_small_message_rule_is_the_binaries_rule():
    """wb-net (bench/harness/judging.h) and the Python writers (importers, legacy.py) hold a ping-pong
    to the typical latency up to the same size: one rule, its bound written twice and checked here."""
    from pathlib import Path
    import re
    from wirebench.report.judging import SMALL_MESSAGE_BYTES, declare, small_message_latency
    header = (Path(__file__).resolve().parents[2] / "bench" / "harness" / "judging.h").read_text()
    assert int(re.search(r"kSmallMessageBytes = (\d+);", header).group(1)) == SMALL_MESSAGE_BYTES
    assert small_message_latency(SMALL_MESSAGE_BYTES) == ["time_us@smallest:typical_latency"]
    assert small_message_latency(SMALL_MESSAGE_BYTES + 1) == [] and small_message_latency(8, False) == []
    assert declare() == "time_us@smallest:siblings"


def test_a_shortfall_or_a_margin_inside_its_own_spread_decides_nothing(tmp_path):
    """Against a 0.125 GB/s ceiling, healthy from 80% (0.1 GB/s): below the floor by less than the
    samples' own spread is a WARN, undecided, not a FAIL (the clean fabric suite on a 2-core machine
    FAILed a healthy path at 79.9% on 3 samples, 2026-12-05); just above it, likewise a PASS, not a WARN.
    A shortfall wider than the spread stays a FAIL."""
    pairs = [("node0/rank0", "node1/rank1"), ("node2/rank2", "node3/rank3"), ("node4/rank4", "node5/rank5"),
             ("node6/rank6", "node7/rank7")]
    figures = [(0.0999, 30), (0.0999, 0.05), (0.0625, 30), (0.101, 30)]
    run = run_dir(tmp_path / "run", [row("algbw_GBps@largest:ceiling", bw=bw, spread=spread, src=a, dst=b)
                                     for (a, b), (bw, spread) in zip(pairs, figures)])
    judged = {v.row.text("src"): v for v in verdicts(run)}
    undecided = judged["node0/rank0"]
    assert undecided.verdict == "WARN", undecided.reason
    assert "below it by 0.1%, less than its own spread of 30%: undecided, no FAIL rests on it" in undecided.reason
    assert judged["node2/rank2"].verdict == "FAIL"  # 0.1% below, measured tightly
    assert judged["node4/rank4"].verdict == "FAIL"  # half the ceiling: 37.5% below the floor, beyond its spread
    assert judged["node6/rank6"].verdict == "PASS" and "no warning rests on it" in judged["node6/rank6"].reason
