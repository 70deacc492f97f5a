"""The finding record: its kind, subject, place, the one node at fault and the evidence its kind keeps
(a kind module's dataclass). summary.json writes it whole (schema/summary.schema.json)."""
from dataclasses import asdict, dataclass

from ..endpoints import parse


@dataclass(frozen=True)
class Finding:
    kind: str      # a key of findings.KINDS
    subject: str   # node, path, rail, ... ; degraded, inactive; socket-fallback, ...
    place: str     # node3, node2-node5, rail1, node3/mlx5_0@rail2; dgx01/gpu0-gpu1; job.log:42
    node: str      # the one node at fault, where it is one node's ("" where it is none's: a path, a log)
    evidence: object = None  # what the kind keeps of how it was found (culprit.Measured, wiring.Link, ...)

    def as_json(self):
        return {"kind": self.kind, "subject": self.subject, "place": self.place, "node": self.node or None,
                "evidence": asdict(self.evidence) if self.evidence else None}


def node_of(name):
    """The node of an endpoint (node3/gpu1: endpoints.py reads the grammar), of a NIC as a culprit
    names it (node3/rail1@rail2 when miswired) or of a bare node name (node3)."""
    end = name.partition("@")[0]
    found = parse(end)
    return found.node if found else end.split("/")[0]
