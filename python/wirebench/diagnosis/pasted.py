"""NCCL's lines inside imported outputs (an nccl-tests run with NCCL_DEBUG=INFO, a job's log) are
diagnosed as `--nccl-log` is: `wirebench import` adds their findings to topology.json's `nccl`
section. The first file that has findings (or the `--nccl-log` given) is the section's source; the
findings of each other file come after, their `what` naming their file and line (`line` 0: the
section's source is another file)."""
from pathlib import Path

from ..contracts.input_files import InputError
from ..contracts.schema import version
from . import errors, output, wiring
from .diagnose import diagnose
from .log_reader import read_log


def add_pasted(doc, paths, given_log=None):
    """topology.json's document (None where none was given) with the findings of every file in
    `paths` that holds NCCL's lines (or an error line); `given_log` (--nccl-log) is read already."""
    node = wiring.from_topology(doc)
    for path in paths:
        if given_log is not None and Path(path).resolve() == Path(given_log).resolve():
            continue
        try:
            log = read_log(path)
        except InputError:
            continue  # no line of NCCL's (an nvbandwidth or OSU output): nothing to diagnose
        if not log.messages and all(e.kind == "unread" for e in errors.find(log)):
            continue  # a tool's output whose words say an error no rule reads: its importer reads the file
        findings = diagnose(log, node)
        if not findings:
            continue
        if doc is None:
            doc = {"schema_version": version("topology"), "nodes": [], "typical_latency_us": []}
        if not doc.get("nccl"):
            doc["nccl"] = output.nccl_section(log, findings)
            continue
        for f in findings:
            said = f.as_json()
            said["what"], said["line"] = f"{log.source}:{f.line}: {said['what']}", 0
            doc["nccl"]["diagnoses"].append(said)
    return doc
