"""The history (issue 29): runs added to one SQLite file, each item held against its baseline there
(a step change named on its second night with its first night and what changed; a single noisy night
not), the same run added once, parallel writers, a damaged or newer file refused with exit 3 and
nothing of the run directory lost (ctest label: unit). The nights are made from a recorded run."""
import csv
import io
import json
import multiprocessing
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from wirebench.history.store import History
from wirebench.report.__main__ import main
from wirebench.contracts.schema import ExitCode

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded-runs" / "vcluster-clean"
SLOW_PAIR = ("node0/rank0", "node1/rank1")  # its stream, slowed from the sixth night


def night(root, n, slow=1.0, noisy=None, nccl="2.21.5", seed=None):
    """Night n's run directory: the recorded run's figures with +-1% noise, the pair SLOW_PAIR's
    stream at `slow` x its rate, `noisy` ((src, dst), factor) one stream off that night only."""
    rng = random.Random(seed if seed is not None else n)
    run = root / f"night{n}"
    shutil.copytree(RECORDED, run, ignore=shutil.ignore_patterns("golden"))
    rows = list(csv.DictReader(io.StringIO((RECORDED / "results.csv").read_text())))
    for r in rows:
        factor = 1 + rng.uniform(-0.01, 0.01)
        if r["case"] == "stream_bw" and (r["src"], r["dst"]) == SLOW_PAIR:
            factor *= slow
        if noisy and r["case"] == "stream_bw" and (r["src"], r["dst"]) == noisy[0]:
            factor *= noisy[1]
        for column in ("algbw_GBps", "busbw_GBps"):
            r[column] = f"{float(r[column]) * factor:.7g}"
        for column in ("time_us", "time_us_p05", "time_us_p95"):
            r[column] = f"{float(r[column]) / factor:.7g}"
    out = io.StringIO()
    writer = csv.DictWriter(out, rows[0].keys(), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (run / "results.csv").write_text(out.getvalue())
    meta = json.loads((RECORDED / "meta.json").read_text())
    meta["created"] = f"2026-12-{n:02d}T02:00:00Z"
    meta["versions"]["nccl"] = nccl
    (run / "meta.json").write_text(json.dumps(meta))
    return run


def report(run, history, *more):
    return main(["wirebench report", str(run), "--history", str(history), *more])


def regressions(run):
    return [v for v in json.loads((run / "summary.json").read_text())["verdicts"] if "regression:" in v["reason"]]


@pytest.fixture(scope="module")
def clean_nights(tmp_path_factory):
    """Nights 1-5 as the scenarios below all begin (night n's figures are the same in each: its noise
    is seeded by n), reported once into one history: {n: (exit code, regressions)} and the history
    as it was after night 2 and after night 5. A scenario goes on from a copy, instead of each
    reporting the same nights again (5 reports, about 6 s of tests/reports)."""
    root = tmp_path_factory.mktemp("clean-nights")
    history = root / "history.sqlite"
    seen, after = {}, {}
    for n in range(1, 6):
        run = night(root, n)
        seen[n] = (report(run, history), regressions(run))
        if n in (2, 5):
            after[n] = root / f"history-after-night{n}.sqlite"
            shutil.copy(history, after[n])  # report() closed it: the file is whole
    return seen, after


def history_after(clean_nights, n, tmp_path):
    """A copy of the clean nights' history as it was after night n, for one scenario to go on with."""
    history = tmp_path / "history.sqlite"
    shutil.copy(clean_nights[1][n], history)
    return history


def test_a_step_change_is_named_on_its_second_night_with_its_first_night_and_what_changed(tmp_path, capsys,
                                                                                          clean_nights):
    """10% slower from the sixth night: still above the ceiling's 80%, so only the history sees it.
    Nights 1-2 are the shared clean ones; the noisy third and the rest are this test's."""
    history = history_after(clean_nights, 2, tmp_path)
    codes = [clean_nights[0][n][0] for n in (1, 2)]
    assert [clean_nights[0][n][1] for n in (1, 2)] == [[], []]
    for n in range(3, 9):
        run = night(tmp_path, n, slow=0.9 if n >= 6 else 1.0, nccl="2.23.4" if n >= 6 else "2.21.5",
                    noisy=((("node1/rank1", "node0/rank0"), 0.85)) if n == 3 else None)
        codes.append(report(run, history))
        found = regressions(run)
        if n < 7:  # the clean nights, the noisy third, and the step's first night: nothing flagged
            assert found == [], (n, found)
        else:
            assert [(v["src"], v["dst"], v["verdict"]) for v in found] == [SLOW_PAIR + ("FAIL",)], (n, found)
            reason = found[0]["reason"]
            assert any(f"{pct}% below its 5-run median" in reason or f"{pct}% below its 6-run median" in reason
                       for pct in (9, 10, 11)), reason
            assert "first seen on 2026-12-06T02:00:00Z" in reason and "NCCL 2.21.5 -> 2.23.4" in reason, reason
            assert "Trend: the items that moved against the history" in (run / "report.md").read_text()
            assert (run / "plots" / "trend-0.png").stat().st_size > 0 and "trend: net/stream_bw" in (
                run / "report.html").read_text()
    assert codes[:6] == [ExitCode.OK] * 6 and codes[6:] == [ExitCode.FAILED] * 2
    assert len(History(history).runs()) == 8
    assert "wirebench history: added run" in capsys.readouterr().out


def test_a_path_slowed_below_its_ceiling_is_a_culprit_and_a_regression_in_the_trend(tmp_path, clean_nights):
    """20% slower from the sixth night: the ceiling FAILs it (the culprit: that path) from its first
    night; the trend names the regression and its first night on the seventh. Nights 1-5: the shared
    clean ones."""
    history = history_after(clean_nights, 5, tmp_path)
    for n in range(6, 8):
        run = night(tmp_path, n, slow=0.8)
        code = report(run, history)
    assert code == ExitCode.FAILED
    text = (run / "report.md").read_text()
    trend = text[text.index("## Trend"):text.index("## ", text.index("## Trend") + 3)]
    assert "FAIL (the culprit: path node0-node1)" in trend and "node0/rank0 -> node1/rank1" in trend, trend
    assert "2026-12-06T02:00:00Z" in trend


def test_a_single_noisy_night_is_not_a_regression(tmp_path, clean_nights):
    assert all(found == [] for _, found in clean_nights[0].values())  # nights 1-5, the shared clean ones
    history = history_after(clean_nights, 5, tmp_path)
    for n in range(6, 9):  # the seventh night one stream 15% low, the others as ever
        run = night(tmp_path, n, noisy=((SLOW_PAIR, 0.85)) if n == 7 else None)
        report(run, history)
        assert regressions(run) == [], n


def test_the_same_run_is_added_once(tmp_path, capsys):
    history = tmp_path / "h.sqlite"
    run = night(tmp_path, 1)
    assert report(run, history) == ExitCode.OK and report(run, history) == ExitCode.OK
    assert "already holds run" in capsys.readouterr().out
    assert len(History(history).runs()) == 1


def add_one(args):
    history, run = args
    return main(["wirebench report", run, "--history", history])


def test_parallel_writers_add_every_run_whole(tmp_path):
    history = tmp_path / "shared.sqlite"
    runs = [str(night(tmp_path, n)) for n in range(1, 7)]
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        codes = pool.map(add_one, [(str(history), r) for r in runs])
    assert codes == [ExitCode.OK] * 6
    db = sqlite3.connect(history)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 6
    per_run = {n for (n,) in db.execute("SELECT COUNT(*) FROM items GROUP BY run_id")}
    assert len(per_run) == 1 and per_run.pop() > 0  # every run with all its items


def test_a_damaged_history_is_exit_3_naming_it_and_the_run_directory_keeps_everything(tmp_path, capsys):
    history = tmp_path / "broken.sqlite"
    history.write_bytes(b"this is not SQLite\n" * 100)
    run = night(tmp_path, 1)
    before = sorted(p.name for p in run.iterdir())
    assert report(run, history) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"error: {history}: not a wirebench history that can be read" in err and "exit code 3" in err
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written, nothing lost
    assert history.read_bytes() == b"this is not SQLite\n" * 100


def test_a_newer_history_is_refused_with_its_version(tmp_path, capsys):
    history = tmp_path / "new.sqlite"
    History(history, create=True).close()
    db = sqlite3.connect(history)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    assert report(night(tmp_path, 1), history) == ExitCode.USAGE
    assert "history schema_version 99; this wirebench reads version 1" in capsys.readouterr().err


def test_prometheus_text_names_each_item_with_its_labels(tmp_path):
    run = night(tmp_path, 1)
    out = tmp_path / "wirebench.prom"
    assert main(["wirebench report", str(run), "--prometheus", str(out)]) == ExitCode.OK
    text = out.read_text()
    assert "# TYPE wirebench_bandwidth_bytes_per_second gauge" in text
    line = next(l for l in text.splitlines() if l.startswith("wirebench_bandwidth_bytes_per_second{")
                and 'src="node0/rank0"' in l and 'dst="node1/rank1"' in l and 'bytes="1048576"' in l
                and 'case="stream_bw"' in l)
    assert 'node="node0"' in line and 'link_class="eth"' in line and 'case="stream_bw"' in line
    assert float(line.rsplit(" ", 1)[1]) > 1e7  # bytes per second, not GB/s
    assert 'wirebench_item_verdict{' in text and 'verdict="PASS"} 1.0' in text
    assert "wirebench_run_exit_code 0.0" in text


def test_a_node_far_below_the_fleets_same_item_is_a_warn(tmp_path):
    """Single-node nightly runs of four nodes into one history: the fourth node's GPU pair 15% below
    the other three nodes' same pair is a WARN against the fleet; a node within the fleet's spread
    is not."""
    history = tmp_path / "fleet.sqlite"
    codes = {}
    for n, (node, factor) in enumerate((("dgx01", 1.0), ("dgx02", 0.99), ("dgx03", 1.01), ("dgx04", 0.85),
                                        ("dgx05", 0.995)), 1):
        run = tmp_path / node
        run.mkdir()
        (run / "results.csv").write_text(
            "bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,time_us,time_us_p05,"
            "time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason,samples,spread_pct,judged,rerun\n"
            f"p2p,ce/write,cuda,nvlink,{node}/gpu0,{node}/gpu1,uni,copy,uint8,268435456,1,1,10,"
            f"{268435456 / (380e3 * factor):.6g},,,{380 * factor:.6g},{380 * factor:.6g},0,,OK,,10,0.5,"
            "algbw_GBps@largest:siblings,wb-p2p\n")
        (run / "meta.json").write_text(json.dumps({"schema_version": 1, "results_schema_version": 3, "hosts": [node],
                                                   "created": f"2026-12-0{n}T02:00:00Z"}))
        codes[node] = report(run, history)
        summary = json.loads((run / "summary.json").read_text())["verdicts"]
        if node == "dgx04":
            assert summary[0]["verdict"] == "WARN" and summary[0]["reason"].startswith(
                "fleet: 15% below the median 380 GB/s of the same item's latest healthy run on 3 other nodes"), summary
        else:
            assert "fleet:" not in summary[0]["reason"], (node, summary)
    # the fleet rule only WARNs: a node within the fleet's spread (and the first night, with no fleet yet)
    # has its one item held against no ceiling, so nothing judged: not healthy either (exit 4, issue 54)
    assert codes == {"dgx01": ExitCode.UNJUDGED, "dgx02": ExitCode.UNJUDGED, "dgx03": ExitCode.UNJUDGED,
                     "dgx04": ExitCode.OK, "dgx05": ExitCode.UNJUDGED}


def test_a_run_of_an_unknown_results_schema_is_refused_naming_its_version(tmp_path, capsys):
    run = night(tmp_path, 1)
    meta = json.loads((run / "meta.json").read_text())
    meta["results_schema_version"] = 9
    (run / "meta.json").write_text(json.dumps(meta))
    from wirebench.history.__main__ import main as history_main
    assert history_main(["wirebench history", "--history", str(tmp_path / "h.sqlite"), "add", str(run)]) == ExitCode.USAGE
    assert "results_schema_version 9 is not one this reporter reads (1, 2, 3)" in capsys.readouterr().err
    # a run of schema 2 (the recorded one) is read: its items are added
    assert history_main(["wirebench history", "--history", str(tmp_path / "h.sqlite"), "add",
                         str(night(tmp_path, 2))]) == ExitCode.OK


def test_a_runs_time_is_utc_whatever_the_machines_zone(monkeypatch):
    import time
    from wirebench.history.store import parse_time
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert parse_time("1970-01-01T00:00:10Z").timestamp() == 10  # wirebench_run_timestamp_seconds
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
