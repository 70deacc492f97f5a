"""plugin-not-loaded and libfabric-too-old (python/wirebench/diagnosis/plugin_load.py): NCCL's plugin-load lines
with the loader's words, on real logs (tests/data/nccl/ORIGINS.md; the fresh set's awsome-distributed-ai#292,
tests/data/nccl-fresh-2026-12-06/index.csv) and on lines in NCCL's own formats where no thread posted that class
(each test names the release and source file whose printf it follows). NCCL's ordinary line of a job without a
plugin, and every healthy log here, read nothing."""
from pathlib import Path

import pytest

from diagnosis_helpers import DATA, ROOT, diagnose, found, read_log
from wirebench.contracts.input_files import InputError

FRESH = ROOT / "tests" / "data" / "nccl-fresh-2026-12-06"
RULES = ("plugin-not-loaded", "libfabric-too-old")
# the fixtures of this file where a rule fires; every other log of tests/data/nccl reads nothing of either
FIRES = {"nccl-1292-net-plugin-v4-only.log", "nccl-959-efa-meant-no-plugin.log"}


def ours(findings):
    return [f for f in findings if f.id in RULES]


def test_libfabric_too_old_names_the_library_the_plugin_and_quotes_the_line():
    """awsome-distributed-ai#292: aws-ofi-nccl 1.9.0 (conda) needs FABRIC_1.7; the EFA install's Libfabric is older."""
    [f] = ours(diagnose(read_log(FRESH / "awsome-distributed-ai-292.log")))
    assert (f.id, f.verdict, f.line) == ("libfabric-too-old", "WARN", 2)
    assert "/opt/amazon/efa/lib/libfabric.so.1 has no symbol version FABRIC_1.7" in f.what
    assert "libnccl-net.so" in f.what and "NET/Plugin : dlerror=" in f.what  # the line quoted
    assert "newer libfabric than the one loaded (/opt/amazon/efa/lib/libfabric.so.1)" in f.why
    assert "went on with its internal implementation" in f.why
    assert "aws-ofi-nccl" in f.fix and "EFA installer" in f.fix


def test_a_plugin_of_an_api_this_nccl_does_not_take():
    """NVIDIA/nccl#1292 (NCCL 2.20.3): the v8 line alone is NCCL trying the next version; the (>= v5) line says none."""
    [f] = ours(diagnose(read_log(DATA / "nccl-1292-net-plugin-v4-only.log")))
    assert (f.id, f.verdict, f.line) == ("plugin-not-loaded", "WARN", 2)
    assert "found no ncclNetPlugin symbol" in f.what and "v4 or lower" in f.why


def test_an_absent_plugin_where_the_job_meant_efa():
    """NVIDIA/nccl#959: FI_PROVIDER=efa and aws-ofi-nccl's libnccl-net.so preloaded; NCCL 2.4-2.17's absent line."""
    [f] = ours(diagnose(read_log(DATA / "nccl-959-efa-meant-no-plugin.log")))
    assert (f.id, f.verdict, f.line) == ("plugin-not-loaded", "WARN", 22)
    assert "libnccl-net.so is not on the library path" in f.why and "line 10 shows the job meant" in f.why


def test_the_same_absent_line_without_a_plugin_meant_is_quiet():
    text = (DATA / "nccl-959-efa-meant-no-plugin.log").read_text()
    without = "\n".join(line for line in text.splitlines() if not line.startswith('"'))
    assert ours(found(without)) == []


HOST = "ip-10-0-0-1:4242:4242 [0] NCCL INFO "


@pytest.mark.parametrize("line, rule, words", [
    # NCCL 2.23 on (src/net.cc, src/plugin/plugin_open.cc: `%s/Plugin: %s`, the dlerror as is)
    ("NET/Plugin: /opt/amazon/ofi-nccl/lib/libnccl-net.so: undefined symbol: fi_mr_regattr",
     "plugin-not-loaded", ["needs the symbol fi_mr_regattr", "another version of the library that defines"]),
    # NCCL 2.18 (src/net.cc: `NET/Plugin : Plugin load (%s) returned %d : %s`)
    ("NET/Plugin : Plugin load (libnccl-net.so) returned 2 : /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' "
     "not found (required by /usr/local/lib/libnccl-net.so)",
     "plugin-not-loaded", ["has no symbol version GLIBC_2.34", "newer glibc than the one loaded"]),
    # NCCL 2.21-2.22 (src/net.cc: `NET/Plugin: Plugin load returned %d : %s when loading %s`)
    ("NET/Plugin: Plugin load returned 8 : /usr/lib/libnccl-net.so: wrong ELF class: ELFCLASS32 when loading "
     "libnccl-net.so", "plugin-not-loaded", ["is ELFCLASS32", "32-bit library"]),
    ("NET/Plugin: Plugin load returned 2 : libfabric.so.1: cannot open shared object file: No such file or directory "
     ": when loading libnccl-net.so", "plugin-not-loaded", ["a library it needs, libfabric.so.1, is not found"]),
    # NCCL 2.19-2.20 (src/net.cc: `NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation`)
    ("NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.5' not found (required by "
     "/opt/aws-ofi-nccl/lib/libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation",
     "libfabric-too-old", ["no symbol version FABRIC_1.5", "/opt/aws-ofi-nccl/lib/libnccl-net.so needs"]),
    # NCCL 2.19-2.20's tuner (src/misc/tuner.cc: `Tuner: plugin load '%s' returned error (%d : %s), using default ...`)
    ("Tuner: plugin load '/opt/tuner/libnccl-tuner-site.so' returned error (2 : /opt/tuner/libnccl-tuner-site.so: "
     "undefined symbol: ncclDebugLog), using default tuner instead.",
     "plugin-not-loaded", ["NCCL's tuner plugin (/opt/tuner/libnccl-tuner-site.so)", "ncclDebugLog"]),
    # NCCL 2.23 on, NCCL_NET_PLUGIN=ofi (src/net.cc: `NET/Plugin: Could not find:%s. Using internal network plugin.`)
    ("NET/Plugin: Could not find: ofi libnccl-net-ofi.so. Using internal network plugin.",
     "plugin-not-loaded", ["found no network plugin file (ofi, libnccl-net-ofi.so)", "neither ofi nor libnccl-net-ofi.so"]),
])
def test_each_class_of_the_loaders_words(line, rule, words):
    [f] = ours(found(HOST + line + "\n"))
    assert (f.id, f.verdict, f.line) == (rule, "WARN", 1)
    said = f"{f.what} {f.why}"
    assert all(word in said for word in words), said
    assert "ip-10-0-0-1" in f.what and line[:30] in f.what


def test_fail_where_nccl_then_needed_the_plugin():
    """NCCL_NET names the plugin's network; NCCL 2.18's src/net.cc then fails: `WARN Error: network %s not found.`"""
    log = (HOST + "NCCL_NET set by environment to AWS Libfabric\n"
           + HOST + "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libfabric.so.1: cannot open shared object "
           "file: No such file or directory\n"
           + "ip-10-0-0-1:4242:4242 [0] net.cc:285 NCCL WARN Error: network AWS Libfabric not found.\n")
    [f] = ours(found(log))
    assert (f.verdict, f.line) == ("FAIL", 2) and "the job then failed (line 3)" in f.why


def test_one_finding_for_every_process_that_says_the_same():
    log = "".join(f"node{n}:{100 + n}:{100 + n} [{n}] NCCL INFO NET/Plugin: /opt/x/libnccl-net.so: undefined symbol: s\n"
                  for n in range(3))
    [f] = ours(found(log))
    assert f.line == 1 and "(and 2 other process(es) the same)" in f.what


def test_an_older_symbol_that_loads_is_no_finding():
    """NVIDIA/nccl#1000 as posted: v6 missing, then `Loaded net plugin NCCL RDMA Plugin (v5)` (HPC-X's plugin)."""
    log = ("dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.\n"
           "dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)\n"
           "dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v6 symbol.\n"
           "dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Loaded coll plugin SHARP (v5)\n")
    assert ours(found(log)) == []


def test_no_version_of_the_symbol_and_nccl_went_on_is_a_finding():
    """NCCL 2.27 on (src/plugin/net/net_vN.cc) prints one line a version and no summary: NCCL's next lines show it went on."""
    log = "".join(HOST + f"NET/Plugin: Failed to find ncclNetPlugin_v{v} symbol.\n" for v in (10, 9, 8, 7, 6))
    assert ours(found(log)) == []  # the excerpt ends: NCCL may load the next one
    [f] = ours(found(log + HOST + "Using network IB\n"))
    assert f.line == 1 and "ncclNetPlugin_v10" in f.what


def test_a_plugin_path_given_to_nccl_2_27_3_is_the_catalogues_entry():
    """NVIDIA/nccl#1732: the catalogue's plugin-given-as-path-not-loaded reads the line more exactly; this rule gives way."""
    log = ("NCCL_PROFILER_PLUGIN=./libnccl_example_profiler_plugin.so NCCL_DEBUG=INFO ./nccl_alltoall_perf -g 8\n"
           "rtptest1621:268329:272115 [5] NCCL INFO PROFILER/Plugin: Could not find: "
           "libnccl-profiler-./libnccl_example_profiler_plugin.so.so.\n")
    assert [f.id for f in found(log)] == ["plugin-given-as-path-not-loaded"]


@pytest.mark.parametrize("log", sorted(p.name for p in DATA.glob("*.log") if p.name not in FIRES)
                         + sorted(f"healthy/{p.name}" for p in (FRESH / "healthy").glob("*.log")))
def test_quiet_on_every_other_log(log):
    """NCCL's ordinary absent-plugin lines (NVIDIA/nccl#1231 2.19, #1653 2.21, #1597 the profiler on an EFA job),
    CollNet's symbols missing from aws-ofi-nccl (aws/aws-ofi-nccl#161), and every other log here."""
    path = FRESH / log if log.startswith("healthy/") else DATA / log
    try:
        parsed = read_log(path)
    except InputError as error:  # a fixture that is no NCCL log (an export block): nothing for the rule to read
        assert "no line of NCCL's" in str(error)
        return
    assert ours(diagnose(parsed)) == []


def test_the_fixtures_of_ordinary_lines_are_among_the_quiet_ones():
    names = {p.name for p in DATA.glob("*.log")}
    for name in ("nccl-1231-dlerror-no-plugin-harmless.log", "nccl-1653-plugin-load-returned-2.21.log",
                 "nccl-1597-efa-profiler-absent.log", "aws-ofi-nccl-161-collnet-symbol-v4.log"):
        assert name in names and Path(DATA / name).read_text().count("NCCL INFO") >= 3
