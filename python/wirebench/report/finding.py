"""A finding: what a verdict found beyond one row's figure, typed once (issue 45). summary.json
writes it as its verdict's `finding` (schema/summary.schema.json); `wirebench slurm` and `wirebench
check` act on its `node` without reading prose or parsing names back."""
from dataclasses import dataclass

from .endpoints import parse

# kind: subject
KINDS = {
    "culprit": "what the node x node matrix names (culprits.py): node, nic, miswire, path, rail, route, fabric",
    "wiring": "a link of a node's wiring (topology.json): degraded (trained below what both ends allow), inactive",
    "nccl-log": "a diagnosis of NCCL's log (docs/nccl-diagnosis.md): its catalogue id",
}
NODE_CULPRITS = ("node", "nic", "miswire")  # a culprit that is one node's fault


@dataclass(frozen=True)
class Finding:
    kind: str      # a key of KINDS
    subject: str   # node, path, rail, ... ; degraded, inactive; socket-fallback, ...
    place: str     # node3, node2-node5, rail1, node3/mlx5_0@rail2; dgx01/gpu0-gpu1; job.log:42
    node: str      # the one node at fault, where it is one node's ("" where it is none's: a path, a log)

    def as_json(self):
        return {"kind": self.kind, "subject": self.subject, "place": self.place, "node": self.node or None}


def node_of(name):
    """The node of an endpoint (node3/gpu1: endpoints.py reads the grammar), of a NIC as a culprit
    names it (node3/rail1@rail2 when miswired) or of a bare node name (node3)."""
    end = name.partition("@")[0]
    found = parse(end)
    return found.node if found else end.split("/")[0]


def culprit(subject, name):
    """A culprit the matrix names: `name` is a node, a NIC (node3/mlx5_0, node3/mlx5_0@rail2 when
    miswired), a path (node2-node5), a rail or route, or the fabric."""
    return Finding("culprit", subject, name, node_of(name) if subject in NODE_CULPRITS else "")
