"""An imported figure as a results row: every column of schema 3, the tool named in `extra`."""
from ..report.extra import encode_items
from ..report.schema import RESULT_COLUMNS


# nccl-tests' bus-bandwidth factors (its PERFORMANCE.md): busbw = algbw x factor(ranks)
BUSBW = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
         "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
         "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


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
