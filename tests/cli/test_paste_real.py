"""One reader of pasted text (issue 55), a way of pasting at a time, each on a real paste (where
each comes from: tests/data/imports/real/ORIGINS.md): what wirebench import reads from it, and
what the Paste (python/wirebench/importer/paste.py) gives the NCCL-log reader. ctest label: unit."""
import ast
import codecs
import itertools
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from wirebench.contracts.input_files import InputError  # noqa: E402
from wirebench.importer import lines  # noqa: E402
from wirebench.importer.__main__ import parse_args, read_file  # noqa: E402
from wirebench.importer.paste import Folded, Paste, clean  # noqa: E402
from wirebench.report.extra import encode_items, parse as parse_items  # noqa: E402

REAL = ROOT / "tests" / "data" / "imports" / "real"


def imported(name, *options):
    """(tool, rows, notes) of a real paste."""
    path = REAL / name
    tool, (rows, notes) = read_file(path, parse_args(["wirebench import", str(path), *options]))
    return tool, rows, notes


def without_source(rows):
    """The rows without their `source` item, a reason's FILE:LINE as FILE: what two pastes of one
    output share."""
    where = re.compile(re.escape(str(REAL)) + r"/[\w.-]+(:\d+)?")
    return [{**{k: where.sub("FILE", v) if isinstance(v, str) else v for k, v in r.items()},
             "extra": encode_items({k: v for k, v in parse_items(r["extra"]).items() if k != "source"})}
            for r in rows]


def test_an_nccl_tests_table_pasted_from_its_column_header_is_read():
    """NVIDIA/nccl-tests#176: no banner, no Rank lines, no command line. Before: 'not an output
    wirebench imports' (detection looked for the banner only)."""
    tool, rows, notes = imported("nccl-tests-176-no-banner-markdown.md")
    assert tool == "nccl-tests" and len(rows) == 22
    assert {(r["op"], r["status"], r["ranks"], r["src"]) for r in rows} == {("all_reduce", "OK", "", "world")}
    largest = [r for r in rows if str(r["bytes"]) == "4194304" and r["case"] == "out_of_place"]
    assert [r["busbw_GBps"] for r in largest] == ["12.71"]
    assert largest[0]["rerun"].startswith("mpirun -np N all_reduce_perf -b 4194304")
    assert any("starts at nccl-tests' table, without its header" in n for n in notes)


def test_nvbandwidth_without_its_running_line_takes_the_testcase_from_its_sum_line():
    """NVIDIA/nvbandwidth#50 (v0.8, the matrix pasted from its title on). Before: 0 rows."""
    tool, rows, notes = imported("nvbandwidth-50-sum-line-names-the-testcase.txt")
    assert tool == "nvbandwidth" and len(rows) == 30 and {r["case"] for r in rows} == {"ce/read"}
    # read: the row's GPU pulls from the column's: row 0, column 3 is gpu3 -> gpu0
    assert [r["algbw_GBps"] for r in rows if (r["src"], r["dst"]) == ("gpu3", "gpu0")] == ["21.95"]
    assert any("device_to_device_memcpy_read_ce, from its SUM line" in n for n in notes)


def test_nvbandwidth_quoted_running_lines_and_unindented_headers():
    """NVIDIA/nvbandwidth#24: each `Running ...` in a Markdown quote, the column header without its
    indentation. Before: 0 rows (the header was looked for indented only)."""
    tool, rows, _ = imported("nvbandwidth-24-quote-header-unindented.md")
    assert tool == "nvbandwidth" and len(rows) == 16
    assert sorted({r["case"] for r in rows}) == ["d2h_pinned/sm", "h2d_pinned/sm"]
    assert [r["algbw_GBps"] for r in rows if r["dst"] == "gpu7"] == ["35.06"]


def test_an_osu_title_after_seven_lines_of_a_slurm_job_is_found():
    """srun --label in an sbatch job: modules, set -x and cpu-bind lines before OSU's title. Before:
    'not an output wirebench imports' (the title was looked for in the first 5 lines only)."""
    tool, rows, _ = imported("osu-sbatch-srun-label-late-title.txt")
    assert tool == "osu" and len(rows) == 23 and {r["case"] for r in rows} == {"stream_bw"}
    assert str(rows[-1]["bytes"]) == "4194304" and rows[-1]["algbw_GBps"] == "12.41806"


@pytest.mark.parametrize("name, same_as, options", [
    ("nccl-tests-293-prepend-rank-pieces.txt", "nccl-tests-293-nccl-info-interleaved.txt", ()),  # [0] inside rows
    ("nccl-tests-293-wrapped-100-columns.txt", "nccl-tests-293-nccl-info-interleaved.txt", ()),  # a terminal's wrap
    ("nccl-tests-248-sendrecv-kubectl-prefix-timestamps.log", "nccl-tests-248-k8s-two-pods-sendrecv.md", ()),
    ("imb-ohpc-207-prepend-rank.txt", "imb-ohpc-207-prun-no-banner.txt", ()),  # [rank] before each line
    ("osu-ompi-4919-list-item.md", "osu-ompi-4919-stops-mid-table.txt", ()),  # a list, a bullet, an indented fence
    ("p2p-tinygrad-44-powershell-utf16.txt", "p2p-tinygrad-44-prompt-two-gpus.md", ()),  # UTF-16LE, CRLF
])
def test_a_way_of_pasting_gives_the_rows_of_the_paste_it_came_from(name, same_as, options):
    """Each file is a real paste of its own as another launcher, terminal, editor or shell gave it;
    its rows are its original's (their `source` aside: the lines moved). Before: 0 rows or refused
    for the [0] tags inside rows, the wrap, the kubectl prefix and UTF-16."""
    tool, rows, _ = imported(name, *options)
    original_tool, original, _ = imported(same_as, *options)
    assert original and (tool, without_source(rows)) == (original_tool, without_source(original))


def test_the_rows_of_a_wrapped_paste_name_the_lines_they_start_on():
    _, rows, notes = imported("nccl-tests-293-wrapped-100-columns.txt")
    text = (REAL / "nccl-tests-293-wrapped-100-columns.txt").read_text().splitlines()
    first = parse_items(rows[0]["extra"])["source"].rsplit(":", 1)[1]
    assert text[int(first) - 1].split()[:2] == ["8", "2"]  # the row of 8 B starts there; its in-place figures on the next
    assert any("cut at 100 characters" in n for n in notes)


@pytest.mark.parametrize("name, tool, count", [
    ("osu-slurm-srun-l-crlf.txt", "osu", 24),                       # srun --label, Slurm's lines, CRLF
    ("openmpi-tag-output-interleaved.txt", "nccl-tests", 16),        # mpirun --tag-output, a tag inside a row
    ("perftest-132-quoted-gbits.md", "perftest", 23),                # a Markdown quote
    ("soperator-428-srun-markdown.md", "nccl-tests", 10),            # a Markdown note's fence
    ("aws-k8s-tester-464-mpijob-launcher-log.txt", "nccl-tests", 48),  # indented, tagged, pods' NCCL lines
])
def test_the_ways_of_pasting_read_before_stay_read(name, tool, count):
    found, rows, _ = imported(name)
    assert (found, len(rows)) == (tool, count)


def test_nccl_lines_under_torchrun_and_ray_are_set_apart_as_nccls():
    """torchrun --tee's `[default0]:` (NVIDIA/nccl#1504's lines) and Ray's `(RayTrainWorker pid=N) `
    (NVIDIA/nccl#1212) before NCCL's lines: the paste sets them apart as NCCL's, its version read."""
    torchrun = Paste.read(REAL / "torchrun-tee-nccl-1504-info.log")
    assert len(torchrun.nccl) == 15 and torchrun.lines == []
    assert all(line.text.startswith(("678c7278cb2d:", "NCCL version")) for line in torchrun.nccl)
    assert torchrun.nccl_version() == "2.21.5"
    ray = Paste.read(REAL / "ray-nccl-1212-worker-prefix.log")
    assert (len(ray.nccl), ray.nccl_version()) == (4, "2.14.3")
    assert ray.nccl[0].text.startswith("jamin-g2-cluster-a-0:355353:358657 [0] NCCL INFO Bootstrap")


def test_each_prefix_of_a_line_goes_and_what_follows_stays():
    line = "   8   2   float   sum   -1   22.22   0.00"
    for prefix in ("2024-08-01T12:00:00.123456789Z ", "Aug 01 12:00:00 ", "[2024-08-01 12:00:00] ", "[12:00:00] ",
                   "[pod/launcher-7xk2p/mpi-launcher] ", "worker-1  | ", "(RayTrainWorker pid=355353) ", "0: ",
                   " 12: ", "[0] ", "[1,0]<stdout>:", "[1]<stdout>:",
                   "[default0]:", "[rank0]:", "8:[default0]:", "> ", "> > ", "- ", "* ",
                   "[pod/a/b] 2024-08-01T12:00:00Z 0: "):
        assert clean(prefix + line) == line, prefix
    assert clean("[prterun-f5n18-100629@1,2]<stdout>: f5n18") == "f5n18"  # PRRTE's space after its tag
    hosts = {}
    assert clean("[dgx01:3] " + line, hosts) == line and hosts == {3: {"dgx01"}}
    assert clean("0: dgx02", hosts) is None and hosts[0] == {"dgx02"}  # srun -l hostname: the host, no line
    # what is the tool's stays: a negative root, NCCL's own [device], a ruler, nvbandwidth's `Device 0: `
    for kept in ("  8  2  float  sum  -1  9.50", "dgx01:4000:4000 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
                 "---------------------------------------------------------------------------------------",
                 "Device 0: NVIDIA H200 (00000000:00:06)", "#  Rank  0 Group  0 Pid   4000 on      dgx01 device  0 [0x07]"):
        assert clean(kept) == kept


def test_a_file_in_another_encoding_is_refused_naming_it_and_the_iconv_that_converts_it(tmp_path):
    broken = tmp_path / "osu_bw.txt"
    broken.write_bytes(codecs.BOM_UTF16_LE + "# OSU MPI Bandwidth Test v7.3\n".encode("utf-16-le") + b"\x00\xd8A\x00")
    with pytest.raises(InputError, match=r"osu_bw.txt:2: not UTF-16 text.*iconv -f UTF-16 -t UTF-8"):
        Paste.read(broken)
    latin = tmp_path / "ib_write_bw.txt"
    latin.write_bytes(b"RDMA_Write BW Test\n caf\xe9\n")
    with pytest.raises(InputError, match=r"ib_write_bw.txt:2: byte 23 \(0xe9\) is not UTF-8 text.*iconv -f ENCODING"):
        Paste.read(latin)


def test_a_long_log_folds_its_repeated_lines_as_it_streams():
    """680,894 identical channel lines (issue 55's 50 MB log) are one line with its count; two ranks'
    lines interleaved fold too; a line seen again after `window` other lines comes again."""
    channel = "dgx01:4000:4012 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"
    log = itertools.chain(["NCCL version 2.21.5+cuda12.4", "", "0: dgx01"], itertools.repeat("0: " + channel, 680_894),
                          ["dgx01:4000:4000 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE"])
    assert list(Paste.folded(log)) == [Folded(1, "NCCL version 2.21.5+cuda12.4", 1), Folded(4, channel, 680_894),
                                       Folded(680_898, "dgx01:4000:4000 [0] NCCL INFO comm 0x1 rank 0 nranks 8 - Init COMPLETE", 1)]
    assert [(f.text, f.count) for f in Paste.folded(["a", "b"] * 1000)] == [("a", 1000), ("b", 1000)]
    assert [(f.number, f.text) for f in Paste.folded(["a", "b", "c", "a"], window=2)] == \
        [(1, "a"), (2, "b"), (3, "c"), (4, "a")]


def test_folding_reads_no_further_than_its_window_ahead():
    """Bounded memory: the first folded line comes after at most window + 1 lines were read."""
    read = []

    def lines():
        for n in itertools.count():
            read.append(n)
            yield f"line {n}"
    first = next(Paste.folded(lines(), window=16))
    assert first == Folded(1, "line 0", 1) and len(read) == 17


def test_a_utf16_log_streams_through_the_same_transforms(tmp_path):
    path = tmp_path / "job.log"
    path.write_bytes(codecs.BOM_UTF16_LE + "0: NCCL version 2.21.5+cuda12.4\r\n0: x y\r\n0: x y\r\n".encode("utf-16-le"))
    assert list(Paste.folded(path)) == [Folded(1, "NCCL version 2.21.5+cuda12.4", 1), Folded(2, "x y", 2)]


def test_lines_py_keeps_its_functions_over_the_paste():
    text = "0: # OSU MPI Latency Test v7.3\r\n0: # Size  Latency (us)\r\n0: 8  1.70\r\n"
    assert [l.text for l in lines.lines_of(text)] == ["# OSU MPI Latency Test v7.3", "# Size  Latency (us)", "8  1.70"]
    assert isinstance(lines.read(text), Paste) and lines.read(text).lines == Paste.of(text).lines


def test_the_importer_type_has_its_own_module_and_nothing_imports_in_a_circle():
    """registry.py imports the importers; they import importer.py (Importer, Options), never the registry."""
    package = ROOT / "python" / "wirebench" / "importer"
    for module in ("imb", "nccl_tests", "nvbandwidth", "osu", "p2p_bandwidth_latency", "perftest", "importer"):
        imported_names = {node.module for node in ast.walk(ast.parse((package / f"{module}.py").read_text()))
                          if isinstance(node, ast.ImportFrom)}
        assert "registry" not in imported_names, module


def test_every_real_paste_says_where_it_comes_from():
    origins = (REAL / "ORIGINS.md").read_text()
    assert [p.name for p in sorted(REAL.iterdir()) if p.name != "ORIGINS.md" and f"| {p.name} |" not in origins] == []
