"""What an error class most often was (suites/nccl-class-causes.csv): for each class a generic finding
names (error_classes.py's names), the causes the NCCL corpus's train threads established for their
errors of that class, with the count, the threads and the check of the catalogue entry that names the
cause. A prior from other threads for a finding the catalogue cannot explain, never its cause: said
beside the finding (its `likely` list), the finding's id and verdict unchanged. The file is generated
by bench/diagnosis/class_causes.py; a bad row is an InputError naming the file's line."""
import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..contracts.input_files import InputError, read_utf8
from ..run.paths import SUITES

COLUMNS = ("class", "cases", "cause", "count", "threads", "check_from", "check")
MIN_CASES = 3   # a class seen in fewer train threads says nothing more: too few to rank
MIN_COUNT = 2   # "most often": a cause one thread showed is an anecdote, not listed
SHOWN = 3       # the most causes a finding lists


@dataclass(frozen=True)
class Likely:
    cause: str      # the corpus's cause_class label
    count: int      # train threads of this class with this cause
    of: int         # train threads of this class
    check: str      # what tells it apart: the catalogue entry's fix (its first clause), or "" where none
    threads: tuple  # their origins (owner/repo#number)

    def as_json(self):
        return {"cause": self.cause, "count": self.count, "of": self.of, "check": self.check,
                "threads": list(self.threads)}


def path():
    return SUITES / "nccl-class-causes.csv"


def read(file=None):
    """{class name: [Likely, ...] in the file's order}; `#` lines are comments."""
    file = Path(file or path())
    numbered = [(n, row) for n, row in enumerate(read_utf8(file).split("\n"), 1)
                if row.strip() and not row.startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(row for _, row in numbered)))
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise InputError(f"{file}:{numbered[0][0] if numbered else 1}: the header is "
                         f"{','.join(reader.fieldnames or [])}, not {','.join(COLUMNS)}")
    out, cases = {}, {}
    for row in reader:
        where = f"{file}:{numbered[reader.line_num - 1][0]}"  # a quoted field never spans lines here
        if None in row:
            raise InputError(f"{where}: more fields than the header's {len(COLUMNS)}")
        values = {k: (v or "").strip() for k, v in row.items()}
        if not values["class"] or not values["cause"] or not values["threads"]:
            raise InputError(f"{where}: a row needs its class, its cause and its threads")
        try:
            of, count = int(values["cases"]), int(values["count"])
        except ValueError:
            raise InputError(f"{where}: cases and count must be whole numbers, not {values['cases']!r}, "
                             f"{values['count']!r}") from None
        threads = tuple(values["threads"].split())
        if not 0 < count <= of or len(threads) != count:
            raise InputError(f"{where}: count {count} must be between 1 and cases {of} and name as many threads "
                             f"(it names {len(threads)})")
        if cases.setdefault(values["class"], of) != of:
            raise InputError(f"{where}: class {values['class']} has {cases[values['class']]} cases on an earlier row, "
                             f"{of} here")
        out.setdefault(values["class"], []).append(Likely(values["cause"], count, of, values["check"], threads))
    return out


_loaded = {}


def likely(class_name, table=None):
    """The causes a generic finding of this class lists: up to SHOWN, seen in at least MIN_COUNT train threads
    each, most first (ties by name); none for a class of fewer than MIN_CASES train threads. `table`: read()'s,
    else the suite's, read once."""
    if table is None:
        if "suite" not in _loaded:
            _loaded["suite"] = read()
        table = _loaded["suite"]
    causes = table.get(class_name, [])
    if not causes or causes[0].of < MIN_CASES:
        return []
    return sorted((c for c in causes if c.count >= MIN_COUNT), key=lambda c: (-c.count, c.cause))[:SHOWN]


def said(causes):
    """The readable line of a finding's `likely` list (its JSON: cause, count, of, check): the causes, their base,
    and what the list is not."""
    listed = ", ".join(f"{c['cause']} ({c['count']}: {c['check']})" if c["check"] else f"{c['cause']} ({c['count']})"
                       for c in causes)
    return (f"most often, in {causes[0]['of']} public threads with an error of this class (the NCCL corpus's train "
            f"split, suites/nccl-class-causes.csv): {listed}; a prior from other threads, not this log's cause")
