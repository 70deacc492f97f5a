"""The importers, one entry each: the tool's name (the rows' `tool` item), what its output is known
by (said when a file is refused), how it recognises its text and its JSON, and its readers over
the shared line reader (lines.py). Adding a tool is one module that declares its IMPORTER, its line
here, and its tests; wirebench import asks each in this order (the first that recognises a file
reads it)."""
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class Options:
    """What the command line tells every importer (each takes what its tool does not print)."""
    op: Optional[str] = None            # nccl-tests' collective
    link_class: str = ""
    hosts: tuple = ("", "")             # a point-to-point pair's nodes; nvbandwidth's node is the first
    ranks: Optional[int] = None         # OSU's collectives
    bytes: Optional[int] = None         # nvbandwidth's and p2pBandwidthLatencyTest's buffer


@dataclass(frozen=True)
class Importer:
    tool: str
    known_by: str                                   # "its '# nThread' header"
    looks_like: Callable[[str], bool]
    parse: Callable[..., tuple]                     # (path, text, Options) -> (rows, notes)
    looks_like_json: Optional[Callable[[object], bool]] = None
    parse_json: Optional[Callable[..., tuple]] = None  # (path, doc, Options, cut) -> (rows, notes)
    reads_cut_json: bool = False                    # whole results of a JSON cut short are kept


def importers():
    """Every importer, in the order they are asked."""
    from . import imb, nccl_tests, nvbandwidth, osu, p2p_bandwidth_latency, perftest
    return (nccl_tests.IMPORTER, osu.IMPORTER, nvbandwidth.IMPORTER, p2p_bandwidth_latency.IMPORTER,
            perftest.IMPORTER, imb.IMPORTER)
