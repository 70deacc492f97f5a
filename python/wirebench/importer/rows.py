"""An imported figure as a results row: every column of schema 3, the tool named in `extra`."""
from .. import collectives
from ..report.extra import encode_items
from ..contracts.schema import RESULT_COLUMNS


BUSBW = collectives.BUSBW  # nccl-tests' bus-bandwidth factors, by each collective's one spelling


def row(where, tool, version, **fields):
    """A results row (a dict of every column) from `fields`; `where` is FILE:LINE."""
    items = {"tool": tool, "tool_version": version or "unknown", "source": where}
    items.update(fields.pop("items", {}))
    out = {c: "" for c in RESULT_COLUMNS}
    out.update(status="OK", extra=encode_items(items))
    out.update({k: ("" if v is None else v) for k, v in fields.items()})
    return out


def number(value, digits=7):
    return "" if value is None else f"{value:.{digits}g}"
