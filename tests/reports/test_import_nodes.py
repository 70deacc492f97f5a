"""wirebench import keeps each figure's node and reruns what was judged (issue 54): nccl-tests' rows
are keyed to the nodes its Rank lines name (--hosts checked against them), so nightly single-node
imports of several nodes into one history hold a node against the fleet; a row's rerun carries the
run's NCCL settings and launch; --nics judges a collective across nodes against a node's ports
together; a second import without --out gets a folder of its own. ctest label: unit."""
import csv
import json
import os
import re
from pathlib import Path

from wirebench.importer.__main__ import main
from wirebench.report.__main__ import main as report_main
from wirebench.report.extra import parse
from wirebench.contracts.schema import ExitCode
from report_helpers import nccl_tests_scaled

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"
REAL = DATA / "real"
RING_2_NODES = REAL / "nccl-tests-290-two-nodes-ring-export.md"  # busbw 175.8 GB/s at 8 GiB


def imported(out, files, *args):
    code = main(["wirebench import", *map(str, files), "--out", str(out), *args])
    rows = list(csv.DictReader((out / "results.csv").open())) if (out / "results.csv").exists() else []
    summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else {}
    return code, rows, summary


def on_node(text, node, factor=1.0):
    """nccl-583's sweep as another node printed it: its Rank lines on `node`, every bandwidth times
    `factor`, every time divided by it."""
    return nccl_tests_scaled(text.replace("AI-A100-Beethoven01", node), factor, ".1f")


def test_the_rank_lines_name_the_node_and_two_nodes_get_two_items(tmp_path, capsys):
    """Before: both imports had src `world`, meta.json hosts [] and one item key between them."""
    text = (REAL / "nccl-583-markdown-no-hash.txt").read_text()
    keys = {}
    for node in ("dgx01", "dgx02"):
        source = tmp_path / node / "all_reduce_perf.txt"
        source.parent.mkdir()
        source.write_text(on_node(text, node))
        imported(source.parent / "run", [source])
        summary = json.loads((source.parent / "run" / "summary.json").read_text())
        keys[node] = {v["key"] for v in summary["verdicts"]}
        assert json.loads((source.parent / "run" / "meta.json").read_text())["hosts"] == [node]
        rows = list(csv.DictReader((source.parent / "run" / "results.csv").open()))
        assert {r["src"] for r in rows} == {node} and {r["nodes"] for r in rows} == {"1"}
    assert keys["dgx01"] and not keys["dgx01"] & keys["dgx02"]


def test_hosts_that_name_other_nodes_than_the_rank_lines_are_exit_3_and_the_same_ones_a_note(tmp_path, capsys):
    source = REAL / "nccl-583-markdown-no-hash.txt"
    code, rows, _ = imported(tmp_path / "a", [source], "--hosts", "dgx07")
    assert code == ExitCode.USAGE and not rows
    err = capsys.readouterr().err
    assert "its Rank lines say it ran on AI-A100-Beethoven01, --hosts says dgx07" in err
    code, rows, _ = imported(tmp_path / "b", [source], "--hosts", "AI-A100-Beethoven01.cluster.local")
    assert {r["src"] for r in rows} == {"AI-A100-Beethoven01"}
    notes = json.loads((tmp_path / "b" / "meta.json").read_text())["notes"]
    assert any("--hosts AI-A100-Beethoven01.cluster.local names the same node(s)" in n for n in notes), notes


def test_five_nodes_nightly_imports_into_one_history_name_the_slow_node_against_the_fleet(tmp_path, capsys):
    """Single-node nccl-tests imports of five nodes, a night apart, into one history: dgx04's
    all_reduce 15% below the other nodes' is a WARN naming the fleet; the others are not."""
    text = (REAL / "nccl-583-markdown-no-hash.txt").read_text()
    history, night = tmp_path / "history.sqlite", 1_780_000_000
    for n, (node, factor) in enumerate((("dgx01", 1.0), ("dgx02", 0.99), ("dgx03", 1.01), ("dgx04", 0.85),
                                        ("dgx05", 0.995))):
        source = tmp_path / node / "all_reduce_perf.txt"
        source.parent.mkdir()
        source.write_text(on_node(text, node, factor))
        os.utime(source, (night + n * 86400, night + n * 86400))
        imported(source.parent / "run", [source], "--link-class", "nvlink", "--rate", "230")  # all above 80%
        capsys.readouterr()
        report_main(["wirebench report", str(source.parent / "run"), "--history", str(history)])
        out = capsys.readouterr().out
        if node == "dgx04":
            assert "fleet: 15% below the median" in out and "on 3 other nodes of the history" in out, out
        else:
            assert "fleet:" not in out, (node, out)


def test_a_rerun_carries_the_runs_nccl_settings_and_launch(tmp_path):
    """nccl-tests#293: -x NCCL_NET_GDR_LEVEL=2 -x NCCL_SHM_DISABLE=1 on 2 nodes, one rank each. Before:
    `mpirun -np 2 all_reduce_perf ...`, neither setting nor the rank a node."""
    _, rows, _ = imported(tmp_path / "run", [REAL / "nccl-tests-293-nccl-info-interleaved.txt"])
    last = rows[-1]
    assert last["src"] == "test1,test2" and last["nodes"] == "2"
    assert last["rerun"] == ("mpirun -np 2 -N 1 -x NCCL_DEBUG=INFO -x NCCL_NET_GDR_LEVEL=2 -x NCCL_SHM_DISABLE=1 "
                             "all_reduce_perf -b 1073741824 -e 1073741824 -d float -o sum")
    items = parse(last["extra"])
    assert (items["NCCL_NET_GDR_LEVEL"], items["NCCL_SHM_DISABLE"]) == ("2", "1") and "NCCL_DEBUG" not in items


def with_largest_busbw(tmp_path, busbw, name="healthy"):
    """#290's two-node Ring sweep with its 8 GiB row's busbw (both placements) at `busbw`."""
    healthy = tmp_path / f"{name}-{busbw}.md"
    healthy.write_text(RING_2_NODES.read_text().replace("175.80", busbw))
    return healthy


def judged(summary):
    return [v["verdict"] for v in summary["verdicts"] if v["verdict"] != "DATA"]


def test_a_two_node_ring_is_held_against_the_nodes_ports_together(tmp_path, capsys):
    """The issue's case: 175.8 GB/s on 2 nodes of 8 H100 with NCCL_ALGO=RING. Before: NOT JUDGED, or
    351.5% of one port with --rate 50. Against 8 x 400G NDR, 400 GB/s, healthy from the NIC
    aggregate's 87% (suites/ceilings.csv nics_ring): a FAIL at 44%."""
    code, rows, summary = imported(tmp_path / "run", [RING_2_NODES], "--nics", "8x400G")
    assert code == ExitCode.FAILED
    assert {r["link_class"] for r in rows} == {"ib"} and rows[-1]["src"] == "gpu-node-1,gpu-node-2"
    assert judged(summary) == ["FAIL", "FAIL"]
    out = capsys.readouterr().out
    assert "175.8 GB/s (44.0% of the ceiling) vs expected >= 348 GB/s (87% of the 400 GB/s ceiling)" in out, out
    assert "NCCL_ALGO=RING: busbw is what a node's ports carry together, 8 x IB NDR 400 Gb/s: 50 GB/s a port" in out
    assert "suites/ceilings.csv, nics_ring ib: " in out


def test_published_healthy_ring_figures_pass_and_sick_ones_fail(tmp_path, capsys):
    """Healthy figures of NCCL rings over a node's NICs, as their maintainers publish them, PASS;
    the sick ones FAIL. Before: 372 GB/s (46.5 GB/s a NIC) was a WARN, PASS starting at 386 GB/s
    (the NDR port's 92% and the 5% band above it). Each output is #290's two-node Ring paste
    (NVIDIA/nccl-tests#290, 2 nodes of 8 H100, NCCL_ALGO=RING exported) at the figure named:
    - 368 and 384 GB/s: #290, the maintainer's "For NDR @ 400Gbps you should see 46-48GB/s per NIC";
    - 372 GB/s: 46.5 GB/s a NIC, inside that range;
    - 396 GB/s: NVIDIA/nccl-tests#319, "up to ~396GB/s with the RING protocol" over 8 CX7 NICs;
    - 192 GB/s over 8x 200G HDR: NVIDIA/nccl#812, "8x200Gbit/s IB cards and we measure 192GB/s";
    - sick: #290's own 175.8 GB/s; 60 GB/s over 8x 100G (NVIDIA/nccl#812: "a little low for
      8x100Gbit/s NICs"); 336 GB/s, one NIC of 8 down (7 x 48)."""
    for busbw, nics, verdict in (("368.00", "8x400G", "PASS"), ("372.00", "8x400G", "PASS"), ("384.00", "8x400G", "PASS"),
                                 ("396.00", "8x400G", "PASS"), ("192.00", "8x200G", "PASS"),
                                 ("175.80", "8x400G", "FAIL"), ("60.00", "8x100G", "FAIL"), ("336.00", "8x400G", "FAIL")):
        source = with_largest_busbw(tmp_path, busbw, nics)
        _, _, summary = imported(tmp_path / f"{nics}-{busbw}", [source], "--nics", nics)
        assert judged(summary) == [verdict, verdict], (busbw, nics, summary["verdicts"])
    # a port's own figure keeps the port's 92%: the aggregate's fraction is no looser bound for one NIC
    assert "healthy from 92%" in open(tmp_path / "8x400G-368.00" / "suite.json").read()


def test_report_takes_the_nodes_nics_and_gpu_model_as_import_does(tmp_path, capsys):
    """`wirebench report RUN --nics 8x400G --gpu-model H100-SXM`: an import made without --nics is
    judged as with it. Before: report had no --nics, the rows NOT JUDGED."""
    run = tmp_path / "run"
    imported(run, [with_largest_busbw(tmp_path, "372.00")])
    assert judged(json.loads((run / "summary.json").read_text())) == ["NOT JUDGED", "NOT JUDGED"]
    capsys.readouterr()
    assert report_main(["wirebench report", str(run), "--nics", "8x400G", "--gpu-model", "H100-SXM"]) == ExitCode.OK
    summary = json.loads((run / "summary.json").read_text())
    assert judged(summary) == ["PASS", "PASS"]
    reason = next(v["reason"] for v in summary["verdicts"] if v["verdict"] == "PASS")
    assert "8 x IB NDR 400 Gb/s: 50 GB/s a port (slower than a H100-SXM GPU's NVLink: 18 x 25 GB/s" in reason
    assert "source: wirebench report --nics 8x400G" in reason
    # a PCIe part's ring runs over PCIe inside its node: the ports do not bound it, it is not judged against them
    report_main(["wirebench report", str(run), "--nics", "8x400G", "--gpu-model", "NVIDIA H100 PCIe"])
    assert judged(json.loads((run / "summary.json").read_text())) == ["NOT JUDGED", "NOT JUDGED"]
    capsys.readouterr()
    # the GPU model alone (issue 57: its copies' ceilings) gives a collective across nodes none
    report_main(["wirebench report", str(run), "--gpu-model", "H100-SXM"])
    assert judged(json.loads((run / "summary.json").read_text())) == ["NOT JUDGED", "NOT JUDGED"]
    capsys.readouterr()
    assert report_main(["wirebench report", str(run), "--nics", "8x300G"]) == ExitCode.USAGE
    assert "wirebench report --nics 8x300G: suites/ceilings.csv has no ib port of 300 Gb/s" in capsys.readouterr().err


def test_a_platform_profile_alone_judges_a_collective_across_nodes(tmp_path, capsys):
    """suites/profiles/h100-sxm-8gpu.yaml's `nics:` (8x 400G ConnectX-7, its vendor's and Azure's
    documents): `--profile h100-sxm-8gpu` alone holds a 2-node Ring against the ports together.
    Before: NOT JUDGED ("no ceiling")."""
    for busbw, verdict in (("372.00", "PASS"), ("175.80", "FAIL")):
        run = tmp_path / busbw
        imported(run, [with_largest_busbw(tmp_path, busbw)])
        report_main(["wirebench report", str(run), "--profile", "h100-sxm-8gpu"])
        summary = json.loads((run / "summary.json").read_text())
        ring = [v for v in summary["verdicts"] if v["bench"] == "coll" and v["verdict"] != "DATA"]
        assert [v["verdict"] for v in ring] == [verdict, verdict], busbw
        assert "source: profile h100-sxm-8gpu: nics 8x400G (Microsoft Learn, ND H100 v5" in ring[0]["reason"]


def test_two_nodes_without_ring_are_not_held_to_the_ports_and_say_why(tmp_path, capsys):
    """nebius/soperator#428: 477.8 GB/s on 2 nodes, NCCL's own pick (its tree goes beyond the ports'
    400 GB/s): not judged against --nics, the note says why and what to run."""
    _, rows, summary = imported(tmp_path / "run", [REAL / "soperator-428-srun-markdown.md"], "--nics", "8x400G")
    largest = [v for v in summary["verdicts"] if v["verdict"] != "DATA"]
    assert largest and all(v["verdict"] == "NOT JUDGED" for v in largest)
    notes = json.loads((tmp_path / "run" / "meta.json").read_text())["notes"]
    assert any("NCCL on two nodes without NCCL_ALGO=Ring" in n for n in notes), notes
    assert rows[-1]["rerun"].startswith("mpirun -np 16 -N 8 all_reduce_perf -b 8589934592")


def test_rerunning_a_ring_sweep_is_judged_against_the_same_algorithm(tmp_path, capsys):
    """What the rerun prints (its command line, the same ranks, its one size) imports with the same
    settings and is held to the same ceiling: it reproduces the judgement. Before: the rerun had no
    NCCL_ALGO, so NCCL's tree would have run."""
    _, rows, summary = imported(tmp_path / "first", [RING_2_NODES], "--nics", "8x400G")
    last = rows[-1]
    assert last["rerun"] == ("mpirun -np 16 -N 8 -x NCCL_ALGO=RING -x NCCL_IB_AR_THRESHOLD=0 "
                             "-x NCCL_IB_PCI_RELAXED_ORDERING=1 all_reduce_perf -b 8589934592 -e 8589934592 -d float "
                             "-o sum")
    text = RING_2_NODES.read_text()
    header = text[text.index("# nThread"):text.index("   536870912")]
    row_line = next(l for l in text.splitlines() if l.strip().startswith("8589934592"))
    rerun = tmp_path / "rerun.txt"
    rerun.write_text(f"$ {last['rerun']}\n{header.replace('minBytes 536870912', 'minBytes 8589934592')}{row_line}\n")
    _, again, summary_again = imported(tmp_path / "again", [rerun], "--nics", "8x400G")
    assert parse(again[-1]["extra"])["NCCL_ALGO"] == "RING" and again[-1]["rerun"] == last["rerun"]
    first = [(v["verdict"], v["expected"]) for v in summary["verdicts"] if v["verdict"] != "DATA"]
    second = [(v["verdict"], v["expected"]) for v in summary_again["verdicts"] if v["verdict"] != "DATA"]
    assert second == first


def test_nics_that_the_ceilings_database_does_not_know_are_exit_3(tmp_path, capsys):
    code, _, _ = imported(tmp_path / "run", [RING_2_NODES], "--nics", "8x300G")
    assert code == ExitCode.USAGE and "suites/ceilings.csv has no ib port of 300 Gb/s" in capsys.readouterr().err


def test_a_second_import_without_out_gets_a_folder_of_its_own(tmp_path, monkeypatch, capsys):
    """Before: the second import into the default folder was refused (its results.csv exists)."""
    monkeypatch.chdir(tmp_path)
    source = DATA / "all_reduce_perf.txt"
    assert main(["wirebench import", str(source), "--link-class", "nvlink", "--rate", "370"]) == ExitCode.OK
    assert main(["wirebench import", str(source), "--link-class", "nvlink", "--rate", "370"]) == ExitCode.OK
    folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(folders) == 2 and all(re.fullmatch(r"import-\d{8}T\d{6}Z(-\d+)?", f) for f in folders), folders
    assert all((tmp_path / "runs" / f / "results.csv").exists() for f in folders)


def _rows_and_notes(out):
    rows = list(csv.DictReader((out / "results.csv").open()))
    return rows, json.loads((out / "meta.json").read_text())


def test_osu_takes_each_ranks_node_from_the_launchers_tags(tmp_path):
    """osu_latency under `mpirun -prepend-pattern '[%h:%r] '` names each rank's host: the pair's
    endpoints are dgx01/rank0 -> dgx02/rank1 without --hosts. Before: rank0 -> rank1, hosts []."""
    tagged = tmp_path / "osu_latency.txt"
    tagged.write_text("".join(f"[dgx0{1 + (n % 2)}:{n % 2}] {line}\n"
                              for n, line in enumerate((DATA / "osu_latency.txt").read_text().splitlines())))
    imported(tmp_path / "run", [tagged], "--link-class", "ib", "--rate", "50")
    rows, meta = _rows_and_notes(tmp_path / "run")
    assert {(r["src"], r["dst"], r["nodes"]) for r in rows} == {("dgx01/rank0", "dgx02/rank1", "2")}
    assert meta["hosts"] == ["dgx01", "dgx02"]


def test_an_osu_collectives_src_is_its_communicators_nodes_from_srun_labels(tmp_path):
    """srun -l hostname beside osu_allreduce (4 ranks, 2 a node): src n1,n2 in rank order, its ranks
    from the labels. Before: src `world`, no ranks, no busbw."""
    labelled = tmp_path / "osu_allreduce.txt"
    labelled.write_text("$ srun -l hostname\n0: n1\n1: n1\n2: n2\n3: n2\n$ srun -l osu_allreduce\n" +
                        "".join(f"0: {line}\n" for line in (DATA / "osu_allreduce.txt").read_text().splitlines()))
    imported(tmp_path / "run", [labelled])
    rows, meta = _rows_and_notes(tmp_path / "run")
    assert {(r["src"], r["ranks"], r["nodes"]) for r in rows} == {("n1,n2", "4", "2")}
    assert all(r["busbw_GBps"] for r in rows) and meta["hosts"] == ["n1", "n2"]


def test_imb_collectives_name_their_nodes_and_hosts_that_disagree_are_exit_3(tmp_path, capsys):
    """IMB-MPI1 with --hosts: Allreduce's src is the nodes, not `world`; tags naming other nodes
    than --hosts: exit 3 quoting both."""
    imported(tmp_path / "run", [DATA / "IMB-MPI1-collectives.txt"], "--hosts", "node1,node2")
    rows, _ = _rows_and_notes(tmp_path / "run")
    allreduce = [r for r in rows if r["op"] == "all_reduce"]
    assert allreduce and {(r["src"], r["nodes"]) for r in allreduce} == {("node1,node2", "2")}
    assert {(r["src"], r["dst"]) for r in rows if r["case"] == "pingpong"} == {("node1/rank0", "node2/rank1")}
    tagged = tmp_path / "imb.txt"
    tagged.write_text("".join(f"[cn{n % 2}:{n % 2}] {line}\n"
                              for n, line in enumerate((DATA / "IMB-MPI1-collectives.txt").read_text().splitlines())))
    code, _, _ = imported(tmp_path / "bad", [tagged], "--hosts", "node1,node2")
    assert code == ExitCode.USAGE
    assert "according to the launcher's tags it ran on cn0, cn1, --hosts says node1,node2" in capsys.readouterr().err


def test_perftest_endpoints_are_node_ranks_from_the_pasted_prompt_and_server(tmp_path):
    """ib_write_bw pasted with the prompt it was typed at and its server: node1/rank0 -> node2/rank1
    (schema/endpoints.csv). Before: bare `client` and `server`, or `node1` with --hosts."""
    pasted = tmp_path / "ib_write_bw.txt"
    pasted.write_text("root@node1:~# ib_write_bw -d mlx5_0 -s 1048576 node2\n" + (DATA / "ib_write_bw.txt").read_text())
    imported(tmp_path / "run", [pasted], "--link-class", "ib", "--rate", "25")
    rows, meta = _rows_and_notes(tmp_path / "run")
    assert {(r["src"], r["dst"], r["nodes"]) for r in rows} == {("node1/rank0", "node2/rank1", "2")}
    assert meta["hosts"] == ["node1", "node2"]


def test_where_nothing_names_a_node_a_note_says_so_and_none_is_invented(tmp_path):
    """Open MPI's --tag-output (`[1,0]<stdout>:`) names no host: the rows keep ranks and meta.json's
    notes (which reach the report) say how to name them."""
    tagged = tmp_path / "osu_latency.txt"
    tagged.write_text("".join(f"[1,0]<stdout>:{line}\n" for line in (DATA / "osu_latency.txt").read_text().splitlines()))
    imported(tmp_path / "run", [tagged], "--link-class", "ib", "--rate", "50")
    rows, meta = _rows_and_notes(tmp_path / "run")
    assert {(r["src"], r["dst"]) for r in rows} == {("rank0", "rank1")} and meta["hosts"] == []
    assert any("OSU prints no host and neither the launcher's tags nor --hosts name one" in n for n in meta["notes"])
    assert "OSU prints no host" in (tmp_path / "run" / "report.md").read_text()


def test_nvbandwidth_keys_its_rows_to_its_host_line_and_checks_hosts_against_it(tmp_path, capsys):
    """nvbandwidth 0.8 prints its host alone before `Device 0:` (output.cpp printGPUs; the lent H200's
    `vm` here), --json in each device's entry. Before: --hosts named another node silently and won."""
    h200 = REAL / "nvbandwidth-h200-host_to_device.txt"
    _, rows, _ = imported(tmp_path / "run", [h200])
    assert rows and {r["dst"].split("/")[0] for r in rows} == {"vm"}
    code, rows, _ = imported(tmp_path / "other", [h200], "--hosts", "dgx07")
    assert code == ExitCode.USAGE and not rows
    assert "according to its host line it ran on vm, --hosts says dgx07" in capsys.readouterr().err
    _, rows, _ = imported(tmp_path / "same", [h200], "--hosts", "vm.cluster")
    assert {r["dst"].split("/")[0] for r in rows} == {"vm"}
    code, _, _ = imported(tmp_path / "json", [DATA / "nvbandwidth.json"], "--hosts", "dgx01")
    assert code == ExitCode.USAGE and "according to its GPU Device list it ran on dgx02, --hosts says dgx01" in capsys.readouterr().err
