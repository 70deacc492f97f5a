"""A culprit: what the node x node matrix names (culprits.py) — a node, a NIC, a NIC on another
rail's switch (miswire), a path, a rail, a route between two switches, or the fabric as a whole —
with the measurement it was localised from. Its record, the row it is shown and keyed as, and its
words."""
from dataclasses import dataclass, replace

from ..endpoints import nic_of, spoken_rail
from ..sizes import size_text
from .record import Finding, node_of

KIND = "culprit"
SUBJECTS = ("node", "nic", "miswire", "path", "rail", "route", "fabric")
NODE_CULPRITS = ("node", "nic", "miswire")  # a culprit that is one node's fault


@dataclass(frozen=True)
class Measured:
    """The measurement a culprit was localised from: one fleet of pairs."""
    case: str        # wb-net's test: bw, pingpong, ...
    backend: str
    link_class: str
    bytes: int       # the size
    schedule: str    # --pairs: all, bisection, adaptive, ... ("" where the rows do not say)
    rows: int        # the rows of results.csv it explains (both directions of each pair, every rank pair)
    worst_line: int  # results.csv's line of the worst of them


def make(subject, name, measured=None):
    """A culprit the matrix names: `name` is a node, a NIC (node3/rail1, node3/rail1@rail2 when
    miswired), a path (node2-node5), a rail or route, or the fabric ("all")."""
    return Finding(KIND, subject, name, node_of(name) if subject in NODE_CULPRITS else "", measured)


def ends(record):
    """(a, b): the two nodes of a path, a miswired NIC and the rail whose switch it is on, else
    (the place, ""); the fabric is "all"."""
    if record.subject == "fabric":
        return "all", ""
    if record.subject in ("path", "miswire"):
        a, _, b = record.place.partition("-" if record.subject == "path" else "@")
        return a, b
    return record.place, ""


def shown_as(record, worst):
    """The row the culprit is shown and keyed as (the row tables, JUnit, the history): its worst
    pair's figures (`worst`, the row at evidence.worst_line) under the culprit's own name (bench
    `fabric`, case SUBJECT:test, the culprit's ends)."""
    a, b = ends(record)
    fields = dict(worst.fields, bench="fabric", case=f"{record.subject}:{record.evidence.case}", src=a, dst=b,
                  extra=f"pairs={record.evidence.schedule}" if record.evidence.schedule else "")
    return replace(worst, fields=fields, origin=f"{record.evidence.rows} rows of results.csv, the worst at line {worst.line}")


def what(v):
    record, measured = v.record, v.record.evidence
    a, b = ends(record)
    node, rail = nic_of(a)
    part = {"node": f"node {a}", "path": f"the path {a}-{b}", "rail": a, "route": f"the route {a}",
            "fabric": "the fabric as a whole", "nic": f"{node}'s NIC on {spoken_rail(rail)}",
            "miswire": f"{node}'s rail-{rail[4:]} NIC cabled to {spoken_rail(b)}'s switch"}.get(record.subject, a)
    schedule = measured.schedule
    return (f"fabric culprit: {part}, from net {measured.case}{' --pairs ' + schedule if schedule else ''} "
            f"({measured.link_class}) at {size_text(measured.bytes)} ({measured.backend})")


def name(v):
    """None: named as the row it is shown as."""
    return None


def look_closer(v):
    kind = v.record.subject
    a, b = ends(v.record)
    if kind == "node":
        return (f"check {a}'s NIC, cable and switch port (ethtool, ibstat, perfquery, ip -s link); rerun wb-net "
                f"--pairs all on a few nodes with {a} and without it")
    if kind == "path":
        return (f"check the cable and the switch ports between {a} and {b} and the route they take "
                f"(ibtracert, ibdiagnet); rerun the pair alone with wb-net --pairs first on those two nodes")
    if kind == "rail":
        return f"check {a}'s switch and its cabling (ibdiagnet on that rail)"
    if kind == "nic":
        node, rail = nic_of(a)
        return (f"check {node}'s {spoken_rail(rail)} NIC, its cable and its switch port (ethtool, ibstat, perfquery, "
                f"ip -s link; lspci -vv for its PCIe link); {node}'s other NICs are fine")
    if kind == "miswire":
        node, rail = nic_of(a)
        return (f"move {node}'s {spoken_rail(rail)} cable to that rail's switch (it is on "
                f"{spoken_rail(b)}'s: ibnetdiscover or lldpctl show its neighbour); rerun the screen")
    if kind == "route":
        x, _, y = a.partition("-")
        return (f"check the uplinks of switches {x} and {y} and the spine ports between them (ibdiagnet, "
                "perfquery on their ports); rerun the screen, or wb-net --pairs all on a few nodes of each")
    return "check the switches (ibdiagnet) and the ceiling the report used for these links"


def table(v):
    """The report's table it is listed in: its measurement's link class."""
    return (v.record.evidence.link_class or "unclassified") + " links"
