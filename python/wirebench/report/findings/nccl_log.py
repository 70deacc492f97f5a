"""A diagnosis of NCCL's log (docs/nccl-diagnosis.md's catalogue): its record, the row it is shown
and keyed as, and its words."""
from dataclasses import dataclass

from ..extra import encode_items
from ..results import Row
from .record import Finding

KIND = "nccl-log"


@dataclass(frozen=True)
class Entry:
    source: str      # the log's file and line: job.log:42
    fix: str         # the catalogue's fix
    fix_source: str  # where the catalogue has it from


def make(catalogue_id, entry):
    return Finding(KIND, catalogue_id, entry.source, "", entry)


def shown_as(record):
    fields = {"bench": "nccl-log", "case": record.subject, "backend": "nccl", "link_class": "", "src": "", "dst": "",
              "direction": "", "op": "", "dtype": "", "bytes": "0", "status": "OK",
              "extra": encode_items({"source": record.evidence.source})}
    return Row(0, fields, "topology.json")


def what(v):
    return f"NCCL log: {v.record.subject} (docs/nccl-diagnosis.md)"


def name(v):
    return f"NCCL log: {v.record.subject}"


def look_closer(v):
    entry = v.record.evidence
    return f"fix: {entry.fix} (source: {entry.fix_source})"


def table(v):
    return "NCCL log"
