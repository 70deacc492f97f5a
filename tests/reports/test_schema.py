"""schema/: the contracts both languages read (results columns, exit codes, every file's version),
the docs that describe them, and the readers that check a file's version (ctest label: unit)."""
import json
import re
from pathlib import Path

import pytest

from wirebench.report.__main__ import main
from wirebench.contracts.schema import REQUIRED_RESULT_COLUMNS, RESULT_COLUMNS, ExitCode, rows, version

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "results.md").read_text()


def test_the_exit_codes_are_the_five_every_command_documents():
    # 4 (UNJUDGED) is wirebench check's: a check that judged nothing (issue 44)
    assert [(c.name, int(c)) for c in ExitCode] == [("OK", 0), ("FAILED", 1), ("INFRASTRUCTURE", 2), ("USAGE", 3),
                                                    ("UNJUDGED", 4)]
    table = DOCS.split("## Exit codes", 1)[1]
    documented = [int(m) for m in re.findall(r"^\| (\d) \|", table, flags=re.M)]
    from wirebench.contracts.exit_policy import PRECEDENCE
    assert documented == [int(c) for c in PRECEDENCE]  # listed in the order one outranks the next


def test_every_results_column_is_documented_in_file_order():
    table = DOCS.split("| column | meaning |", 1)[1].split("\n\n", 1)[0]
    documented = [name for cell in re.findall(r"^\| ([^|]+) \|", table, flags=re.M) for name in re.findall(r"`(\w+)`", cell)]
    assert documented == list(RESULT_COLUMNS)
    assert set(REQUIRED_RESULT_COLUMNS) < set(RESULT_COLUMNS) and "samples" not in REQUIRED_RESULT_COLUMNS


def test_every_contract_has_a_version_a_writer_and_a_reader():
    contracts = {r["contract"]: r for r in rows("versions.csv")}
    assert {"results", "meta", "topology", "summary", "check", "switches", "compare"} <= set(contracts)
    for name, row in contracts.items():
        assert version(name) >= 1 and row["writer"] and row["readers"], name
    with pytest.raises(KeyError):
        version("no-such-file")


def test_the_generated_cpp_header_holds_the_same_codes_and_columns():
    generated = ROOT / "build" / "ci" / "generated" / "schema"
    if not generated.is_dir():
        pytest.skip("no build tree at build/ci (the C++ side is generated at configure time)")
    header = (generated / "exit_codes.h").read_text()
    assert [(n, int(v)) for n, v in re.findall(r"kExit(\w+) = (\d+),", header)] == \
           [(c.name.title(), int(c)) for c in ExitCode]
    columns = re.findall(r'^    "(\w+)",$', (generated / "results_columns.h").read_text(), flags=re.M)
    assert columns == list(RESULT_COLUMNS)
    assert f"kResultsSchemaVersion = {version('results')};" in (generated / "versions.h").read_text()


def test_a_topology_of_another_version_is_refused_naming_file_and_version(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.csv").write_text(",".join(RESULT_COLUMNS) + "\n")
    (run / "topology.json").write_text(json.dumps({"schema_version": 7, "nodes": []}))
    assert main(["wirebench report", str(run)]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert f"{run / 'topology.json'}:1: schema_version 7; this reporter reads topology.json version 1" in err


def test_an_endpoint_is_read_by_its_grammar_and_anything_else_is_none():
    from wirebench.report.endpoints import KINDS, name, nic_of, node_of, parse, rank_of
    assert KINDS == ("rank", "gpu", "numa", "rail")
    assert parse("node3/gpu5") == ("node3", "gpu", 5) and parse("node3/gpu5").local == "gpu5"
    assert parse("dgx-a100-017.cluster/numa1").node == "dgx-a100-017.cluster"
    for other in ("node0,node1,node2", "all", "", "node3", "node3/nic1", "node3/gpu", "node3/gpux", "a/b/gpu1"):
        assert parse(other) is None, other
    assert name("node3", "rank", 5) == "node3/rank5" and rank_of("node3/rank5") == 5 and rank_of("node3/gpu5") is None
    assert node_of("node3/rail1") == "node3" and node_of("node0,node1") == ""
    assert nic_of("node3/rail1") == ("node3", "rail1") and nic_of("node3") == ("node3", "")
    with pytest.raises(AssertionError):
        name("node3", "nic", 1)


def test_the_generated_cpp_endpoint_kinds_are_the_schemas():
    from wirebench.report.endpoints import KINDS
    generated = ROOT / "build" / "ci" / "generated" / "schema" / "endpoint_kinds.h"
    if not generated.is_file():
        pytest.skip("no build tree at build/ci (the C++ side is generated at configure time)")
    assert tuple(re.findall(r'^    "(\w+)",$', generated.read_text(), flags=re.M)) == KINDS


def test_the_generated_cpp_judgement_words_are_the_schemas():
    from wirebench.contracts.schema import JUDGED_AGAINST, JUDGED_AT
    generated = ROOT / "build" / "ci" / "generated" / "schema" / "judgements.h"
    if not generated.is_file():
        pytest.skip("no build tree at build/ci (the C++ side is generated at configure time)")
    at, against = generated.read_text().split("enum class JudgedAgainst")
    assert tuple(re.findall(r'^    "(\w+)",$', at, flags=re.M)) == JUDGED_AT == ("largest", "smallest", "each")
    assert tuple(re.findall(r'^    "(\w+)",$', against, flags=re.M)) == JUDGED_AGAINST
