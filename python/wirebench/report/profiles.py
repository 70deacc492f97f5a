"""Platform profiles (suites/profiles/NAME.yaml): absolute floors that a platform's vendor or operator
promises on top of the ceilings the topology implies, e.g. "8x H100: all_reduce busbw >= 460 GB/s
at 16 GiB". A floor names the rows it applies to (equal columns of results.csv; a list allows any of
its values; `extra: {numa: local}` matches items of the extra column), the metric, the floor and its
source; it judges the largest size of each matching sweep,
or every matching size from `min_bytes` on. Below the floor is a FAIL, within the profile's warn band
above it a WARN. A floor that matched no row is reported as not measured.

`wirebench run SUITE --profile NAME` (or the suite's `profile:`) stores the profile in the run
directory as profile.json, so `wirebench report` judges with it again later."""
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .extra import row_items
from ..contracts.input_files import InputError, read_utf8

PROFILES = Path(__file__).resolve().parents[3] / "suites" / "profiles"
METRICS = ("algbw_GBps", "busbw_GBps")
MATCHABLE = ("bench", "case", "backend", "link_class", "src", "dst", "direction", "op", "dtype", "ranks", "nodes")
UNITS = {"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30,
         "T": 1 << 40, "TiB": 1 << 40, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}


@dataclass
class Floor:
    name: str
    match: dict            # column -> list of accepted texts
    metric: str
    floor: float
    source: str
    min_bytes: int = None  # None: the largest size of each matching sweep
    extra: dict = field(default_factory=dict)  # item of the extra column -> list of accepted texts
    measure: str = ""      # how to measure what the floor judges, said when nothing matched
    judged: list = field(default_factory=list)  # the verdicts it judged (filled by judge)

    def matches(self, row):
        if not all(row.text(column) in accepted for column, accepted in self.match.items()):
            return False
        items = row_items(row)
        return all(items.get(key) in accepted for key, accepted in self.extra.items())


@dataclass
class Profile:
    name: str
    description: str
    warn_band: float
    floors: list
    origin: str = ""
    nics: dict = None  # the node's network ports: {count, rate_Gbps, link_class, source} (ceilings.stated_nics)

    def as_json(self):
        return {"name": self.name, "description": self.description, "warn_band": self.warn_band, "origin": self.origin,
                **({"nics": self.nics} if self.nics else {}),
                "floors": [{"name": f.name, "match": {**f.match, **({"extra": f.extra} if f.extra else {})},
                            "metric": f.metric, "floor": f.floor, "source": f.source,
                            **({"min_bytes": f.min_bytes} if f.min_bytes is not None else {}),
                            **({"measure": f.measure} if f.measure else {})} for f in self.floors]}


def _size(text, where):
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text
    found = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    if not found or found.group(2) not in UNITS:
        raise InputError(f"{where}: min_bytes: '{text}' is not a size (e.g. 16GiB, 1G, 268435456)")
    return int(found.group(1)) * UNITS[found.group(2)]


def _floor(item, where):
    if not isinstance(item, dict):
        raise InputError(f"{where}: a floor is a mapping with name, match, metric, floor and source")
    missing = [key for key in ("name", "match", "metric", "floor", "source") if key not in item]
    if missing:
        raise InputError(f"{where}: a floor needs {', '.join(missing)}")
    unknown = sorted(set(item) - {"name", "match", "metric", "floor", "source", "min_bytes", "measure"})
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]} in a floor")
    if item["metric"] not in METRICS:
        raise InputError(f"{where}: metric: '{item['metric']}' is not one of {', '.join(METRICS)}")
    if not isinstance(item["floor"], (int, float)) or isinstance(item["floor"], bool) or item["floor"] <= 0:
        raise InputError(f"{where}: floor: '{item['floor']}' is not a number > 0 (GB/s)")
    match = item["match"]
    if not isinstance(match, dict) or not match:
        raise InputError(f"{where}: match: a mapping of results.csv columns to values")
    for column in match:
        if column not in MATCHABLE + ("extra",):
            raise InputError(f"{where}: match: '{column}' is not one of {', '.join(MATCHABLE)} or extra")
    extra = match.get("extra", {})
    if not isinstance(extra, dict):
        raise InputError(f"{where}: match: extra: a mapping of items of the extra column to values")

    def accepted(values):
        return {key: [str(v) for v in (value if isinstance(value, list) else [value])] for key, value in values.items()}
    columns = accepted({column: value for column, value in match.items() if column != "extra"})
    return Floor(str(item["name"]), columns, item["metric"], float(item["floor"]), str(item["source"]),
                 _size(item["min_bytes"], where) if "min_bytes" in item else None, accepted(extra),
                 str(item.get("measure", "")))


def _floor_lines(text):
    """The line (1-based) where each item of the `floors:` list starts, for messages."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value == "floors" and isinstance(value, yaml.SequenceNode):
                return [item.start_mark.line + 1 for item in value.value]
    return []


def _nics(item, where):
    """A profile's `nics:` (the platform's network ports for its collectives across nodes: count,
    rate_Gbps, link_class ib|roce|eth, source), checked."""
    if not isinstance(item, dict) or set(item) - {"count", "rate_Gbps", "link_class", "ports", "source"}:
        raise InputError(f"{where}: nics: a mapping of count, rate_Gbps, link_class, ports and source")
    count, rate = item.get("count"), item.get("rate_Gbps")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise InputError(f"{where}: nics: count: '{count}' is not a number of ports >= 1")
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or rate <= 0:
        raise InputError(f"{where}: nics: rate_Gbps: '{rate}' is not a rate in Gb/s > 0")
    if item.get("link_class", "ib") not in ("ib", "roce", "eth") or not item.get("source"):
        raise InputError(f"{where}: nics: link_class is ib, roce or eth, and the ports need their source")
    return {"count": count, "rate_Gbps": rate, "link_class": item.get("link_class", "ib"),
            "ports": str(item.get("ports", "")), "source": str(item["source"])}


def parse_profile(doc, origin, text=""):
    if not isinstance(doc, dict) or not isinstance(doc.get("floors"), list) or not doc["floors"]:
        raise InputError(f"{origin}: a profile needs a name and a list of floors")
    if "name" not in doc:
        raise InputError(f"{origin}: a profile needs a name")
    band = doc.get("warn_band", 0.05)
    if not isinstance(band, (int, float)) or isinstance(band, bool) or not 0 <= band < 1:
        raise InputError(f"{origin}: warn_band: '{band}' is not a fraction between 0 and 1")
    lines = _floor_lines(text) if text else []
    floors = [_floor(item, f"{origin}:{lines[i]}" if i < len(lines) else f"{origin}: floor {i + 1}")
              for i, item in enumerate(doc["floors"])]
    nics = _nics(doc["nics"], origin) if "nics" in doc else None
    return Profile(str(doc["name"]), str(doc.get("description", "")), float(band), floors, str(origin), nics)


def load_profile(name_or_path):
    """A profile by name (suites/profiles/NAME.yaml) or path (.yaml, or a run's profile.json)."""
    path = Path(name_or_path)
    if not path.suffix:
        path = PROFILES / f"{name_or_path}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in PROFILES.glob("*.yaml")))
        raise InputError(f"{path}: no such profile (known: {known})")
    text = read_utf8(path)
    try:
        doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise InputError(f"{path}:{mark.line + 1 if mark else 0}: not valid YAML: {error}") from None
    return parse_profile(doc, path, text if path.suffix != ".json" else "")
