"""wirebench import: nccl-tests' and OSU's outputs become rows like wirebench's own, judged by the same
reporter, with their provenance; bad files end in exit 3 naming file and line (ctest label: unit).
The fixtures (tests/data/imports) are written by make_fixtures.py in the tools' formats."""
import csv
import json
import shutil
from pathlib import Path

import pytest

from wirebench.importer.__main__ import main
from wirebench.importer.rows import number
from wirebench.report.extra import parse
from wirebench.contracts.schema import ExitCode

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"


def imported(tmp_path, *args, files=()):
    out = tmp_path / "run"
    code = main(["wirebench import", *[str(DATA / f) for f in files], "--out", str(out), *args])
    rows = list(csv.DictReader((out / "results.csv").open())) if (out / "results.csv").exists() else []
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return code, rows, summary


def test_nccl_tests_rows_are_judged_against_the_ceiling_given(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "370", files=["all_reduce_perf.txt"])
    assert code == ExitCode.OK, capsys.readouterr()
    assert len(rows) == 6 and {r["case"] for r in rows} == {"out_of_place", "in_place"}
    big = next(r for r in rows if r["bytes"] == "134217728" and r["case"] == "out_of_place")
    assert (big["op"], big["dtype"], big["ranks"], big["nodes"], big["busbw_GBps"]) == ("all_reduce", "float32", "8", "1", "335.54")
    assert big["judged"] == "busbw_GBps@largest:ceiling"
    assert big["rerun"] == "mpirun -np 8 all_reduce_perf -b 134217728 -e 134217728 -d float -o sum"
    items = parse(big["extra"])
    assert (items["tool"], items["tool_version"], items["redop"]) == ("nccl-tests", "2.13.9", "sum")
    assert items["source"].endswith("all_reduce_perf.txt:19")
    judged = [v for v in summary["verdicts"] if v["verdict"] != "DATA"]
    assert [v["verdict"] for v in judged] == ["PASS", "PASS"]  # the largest size of each placement


def test_a_slow_collective_fails_and_says_how_to_measure_it_again(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "400",
                                   files=["all_reduce_perf-slow.txt"])
    assert code == ExitCode.FAILED
    out = capsys.readouterr().out
    assert "where: " + str(DATA / "all_reduce_perf-slow.txt") + ":18 (results.csv line 4)" in out
    assert "FAIL coll out_of_place bandwidth (nvlink): dgx01, all_reduce 128 MiB (nccl): 261 GB/s" in out and "rerun: mpirun -np 8 all_reduce_perf -b 134217728 -e 134217728" in out


def test_launcher_prefixes_and_nccls_own_lines_change_nothing(tmp_path):
    _, plain, _ = imported(tmp_path / "a", files=["all_reduce_perf.txt"])
    _, tagged, _ = imported(tmp_path / "b", files=["all_reduce_perf-mpirun.txt"])
    figures = ("case", "bytes", "time_us", "algbw_GBps", "busbw_GBps", "errors", "judged")
    assert [[r[c] for c in figures] for r in tagged] == [[r[c] for c in figures] for r in plain]


def test_a_one_gpu_run_is_said_not_judged(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, files=["all_reduce_perf-1gpu.txt"])
    assert code == ExitCode.UNJUDGED  # nothing judged is never healthy (issue 54)
    assert "Nothing judged: no item was measured" in capsys.readouterr().out  # not "Healthy: all 0 ... pass"
    assert {r["status"] for r in rows} == {"SKIP"} and "one GPU" in rows[0]["reason"]
    assert parse(rows[0]["extra"])["tool_version"] == "unknown" and rows[0]["errors"] == ""


def test_a_cut_file_keeps_its_whole_rows_and_judges_no_stand_in(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "400",
                                   files=["all_reduce_perf-cut.txt"])
    assert "cut short" in capsys.readouterr().out
    assert [r["bytes"] for r in rows if r["status"] == "OK"] == ["8", "8", "1048576", "1048576"]
    assert [r["status"] for r in rows if r["bytes"] == "134217728"] == ["ERROR", "ERROR"]
    assert code == ExitCode.INFRASTRUCTURE
    # the 1 MiB point is no item: its sweep did not reach its largest size
    assert not [v for v in summary["verdicts"] if v["verdict"] in ("PASS", "WARN", "FAIL")]


def test_the_collective_comes_from_the_files_name_or_op(tmp_path, capsys):
    # neither name nor command line: a reduction without a root, each rank's count the whole size, is all_reduce
    # read, and held against nothing (no ceiling, no --rate): nothing judged, exit 4 (issue 54)
    code, rows, _ = imported(tmp_path / "a", files=["nccl-unnamed.txt"])
    assert code == ExitCode.UNJUDGED and {r["op"] for r in rows} == {"all_reduce"}
    assert "the collective, all_reduce, from the table's columns" in capsys.readouterr().out
    unnamed = tmp_path / "paste.txt"  # redop none: all_gather and alltoall print alike; refused
    unnamed.write_text((DATA / "nccl-unnamed.txt").read_text().replace("     sum  ", "    none  "))
    code = main(["wirebench import", str(unnamed), "--out", str(tmp_path / "c")])
    assert code == ExitCode.USAGE and "paste.txt:1: nccl-tests does not print its collective" in capsys.readouterr().err
    code, rows, _ = imported(tmp_path / "b", "--op", "all_gather", files=["nccl-unnamed.txt"])
    assert code == ExitCode.UNJUDGED and {r["op"] for r in rows} == {"all_gather"}


def test_osu_point_to_point_rows_are_wb_nets_rows(tmp_path):
    code, rows, summary = imported(tmp_path, "--link-class", "eth", "--rate", "12.5", "--hosts", "n1,n2",
                                   files=["osu_latency.txt", "osu_bw.txt"])
    assert code == ExitCode.OK
    lat = {r["bytes"]: r for r in rows if r["case"] == "pingpong"}
    assert lat["0"]["judged"] == "time_us@smallest:typical_latency" and lat["0"]["time_us"] == "1.62"
    assert lat["8"]["judged"] == "algbw_GBps@largest:ceiling time_us@smallest:typical_latency"
    assert (lat["8"]["src"], lat["8"]["dst"], lat["8"]["nodes"]) == ("n1/rank0", "n2/rank1", "2")
    bw = {r["bytes"]: r for r in rows if r["case"] == "stream_bw"}
    assert bw["4194304"]["algbw_GBps"] == "11.2508" and parse(bw["4194304"]["extra"])["tool_version"] == "5.3"
    verdicts = {}
    for v in summary["verdicts"]:
        if v["verdict"] != "DATA":
            verdicts.setdefault((v["key"].split("/")[9], v["metric"]), []).append(v["verdict"])  # 9: bytes
    assert verdicts[("4194304", "algbw_GBps")] == ["PASS", "PASS"]  # osu_bw 11.25, osu_latency 11.97 of 12.5 GB/s


def test_osu_collectives_need_their_ranks_for_a_bus_bandwidth(tmp_path):
    _, rows, _ = imported(tmp_path / "a", "--ranks", "4", files=["osu_allreduce.txt"])
    big = next(r for r in rows if r["bytes"] == "16777216")
    assert float(big["busbw_GBps"]) == pytest.approx(float(big["algbw_GBps"]) * 1.5, rel=1e-6) and big["judged"] == "busbw_GBps@largest:ceiling"
    _, rows, _ = imported(tmp_path / "b", files=["osu_allreduce.txt"])
    assert {r["judged"] for r in rows} == {"time_us@smallest:siblings"} and {r["busbw_GBps"] for r in rows} == {""}


def test_what_it_cannot_read_ends_in_exit_3_naming_file_and_line(tmp_path, capsys):
    assert imported(tmp_path / "a", files=["not-a-tool.txt"])[0] == ExitCode.USAGE
    assert "not-a-tool.txt:1: not an output wirebench imports" in capsys.readouterr().err
    # a line that is not the table's (issue 47: pastes carry them) is left aside and said, the rows kept
    code, rows, _ = imported(tmp_path / "b", files=["osu_bw-bad.txt"])
    assert code != ExitCode.USAGE and [r["bytes"] for r in rows] == ["1"]
    assert "osu_bw-bad.txt:4: 1 line(s) not of OSU's output left aside, the first: 'segfault here'" in capsys.readouterr().out
    shutil.copytree(DATA, tmp_path / "c" / "run")
    (tmp_path / "c" / "run" / "results.csv").write_text("")
    assert imported(tmp_path / "c", files=["osu_bw.txt"])[0] == ExitCode.USAGE
    assert "exists; import into a new directory" in capsys.readouterr().err


def test_imb_ping_pong_and_allreduce_become_rows_like_wirebenchs(tmp_path):
    code, rows, summary = imported(tmp_path, "--link-class", "eth", "--rate", "12.5", "--hosts", "n1,n2",
                                   files=["IMB-MPI1.txt"])
    assert code == ExitCode.OK
    pingpong = {r["bytes"]: r for r in rows if r["case"] == "pingpong"}
    assert set(pingpong) == {"0", "1", "64", "4194304"}
    assert pingpong["4194304"]["algbw_GBps"] == number(4194304 / 348.2e3)  # from bytes and t[usec], not Mbytes/sec
    assert pingpong["0"]["judged"] == "time_us@smallest:typical_latency"
    assert pingpong["4194304"]["rerun"] == "mpiexec -n 2 IMB-MPI1 PingPong -msglog 22:22"
    allreduce = {r["bytes"]: r for r in rows if r["op"] == "all_reduce"}
    big = allreduce["16777216"]
    assert (big["ranks"], big["time_us"], big["iters"]) == ("4", "2200.5", "10")  # t_avg
    assert float(big["busbw_GBps"]) == pytest.approx(16777216 / 2200.5e3 * 1.5, rel=1e-6)
    items = parse(big["extra"])
    assert (items["tool"], items["tool_version"], items["rank_time"]) == ("imb", "2021.7", "avg")
    verdicts = [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA" and v["bench"] == "net"]
    assert "PASS" in verdicts  # 4 MiB at 12.05 GB/s of 12.5


def test_nvbandwidth_matrices_become_gpu_pairs_and_host_copies(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "450", "--hosts", "dgx01",
                                   files=["nvbandwidth.txt"])
    pairs = {(r["src"], r["dst"]): r for r in rows if r["bench"] == "p2p"}
    assert len(pairs) == 6 and {r["case"] for r in pairs.values()} == {"ce/read"}
    slow = pairs[("dgx01/gpu2", "dgx01/gpu1")]  # row 1 <- column 2: gpu1 reads gpu2's memory
    assert (slow["algbw_GBps"], slow["bytes"], slow["link_class"]) == ("181.4", str(512 << 20), "nvlink")
    assert slow["rerun"] == "nvbandwidth -t device_to_device_memcpy_read_ce -b 512"
    host = [r for r in rows if r["bench"] == "host"]
    assert [(r["src"], r["dst"], r["link_class"]) for r in host][0] == ("dgx01/numa0", "dgx01/gpu0", "pcie")
    assert parse(host[0]["extra"])["tool_version"] == "0.5"
    assert code == ExitCode.FAILED
    out = capsys.readouterr().out
    assert "FAIL p2p ce/read bandwidth (nvlink): dgx01/gpu2 -> dgx01/gpu1" in out and "181.4 GB/s (40.3% of the ceiling)" in out


def test_perftest_bandwidth_and_latency_rows_say_their_device_and_link(tmp_path):
    code, rows, summary = imported(tmp_path, "--rate", "25", "--link-class", "ib", "--hosts", "n1,n2",
                                   files=["ib_write_bw.txt", "ib_write_lat.txt"])
    assert code == ExitCode.OK
    bw = {r["bytes"]: r for r in rows if r["case"] == "stream_bw"}
    assert set(bw) == {"2", "65536", "1048576"}  # the CPU-frequency warning between rows passed by
    big = bw["1048576"]
    assert float(big["algbw_GBps"]) == pytest.approx(1048576 * 0.023e6 / 1e9, rel=1e-6)  # bytes x MsgRate
    assert (big["link_class"], big["op"], big["src"], big["dst"]) == ("ib", "rdma_write", "n1/rank0", "n2/rank1")
    assert parse(big["extra"])["device"] == "mlx5_0" and big["rerun"] == "ib_write_bw -s 1048576 -d mlx5_0 n2"
    lat = {r["bytes"]: r for r in rows if r["case"] == "pingpong"}
    assert lat["2"]["time_us"] == "1.02" and lat["2"]["judged"] == "time_us@smallest:typical_latency"
    verdicts = [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA" and v["metric"] == "algbw_GBps"]
    assert verdicts == ["PASS"]  # 24.1 of 25 GB/s


def test_perftests_link_type_is_the_link_class_when_none_is_given(tmp_path):
    _, rows, _ = imported(tmp_path, files=["ib_write_bw.txt"])
    assert {r["link_class"] for r in rows} == {"ib"}


# The variants: each tool's other formats and versions, judged like the first ones.

FIGURES = ("case", "bytes", "time_us", "algbw_GBps", "busbw_GBps", "errors", "judged")


def test_nccl_tests_2_17_names_its_binary_and_its_per_iteration_columns_pass_by(tmp_path):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "370",
                                   files=["nccl-2.17-per-iteration.log"])
    assert code == ExitCode.OK and {r["op"] for r in rows} == {"all_gather"}  # "# Collective test starting: ..."
    big = next(r for r in rows if r["bytes"] == "134217728" and r["case"] == "in_place")
    assert (big["time_us"], big["busbw_GBps"], big["ranks"]) == ("702", "334.59", "8")  # not i_min's columns
    items = parse(big["extra"])
    assert (items["tool_version"], items["nccl_version"]) == ("2.17.6", "2.28.7")
    assert [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA"] == ["PASS", "PASS"]


def test_nccl_tests_json_gives_the_same_rows_as_its_text(tmp_path):
    code, from_json, summary = imported(tmp_path / "a", "--link-class", "nvlink", "--rate", "370",
                                        files=["all_reduce.json"])
    _, from_text, _ = imported(tmp_path / "b", "--link-class", "nvlink", "--rate", "370", files=["all_reduce_perf.txt"])
    assert code == ExitCode.OK
    assert [float(r[c] or 0) for r in from_json for c in FIGURES[1:6]] == pytest.approx(
        [float(r[c] or 0) for r in from_text for c in FIGURES[1:6]], rel=2e-3, abs=1e-3)  # the text rounds to 2 decimals
    assert [r["case"] for r in from_json] == [r["case"] for r in from_text]
    first = from_json[0]
    assert (first["op"], first["dtype"], first["ranks"], first["nodes"]) == ("all_reduce", "float32", "8", "1")
    items = parse(first["extra"])
    assert items["source"].endswith("all_reduce.json:results[0]") and items["nccl_version"] == "2.28.7"
    assert items["command_line"] == "./build/all_reduce_perf -b 8 -e 128M -f 2 -J all_reduce.json"
    assert [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA"] == ["PASS", "PASS"]


def test_a_cut_nccl_tests_json_keeps_its_whole_results_and_the_largest_size_is_an_error(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "370", files=["all_reduce-cut.json"])
    assert "cut short" in capsys.readouterr().out and code == ExitCode.INFRASTRUCTURE
    assert [r["bytes"] for r in rows if r["status"] == "OK"] == ["8", "8", "1048576", "1048576"]
    assert [(r["bytes"], r["status"]) for r in rows if r["status"] != "OK"] == [("134217728", "ERROR")] * 2
    assert not [v for v in summary["verdicts"] if v["verdict"] in ("PASS", "WARN", "FAIL")]


def test_a_markdown_paste_reads_as_the_tools_own_output(tmp_path):
    _, pasted, _ = imported(tmp_path / "a", "--op", "all_reduce", files=["all_reduce_perf-markdown.md"])
    _, plain, _ = imported(tmp_path / "b", files=["all_reduce_perf.txt"])
    assert [[r[c] for c in FIGURES] for r in pasted] == [[r[c] for c in FIGURES] for r in plain]
    assert parse(pasted[0]["extra"])["source"].endswith("all_reduce_perf-markdown.md:20")  # the file's own line


def test_imb_sendrecv_is_a_bidirectional_pair_at_imbs_bandwidth(tmp_path):
    code, rows, summary = imported(tmp_path, "--link-class", "eth", "--rate", "12.5", "--hosts", "n1,n2",
                                   files=["IMB-MPI1-sendrecv.txt"])
    sendrecv = {r["bytes"]: r for r in rows if r["case"] == "sendrecv"}
    big = sendrecv["4194304"]
    assert (big["direction"], big["src"], big["dst"], big["time_us"]) == ("bidir", "n1/rank0", "n2/rank1", "352.1")
    assert float(big["algbw_GBps"]) == pytest.approx(2 * 4194304 / 352.1e3, rel=1e-6)  # IMB: 2 x bytes / t_max
    assert parse(big["extra"])["rank_time"] == "max"
    judged = {v["key"]: v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA" and "sendrecv" in v["key"]
              and v["metric"] == "algbw_GBps"}
    assert list(judged.values()) == ["PASS"]  # 23.8 GB/s of both directions' 25


def test_nvbandwidth_json_reads_as_its_text_and_says_what_it_passed_by(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "450", files=["nvbandwidth.json"])
    out = capsys.readouterr().out
    pairs = {(r["src"], r["dst"]): r for r in rows if r["bench"] == "p2p"}
    assert len(pairs) == 6 and pairs[("dgx02/gpu2", "dgx02/gpu1")]["algbw_GBps"] == "181.402"  # host from its device list
    assert parse(rows[0]["extra"])["tool_version"] == "0.8"
    assert parse(pairs[("dgx02/gpu2", "dgx02/gpu1")]["extra"])["source"].endswith(
        "nvbandwidth.json:testcases[1].bandwidth_matrix[1]")
    assert "device_to_device_latency_sm" in out and "not a bandwidth matrix" in out and "Waived" in out
    assert code == ExitCode.FAILED  # the slow pair, as from the text


def test_nvbandwidth_0_4_leaves_its_diagonal_out(tmp_path):
    _, rows, _ = imported(tmp_path, "--hosts", "dgx01", files=["nvbandwidth-0.4.txt"])
    # write_ce: row -> column, the row's GPU pushing (nvbandwidth's testcases_ce.cpp), whatever its title's arrow
    assert sorted((r["src"], r["dst"], r["case"]) for r in rows) == [
        ("dgx01/gpu0", "dgx01/gpu1", "ce/write"), ("dgx01/gpu1", "dgx01/gpu0", "ce/write")]
    assert parse(rows[0]["extra"])["tool_version"] == "unknown"


def test_perftest_json_rows_are_its_texts(tmp_path):
    code, rows, summary = imported(tmp_path, "--rate", "25", "--link-class", "ib", "--hosts", "n1,n2",
                                   files=["ib_write_bw.json", "ib_send_lat.json"])
    assert code == ExitCode.OK
    bw = next(r for r in rows if r["case"] == "stream_bw")
    assert float(bw["algbw_GBps"]) == pytest.approx(1048576 * 0.022933e6 / 1e9, rel=1e-6)
    assert (bw["bytes"], bw["iters"], bw["op"], parse(bw["extra"])["device"]) == ("1048576", "5000", "rdma_write", "mlx5_0")
    lat = next(r for r in rows if r["case"] == "pingpong")
    assert (lat["op"], lat["time_us"], lat["judged"]) == ("send", "1.01", "time_us@smallest:typical_latency")
    assert parse(lat["extra"])["source"].endswith("ib_send_lat.json:results")


def test_perftest_bidirectional_is_judged_against_both_directions(tmp_path):
    code, rows, summary = imported(tmp_path, "--rate", "25", "--link-class", "ib", files=["ib_write_bw-bidir.txt"])
    big = next(r for r in rows if r["bytes"] == "1048576")
    assert (big["case"], big["direction"]) == ("bidir_bw", "bidir") and big["rerun"].endswith(" -b SERVER")
    assert [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA" and v["metric"] == "algbw_GBps"] == ["FAIL"]


def test_osu_xccl_collectives_are_nccl_rows(tmp_path):
    _, rows, _ = imported(tmp_path, "--ranks", "8", files=["osu_xccl_allreduce.txt"])
    assert {(r["backend"], r["op"]) for r in rows} == {("nccl", "all_reduce")}
    assert rows[-1]["rerun"] == "mpiexec -n 8 osu_xccl_allreduce -m 134217728:134217728"


def test_p2p_bandwidth_latency_test_pairs_are_judged_and_a_pair_without_peer_access_said(tmp_path, capsys):
    code, rows, summary = imported(tmp_path, "--link-class", "nvlink", "--rate", "450", "--hosts", "dgx01",
                                   files=["p2pBandwidthLatencyTest.txt"])
    out = capsys.readouterr().out
    by = {(r["case"], r["src"], r["dst"]): r for r in rows}
    assert {c for c, _, _ in by} == {"staged/write", "p2p/write", "staged/bidir", "p2p/bidir", "staged/latency",
                                     "p2p/write_latency"}
    assert len(rows) == 6 * 6  # six cases of the six ordered pairs: no diagonal, no host-clock latency
    fast = by[("p2p/write", "dgx01/gpu0", "dgx01/gpu1")]
    assert (fast["algbw_GBps"], fast["bytes"], fast["judged"]) == ("389.9", "160000000", "algbw_GBps@largest:ceiling")
    assert parse(by[("p2p/write", "dgx01/gpu1", "dgx01/gpu2")]["extra"])["peer_access"] == "no"
    assert by[("staged/write", "dgx01/gpu0", "dgx01/gpu1")]["judged"] == "algbw_GBps@largest:siblings"
    assert by[("p2p/write_latency", "dgx01/gpu0", "dgx01/gpu1")]["time_us"] == "2.35"
    assert "2 GPU pair(s) without peer access" in out
    assert "look closer: rerun: p2pBandwidthLatencyTest; CUDA gives this pair no peer access" in out
    verdicts = {(v["src"], v["dst"]): v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA"
                and "p2p/write/" in v["key"]}
    assert verdicts[("dgx01/gpu1", "dgx01/gpu2")] == "FAIL" and verdicts[("dgx01/gpu0", "dgx01/gpu1")] == "PASS"
    assert code == ExitCode.FAILED


def test_broken_json_is_exit_3_naming_its_line(tmp_path, capsys):
    (tmp_path / "bad.json").write_text('{\n"test_info": {\n"test": "RDMA_Write_BW_Test",,\n}}\n')
    code = main(["wirebench import", str(tmp_path / "bad.json"), "--out", str(tmp_path / "run")])
    assert code == ExitCode.USAGE and f"{tmp_path / 'bad.json'}:3: not valid JSON" in capsys.readouterr().err


def test_crlf_tabs_and_sruns_prefix_change_no_figure(tmp_path):
    _, saved, _ = imported(tmp_path / "a", "--hosts", "n1,n2", files=["osu_latency-srun-crlf-tabs.txt"])
    _, plain, _ = imported(tmp_path / "b", "--hosts", "n1,n2", files=["osu_latency.txt"])
    figures = FIGURES + ("src", "dst", "rerun")
    assert saved and [[r[c] for c in figures] for r in saved] == [[r[c] for c in figures] for r in plain]


def test_imb_4_names_its_version_as_2021_does(tmp_path):
    _, rows, _ = imported(tmp_path, "--hosts", "n1,n2", files=["IMB-MPI1-4.1.txt"])
    assert {parse(r["extra"])["tool_version"] for r in rows} == {"4.1"}


def test_imb_allgather_alltoall_and_bcast_get_their_bus_bandwidth(tmp_path):
    _, rows, _ = imported(tmp_path, files=["IMB-MPI1-collectives.txt"])
    big = {r["op"]: r for r in rows if r["bytes"] == "4194304" and r["bench"] == "coll"}
    # one spelling of each collective, wb-coll's: IMB's Alltoall is all_to_all (python/wirebench/collectives.py)
    assert set(big) == {"all_gather", "all_to_all", "broadcast"}
    algbw = 4194304 / 1210.0e3
    assert float(big["all_gather"]["busbw_GBps"]) == pytest.approx(algbw * 3 / 4, rel=1e-6)  # (n-1)/n of 4 ranks
    assert float(big["all_to_all"]["busbw_GBps"]) == pytest.approx(algbw * 3 / 4, rel=1e-6)
    assert float(big["broadcast"]["busbw_GBps"]) == pytest.approx(algbw, rel=1e-6)
    assert big["broadcast"]["rerun"] == "mpiexec -n 4 IMB-MPI1 Bcast -npmin 4 -msglog 22:22"


def test_every_perftest_tool_is_told_by_its_title(tmp_path):
    _, rows, _ = imported(tmp_path, "--hosts", "n1,n2", files=["ib_read_bw.txt", "ib_send_bw.txt", "ib_read_lat.txt",
                                                               "ib_send_lat.txt"])
    assert sorted({(r["op"], r["case"], r["judged"]) for r in rows if r["bytes"] == "2"}) == [
        ("rdma_read", "read_latency", "time_us@smallest:siblings"),  # a whole round trip
        ("rdma_read", "stream_bw", "algbw_GBps@largest:ceiling"),
        ("send", "pingpong", "time_us@smallest:typical_latency"),
        ("send", "stream_bw", "algbw_GBps@largest:ceiling")]
    assert {r["rerun"].split()[0] for r in rows} == {"ib_read_bw", "ib_send_bw", "ib_read_lat", "ib_send_lat"}


def test_osu_bibw_is_a_bidirectional_row(tmp_path):
    code, rows, summary = imported(tmp_path, "--hosts", "n1,n2", "--link-class", "eth", "--rate", "12.5",
                                   files=["osu_bibw.txt"])
    big = next(r for r in rows if r["bytes"] == "4194304")
    assert (big["case"], big["direction"], big["algbw_GBps"]) == ("bidir_bw", "bidir", "22.3104")
    assert [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA"] == ["PASS"]  # of both directions' 25


def test_an_imported_small_message_latency_is_held_to_its_link_class_s_typical_latency(tmp_path):
    """Issue 44: osu_latency from 0 B imported with --rate 25 --link-class ib was NOT JUDGED "no
    ceiling is known for a ib link" though suites/ceilings.csv gives IB's typical latency."""
    code, rows, summary = imported(tmp_path, "--rate", "25", "--link-class", "ib", files=["osu_latency.txt"])
    zero = next(v for v in summary["verdicts"] if v["item"].endswith("send_recv 0 B (mpi)"))
    assert zero["verdict"] == "PASS", zero
    assert zero["reason"].startswith("latency 1.62 us (half round trip, 0 B) is 1.08x the typical 1.5 us of ib links "
                                     "(source: suites/ceilings.csv, ib ")
    # without --rate the class alone is enough for the latency
    _, _, alone = imported(tmp_path / "alone", "--link-class", "ib", files=["osu_latency.txt"])
    assert next(v for v in alone["verdicts"] if v["item"].endswith("send_recv 0 B (mpi)"))["verdict"] == "PASS"


def test_a_run_without_topology_json_says_that_is_what_is_missing(tmp_path):
    """Issue 44: `mpiexec -n 2 wb-net` then `wirebench report` said "Nothing judged" and blamed
    ceilings.csv where the run directory's topology.json is what is missing."""
    _, _, summary = imported(tmp_path, files=["osu_bw.txt"])
    reasons = [v["reason"] for v in summary["verdicts"] if v["verdict"] == "NOT JUDGED"]
    assert reasons and all("the run directory has no topology.json (wirebench run writes it; by hand: wirebench "
                           "topo --json > RUN_DIR/topology.json)" in r for r in reasons), reasons
    assert not any("ceilings.csv and the topology give none" in r for r in reasons)


def test_rate_without_link_class_takes_the_class_perftest_prints(tmp_path, capsys):
    """Issue 44: docs/import.md's `import ib_write_bw.txt --rate 25` exited 3 "--rate needs
    --link-class" though perftest prints its Link type. A file that names no link still needs it."""
    code, rows, summary = imported(tmp_path, "--rate", "25", files=["ib_write_bw.txt", "ib_write_lat.txt"])
    assert code in (ExitCode.OK, ExitCode.FAILED) and rows and {r["link_class"] for r in rows} == {"ib"}
    assert any(v["verdict"] in ("PASS", "FAIL") and "25 GB/s" in v.get("expected", "") for v in summary["verdicts"])
    code, _, _ = imported(tmp_path / "osu", "--rate", "25", files=["osu_bw.txt"])
    assert code == ExitCode.USAGE
    assert "--rate needs --link-class: the link whose ceiling it is (they do not name their link)" in capsys.readouterr().err
