"""A row's endpoint as wb-net writes it, `node3/rank5`: its node and its rank (the reporter's one
reader of that grammar; bench/harness writes it)."""


def node_of(endpoint):
    """'node3/rank5' -> 'node3' (a rank's node, as wb-net names it)."""
    return endpoint.rpartition("/")[0]


def rank_of(endpoint):
    tail = endpoint.rpartition("/")[2]
    return int(tail[4:]) if tail.startswith("rank") and tail[4:].isdigit() else None


def nic_name(node, rail):
    """A NIC of a rail-optimised fabric as findings name it: node3/rail1."""
    return f"{node}/rail{rail}"


def spoken_rail(name):
    """'rail1' -> 'rail 1', as the report's sentences say it."""
    return name.replace("rail", "rail ")


def rails_of(node_of_rank):
    """{rank: (node, rail)} from {rank: node}: a rank's place among its node's ranks is its rail (one
    rank per NIC), when nodes hold several ranks; else {}."""
    ranks_by_node = {}
    for rank, node in node_of_rank.items():
        ranks_by_node.setdefault(node, []).append(rank)
    if not ranks_by_node or max(len(r) for r in ranks_by_node.values()) < 2:
        return {}
    return {rank: (node, index) for node, ranks in ranks_by_node.items() for index, rank in enumerate(sorted(ranks))}
