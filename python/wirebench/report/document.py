"""The report as one ordered document, which every printer renders (outputs.py: the console, report.md,
report.html, junit.xml, summary.json), so the order is written once, here: the counts and the verdict
in one sentence, a note when the run is incomplete; each FAIL, then each ERROR (the input problems
with them), then each WARN, as what / measured vs expected / where / why / how sure / how to look
closer; the SKIPs, the NOT JUDGED, the training steps' communication and the notes on the input
one line per reason; the platform profile's floors; a table per link class; every row."""
from dataclasses import dataclass, field

from .floors import unmeasured
from .verdicts import EXPOSED_FINDING_PCT, counts, floor_outcomes, grouped, items
from .wording import (PROFILE_HEADINGS, ROW_HEADINGS, TABLE_HEADINGS, by_bench, counts_line, details,
                      headline, incomplete_note, link_class_tables, measured, not_judged_lines, profile_rows,
                      row_cells, row_name, skip_lines, step_shares, table_cells, verdict_line, what)

ATTENTION = ("FAIL", "ERROR", "WARN")  # the verdicts a reader acts on, in the order they are shown


@dataclass
class Entry:
    """A judged item in words (every printer's: the console, report.md, report.html, junit.xml,
    summary.json), or (verdict None) an input problem, shown with the ERRORs."""
    level: str
    what: str = ""
    measured: str = ""
    expected: str = ""
    headline: str = ""
    details: list = field(default_factory=list)  # (label, text)
    problem: str = ""                            # an input problem's sentence
    verdict: object = None                       # the Verdict, for printers that need its figures
    name: str = ""                               # short, as a test's name (JUnit's testcase)


@dataclass
class Listing:
    """SKIP, NOT JUDGED, the training steps' communication or notes on the input: one line per reason."""
    key: str      # "SKIP", "NOT JUDGED", "step", "note"
    title: str
    lines: list


@dataclass
class Table:
    title: str
    headings: tuple
    rows: list  # (verdict, cells): cells in headings' order; verdict "" for a sweep point


@dataclass
class Document:
    run_dir: str
    counts: dict
    counts_line: str
    verdict_line: str
    incomplete: str
    attention: list            # [(level, [Entry])], levels in ATTENTION order, empty ones left out
    listings: list             # [Listing], empty ones left out
    profile: object            # the platform profile or None
    profile_table: Table
    link_tables: list          # [Table], one per link class
    row_tables: list           # [Table], one per bench: every row
    verdicts: list             # every verdict (sweep points too)
    items: list                # [Entry] of every item (no sweep point), in the verdicts' order
    problems: list
    data_points: int = 0


def document(run_dir, verdicts, problems, profile=None, notes=()):
    described = [Entry(v.verdict, what(v), measured(v), v.expected, headline(v), details(v), verdict=v, name=row_name(v))
                 for v in items(verdicts)]
    attention = []
    for level in ATTENTION:
        entries = [e for e in described if e.level == level]
        if level == "ERROR":
            entries += [Entry(level, "input", problem=p) for p in problems]
        if entries:
            attention.append((level, entries))
    listings = [Listing(key, title, lines) for key, title, lines in (
        ("SKIP", "SKIP (this machine cannot run them)", skip_lines(verdicts)),
        ("NOT JUDGED", "NOT JUDGED (measured, not judged: each line says why)", not_judged_lines(verdicts)),
        ("step", f"Training-step communication (steps that wait on it for more than "
                 f"{EXPOSED_FINDING_PCT:.0f}% of their time)",
         step_shares(verdicts)),
        ("note", "Notes on the input (what reading it said)", list(notes))) if lines]
    missing = unmeasured(profile)  # what was required and not judged: named first (exit code 4)
    profile_table = None
    if profile:
        profile_table = Table(f"Platform profile: {profile.name}", PROFILE_HEADINGS,
                              [(row[5], row) for row in profile_rows(profile)])
    link_tables = [Table(link_class, TABLE_HEADINGS, [(v.verdict, table_cells(v)) for v in members])
                   for link_class, members in link_class_tables(verdicts).items()]
    row_tables = [Table(bench, ROW_HEADINGS, [("" if v.verdict == "DATA" else v.verdict, row_cells(v)) for v in members])
                  for bench, members in by_bench(verdicts).items()]
    return Document(str(run_dir), counts(verdicts, problems), counts_line(verdicts, problems),
                    verdict_line(verdicts, problems, missing), incomplete_note(verdicts, problems, missing), attention, listings,
                    profile, profile_table, link_tables, row_tables, verdicts, described, list(problems),
                    sum(1 for v in verdicts if not v.item))


def floor_rows(doc):
    """summary.json's floors of the platform profile (floor_outcomes, in the profile's order)."""
    return floor_outcomes(doc.profile) if doc.profile else []


def skipped_and_not_judged(doc, verdict):
    """[(reason, count, {bench: count})] for summary.json."""
    return grouped(doc.verdicts, verdict)
