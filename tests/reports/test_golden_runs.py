"""What `wirebench report` makes of recorded run directories (tests/data/recorded-runs, real runs of the shipped
suites, clean and faulty, a cut file, a Slurm job) is held fixed: the console, the exit code,
summary.json, report.md and junit.xml. A change to any of them is a change of what users read, made
on purpose: rewrite the goldens with WB_UPDATE_GOLDENS=1 and say in the commit what changed and why."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wirebench.contracts.schema import schema_error

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "tests" / "data" / "recorded-runs"
OUTPUTS = ("summary.json", "report.md", "junit.xml")
UPDATE = os.environ.get("WB_UPDATE_GOLDENS") == "1"


def recorded():
    return sorted(p.name for p in RUNS.iterdir() if p.is_dir())


def report(tmp_path, name):
    """The recorded run copied without its goldens, reported as a user would; the texts with the
    copy's path written as RUN_DIR."""
    run_dir = tmp_path / name
    shutil.copytree(RUNS / name, run_dir, ignore=shutil.ignore_patterns("golden"))
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'python'}", MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-m", "wirebench.report", str(run_dir)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    texts = {"console.txt": f"exit code {done.returncode}\n{done.stdout}"}
    texts.update({out: (run_dir / out).read_text() for out in OUTPUTS})
    return {out: text.replace(str(run_dir), "RUN_DIR") for out, text in texts.items()}, done


@pytest.mark.parametrize("name", recorded())
def test_the_report_of_a_recorded_run_is_unchanged(tmp_path, name):
    texts, done = report(tmp_path, name)
    assert done.returncode in (0, 1, 2), done.stderr
    golden = RUNS / name / "golden"
    if UPDATE:
        golden.mkdir(exist_ok=True)
        for out, text in texts.items():
            (golden / out).write_text(text)
    assert schema_error(json.loads(texts["summary.json"]), "summary.schema.json") is None
    for out, text in texts.items():
        expected = (golden / out).read_text()
        assert text == expected, f"{name}/{out} differs from its golden (WB_UPDATE_GOLDENS=1 rewrites it on purpose)"


def test_every_recorded_run_has_its_goldens_and_the_runs_are_many():
    assert len(recorded()) >= 8
    for name in recorded():
        for out in ("console.txt", *OUTPUTS):
            assert (RUNS / name / "golden" / out).is_file(), f"{name}: golden/{out} missing"


@pytest.mark.parametrize("name", recorded())
def test_every_printer_shows_the_same_items_in_the_same_order(name):
    """One document, several printers: the items to act on, in the console and in report.md, are the
    same headlines in the same order, and summary.json counts what they count."""
    golden = RUNS / name / "golden"
    console = [line[2:] for line in (golden / "console.txt").read_text().splitlines()
               if line.startswith(("  FAIL ", "  ERROR ", "  WARN "))]
    md = [line[4:-2].replace("\\", "") if line.startswith("- **") and line.endswith("**") else
          line.removeprefix("- ").replace("**", "").replace("\\", "")
          for line in (golden / "report.md").read_text().splitlines()
          if line.startswith(("- **FAIL ", "- **ERROR", "- **WARN "))]
    # the console may fold wrong-data FAILs beyond the first few into one line that counts them
    folded = [line for line in console if " more data checks with wrong elements" in line]
    shown = [line for line in console if line not in folded]
    more = sum(int(line.split()[1]) for line in folded)
    assert len(shown) + more == len(md)
    it = iter(md)
    assert all(any(line == m for m in it) for line in shown), "the console's items are report.md's, in its order"
    counts = json.loads((golden / "summary.json").read_text())["counts"]
    for level in ("FAIL", "ERROR", "WARN"):
        assert sum(1 for line in md if line.startswith(level + " ")) == counts[level], level


@pytest.mark.parametrize("name", recorded())
def test_every_golden_summary_holds_to_its_schema(name):
    """summary.json as its readers read it: schema/summary.schema.json (issue 45)."""
    doc = json.loads((RUNS / name / "golden" / "summary.json").read_text())
    assert schema_error(doc, "summary.schema.json") is None


def test_the_schema_refuses_what_a_reader_could_not_read():
    """A verdict no reader knows, a count gone, a field of the wrong type: each named with its place."""
    doc = json.loads((RUNS / "vcluster-slow-node" / "golden" / "summary.json").read_text())
    broken = json.loads(json.dumps(doc))
    broken["verdicts"][3]["verdict"] = "MAYBE"
    assert schema_error(broken, "summary.schema.json").startswith("verdicts/3/verdict: 'MAYBE' is not one of")
    broken = json.loads(json.dumps(doc))
    del broken["counts"]["FAIL"]
    assert schema_error(broken, "summary.schema.json").startswith("counts: 'FAIL' is a required property")
    broken = json.loads(json.dumps(doc))
    broken["verdicts"][0]["value"] = "12.5"
    assert "verdicts/0/value: '12.5' is not of type" in schema_error(broken, "summary.schema.json")


def test_the_findings_kinds_are_the_schemas():
    """A finding kind the report writes is one summary.json's schema allows, and back."""
    from wirebench.contracts.schema import json_schema
    from wirebench.report.findings import KINDS
    assert set(json_schema("summary.schema.json")["$defs"]["finding"]["properties"]["kind"]["enum"]) == set(KINDS)
    for kind, module in KINDS.items():  # each kind's module has all a printer asks of it (findings/__init__.py)
        assert module.KIND == kind
        assert all(callable(getattr(module, name, None)) for name in ("make", "shown_as", "what", "name", "look_closer",
                                                                       "table")), kind
