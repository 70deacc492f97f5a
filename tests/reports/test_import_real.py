"""wirebench import on outputs nobody here wrote to suit it (issue 47): tools' outputs captured on
real machines and outputs reconstructed from public issue threads and from the tools' own printf
formats, with the noise people paste around them. tests/data/imports/real/ORIGINS.md says where each
comes from. ctest label: unit."""
import csv
import json
import re
from pathlib import Path

import pytest

from wirebench.importer.__main__ import main
from wirebench.report.__main__ import main as report_main
from wirebench.report.extra import parse, row_identity
from wirebench.contracts.schema import ExitCode
from report_helpers import nccl_tests_scaled

REAL = Path(__file__).resolve().parents[1] / "data" / "imports" / "real"


def imported(tmp_path, files, *args):
    out = tmp_path / "run"
    code = main(["wirebench import", *[str(f) for f in files], "--out", str(out), *args])
    rows = list(csv.DictReader((out / "results.csv").open())) if (out / "results.csv").exists() else []
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return code, rows, summary


def nvbandwidth_matrix(test, title, matrix, sum_=None):
    """One testcase as nvbandwidth 0.8 prints it (output.cpp: the title, then the matrix with a
    2-wide row label and setw(10) fixed(2) cells, N/A where nothing was measured; `SUM test`)."""
    lines = [f"Running {test}.", title, "  " + "".join(f"{c:>10d}" for c in range(len(matrix[0])))]
    lines += [f"{r:2d}" + "".join(f"{v:>10s}" for v in row) for r, row in enumerate(matrix)]
    figures = [float(v) for row in matrix for v in row if v != "N/A"]
    return "\n".join(lines + ["", f"SUM {test} {sum_ if sum_ is not None else sum(figures):.2f}", ""])


NVBANDWIDTH_BANNER = ("nvbandwidth Version: v0.8\nBuilt from Git version: v0.8\n\nCUDA Runtime Version: 12080\n"
                      "CUDA Driver Version: 12080\nDriver Version: 570.124.06\n\ndgx07\n" +
                      "".join(f"Device {i}: NVIDIA H100 80GB HBM3 (00000000:{0x18 + 16 * i:02x}:00)\n" for i in range(8))
                      + "\n")


def eight_gpu_matrix(slow_row, slow_column, slow="181.40", healthy="389.50"):
    return [["N/A" if r == c else (slow if (r, c) == (slow_row, slow_column) else healthy) for c in range(8)]
            for r in range(8)]


def test_nvbandwidth_on_the_h200_a_local_copy_and_a_host_copy_named_by_its_host_line(tmp_path):
    """Captured on the lent H200: the device-local copy is wb-p2p's ce/write gpu0 -> gpu0, the host
    copy wb-host's h2d_pinned from the GPU's own NUMA node; the node's name is nvbandwidth's own
    line before `Device 0:`. Before: the local copy was 0 rows ("nothing was measured")."""
    code, rows, _ = imported(tmp_path, [REAL / "nvbandwidth-h200-device_local_copy.txt",
                                        REAL / "nvbandwidth-h200-host_to_device.txt"])
    got = [(r["bench"], r["case"], r["link_class"], r["src"], r["dst"], r["algbw_GBps"]) for r in rows]
    assert got == [("p2p", "ce/write", "device", "vm/gpu0", "vm/gpu0", "2085.44"),
                   ("host", "h2d_pinned", "pcie", "vm/numa0", "vm/gpu0", "55.42")]
    assert parse(rows[1]["extra"])["numa"] == "local"


def test_nvbandwidth_host_copies_meet_a_profiles_floor(tmp_path, capsys):
    """A platform profile's h2d_pinned floor judges nvbandwidth's host_to_device_memcpy_ce (before:
    "not measured (0 rows)")."""
    imported(tmp_path, [REAL / "nvbandwidth-h200-host_to_device.txt"])
    capsys.readouterr()
    report_main(["wirebench report", str(tmp_path / "run"), "--profile", "h100-sxm-8gpu"])
    out = capsys.readouterr().out
    assert "profile h100-sxm-8gpu: host-to-device copy (copy engine, pinned): PASS (1 rows, worst 55.42 GB/s" in out


def test_nvbandwidth_write_ce_goes_from_the_row_to_the_column(tmp_path, capsys):
    """write_ce's title says `GPU(row) <- GPU(column)` but its source copies row -> column with the
    row's GPU pushing (testcases_ce.cpp: value(src, peer) = doMemcpy(srcBuffer, peerBuffer)). All 56
    pairs are ce/write; the slow cell at row 5, column 2 is gpu5 -> gpu2. Before: 56 ce/read rows and
    gpu2 -> gpu5."""
    text = NVBANDWIDTH_BANNER + nvbandwidth_matrix("device_to_device_memcpy_write_ce",
                                                   "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
                                                   eight_gpu_matrix(5, 2))
    path = tmp_path / "nvbandwidth-write.txt"
    path.write_text(text)
    code, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink", "--rate", "450")
    assert len(rows) == 56 and {r["case"] for r in rows} == {"ce/write"}
    slow = next(r for r in rows if r["algbw_GBps"] == "181.4")
    assert (slow["src"], slow["dst"]) == ("dgx07/gpu5", "dgx07/gpu2")
    assert code == ExitCode.FAILED and "dgx07/gpu5 -> dgx07/gpu2" in capsys.readouterr().out


def test_nvbandwidth_read_ce_goes_from_the_column_to_the_row(tmp_path):
    """read_ce's title says `GPU(row) -> GPU(column)`; its source copies the peer (column) into the
    row's buffer, the row's GPU pulling: the slow cell at row 1, column 6 is gpu6 -> gpu1, ce/read."""
    path = tmp_path / "nvbandwidth-read.txt"
    path.write_text(NVBANDWIDTH_BANNER + nvbandwidth_matrix("device_to_device_memcpy_read_sm",
                                                            "memcpy SM GPU(row) -> GPU(column) bandwidth (GB/s)",
                                                            eight_gpu_matrix(1, 6)))
    _, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink")
    slow = next(r for r in rows if r["algbw_GBps"] == "181.4")
    assert (slow["case"], slow["src"], slow["dst"]) == ("sm/read", "dgx07/gpu6", "dgx07/gpu1")


def test_nvbandwidth_bidirectional_pairs_take_the_total_and_aggregates_name_every_gpu(tmp_path, capsys):
    """device_to_device_bidirectional_memcpy_write_ce prints Write1, Write2 and Total matrices: the
    Total is the pair's figure (wb-p2p's ce/write/bidir); all_to_one_write_ce's 1 x 8 matrix is each
    GPU receiving from all the others at once (wb-p2p's all-> destination)."""
    bidir = [nvbandwidth_matrix("device_to_device_bidirectional_memcpy_write_ce",
                                f"memcpy CE GPU(row) <-> GPU(column) {part} bandwidth (GB/s)",
                                eight_gpu_matrix(0, 3, healthy=figure, slow=figure))
             for part, figure in (("Write1", "370.10"), ("Write2", "370.20"), ("Total", "740.30"))]
    all_to_one = nvbandwidth_matrix("all_to_one_write_ce", "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)",
                                    [["2840.00"] * 8])
    path = tmp_path / "nvbandwidth-bidir.txt"
    path.write_text(NVBANDWIDTH_BANNER + "\n".join(bidir) + "\n" + all_to_one)
    _, rows, _ = imported(tmp_path, [path], "--link-class", "nvlink")
    pairs = [r for r in rows if r["case"] == "ce/write/bidir"]
    assert len(pairs) == 56 and {(r["algbw_GBps"], r["direction"]) for r in pairs} == {("740.3", "bidir")}
    gathered = [r for r in rows if r["case"] == "ce/write/all_to_one"]
    assert [(r["src"], r["dst"]) for r in gathered][:2] == [("dgx07/gpu0", "all->"), ("dgx07/gpu1", "all->")]


def rows_of(tmp_path, name, *args):
    code, rows, summary = imported(tmp_path, [REAL / name], *args)
    return code, rows, summary


def test_nccl_tests_with_its_hashes_lost_to_markdown_and_no_root_column(tmp_path, capsys):
    """NVIDIA/nccl#583: the paste's `#` header lines became Markdown headings (the `#` gone), the
    command line above; nccl-tests before 2.11 printed no root column and #wrong as 0e+00, so a
    time of 5 digits or more must not be read as a root."""
    code, rows, _ = rows_of(tmp_path, "nccl-583-markdown-no-hash.txt", "--link-class", "nvlink", "--rate", "300")
    assert len(rows) == 58 and {r["op"] for r in rows} == {"all_reduce"}
    assert {(r["ranks"], r["nodes"], r["status"]) for r in rows} == {("8", "1", "OK")}
    assert max(int(r["bytes"]) for r in rows) == 8589934592
    out = capsys.readouterr().out
    assert "from the command line pasted with the table" in out and "228.8 GB/s (76.3% of the ceiling)" in out


def test_nccl_tests_built_without_mpi_is_said_not_judged(tmp_path, capsys):
    """NVIDIA/nccl-tests#107: mpirun started an all_reduce_perf built without MPI=1 on two hosts:
    each process printed its own header as rank 0 of one and its own table (busbw 0). Nothing
    crossed the network: every row is a SKIP that says why, not a bandwidth of 0."""
    code, rows, _ = rows_of(tmp_path, "nccl-tests-107-mpi0-two-hosts.txt")
    assert rows and {r["status"] for r in rows} == {"SKIP"}
    assert "rank 0 started 2 times (ip-172-31-20-228, ip-172-31-22-230)" in rows[0]["reason"]
    assert "make MPI=1" in rows[0]["reason"]
    assert code == ExitCode.UNJUDGED  # nothing judged: never healthy (issue 54)


def test_nccl_tests_after_ssh_warnings_and_markdown_bold_on_one_gpu(tmp_path, capsys):
    """NVIDIA/nccl-tests#249: the post's bold labels, the mpirun line, ssh's `Permanently added`
    warning, the header without `#`: one A10G, so a SKIP (busbw 0 is all one GPU can show)."""
    code, rows, _ = rows_of(tmp_path, "nccl-tests-249-ssh-warning-one-gpu.txt")
    assert len(rows) == 44 and {r["status"] for r in rows} == {"SKIP"} and rows[0]["op"] == "all_reduce"
    assert "one GPU" in rows[0]["reason"]


def test_nccl_tests_among_nccl_info_lines_takes_ncclS_banner_version(tmp_path):
    """NVIDIA/nccl-tests#293: NCCL INFO lines and `NCCL version 2.21.5+cuda12.4` between the header
    and the table, a root prompt before mpirun's -x options."""
    code, rows, _ = rows_of(tmp_path, "nccl-tests-293-nccl-info-interleaved.txt")
    assert len(rows) == 56 and {(r["ranks"], r["nodes"]) for r in rows} == {("2", "2")}
    assert parse(rows[0]["extra"])["nccl_version"] == "2.21.5"


def test_nccl_tests_with_open_mpis_tags_even_inside_a_row(tmp_path):
    """mpirun --tag-output prefixes every line with [jobid,rank]<stdout>: (Open MPI's format), and
    another rank's tag can land inside a row where outputs interleave."""
    code, rows, _ = rows_of(tmp_path, "openmpi-tag-output-interleaved.txt")
    assert len(rows) == 16 and {r["status"] for r in rows} == {"OK"}
    assert sorted({int(r["bytes"]) for r in rows}) == [1048576 << i for i in range(8)]


def test_nccl_tests_in_a_markdown_comment_with_its_srun_in_backticks(tmp_path):
    """nebius/soperator#428: the srun command in backticks in the prose, the output fenced; 16
    ranks on 2 nodes; all_reduce_perf_mpi names the collective."""
    code, rows, _ = rows_of(tmp_path, "soperator-428-srun-markdown.md")
    assert len(rows) == 10 and {(r["op"], r["ranks"], r["nodes"]) for r in rows} == {("all_reduce", "16", "2")}


def test_a_table_with_nothing_naming_its_collective_is_read_from_its_columns(tmp_path, capsys):
    """No command line, no file name: a reduction without a root whose count is the whole size and
    whose in-place results were checked (sendrecv's are not) is all_reduce, and the import says
    where that came from."""
    text = (REAL / "nccl-tests-293-nccl-info-interleaved.txt").read_text().split("\n", 1)[1]
    path = tmp_path / "paste.txt"
    path.write_text(text)
    code, rows, _ = imported(tmp_path, [path])
    assert len(rows) == 56 and {r["op"] for r in rows} == {"all_reduce"}
    assert "from the table's columns" in capsys.readouterr().out


def test_a_two_pod_kubernetes_run_is_two_gpus_on_two_nodes(tmp_path):
    """NVIDIA/nccl-tests#248: sendrecv_perf between two Kubernetes pods, one GH200 each, both
    `device 0`, NCCL's INFO lines (its version among them) between header and table. Before: a
    SKIP "one GPU" (issue 47)."""
    code, rows, _ = rows_of(tmp_path, "nccl-tests-248-k8s-two-pods-sendrecv.md")
    assert len(rows) == 56 and {(r["op"], r["ranks"], r["nodes"], r["status"]) for r in rows} == {
        ("send_recv", "2", "2", "OK")}
    assert json.loads((tmp_path / "run" / "meta.json").read_text())["versions"]["nccl"] == "2.22.3"


def test_a_launcher_log_indented_by_a_test_runner_keeps_its_two_pods(tmp_path, capsys):
    """aws/aws-k8s-tester#464: a Go test's log of an MPIJob's launcher, every line indented before
    Open MPI's `[1,0]<stdout>:` tag, ssh's warnings, NCCL's INFO lines of both ranks; no command
    line names the collective. Before: 48 SKIP "one GPU" (the indented header lines were not read)."""
    code, rows, _ = rows_of(tmp_path, "aws-k8s-tester-464-mpijob-launcher-log.txt")
    assert len(rows) == 48 and {(r["op"], r["ranks"], r["nodes"], r["status"]) for r in rows} == {
        ("all_reduce", "2", "2", "OK")}
    assert "from the table's columns (a reduction without a root, each rank's count the whole size, its in-place " \
           "results checked)" in capsys.readouterr().out
    assert json.loads((tmp_path / "run" / "meta.json").read_text())["versions"]["nccl"] == "2.18.5"


def test_sendrecv_and_all_reduce_print_alike_and_the_columns_tell_them_apart(tmp_path, capsys):
    """nccl-tests prints `sum -1` and the whole size as the count for sendrecv as for all_reduce
    (sendrecv.cu); sendrecv does not check its in-place result (#wrong N/A): without its command
    line the #248 table is sendrecv, not all_reduce. With nothing checked (-c 0) two ranks cannot
    tell them apart: refused, saying so."""
    text = (REAL / "nccl-tests-248-k8s-two-pods-sendrecv.md").read_text()
    path = tmp_path / "paste.txt"
    path.write_text(text.replace("mpirun -np 2", "launched"))
    _, rows, _ = imported(tmp_path, [path])
    assert {r["op"] for r in rows} == {"send_recv"} and "sendrecv's" in capsys.readouterr().out
    unchecked = tmp_path / "unchecked.txt"
    unchecked.write_text(re.sub(r" 0( +\S+ +\S+ +\S+ +)N/A$", r"N/A\1N/A", path.read_text(), flags=re.M))
    code = main(["wirebench import", str(unchecked), "--out", str(tmp_path / "c")])
    assert code == ExitCode.USAGE
    assert "all_reduce and sendrecv print the same columns on 2 rank(s)" in capsys.readouterr().err


def test_a_run_that_died_before_its_table_is_refused_naming_the_first_line_that_stopped_it(tmp_path, capsys):
    """nccl-tests' header, then mpirun's words on a rank killed before the first size (as Open MPI
    prints them): no table, so exit 3 naming the first line that is not nccl-tests'."""
    path = tmp_path / "all_reduce_perf.txt"
    path.write_text("ubuntu@node1:~$ mpirun -np 2 ./all_reduce_perf -b 8 -e 1G\n"
                    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 "
                    "agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
                    "#  Rank  0 Group  0 Pid   3595 on      node1 device  0 [0x81] NVIDIA A100-PCIE-40GB\n"
                    "#  Rank  1 Group  0 Pid   4017 on      node2 device  0 [0x81] NVIDIA A100-PCIE-40GB\n"
                    "--------------------------------------------------------------------------\n"
                    "mpirun noticed that process rank 1 with PID 0 on node node2 exited on signal 9 (Killed).\n")
    code, rows, _ = imported(tmp_path, [path])
    assert code == ExitCode.USAGE and not rows
    err = capsys.readouterr().err
    assert f"{path}:1: no line of nccl-tests' table" in err and "ubuntu@node1" in err


def _night(text, factor, nccl, jitter):
    """The #293 sweep as another night printed it: NCCL's banner set to `nccl`, every bandwidth
    times `factor` (and `jitter`, a night's noise), every time divided by it."""
    return nccl_tests_scaled(text.replace("NCCL version 2.21.5+cuda12.4", f"NCCL version {nccl}+cuda12.4"),
                             factor * jitter)


def test_the_same_sweep_under_two_nccl_versions_is_one_item_and_its_drop_names_the_change(tmp_path, capsys):
    """issue 47: NCCL's version is what the sweep ran with, not what it is. The same sweep under NCCL
    2.21.5 and 2.23.4 (busbw 16% lower) is one item: compare FAILs it naming the version change, and
    the history's regression says that night's change."""
    import os
    from wirebench.history.__main__ import main as history_main
    from wirebench.report.compare import main as compare_main
    text = (REAL / "nccl-tests-293-nccl-info-interleaved.txt").read_text()
    runs, night = [], 1_780_000_000  # 2026-05-28, a night apart each
    for n, (factor, nccl) in enumerate([(1.0, "2.21.5")] * 6 + [(0.84, "2.23.4")] * 2):
        source = tmp_path / f"night{n}" / "all_reduce_perf.txt"
        source.parent.mkdir()
        source.write_text(_night(text, factor, nccl, 1 + 0.004 * ((n * 7) % 5 - 2)))
        os.utime(source, (night + n * 86400, night + n * 86400))
        # two nodes, no saved topology or --nics: measured, nothing to judge it by (issue 54: never healthy)
        assert main(["wirebench import", str(source), "--out", str(source.parent / "run")]) == ExitCode.UNJUDGED
        runs.append(source.parent / "run")
    capsys.readouterr()
    code = compare_main(["wirebench compare", str(runs[5]), str(runs[6]), "--out", str(tmp_path / "cmp")])
    out = capsys.readouterr().out
    assert code == ExitCode.FAILED and "what the measurements ran with changed: nccl_version 2.21.5 -> 2.23.4" in out
    assert "(ran with nccl_version 2.21.5 -> 2.23.4)" in out and "0 measurements" not in out
    history = tmp_path / "history.sqlite"
    assert history_main(["wirebench history", "--history", str(history), "add", *map(str, runs[:-1])]) == 0
    capsys.readouterr()
    report_main(["wirebench report", str(runs[-1]), "--history", str(history)])
    out = capsys.readouterr().out
    assert "that night's changes: NCCL 2.21.5 -> 2.23.4" in out, out


def test_one_spelling_of_each_collective_for_wb_coll_and_every_tool():
    """alltoall (nccl-tests, OSU, IMB) and sendrecv meet wb-coll's all_to_all and send_recv."""
    from wirebench import collectives
    from wirebench.importer.nccl_tests import op_from
    assert op_from("alltoall_perf.txt", None) == "all_to_all" and op_from("sendrecv_perf", None) == "send_recv"
    assert op_from("x.txt", "alltoall") == "all_to_all"
    assert collectives.canonical("Alltoall") == "all_to_all" and collectives.in_name("osu_alltoall") == "all_to_all"
    assert collectives.NCCL_TESTS_BINARY["all_to_all"] == "alltoall"


def test_osu_two_tables_of_one_test_from_a_script_looping_over_pairs(tmp_path, capsys):
    """easybuilders/easybuild-easyconfigs#25902: a script's `=== pair 0,1 run 1/1 ===` banners and
    UCX_TLS between two OSU MPI-ROCM bandwidth tables: both kept, each as its own (block=1, 2)."""
    code, rows, _ = rows_of(tmp_path, "osu-easybuild-25902-two-pairs.txt", "--hosts", "n1,n2")
    assert len(rows) == 56 and {parse(r["extra"])["block"] for r in rows} == {"1", "2"}
    big = {parse(r["extra"])["block"]: r["algbw_GBps"] for r in rows if r["bytes"] == str(1 << 27)}
    assert big == {"1": "139.9618", "2": "140.0204"}
    out = capsys.readouterr().out
    assert "2 tables of OSU's Bandwidth test in one file" in out and "UCX_TLS" in out


def test_osu_stopping_at_a_size_without_its_figure_is_an_error_at_that_size(tmp_path):
    """open-mpi/ompi#4919: the mpirun line above osu_bw's table; the paste stops at `4194304`
    without its figure: an ERROR at 4 MiB, so 2 MiB is not judged as the sweep's largest."""
    code, rows, _ = rows_of(tmp_path, "osu-ompi-4919-stops-mid-table.txt", "--hosts", "n1,n2")
    assert rows[-1]["bytes"] == "4194304" and rows[-1]["status"] == "ERROR"
    assert code == ExitCode.INFRASTRUCTURE and len(rows) == 23


def test_osu_under_srun_l_with_slurms_lines_and_crlf(tmp_path):
    """srun -l's `0: ` on every line, Slurm's queue and exit lines, CRLF line ends."""
    code, rows, _ = rows_of(tmp_path, "osu-slurm-srun-l-crlf.txt", "--hosts", "n1,n2")
    assert len(rows) == 24 and rows[0]["bytes"] == "0" and rows[0]["time_us"] == "1.71"


def test_imb_under_prun_without_its_banner(tmp_path):
    """openhpc/ohpc#207: `$ prun IMB-MPI1 PingPong`, the table without IMB's banner (MVAPICH2 on
    ConnectX-3, figures as posted)."""
    code, rows, _ = rows_of(tmp_path, "imb-ohpc-207-prun-no-banner.txt", "--hosts", "n1,n2")
    assert len(rows) == 24 and rows[0]["time_us"] == "1.59" and {r["case"] for r in rows} == {"pingpong"}


def test_imb_blocks_labelled_by_hand_with_separators_and_notes_after_rows(tmp_path, capsys):
    """intel/mpi-benchmarks#37: `Sendrecv：` and `Exchange：` above their tables (no `# Benchmarking`),
    a line of ~ under each header (not a Markdown fence), `★←Drops from here` after a row."""
    code, rows, _ = rows_of(tmp_path, "imb-37-labelled-blocks-annotated.txt", "--hosts", "n1,n2")
    assert [r["bytes"] for r in rows if r["case"] == "sendrecv"] == ["262144", "524288", "1048576", "2097152", "4194304"]
    assert len([r for r in rows if r["case"] == "exchange"]) == 5
    assert "not of IMB-MPI1's output left aside" in capsys.readouterr().out


def test_imb_4_with_its_whole_banner(tmp_path):
    """clustervision/trinity#179: IMB 4.0's banner, settings and list of benchmarks above PingPong."""
    code, rows, _ = rows_of(tmp_path, "imb-trinity-179-full-banner.txt", "--hosts", "n1,n2")
    assert len(rows) == 24 and parse(rows[0]["extra"])["tool_version"] == "4.0" and rows[0]["time_us"] == "58.74"


def test_perftest_quoted_in_markdown_with_its_prompt_and_gbits(tmp_path):
    """linux-rdma/perftest#132: a reply quoting (`> `) the client's prompt and an -a sweep printed with
    --report_gbits: the bandwidth from bytes x MsgRate, whatever the unit of its BW columns."""
    code, rows, _ = rows_of(tmp_path, "perftest-132-quoted-gbits.md", "--hosts", "node3,node1")
    assert len(rows) == 23 and rows[-1]["bytes"] == "8388608" and rows[-1]["link_class"] == "ib"
    assert float(rows[-1]["algbw_GBps"]) == pytest.approx(8388608 * 0.001470e6 / 1e9, rel=1e-6)


def test_perftest_on_the_servers_side_over_roce_for_a_duration(tmp_path):
    """linux-rdma/perftest#234: the server's `Waiting for client to connect` banner, GID lines, a
    RoCE port (`Link type : Ethernet`), one size run for -D 10 seconds."""
    code, rows, _ = rows_of(tmp_path, "perftest-234-server-roce-duration.txt", "--hosts", "s1,s2")
    assert [(r["bytes"], r["link_class"]) for r in rows] == [("65536", "roce")]
    assert float(rows[0]["algbw_GBps"]) == pytest.approx(65536 * 0.066456e6 / 1e9, rel=1e-6)


def test_perftest_inside_a_scripts_log_bidirectional_on_two_qps(tmp_path):
    """Mellanox/ngc_multinode_perf#108: the script's INFO lines and perftest's WARNING around a
    bidirectional write test on 2 QPs, --report_gbit: 400 Gb/s both ways, judged against twice the
    port's 25 GB/s."""
    code, rows, _ = rows_of(tmp_path, "perftest-ngc-108-script-bidirectional.txt", "--hosts", "h109,h108", "--rate", "25")
    assert [(r["case"], r["direction"]) for r in rows] == [("bidir_bw", "bidir")] and code == ExitCode.OK


def test_p2p_sample_pasted_from_an_editor_with_its_line_numbers(tmp_path):
    """NVIDIA/cuda-samples#230: the latency matrices alone (no banner), every line numbered by the
    editor they were copied from, inside a Markdown fence. The GPU clock's figures are the rows;
    the host clock's (`CPU`) are not. Before: refused as no known output."""
    code, rows, _ = rows_of(tmp_path, "p2p-cuda-samples-230-line-numbered-latency.md")
    by = {(r["case"], r["src"], r["dst"]): r["time_us"] for r in rows}
    assert len(rows) == 24 and {c for c, _, _ in by} == {"staged/latency", "p2p/write_latency"}
    assert (by[("p2p/write_latency", "gpu0", "gpu1")], by[("staged/latency", "gpu3", "gpu2")]) == ("2.31", "16.72")


def test_p2p_sample_run_twice_in_one_paste_with_and_without_sm_copy(tmp_path, capsys):
    """NVIDIA/nccl#814: two runs pasted one after the other, each after a note (`# Without
    --sm_copy`, `# With --sm_copy`), no banner. Each run's rows keep their number; the P2P copies
    of the --sm_copy run are a kernel's (engine=sm). Its P2P writes (9.9 GB/s) lose to copies
    staged through the host (22 GB/s): the import says so, naming the worst pair."""
    code, rows, summary = rows_of(tmp_path, "p2p-nccl-814-two-runs-sm-copy.md")
    assert len(rows) == 2 * 8 * 30
    items = [parse(r["extra"]) for r in rows]
    assert {(i["run"], i.get("engine", "ce"), r["case"].split("/")[0]) for i, r in zip(items, rows)} == {
        ("1", "ce", "staged"), ("1", "ce", "p2p"), ("2", "ce", "staged"), ("2", "sm", "p2p")}
    assert len({(r["case"], r["src"], r["dst"], row_identity(r["extra"])) for r in rows}) == len(rows)
    out = capsys.readouterr().out
    assert "2 runs of the sample" in out
    slower = "copy slower peer to peer than through host memory, the worst gpu4 -> gpu1: 9.64 GB/s P2P vs 22.39 GB/s"
    assert slower in out
    # not the console's alone: the report a reader opens later says it too (meta.json's notes)
    [note] = [n for n in summary["notes"] if slower in n]
    assert note.startswith(str(REAL / "p2p-nccl-814-two-runs-sm-copy.md"))
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Notes on the input (what reading it said)" in report and slower in report
    assert out.count(slower) == 1  # said once on the console: by the report, not also by the import
    # a GPU pair named without its host ("gpu0") is still a GPU pair to look closer at, not a network link
    assert "look closer: rerun: p2pBandwidthLatencyTest; check nvidia-smi topo -m" in out, out


def test_p2p_sample_after_shell_prompts_with_the_next_prompt_after_it(tmp_path, capsys):
    """tinygrad/open-gpu-kernel-modules#44: the prompt with `export CUDA_VISIBLE_DEVICES=0,1`, the
    run, and the next prompt pasted after the sample's NOTE, in a Markdown fence. Before: exit 3 on
    the trailing prompt."""
    code, rows, _ = rows_of(tmp_path, "p2p-tinygrad-44-prompt-two-gpus.md")
    by = {(r["case"], r["src"], r["dst"]): r for r in rows}
    assert len(rows) == 12 and by[("p2p/write", "gpu0", "gpu1")]["algbw_GBps"] == "6.6"
    assert by[("p2p/bidir", "gpu1", "gpu0")]["algbw_GBps"] == "12.88"
    assert code == ExitCode.UNJUDGED and "error" not in capsys.readouterr().err  # no ceiling for a bare gpu pair
