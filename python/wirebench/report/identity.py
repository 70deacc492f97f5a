"""What names a measurement, written once: the item (a row's key: the history, compare and JUnit
match runs by it), and the views of it the reporter groups rows by, each the item less something:
its sweep (less its size), its equivalence (less its endpoints and size: the same measurement
between other endpoints), and its siblings (the equivalent items at one size and ceiling)."""
from .extra import row_identity

# The columns that name an item, in its key's order (the keys kept in a history hold this order).
ITEM_COLUMNS = ("bench", "case", "backend", "op", "dtype", "src", "dst", "bytes")
_SWEEP_COLUMNS = tuple(c for c in ITEM_COLUMNS if c != "bytes") + ("direction",)
_EQUIVALENCE_COLUMNS = ("bench", "case", "backend", "op", "dtype", "direction", "link_class")


def item_key(fields):
    """The item a row measured, stable across runs: bench/case/backend/op/dtype/src/dst/bytes/items."""
    return "/".join([*(fields[c] for c in ITEM_COLUMNS), row_identity(fields.get("extra", ""))])


def sweep(fields, with_items=True):
    """The item less its size: the rows of one measurement at several sizes. without its items: what
    an ERROR row (which may lack them) shares with the sweep it ended."""
    named = tuple(fields.get(c, "") for c in _SWEEP_COLUMNS)
    return named + (row_identity(fields.get("extra", "")),) if with_items else named


def equivalence(fields):
    """The item less its endpoints and size: the same measurement between other endpoints (as
    siblings are compared), not the round or matching of a schedule that placed them."""
    return tuple(fields[c] for c in _EQUIVALENCE_COLUMNS)


def siblings(fields, ceiling):
    """The equivalent items at one size held to one ceiling: those a link is compared with."""
    return equivalence(fields) + (fields["bytes"], ceiling)
