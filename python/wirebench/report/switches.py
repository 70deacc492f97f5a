"""RUN_DIR/switches.json: which leaf switch each node hangs off (one writer: the runner, from Slurm's
topology; one reader: the adaptive screen's replay). Nodes under one switch are a group the screen
pairs with every other group, so that a slow route between two switches is seen.
  {"switches_schema_version": 1, "source": "scontrol show topology", "leaf_of": {"node3": "s0", ...}}"""
import json

from .results import InputError
from ..contracts.schema import version

SCHEMA = version("switches")  # schema/versions.csv
FILE = "switches.json"


def write_switches(run_dir, leaf_of, source):
    (run_dir / FILE).write_text(json.dumps({"switches_schema_version": SCHEMA, "source": source,
                                            "leaf_of": dict(sorted(leaf_of.items()))}, indent=2) + "\n")


def load_switches(run_dir):
    """{node: leaf switch}, {} when the run has no switches.json. InputError naming the file when it
    cannot be read or is of another version."""
    path = run_dir / FILE
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    version = doc.get("switches_schema_version") if isinstance(doc, dict) else None
    if version != SCHEMA:
        raise InputError(f"{path}:1: switches_schema_version {version!r}; this reporter reads {SCHEMA}")
    leaf_of = doc.get("leaf_of")
    if not isinstance(leaf_of, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in leaf_of.items()):
        raise InputError(f"{path}:1: leaf_of must map node names to switch names")
    return leaf_of
