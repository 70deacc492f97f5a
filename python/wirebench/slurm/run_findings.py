"""Which nodes a run directory blames, and which it found healthy: the one reader here of
summary.json (wirebench report's, schema 4, and 3 whose findings have no evidence) and of check.json (wirebench check's). A node is blamed by a FAIL
that is its own: a finding whose `node` the report named (a culprit the fabric matrix names as a
node, a NIC or a miswired NIC; a link of its wiring), or a FAIL of a measurement inside one node
(host memory, GPU pairs). A path, a rail, a route, the whole fabric or NCCL's log is no one node's
fault: those are listed, never drained."""
import calendar
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from wirebench.report.findings import node_of
from wirebench.contracts.input_files import InputError
from wirebench.contracts.run_meta import read_meta
from wirebench.contracts.schema import schema_error, version

SUMMARY_SCHEMAS = (3, version("summary"))  # 3: the same but a finding's evidence
CHECK_SCHEMA = version("check")  # check.json, written by check.py


class RunDirError(ValueError):
    """A run directory that cannot be read: the message names the file and the problem."""


@dataclass
class RunFindings:
    run: str                                   # the run directory's name, as reasons quote it
    time: float | None = None                  # when it was measured (seconds since the epoch)
    blamed: dict = field(default_factory=dict)  # node -> what (the first FAIL that is its own)
    healthy: set = field(default_factory=set)   # nodes measured with nothing of their own failing
    not_node: list = field(default_factory=list)  # FAILs that are no one node's: "path:node1-node2 ..."


def _load(path, schemas, json_schema=None):
    try:
        doc = json.loads(path.read_text())
    except OSError as error:
        raise RunDirError(f"{path}: cannot be read: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise RunDirError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    if doc.get("schema_version") not in schemas:
        raise RunDirError(f"{path}: schema_version {doc.get('schema_version')!r}; this wirebench reads "
                          f"{', '.join(map(str, schemas))}")
    broken = schema_error(doc, json_schema) if json_schema else None
    if broken:
        raise RunDirError(f"{path}: {broken}")
    return doc


def load_summary(run_dir):
    """summary.json of a run directory, its version and its JSON Schema (schema/summary.schema.json)
    checked: RunDirError names the file and the place otherwise."""
    return _load(Path(run_dir) / "summary.json", SUMMARY_SCHEMAS, "summary.schema.json")


def _what(v, name=None):
    """A FAIL in a few words: what (the culprit's kind and name, or the item), the figure, against what."""
    figure = f" {v['measured']}" if v.get("measured") else ""
    expected = f", expected {v['expected']}" if v.get("expected") else ""
    return f"{name or v['item']}:{figure}{expected}"


def _utc(text):
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def read_run(run_dir):
    run_dir = Path(run_dir)
    found = RunFindings(run_dir.name)
    if not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such run directory")
    if (run_dir / "check.json").exists():
        doc = _load(run_dir / "check.json", (CHECK_SCHEMA,))
        found.time = _utc(doc.get("time"))
        if doc["verdict"] == "PASS":
            found.healthy.add(doc["node"])
        else:
            found.blamed[doc["node"]] = doc["reason"]
        return found
    summary = load_summary(run_dir)
    try:
        found.time = _utc(read_meta(run_dir / "meta.json").get("created"))
    except (OSError, InputError):
        pass  # a run without a readable meta.json: no time, so it resumes nothing
    measured, failing = set(), set()  # a node in a failing pair is not found healthy, nor blamed
    for v in summary["verdicts"]:
        finding = v["finding"] or {}
        ends = [node_of(v[end]) for end in ("src", "dst") if v.get(end)] if finding.get("kind") != "culprit" else []
        if v["verdict"] in ("PASS", "WARN", "FAIL", "DATA"):
            measured.update(ends)
        if v["verdict"] != "FAIL":
            continue
        failing.update(ends)
        named = f"{finding['subject']} {finding['place']}" if finding.get("kind") == "culprit" else None
        if finding.get("node"):
            found.blamed.setdefault(finding["node"], _what(v, named))
        elif named:
            found.not_node.append(f"{finding['subject']}:{finding['place']}: {v['reason']}")
        elif len(set(ends)) == 1 and ends[0]:
            found.blamed.setdefault(ends[0], _what(v))
        else:
            found.not_node.append(f"{' - '.join(ends) or v['key']}: {_what(v)}")
    found.healthy = {n for n in measured if n and n not in found.blamed and n not in failing}
    return found
