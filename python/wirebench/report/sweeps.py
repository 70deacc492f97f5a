"""Sweeps: which rows are one measurement at several sizes (a sweep's key), and which sweeps did
not finish (an ERROR at a larger size, a step that ended, a cut file), whose largest point is then no item."""
from . import judging
from .identity import equivalence, sweep
from .results import IDENTITY


def sweep_key(row):
    return sweep(row.fields)


def sweep_bounds(rows):
    """({sweep: its largest size}, {sweep: its smallest size}) over the measured rows."""
    largest, smallest = {}, {}
    for row in rows:
        if row.status == "OK":
            key, size = sweep_key(row), int(row.text("bytes") or 0)
            largest[key] = max(largest.get(key, 0), size)
            smallest[key] = min(smallest.get(key, size), size)
    return largest, smallest


def incomplete_sweeps(results, largest):
    """Sweeps whose largest size never finished, each with why: a larger size of the same sweep
    that is an ERROR row (interrupted), or the row results.csv was cut in (matched by its first
    fields; when too little of it survives, the sweep of the row before it)."""
    incomplete = {}
    by_identity = {}
    for key in largest:
        by_identity.setdefault(key[:-1], []).append(key)
    for row in results.rows:
        if row.status == "ERROR" and not judging.by_prediction(row):
            size = int(row.text("bytes") or 0)
            for key in by_identity.get(sweep(row.fields, with_items=False), []):
                if size > largest[key]:
                    incomplete[key] = f"its {size} B point, {row.where}, is an ERROR"
    # A step that ended early (its ERROR row, the runner's at a step timeout or the binary's own) cuts
    # the sweep it was in: the last one of its bench written before the ERROR, when equivalent sweeps
    # (the same measurement between other endpoints) reached a larger size. Its largest point so far
    # is no bandwidth item: an 8 B stream judged against the link's ceiling is a false FAIL.
    for error in (r for r in results.rows if r.status == "ERROR"):
        before = [r for r in results.rows if r.status == "OK" and r.line < error.line
                  and r.text("bench") == error.text("bench")]
        if not before:
            continue
        key, kind = sweep_key(before[-1]), equivalence(before[-1].fields)
        reached = max(int(r.text("bytes") or 0) for r in before if equivalence(r.fields) == kind)
        if largest.get(key, 0) < reached:
            incomplete.setdefault(key, f"its step ended, {error.where} is an ERROR, before its {reached} B point, "
                                       "which the same measurement between other endpoints reached")
    cut = results.cut_row
    if cut is not None:
        # The sweeps the cut row may belong to: those whose rows agree with every field of it that
        # survived whole (when none did, the sweep of the row before it).
        named = {c: v for c, v in cut.fields.items() if c in IDENTITY and c != "bytes"}
        size = int(cut.fields["bytes"]) if cut.fields.get("bytes", "").isdigit() else None
        ok = [r for r in results.rows if r.status == "OK" and r.line < cut.line]
        if named:
            keys = {sweep_key(r) for r in ok if all(r.text(c) == v for c, v in named.items())}
        else:
            keys = {sweep_key(ok[-1])} if ok else set()
        for key in (k for k in keys if size is None or size > largest.get(k, 0)):
            incomplete[key] = f"results.csv line {cut.line}, its next point, was cut short"
    return incomplete
