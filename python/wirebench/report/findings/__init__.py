"""Findings: what a verdict found beyond one row's figure, each a typed record (record.py) of a kind
that has a module of its own here, holding everything that kind means, written once (issue 45):
  - culprit.py: what the node x node matrix names (culprits.py): a node, NIC, miswire, path, rail,
    route or the fabric, with the measurement it was localised from;
  - wiring.py: a link of a node's wiring (topology.json) that is degraded or inactive;
  - nccl_log.py: a diagnosis of NCCL's log (docs/nccl-diagnosis.md), with its fix.
Each kind module gives the record, the row it is shown and keyed as (tables, history, JUnit: built
from the record, never read back) and its words for the printers (what, name, look closer, table).
summary.json writes the record as its verdict's `finding` (schema/summary.schema.json); `wirebench
slurm` and `wirebench check` act on its `node`. A new kind: a module here with those, its name in
KINDS and in the schema's enum (tests/reports/test_golden_runs.py keeps the two in step)."""
from . import culprit, nccl_log, wiring
from .record import Finding, node_of  # noqa: F401

KINDS = {module.KIND: module for module in (culprit, wiring, nccl_log)}


def words(record):
    """The module that words a finding of this record's kind."""
    return KINDS[record.kind]
