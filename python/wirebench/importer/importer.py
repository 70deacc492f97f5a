"""What every importer declares (`Importer`) and what the command line tells each (`Options`): the
shared types, apart from the registry that lists the importers (registry.py imports each importer;
each importer imports only this, so nothing imports in a circle). An importer's detection and parse
read one Paste (paste.py), built once per input file."""
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
    looks_like: Callable[..., bool]                 # (Paste) -> bool: the tool's lines, cleaned as parse reads them
    parse: Callable[..., tuple]                     # (path, Paste, Options) -> (rows, notes)
    looks_like_json: Optional[Callable[[object], bool]] = None
    parse_json: Optional[Callable[..., tuple]] = None  # (path, doc, Options, cut) -> (rows, notes)
    reads_cut_json: bool = False                    # whole results of a JSON cut short are kept
