"""Platform profiles: loading (with file and line on bad input), floors judging the rows they match,
the worse verdict standing, floors that matched nothing said (ctest label: unit)."""
import json
import shutil
from pathlib import Path

import pytest
from lxml import etree

from wirebench.contracts.schema import ExitCode
from wirebench.report.__main__ import main
from wirebench.report.ceilings import Ceilings
from wirebench.report.document import document
from wirebench.report.outputs import junit, markdown
from wirebench.report.profiles import PROFILES, load_profile, parse_profile
from wirebench.report.results import InputError, read_results
from wirebench.report.verdicts import exit_code, floor_outcomes, judge

DATA = Path(__file__).resolve().parents[1] / "data" / "reports"
HEADER = (DATA / "basic" / "results.csv").read_text().splitlines()[0]

ROWS = [
    # line 2-3: host copies on the GPU's own NUMA node: PASS, and 49 GB/s within 5% of 48: WARN
    "host,h2d_pinned,cuda,pcie,n1/numa0,n1/gpu0,uni,copy,uint8,268435456,1,1,20,5000,4900,5100,53.69,53.69,0,numa=local,OK,",
    "host,d2h_pinned,cuda,pcie,n1/gpu0,n1/numa0,uni,copy,uint8,268435456,1,1,20,5478,5400,5500,49,49,0,numa=local,OK,",
    # line 4: the remote NUMA node is not what the floor measures
    "host,h2d_pinned,cuda,pcie,n1/numa1,n1/gpu0,uni,copy,uint8,268435456,1,1,20,9000,8900,9100,20,20,0,numa=remote,OK,",
    # line 5-7: GPU pairs: a small size (not judged), 383.5 (PASS), 330 (FAIL: below 335, though 73% of NVLink)
    "p2p,ce/write,cuda,nvlink,n1/gpu0,n1/gpu1,uni,copy,uint8,1048576,1,1,100,5,4.9,5.2,209.7,209.7,0,copies=100,OK,",
    "p2p,ce/write,cuda,nvlink,n1/gpu0,n1/gpu1,uni,copy,uint8,268435456,1,1,20,700,690,710,383.5,383.5,0,copies=1,OK,",
    "p2p,ce/write,cuda,nvlink,n1/gpu0,n1/gpu2,uni,copy,uint8,268435456,1,1,20,813,800,820,330,330,0,copies=1,OK,",
    # line 8-10: all_reduce over 8 GPUs: 8 MiB (below min_bytes), 16 GiB (a smaller size of the sweep, judged
    # because of min_bytes), 32 GiB
    "coll,out_of_place,nccl,nvlink,world,,uni,all_reduce,float32,8388608,8,1,100,60,59,61,139.8,244.7,0,iters=100,OK,",
    "coll,out_of_place,nccl,nvlink,world,,uni,all_reduce,float32,17179869184,8,1,5,62600,62000,63000,280,490,0,iters=5,OK,",
    "coll,out_of_place,nccl,nvlink,world,,uni,all_reduce,float32,34359738368,8,1,5,125200,125000,126000,280,490,0,iters=5,OK,",
]


@pytest.fixture
def run(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.csv").write_text(HEADER + "\n" + "\n".join(ROWS) + "\n")
    return run_dir


def judged(run_dir, profile):
    results = read_results(run_dir / "results.csv")
    return {v.row.line: v for v in judge(results, Ceilings.load(run_dir), profile)}, results


def test_the_shipped_profiles_load():
    names = sorted(p.stem for p in PROFILES.glob("*.yaml"))
    assert "h100-sxm-8gpu" in names and "a100-sxm-8gpu" in names
    for name in names:
        profile = load_profile(name)
        assert profile.floors and all(f.source and f.floor > 0 for f in profile.floors)
    h100 = load_profile("h100-sxm-8gpu")
    [allreduce] = [f for f in h100.floors if f.metric == "busbw_GBps"]
    assert allreduce.floor == 460 and allreduce.min_bytes == 16 << 30


def test_floors_judge_what_they_match_and_the_worse_verdict_stands(run):
    profile = load_profile("h100-sxm-8gpu")
    v, results = judged(run, profile)
    assert v[2].verdict == "PASS" and "profile h100-sxm-8gpu: algbw 53.69 GB/s against the floor 48 GB/s" in v[2].reason
    assert v[3].verdict == "WARN" and "within 5% above the floor" in v[3].reason
    assert "against the floor" not in v[4].reason                     # numa=remote: not this floor's
    assert v[5].verdict == "DATA" and "against the floor" not in v[5].reason  # a smaller size of the p2p sweep
    assert v[6].verdict == "PASS"
    assert v[7].verdict == "FAIL" and v[7].reason.startswith("profile h100-sxm-8gpu: algbw 330 GB/s against the floor 335")
    assert "below the floor" in v[7].reason
    assert v[8].verdict == "DATA" and "against the floor" not in v[8].reason  # 8 MiB: under min_bytes
    assert v[9].verdict == "PASS" and v[9].metric == "busbw_GBps" and v[9].value == 490  # a sweep point made an item
    assert v[10].verdict == "PASS" and "490 GB/s against the floor 460" in v[10].reason
    assert exit_code(list(v.values()), results.problems) == 1
    outcomes = {o["floor"].name: o for o in floor_outcomes(profile)}
    assert outcomes["GPU pair copy (copy engine, one way)"]["verdict"] == "FAIL"
    assert outcomes["GPU pair copy (copy engine, one way)"]["worst"] == 330
    assert outcomes["all_reduce on one node of 8 GPUs at 16 GiB"]["rows"] == 2
    assert outcomes["device-to-host copy (copy engine, pinned)"]["verdict"] == "WARN"
    assert outcomes["InfiniBand with GPUDirect RDMA, per port"]["verdict"] == "not measured"


def test_without_a_profile_nothing_changes(run):
    v, _ = judged(run, None)
    assert v[7].verdict != "FAIL" and all("against the floor" not in x.reason for x in v.values())


def test_the_report_lists_every_floor_and_junit_holds_one_testcase_each(run):
    profile = load_profile("h100-sxm-8gpu")
    v, results = judged(run, profile)
    md = markdown(document(run, list(v.values()), results.problems, profile))
    assert "## Platform profile: h100-sxm-8gpu" in md
    assert ("| InfiniBand with GPUDirect RDMA, per port | algbw_GBps | 47.5 GB/s | 0 |  | not measured (measure: "
            "wirebench run acceptance in a Slurm job of 2 nodes or more") in md
    assert "| GPU pair copy (copy engine, one way) | algbw_GBps | 335 GB/s | 2 | 330 GB/s | FAIL |" in md
    xml = junit(document(run, list(v.values()), results.problems, profile))
    root = etree.fromstring(xml.encode())
    [suite] = root.findall("testsuite[@name='profile']")
    assert len(suite.findall("testcase")) == len(profile.floors)
    assert suite.get("failures") == "1" and suite.get("skipped") == "1"
    schema = etree.XMLSchema(etree.parse(str(DATA / "junit.xsd")))
    assert schema.validate(root), schema.error_log


def test_a_run_keeps_its_profile_and_the_command_line_overrides_it(run, capsys):
    (run / "profile.json").write_text(json.dumps(load_profile("h100-sxm-8gpu").as_json()))
    assert main(["wirebench report", str(run)]) == 1  # the p2p pair below 335
    summary = json.loads((run / "summary.json").read_text())
    assert summary["profile"]["name"] == "h100-sxm-8gpu"
    # floors of 21, 235 and 228 pass; its InfiniBand floor matches no row: not healthy, not judged (issue 54)
    assert main(["wirebench report", str(run), "--profile", "a100-sxm-8gpu"]) == ExitCode.UNJUDGED
    summary = json.loads((run / "summary.json").read_text())
    assert summary["profile"]["name"] == "a100-sxm-8gpu" and summary["exit_code"] == ExitCode.UNJUDGED
    said = capsys.readouterr().out
    assert ("Not healthy: 1 required item(s) not judged: profile a100-sxm-8gpu: floor 'InfiniBand with GPUDirect "
            "RDMA, per port' not measured.") in said
    assert main(["wirebench report", str(run), "--profile", "b300-mystery"]) == 3
    assert "no such profile (known: a100-sxm-8gpu, h100-sxm-8gpu" in capsys.readouterr().err
    assert main(["wirebench report", str(run), "--profile"]) == 3


@pytest.mark.parametrize("text, message", [
    ("name: x\n", "a profile needs a name and a list of floors"),
    ("name: x\nfloors:\n  - name: a\n    match: {bench: host}\n    metric: busbw\n    floor: 1\n    source: s\n",
     ":3: metric: 'busbw' is not one of algbw_GBps, busbw_GBps"),
    ("name: x\nfloors:\n  - {name: a, match: {bench: host}, metric: algbw_GBps, floor: 1, source: s}\n"
     "  - name: b\n    match: {bench: host, colour: red}\n    metric: algbw_GBps\n    floor: 1\n    source: s\n",
     ":4: match: 'colour' is not one of"),
    ("name: x\nfloors:\n  - {name: a, match: {bench: coll}, metric: busbw_GBps, floor: 1, source: s, min_bytes: 16QB}\n",
     ":3: min_bytes: '16QB' is not a size"),
    ("name: x\nfloors:\n  - {name: a, match: {bench: coll}, metric: busbw_GBps, floor: -3, source: s}\n",
     ":3: floor: '-3' is not a number > 0"),
    ("name: x\nfloors:\n  - {name: a, match: {bench: coll}, metric: busbw_GBps, source: s}\n", ":3: a floor needs floor"),
    ("name: x\nfloors: [\n", "not valid YAML"),
])
def test_bad_profiles_are_named_with_file_and_line(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as error:
        load_profile(str(path))
    assert str(path) in str(error.value) and message in str(error.value), str(error.value)


def test_sizes_with_units():
    doc = {"name": "x", "floors": [{"name": "a", "match": {"bench": "coll"}, "metric": "busbw_GBps", "floor": 1,
                                    "source": "s", "min_bytes": size} for size in ("1G", "16GiB", "4MB", 512)]}
    assert [f.min_bytes for f in parse_profile(doc, "doc").floors] == [1 << 30, 16 << 30, 4 * 10**6, 512]


def test_the_all_reduce_floor_judges_each_nodes_communicator_too(tmp_path):
    # wb-coll --split intra over a multi-node job: one communicator per node, the slowest node's time.
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    row = ("coll,out_of_place,nccl,nvlink,intra-node,,uni,all_reduce,float32,17179869184,8,1,5,70000,69000,71000,"
           "245.4,429.5,0,iters=5,OK,")
    (run_dir / "results.csv").write_text(HEADER + "\n" + row + "\n")
    profile = load_profile("h100-sxm-8gpu")
    v, _ = judged(run_dir, profile)
    assert v[2].verdict == "FAIL" and "busbw 429.5 GB/s against the floor 460" in v[2].reason
    # with each node's own time the failing node is named: nodeB's 70000 us is the row's 429.5 GB/s
    row = row.replace("iters=5,OK,", '"iters=5;per_comm_us=nodeA:62000|nodeB:70000|nodeC:61000",OK,')
    (run_dir / "results.csv").write_text(HEADER + "\n" + row + "\n")
    v, _ = judged(run_dir, load_profile("h100-sxm-8gpu"))
    assert v[2].verdict == "FAIL" and "below the floor on nodeB (429.5 GB/s)" in v[2].reason, v[2].reason


def test_the_bandwidth_plot_draws_the_profile_floor(run):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from wirebench.report.plots import bandwidth_figures
    v, _ = judged(run, load_profile("h100-sxm-8gpu"))
    figures = {name: figure for name, _, figure in bandwidth_figures(list(v.values()))}
    gids = {line.get_gid() for line in figures["bandwidth-nvlink"].axes[0].get_lines()}
    assert "floor:335" in gids
    without = {name: figure for name, _, figure in bandwidth_figures(list(judged(run, None)[0].values()))}
    assert not any(str(line.get_gid()).startswith("floor:")
                   for line in without["bandwidth-nvlink"].axes[0].get_lines())
    plt.close("all")
