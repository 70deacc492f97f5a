"""The one reader of results.csv's `extra` column (the C++ writer is bench/harness/extra_items.h).
Grammar: items `key=value` separated by ';'; a key is [A-Za-z][A-Za-z0-9_]*, a value is never empty
and holds no ';'. schema/extra-items.csv lists every key and its kind, once for both sides:
identity (part of what was measured: runs are matched by it), batching (follows the size or the
repetition), result (a measured figure) and fact (what it ran with: a tool's or library's version;
compare and the history report its change, it never splits an item)."""
import csv
import io
import re

from ..contracts.input_files import InputError, read_utf8
from ..contracts.schema import SCHEMA_DIR

CATALOGUE = SCHEMA_DIR / "extra-items.csv"
KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_kinds = None


def kinds():
    """{key: kind} from the catalogue; a key ending in '*' is a prefix."""
    global _kinds
    if _kinds is None:
        text = "".join(line for line in io.StringIO(read_utf8(CATALOGUE)) if not line.startswith("#"))
        _kinds = {row["key"]: row["kind"] for row in csv.DictReader(io.StringIO(text))}
    return _kinds


def kind_of(key):
    table = kinds()
    if key in table:
        return table[key]
    for pattern, kind in table.items():
        if pattern.endswith("*") and key.startswith(pattern[:-1]):
            return kind
    return None


def parse(text, where=""):
    """{key: value}, in order. Raises InputError naming `where` for an item that is not key=value."""
    items = {}
    for item in text.split(";") if text else []:
        key, sep, value = item.partition("=")
        if not sep or not KEY.match(key) or not value:
            raise InputError(f"{where}: extra item '{item}' is not key=value (docs/results.md, 'extra')")
        items[key] = value
    return items


def identity(items, results_too=()):
    """The identity items as text (what names a measurement whatever its size); `results_too`
    names identity keys that are results in this row (tflops when tflops_measured=1)."""
    return ";".join(f"{k}={v}" for k, v in items.items() if kind_of(k) in ("identity", None) and k not in results_too)


def row_identity(text):
    """identity() of a row's extra text; a measured compute rate (tflops_measured=1) is a result."""
    try:
        items = parse(text)
    except InputError:
        return text  # a damaged extra still names its row, as it is
    return identity(items, {"tflops"} if items.get("tflops_measured") == "1" else ())


def encode_items(items):
    """The writer's side of the grammar, for the runner's own rows: `key=value;...`, every key in the
    catalogue. A value's ';' and '%' are written %3B and %25 (a command line may hold them);
    command_item() reads them back."""
    for key in items:
        if kind_of(key) is None:
            raise ValueError(f"extra item '{key}' is not in {CATALOGUE}")
    return ";".join(f"{k}={str(v).replace('%', '%25').replace(';', '%3B')}" for k, v in items.items() if str(v))


def command_item(items, key):
    """A value encode_items() wrote, as it was given (None when absent)."""
    value = items.get(key)
    return None if value is None else value.replace("%3B", ";").replace("%25", "%")


def row_items(row):
    """{key: value} of a row's extra, or {} when it is damaged (the row's problem is reported once, by
    the reader)."""
    try:
        return parse(row.text("extra"))
    except InputError:
        return {}


def facts(text):
    """{key: value} of a row's fact items (tool_version, nccl_version)."""
    return {k: v for k, v in parse(text).items() if kind_of(k) == "fact"}
