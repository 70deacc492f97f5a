"""A platform profile's floors judging the items they match (the worse verdict stands)."""
from .comparisons import communicators_below
from .sweeps import sweep_key
from .verdict import ORDER


def apply_profile(verdicts, profile, largest):
    """Each floor judges the items it matches (the largest size of each sweep, or every size from its
    min_bytes on, which makes those sizes items): FAIL below the floor, WARN within the profile's band
    above it."""
    for floor in profile.floors:
        floor.judged = []
        for v in verdicts:
            row = v.row
            if row.status != "OK" or row.number("errors") or not floor.matches(row):
                continue
            size = int(row.text("bytes") or 0)
            if size < (largest.get(sweep_key(row), 0) if floor.min_bytes is None else floor.min_bytes):
                continue
            value = row.number(floor.metric)
            if value is None:
                continue
            if value < floor.floor:
                level = "FAIL"
            elif value < floor.floor * (1 + profile.warn_band):
                level = "WARN"
            else:
                level = "PASS"
            note = (f"profile {profile.name}: {floor.metric.split('_')[0]} {value:.4g} GB/s against the floor "
                    f"{floor.floor:.4g} GB/s of '{floor.name}' (source: {floor.source})")
            if level == "FAIL":
                note += "; below the floor"
                below = communicators_below(row, floor.metric, floor.floor)
                if below:
                    note += " on " + ", ".join(f"{label} ({value_:.4g} GB/s)" for label, value_ in below)
            elif level == "WARN":
                note += f"; within {100 * profile.warn_band:.0f}% above the floor"
            floor.judged.append((v, level, value))
            v.floor_GBps, v.floor_metric = floor.floor, floor.metric
            if v.verdict in ("DATA", "NOT JUDGED"):  # nothing else judged it: the floor's verdict is the only one
                v.verdict, v.reason, v.metric, v.value = level, note, floor.metric, value
                v.hold_against(f">= {floor.floor:.4g} GB/s (floor '{floor.name}' of profile {profile.name})", floor.floor)
            elif ORDER[level] > ORDER[v.verdict]:
                v.verdict = level
                v.note_before(note)
                v.hold_against(f">= {floor.floor:.4g} GB/s (floor '{floor.name}' of profile {profile.name})",
                               floor.floor if v.metric == floor.metric else None)
            else:
                v.note_after(note)


def unmeasured(profile):
    """What the profile requires and no row measured, a few words a floor (the profile's table says
    how to measure it): the run is not healthy while any is left (exit code 4, named first)."""
    if profile is None:
        return []
    return [f"profile {profile.name}: floor '{o['floor'].name}' not measured"
            for o in floor_outcomes(profile) if o["rows"] == 0]


def floor_outcomes(profile):
    """Per floor: rows judged, the worst value and verdict ("not measured" when nothing matched)."""
    out = []
    for floor in profile.floors:
        if not floor.judged:
            out.append({"floor": floor, "rows": 0, "worst": None, "verdict": "not measured"})
            continue
        worst = min(floor.judged, key=lambda item: item[2])
        verdict = max((level for _, level, _ in floor.judged), key=lambda level: ORDER[level])
        out.append({"floor": floor, "rows": len(floor.judged), "worst": worst[2], "verdict": verdict})
    return out
