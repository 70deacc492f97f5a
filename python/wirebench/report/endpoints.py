"""A row's endpoint, `node3/rank5`, `node3/gpu5`, `node3/numa1`, or a NIC as findings name it,
`node3/rail1` (schema/endpoints.csv): the reporter's one reader of that grammar (the binaries write
it through bench/harness/endpoint_name.h)."""
import re
from typing import NamedTuple

from ..contracts.schema import rows

KINDS = tuple(r["kind"] for r in rows("endpoints.csv"))
_GRAMMAR = re.compile(rf"(?P<node>[^/,]+)/(?P<kind>{'|'.join(KINDS)})(?P<index>\d+)\Z")


class Endpoint(NamedTuple):
    node: str
    kind: str   # one of KINDS
    index: int

    @property
    def local(self):
        """The endpoint's name on its node, as topology.json names a link's ends: 'gpu5'."""
        return f"{self.kind}{self.index}"


def parse(text):
    """Endpoint('node3', 'gpu', 5) from 'node3/gpu5'; None for what is no endpoint of one node (a
    communicator's node list, 'all', an empty field)."""
    m = _GRAMMAR.match(text or "")
    return Endpoint(m["node"], m["kind"], int(m["index"])) if m else None


def name(node, kind, index):
    """'node3/gpu5' from ('node3', 'gpu', 5)."""
    assert kind in KINDS, kind
    return f"{node}/{kind}{index}"


def node_of(endpoint):
    """'node3/rank5' -> 'node3'; '' for what is no endpoint of one node."""
    found = parse(endpoint)
    return found.node if found else ""


# A collective's src that names no node: wb-coll's communicators (bench/coll/wb_coll_main.cpp
# split_name) and an aggregate's `all`. Any other src of a collective names its communicator's nodes
# (an import's `dgx01`, `dgx01,dgx02`: schema/endpoints.csv).
COMMUNICATORS = ("world", "intra-node", "rails", "all")


def communicator_node(text):
    """'dgx01' for a collective's communicator on that one node; '' for several nodes or none named."""
    text = text or ""
    return "" if not text or "," in text or "/" in text or text in COMMUNICATORS else text


def rank_of(endpoint):
    """'node3/rank5' -> 5; None for an endpoint that is no rank."""
    found = parse(endpoint)
    return found.index if found and found.kind == "rank" else None


def nic_name(node, rail):
    """A NIC of a rail-optimised fabric as findings name it: node3/rail1."""
    return name(node, "rail", rail)


def nic_of(name):
    """('node3', 'rail1') from a NIC's 'node3/rail1'; (name, '') for a name that is no endpoint."""
    found = parse(name)
    return (found.node, found.local) if found else (name, "")


def spoken_rail(rail):
    """'rail1' -> 'rail 1', as the report's sentences say it."""
    return rail.replace("rail", "rail ")


def rails_of(node_of_rank):
    """{rank: (node, rail)} from {rank: node}: a rank's place among its node's ranks is its rail (one
    rank per NIC), when nodes hold several ranks; else {}."""
    ranks_by_node = {}
    for rank, node in node_of_rank.items():
        ranks_by_node.setdefault(node, []).append(rank)
    if not ranks_by_node or max(len(r) for r in ranks_by_node.values()) < 2:
        return {}
    return {rank: (node, index) for node, ranks in ranks_by_node.items() for index, rank in enumerate(sorted(ranks))}
