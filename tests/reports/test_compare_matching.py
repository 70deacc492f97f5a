"""wirebench compare matches a measurement by its key whatever its figure, 0.00 included (issue 54:
nccl-tests' 8 B rows, busbw 0.00 in both runs, were MISSING). ctest label: unit."""
import json
from pathlib import Path

import pytest

from wirebench.contracts.schema import ExitCode
from wirebench.importer.__main__ import main as import_main
from wirebench.report.compare import main as compare_main

REAL = Path(__file__).resolve().parents[1] / "data" / "imports" / "real"
HEADER = ("bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,time_us,time_us_p05,"
          "time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason,samples,spread_pct,judged,rerun")


def imported(tmp_path, name, text):
    source = tmp_path / name / "all_reduce_perf.txt"
    source.parent.mkdir()
    source.write_text(text)
    # what the import judged is not the point here (nothing to hold one node's sweep against: 4)
    assert import_main(["wirebench import", str(source), "--out", str(source.parent / "run")]) != ExitCode.USAGE
    assert (source.parent / "run" / "results.csv").is_file()
    return source.parent / "run"


def entries(out):
    return {e["key"]: e for e in json.loads((out / "compare.json").read_text())["entries"]}


def test_nccl_tests_rows_whose_busbw_prints_as_zero_are_matched_and_compared_by_their_time(tmp_path, capsys):
    text = (REAL / "nccl-tests-293-nccl-info-interleaved.txt").read_text()
    eight = "           8             2     float     sum      -1     22.22    0.00    0.00       0     22.22    0.00    0.00"
    assert eight in text
    # the second night's 8 B out-of-place all_reduce takes twice as long: its busbw still prints 0.00
    slower = text.replace(eight, eight.replace("-1     22.22", "-1     44.44", 1))
    a, b = imported(tmp_path, "a", text), imported(tmp_path, "b", slower)
    out = tmp_path / "cmp"
    assert compare_main(["wirebench compare", str(a), str(b), "--out", str(out)]) == ExitCode.FAILED
    found = entries(out)
    assert not [k for k, e in found.items() if e["verdict"] == "MISSING"]
    smallest = {k.split("/")[1]: e for k, e in found.items() if e["bytes"] == 8}
    assert set(smallest) == {"in_place", "out_of_place"}
    assert smallest["out_of_place"]["metric"] == "time_us" and smallest["out_of_place"]["values"] == [22.22, 44.44]
    assert smallest["out_of_place"]["verdict"] == "FAIL" and smallest["out_of_place"]["ratios"] == [pytest.approx(0.5)]
    assert smallest["in_place"]["verdict"] == "PASS" and smallest["in_place"]["ratios"] == [1.0]
    # a size whose busbw is no longer 0.00 is still compared by it
    large = [e for e in found.values() if e["bytes"] == 1048576]
    assert large and all(e["metric"] == "busbw_GBps" and e["verdict"] == "PASS" for e in large)
    said = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  FAIL ")]
    assert len(said) == 1 and said[0].startswith("  FAIL coll/out_of_place/nccl/all_reduce/float32/")
    assert "//8/" in said[0] and said[0].endswith("ratios 0.500")


def hand_run(tmp_path, name, rows):
    """results.csv rows of (op, busbw, time_us): a collective judged by its busbw at its largest size."""
    folder = tmp_path / name
    folder.mkdir()
    lines = [f"coll,out_of_place,nccl,,world,,uni,{op},float32,1048576,2,2,,{time_us},,,{busbw},{busbw},0,tool=x,OK,,,,"
             "busbw_GBps@largest:ceiling," for op, busbw, time_us in rows]
    (folder / "results.csv").write_text(HEADER + "\n" + "\n".join(lines) + "\n")
    return folder


def test_a_figure_of_zero_is_a_figure_and_only_an_absent_row_is_missing(tmp_path):
    """Without a time to fall back on: 0 against 0 is the same figure, a bandwidth fallen to 0 is a
    drop (it was MISSING, hiding the collapse), and MISSING is kept for a row no later run has."""
    a = hand_run(tmp_path, "a", [("all_reduce", 0, ""), ("all_gather", 10, ""), ("broadcast", 0, ""),
                                 ("reduce", 10, "")])
    b = hand_run(tmp_path, "b", [("all_reduce", 0, ""), ("all_gather", 0, ""), ("broadcast", 10, "")])
    out = tmp_path / "cmp"
    assert compare_main(["wirebench compare", str(a), str(b), "--out", str(out)]) == ExitCode.FAILED
    by_op = {e["key"].split("/")[3]: e for e in entries(out).values()}
    assert (by_op["all_reduce"]["verdict"], by_op["all_reduce"]["ratios"]) == ("PASS", [1.0])
    assert (by_op["all_gather"]["verdict"], by_op["all_gather"]["ratios"]) == ("FAIL", [0.0])
    assert (by_op["broadcast"]["verdict"], by_op["broadcast"]["ratios"]) == ("PASS", [None])  # from 0: better
    assert (by_op["reduce"]["verdict"], by_op["reduce"]["values"]) == ("MISSING", [10.0, None])
