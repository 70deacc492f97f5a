"""suites/nccl-warnings.csv as data: read with the csv module, its optional columns optional, a row
that would take a coded rule's id (or repeats one, or is malformed) an error naming its line, and
docs/nccl-diagnosis.md's tables generated from the catalogue and the rule registry."""
import pytest

from diagnosis_helpers import DATA, TWO_NODES, diagnose, ids, parse
from wirebench.contracts.input_files import InputError
from wirebench.diagnosis import catalogue, docs, registry

HEADER = "# a comment line\nid,verdict,signature,what,why,fix,source\n"
ROW = 'my-entry,FAIL,"Call to foo failed","foo failed","the cause","the fix","NVIDIA/nccl#1"\n'


def write(tmp_path, text):
    file = tmp_path / "nccl-warnings.csv"
    file.write_text(text)
    return file


def test_the_projects_catalogue_loads_beside_the_coded_rules():
    entries = catalogue.read(coded_ids=registry.RULES)
    assert len(entries) >= 15 and not {e.id for e in entries} & set(registry.RULES)


def test_rows_in_the_seven_column_format_stay_valid_beside_the_optional_scope(tmp_path):
    file = write(tmp_path, HEADER.replace("source", "source,scope") + ROW
                 + 'net-entry,WARN,"bar",bar,why,fix,"NVIDIA/nccl#2",network\n')
    entries = catalogue.read(file)
    assert [(e.id, e.scope, e.line) for e in entries] == [("my-entry", "any", 3), ("net-entry", "network", 4)]


@pytest.mark.parametrize("row, problem", [
    ('socket-fallback,FAIL,"x","w","y","f","s"\n', "id socket-fallback is a coded rule's"),
    ('my-entry,FAIL,"again","w","y","f","s"\n', "id my-entry again (first at line 3)"),
    ('bad-verdict,INFO,"x","w","y","f","s"\n', "verdict must be FAIL or WARN"),
    ('no-source,WARN,"x","w","y","f",""\n', "every entry needs its source thread"),
    ('bad-regex,WARN,"(unclosed","w","y","f","s"\n', "signature is not a regular expression"),
    ('too-many,WARN,"x","w","y","f","s",extra\n', "more fields than the header's 7"),
])
def test_a_bad_row_is_an_error_naming_its_line(tmp_path, row, problem):
    file = write(tmp_path, HEADER + ROW + row)
    with pytest.raises(InputError) as error:
        catalogue.read(file, coded_ids=registry.RULES)
    assert str(error.value).startswith(f"{file}:4: ") and problem in str(error.value)


def test_a_network_entry_says_nothing_where_no_data_crossed_the_network_but_an_error_is_never_dropped(tmp_path):
    entries = catalogue.read(write(tmp_path, HEADER.replace("source", "source,scope")
                                   + 'ib-info,WARN,"NET/IB : Using",ib listed,why,fix,"NVIDIA/nccl#3",network\n'
                                   + 'ib-warn,FAIL,"ibv_open_device failed",ib failed,why,fix,"NVIDIA/nccl#4",network\n'))
    info = "n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
    assert diagnose(parse(info, "x"), entries=entries) == []
    assert ids(diagnose(parse(info + TWO_NODES, "x"), entries=entries)) == ["ib-info:WARN@1"]
    warn = "n:1:1 [0] misc/ibvwrap.cc:121 NCCL WARN Call to ibv_open_device failed\n"
    assert ids(diagnose(parse(warn, "x"), entries=entries)) == ["ib-warn:FAIL@1"]


def test_the_docs_tables_are_the_registrys_and_the_catalogues():
    text = docs.DOC.read_text()
    assert docs.rewritten(text, docs.tables()) == text, "run python3 -m wirebench.diagnosis.docs"
    for r in registry.RULES.values():
        assert f"| `{r.id}` | {r.verdict} | {r.scope} |" in text
    for e in catalogue.read(coded_ids=registry.RULES):
        assert f"| `{e.id}` | {e.verdict} | {e.scope} |" in text


def test_the_rule_modules_list_decides_the_registrys_order_and_names_every_module_that_registers():
    """diagnose.RULE_MODULES, not the order Python imports the modules in, orders the docs table; a module that
    registers rules and is missing from it is an error naming it (its rules would otherwise sit wherever its import
    put them)."""
    from wirebench.diagnosis.diagnose import RULE_MODULES
    modules = [m.__name__ for m in RULE_MODULES]
    places = [modules.index(r.check.__module__) for r in registry.RULES.values()]
    assert places == sorted(places) and set(places) == set(range(len(modules)))
    first = next(iter(registry.RULES.values()))
    stray = registry.Rule("stray-rule", "WARN", "any", (), "s", "m", "f", "src",
                          check=type("Check", (), {"__module__": "somewhere.else"})())
    registry.RULES["stray-rule"] = stray
    try:
        with pytest.raises(ValueError, match="missing from the rule modules' list: somewhere.else"):
            registry.put_in_order(RULE_MODULES)
    finally:
        del registry.RULES["stray-rule"]
    assert next(iter(registry.RULES.values())) is first


def test_a_signatures_required_literals_are_what_every_match_holds():
    """catalogue.required_literals: the prefilter of a long log's texts (a text holding none of an entry's required
    literals is never searched with its signature)."""
    literals = catalogue.required_literals
    assert literals(r"(?:CUDA error: |cuda runtime error \(\d+\) : )invalid device ordinal") == {"invalid device ordinal"}
    assert literals(r"Error while creating shared memory segment|failed to extend /dev/shm") == {
        "Error while creating shared memory segment", "failed to extend /dev/shm"}
    assert literals(r"NET/IB : (?:Got async event|Unable to)") == {"NET/IB : "}
    assert literals(r"(?:abc)?xyz") == {"xyz"}              # an optional part is not required
    assert literals(r"(?!NCCL)failed") == {"failed"}        # nor a lookaround's text
    assert literals(r"(?:ab|\d+)x") == {"x"}                # a branch without a literal leaves the other's out
    assert literals(r"\d+\s\w+") is None and literals(r"(?i)error") is None and literals(r"(?i:error)") is None
    assert literals(r"(") is None


def test_every_entry_is_found_by_the_prefilter_on_its_threads_line():
    entries = catalogue.read(coded_ids=registry.RULES)
    either = catalogue.any_of(entries)
    assert either is not None  # every entry requires a literal: a long log's texts are prefiltered
    entry_id = None
    for line in (DATA / "warn-lines-from-threads.log").read_text().splitlines():
        if line.startswith("# id: "):
            entry_id = line[6:].split(" ")[0]
            continue
        entry = next((e for e in entries if e.id == entry_id), None)
        if entry is not None and entry.signature.search(line):
            assert either.search(line), (entry_id, line)
