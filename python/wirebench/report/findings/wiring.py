"""A link of a node's wiring that topology.json found degraded (trained below what both ends allow)
or inactive (a port that is not up): its record, the row it is shown and keyed as, and its words."""
from dataclasses import dataclass

from ..results import Row
from .record import Finding

KIND = "wiring"
SUBJECTS = ("degraded", "inactive")


@dataclass(frozen=True)
class Link:
    link_class: str
    a: str  # host/end, as topology.json names the link's ends
    b: str


def make(subject, host, link_class, a, b):
    """The link a-b of `host`, as topology.json names its ends (gpu0, mlx5_0)."""
    return Finding(KIND, subject, f"{host}/{a}-{b}", host, Link(link_class, f"{host}/{a}", f"{host}/{b}"))


def shown_as(record):
    link = record.evidence
    fields = {"bench": "topology", "case": record.subject, "backend": "", "link_class": link.link_class,
              "src": link.a, "dst": link.b, "direction": "", "op": "", "dtype": "", "bytes": "0", "extra": "",
              "status": "OK"}
    return Row(0, fields, "topology.json")


def what(v):
    link = v.record.evidence
    return f"topology: {link.link_class or 'a'} link {link.a} - {link.b} is {v.record.subject}"


def name(v):
    link = v.record.evidence
    return f"{v.record.subject} {link.link_class} link {link.a} -> {link.b}"


def look_closer(v):
    return "check: lspci -vv (LnkSta against LnkCap), nvidia-smi nvlink -s, ibstat; reseat or replace the part"


def table(v):
    return "topology"
