"""fixed-in-later-nccl and internal-error-on-old-nccl (python/wirebench/diagnosis/fixed_in_later_nccl.py):
NCCL's fixed bugs as data (suites/nccl-fixes.csv), read against each host's `NCCL version` line, on
real logs: the corpus's train cases NVIDIA/nccl-tests#291 and NVIDIA/nccl#1637 (tests/data/nccl-corpus/,
split train in its index.csv), NVIDIA/nccl#1185 and NVIDIA/nccl-tests#231 (tests/data/nccl/ORIGINS.md)."""
import csv

import pytest

from diagnosis_helpers import DATA, ROOT, diagnose, ids, parse, read_log
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import fixed_in_later_nccl as fixes
from wirebench.diagnosis import registry
from wirebench.diagnosis.parameters import version_key

CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
RULES = ("fixed-in-later-nccl", "internal-error-on-old-nccl")


def ours(findings):
    return [f for f in findings if f.id in RULES]


def text_of(path, old=None, new=None):
    text = path.read_text()
    if old is not None:
        assert old in text, f"{path} lacks {old!r}"
        text = text.replace(old, new)
    return text


def test_the_table_reads_every_regex_compiles_and_every_row_cites_its_source():
    table = fixes.read()
    assert len(table) >= 30
    for fix in table:
        assert fix.signature.pattern and fix.symptom
        assert "NVIDIA/nccl" in fix.source and ("commit" in fix.source or "#" in fix.source), fix.line
        assert fix.affected_from is None or fix.affected_from < fix.fixed_in, fix.line
    # every row's symptom is one a log shows: the CSV's own text of each row is read, none dropped
    with open(fixes.path(), newline="", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(line for line in f if not line.startswith("#"))]
    assert len(rows) == len(table)


@pytest.mark.parametrize("row, problem", [
    ('2.26,,"x","s","NVIDIA/nccl#1"', "fixed_in must be a release X.Y.Z, not '2.26'"),
    ('2.26.2,2.26.2,"x","s","NVIDIA/nccl#1"', "affected_from 2.26.2 is not older than fixed_in 2.26.2"),
    ('2.26.2,,"x(","s","NVIDIA/nccl#1"', "signature is not a regular expression"),
    ('2.26.2,,"x","s",""', "every fix needs its symptom and its source"),
    ('2.26.2,,"x","s","NVIDIA/nccl#1",extra', "more fields than the header's 5"),
])
def test_a_bad_row_is_an_error_naming_the_files_line(tmp_path, row, problem):
    table = tmp_path / "fixes.csv"
    table.write_text("# a comment\nfixed_in,affected_from,signature,symptom,source\n" + row + "\n")
    with pytest.raises(InputError) as error:
        fixes.read(table)
    assert f"{table}:3: {problem}" in str(error.value)


def test_a_header_without_a_column_is_an_error(tmp_path):
    table = tmp_path / "fixes.csv"
    table.write_text("fixed_in,affected_from,signature,symptom\n2.26.2,,x,s\n")
    with pytest.raises(InputError, match=f"{table}:1: the header lacks source"):
        fixes.read(table)


def test_versions_compare_numerically_and_a_fix_applies_from_its_first_release_to_before_its_fix():
    assert version_key("2.18.10") > version_key("2.18.9")
    plugin = next(f for f in fixes.read() if "so\\.so" in f.signature.pattern)  # NVIDIA/nccl#1732
    assert (plugin.affected_from, plugin.fixed_in) == ((2, 27, 3), (2, 27, 5))
    assert plugin.applies_to((2, 27, 3)) and plugin.applies_to((2, 27, 4))
    assert not plugin.applies_to((2, 26, 6)) and not plugin.applies_to((2, 27, 5))
    assert not plugin.applies_to((2, 27, 10))  # 2.27.10 is after 2.27.5, not before it


def test_rtx_5090_on_nccl_2_25_1_is_the_bug_2_26_2_fixed():
    """NVIDIA/nccl-tests#291 (corpus, train): alltoall_perf on one RTX 5090 with NCCL 2.25.1; the thread
    and NCCL 2.26.2's release note ('Fix shared memory usage on recent Blackwell GPUs', naming #291)
    establish the cause. Its log has no error line: the GPU's name is the symptom's line."""
    said = diagnose(read_log(CORPUS / "nccl-tests-291.log"))
    assert ids(said) == ["fixed-in-later-nccl:WARN@4"]
    f = said[0]
    assert f.what.startswith("NCCL 2.25.1 has a bug that NCCL fixed in 2.26.2 (")
    assert "NVIDIA GeForce RTX 5090\"" in f.what and "line 7 is 2.25.1" in f.why
    assert f.fix == "upgrade NCCL to >= 2.26.2" and "NVIDIA/nccl-tests#291" in f.source
    # the same log on the release that fixed it, and without its version line: nothing
    fixed = text_of(CORPUS / "nccl-tests-291.log", "NCCL version 2.25.1+cuda12.4", "NCCL version 2.26.2+cuda12.8")
    assert ours(diagnose(parse(fixed, "fixed.log"))) == []
    unknown = text_of(CORPUS / "nccl-tests-291.log", "NCCL INFO NCCL version 2.25.1+cuda12.4",
                      "NCCL INFO cudaDriverVersion 12080")
    assert ours(diagnose(parse(unknown, "unknown.log"))) == []


def test_ncclmaxsharedmem_on_nccl_2_25_1_names_the_fix_beside_the_catalogues_entry():
    """NVIDIA/nccl#1637 (corpus, train): two RTX 5090 on NCCL 2.25.1, `ncclMaxSharedMem 82240 exceeds
    device/fn maxSharedMem 79856` (an INFO line: WARN)."""
    said = diagnose(read_log(CORPUS / "nccl-1637.log"))
    assert ids(said) == ["nccl-predates-gpu-arch:FAIL@7", "fixed-in-later-nccl:WARN@7"]
    assert "NCCL 2.25.1 on localhost has a bug that NCCL fixed in 2.26.2" in said[1].what
    assert "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" in said[1].what


def test_each_hosts_own_version_decides():
    """nccl-1637's second process moved to a host of its own: the ncclMaxSharedMem line is that host's,
    so its version decides, not the first host's."""
    log = (CORPUS / "nccl-1637.log").read_text().replace("localhost:11344:", "node-b:11344:")
    assert ids(ours(diagnose(parse(log, "two-hosts.log")))) == ["fixed-in-later-nccl:WARN@7"]
    upgraded = log.replace("node-b:11344:11344 [1] NCCL INFO NCCL version 2.25.1+cuda12.2",
                           "node-b:11344:11344 [1] NCCL INFO NCCL version 2.26.2+cuda12.2")
    assert upgraded != log
    assert ours(diagnose(parse(upgraded, "two-hosts.log"))) == []


def test_uds_bind_failure_on_nccl_2_20_3_is_a_fail_quoting_the_line():
    """NVIDIA/nccl#1185 ('FSDP fails on v2.20.3-1'): the UDS WARN, then its process's `-> 2` chain:
    FAIL, as the error's class; fixed in 2.20.5 (its release note names #1185)."""
    log = DATA / "nccl-1185-uds-bind-2.20.3.log"
    said = ours(diagnose(read_log(log)))
    assert ids(said) == ["fixed-in-later-nccl:FAIL@5"]
    assert "NCCL 2.20.3 has a bug that NCCL fixed in 2.20.5" in said[0].what
    assert ("misc/ipcsocket.cc:57 NCCL WARN UDS: Binding to socket /tmp/nccl-socket-2-e647f8d8e15809a1 failed"
            in said[0].what)
    assert said[0].fix == "upgrade NCCL to >= 2.20.5" and "NVIDIA/nccl#1185" in said[0].source
    fixed = diagnose(parse(text_of(log, "NCCL version 2.20.3+cuda12.3", "NCCL version 2.20.5+cuda12.3"), "fixed.log"))
    assert ours(fixed) == []
    # the version unknown: no such finding; the error finder still quotes the first error, the catalogue's
    # entry still reads the UDS line
    unknown = diagnose(parse(text_of(log, "NCCL version 2.20.3+cuda12.3\n", ""), "unknown.log"))
    assert ours(unknown) == [] and "uds-bind-address-in-use:FAIL@4" in ids(unknown)
    assert any(f.error and "group.cc:418 -> 2" in f.what for f in unknown)


def test_healthy_logs_on_old_versions_give_neither_finding():
    for name in ("single-node-8gpu-socket-no-ib.log", "nvls-8gpu-one-node-socket.log", "pcie-8gpu-p2p-shm.log",
                 "multinode-net.log"):
        assert ours(diagnose(read_log(DATA / name))) == [], name


def test_an_internal_error_on_an_old_nccl_is_a_hint_not_a_cause():
    """NVIDIA/nccl-tests#231: two A100 nodes on NCCL 2.22.3, `Test NCCL failure common.cu:997 'internal
    error ...'`; no fix's symptom in the log: a WARN that counts the fixing releases after 2.22.3."""
    log = DATA / "nccl-tests-231-internal-error-2.22.3.log"
    said = ours(diagnose(read_log(log)))
    assert ids(said) == ["internal-error-on-old-nccl:WARN@14"]
    after = sorted({f.fixed_in for f in fixes.read() if f.fixed_in > (2, 22, 3)})
    assert len(after) > fixes.BEHIND
    assert f"is {len(after)} fixing releases behind NCCL {fixes.dotted(after[-1])}" in said[0].what
    assert "no known bug is proven here" in said[0].why
    newest = fixes.dotted(max(f.fixed_in for f in fixes.read()))
    current = text_of(log, "NCCL version 2.22.3+cuda12.4", f"NCCL version {newest}+cuda12.4")
    assert ours(diagnose(parse(current, "current.log"))) == []
    unknown = text_of(log, "puente:21488:21488 [0] NCCL INFO NCCL version 2.22.3+cuda12.4\n", "")
    assert ours(diagnose(parse(unknown, "unknown.log"))) == []


def test_a_matching_fix_takes_the_place_of_the_hint():
    """NVIDIA/nccl#726: ncclCommInitAll failed with an internal error on NCCL 2.14.3, then glibc's heap
    corruption message: the error path's double free NCCL 2.15.5 fixed (the thread's maintainers' fix),
    said; the internal error's hint is not."""
    said = ours(diagnose(read_log(DATA / "nccl-726-double-free-2.14.3.log")))
    assert ids(said) == ["fixed-in-later-nccl:WARN@10"]
    assert "NCCL 2.14.3 has a bug that NCCL fixed in 2.15.5" in said[0].what
    assert "\"corrupted double-linked list\"" in said[0].what and "NVIDIA/nccl#726" in said[0].source


def test_a_line_several_fixes_match_names_the_newest(monkeypatch):
    """Two fixes of one symptom (a double free NCCL fixed in 2.15.5 and again, on another path, in 2.26.2):
    the finding names the newest release, which mends both, and lists each (#726's log with glibc's other
    words for it, `double free or corruption (out)`, in place of its heap message)."""
    table = [f for f in fixes.read() if "double free" in f.signature.pattern]
    assert sorted(fixes.dotted(f.fixed_in) for f in table) == ["2.15.5", "2.16.5", "2.26.2"]
    log = (DATA / "nccl-726-double-free-2.14.3.log").read_text().replace(
        "corrupted double-linked list", "double free or corruption (out)")
    said = ours(diagnose(parse(log, "x.log")))
    assert ids(said) == ["fixed-in-later-nccl:WARN@10"]
    assert "has a bug that NCCL fixed in 2.26.2 (a failed ncclCommInitRank" in said[0].what
    assert said[0].fix == "upgrade NCCL to >= 2.26.2"
    assert all(f"fixed in {v}:" in said[0].why for v in ("2.15.5", "2.16.5", "2.26.2"))
    monkeypatch.setitem(fixes._loaded, "suite", [f for f in table if f.fixed_in < (2, 26, 2)])
    assert "fixed in 2.16.5" in ours(diagnose(parse(log, "x.log")))[0].what


def test_the_rules_are_registered_and_the_corpus_maps_only_the_proven_one():
    assert set(RULES) <= set(registry.RULES)
    with open(CORPUS / "entry-causes.csv", newline="", encoding="utf-8") as f:
        causes = {row["entry"]: row["cause_class"] for row in csv.DictReader(f)}
    assert causes["fixed-in-later-nccl"] == "nccl-version-bug"
    assert "internal-error-on-old-nccl" not in causes  # a hint names no cause


def test_pytorchs_error_names_the_version_where_nccl_printed_none():
    """PyTorch ends its NCCL error with the version it loaded (c10d's ncclGetErrorWithVersion): the corpus'
    train cases d-fine#289 (2.19.3) and DeepSpeed#1604, whose PyTorch 1.10 split NCCL 2.10.3's new version
    code as an old one (`NCCL version 21.0.3`)."""
    assert fixes.versions(read_log(CORPUS / "d-fine-289.log")) == {"": ((2, 19, 3), 1)}
    assert fixes.versions(read_log(CORPUS / "deepspeed-1604.log")) == {"": ((2, 10, 3), 1)}
    assert fixes.pytorch_version("fairseq-master: **RuntimeError: NCCL error in: ../torch/lib/c10d/"
                                 "ProcessGroupNCCL.cpp:514, invalid usage, NCCL version 2.6.3**") == (2, 6, 3)
    assert fixes.pytorch_version("NCCL version 2.20.5") is None  # NCCL's own line is versions()' other reading
    # NCCL's own line, where there is one, is the host's: PyTorch's text does not replace it
    both = parse("NCCL version 2.21.5+cuda12.4\nRuntimeError: NCCL error in: x.cpp:1, internal error, "
                 "NCCL version 2.20.5\n", "both.log")
    assert fixes.versions(both) == {"": ((2, 21, 5), 1)}


def test_the_old_nccl_hint_gives_way_to_the_entry_that_names_the_errors_cause():
    """aws/aws-ofi-nccl#663 (corpus, train): PyTorch's `internal error ..., NCCL version 2.20.5`, its cause
    EFA traffic a security group blocked, which a catalogue entry reads on the same line; the hint that
    NCCL 2.20.5 is many fixes behind (now that PyTorch's text gives the version) must not displace it. The entry's
    finding is at the OFI plugin's WARN text under `Last error:` (line 4), read as NCCL's last WARN."""
    assert ids(diagnose(read_log(CORPUS / "aws-ofi-nccl-663.log"))) == ["efa-peer-unreachable-security-group:FAIL@4"]


def test_pattern_1_found_no_path_on_2_25_to_2_29_1_is_the_bug_2_29_2_fixed():
    """NVIDIA/nccl-tests#352 (tests/data/nccl-fresh-2026-12-22, carried on as NVIDIA/nccl#1876): 2-node all_reduce at
    7 GB/s on NCCL 2.25-2.27 against 50 on 2.22, `graph/search.cc:1127 NCCL WARN Could not find a path for pattern 1`;
    the maintainer: a culprit from v2.25.1-1, fixed in the next release (2.29.2's notes name Issue #1876). The
    paste's prose names several releases and no line says which ran: nothing is said of a fix there."""
    path = ROOT / "tests" / "data" / "nccl-fresh-2026-12-22" / "nccl-tests-352.log"
    assert ours(diagnose(read_log(path))) == []
    version = "lrdn2146:1399931:1399978 [3] NCCL INFO NCCL version {}+cuda12.2\n"
    said = ours(diagnose(parse(version.format("2.28.9") + path.read_text(), "x.log")))
    assert ids(said) == ["fixed-in-later-nccl:WARN@6"] and said[0].fix == "upgrade NCCL to >= 2.29.2"
    assert "fixed in 2.27.3" not in said[0].why  # the downgrade to INFO was in 2.27.3: not this release's
    assert ours(diagnose(parse(version.format("2.29.2") + path.read_text(), "x.log"))) == []
