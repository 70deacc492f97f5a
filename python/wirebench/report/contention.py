"""Pairs measured at the same time (wb-net --pairs all and bisection rounds) that share a node's
network port: with more ranks per node than ports, each can reach only its share of the ceiling."""
from .endpoints import node_of, rank_of
from .extra import row_items


def port_shares(rows, ceilings):
    """{line: (share, why)} for rows measured at once with other pairs (wb-net --pairs all,
    bisection) whose nodes carry several of the round's pairs: with more ranks per node than network
    ports, those pairs share a port, and each can reach only its share of the ceiling. A stream
    shares its sender's port out and its receiver's port in; ping-pong and bidirectional rows use
    both ways of both."""
    groups = {}
    for row in rows:
        items_ = row_items(row)
        if row.status != "OK" or items_.get("pairs") not in ("all", "bisection"):  # wb-net's rounds at once
            continue
        src, dst = row.text("src"), row.text("dst")
        a, b = node_of(src), node_of(dst)
        if not a or not b or a == b:
            continue
        ranks = [rank_of(end) for end in (src, dst)]
        # a round's second stream pass runs its pairs the other way: the higher rank sends
        forward = ranks[0] < ranks[1] if None not in ranks else True
        key = (row.text("case"), row.text("backend"), row.text("bytes"), items_.get("pairs"), items_.get("round"), forward)
        groups.setdefault(key, []).append((row, a, b))
    shares = {}
    for members in groups.values():
        for row, a, b in members:
            if row.text("case") == "stream_bw":
                out = sum(1 for _, x, _ in members if x == a) / ceilings.network_ports(a)
                into = sum(1 for _, _, y in members if y == b) / ceilings.network_ports(b)
            else:
                out = sum(1 for _, x, y in members if a in (x, y)) / ceilings.network_ports(a)
                into = sum(1 for _, x, y in members if b in (x, y)) / ceilings.network_ports(b)
            share = max(out, into, 1)
            if share > 1:
                node = a if out >= into else b
                shares[row.line] = (share, f"{node}'s port carried {share:g} of this round's pairs at once")
    return shares
