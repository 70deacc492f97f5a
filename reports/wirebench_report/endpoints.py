"""A row's endpoint as wb-net writes it, `node3/rank5`: its node and its rank (the reporter's one
reader of that grammar; bench/harness writes it)."""


def node_of(endpoint):
    """'node3/rank5' -> 'node3' (a rank's node, as wb-net names it)."""
    return endpoint.rpartition("/")[0]


def rank_of(endpoint):
    tail = endpoint.rpartition("/")[2]
    return int(tail[4:]) if tail.startswith("rank") and tail[4:].isdigit() else None
