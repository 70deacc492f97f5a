"""Reading a run directory's results.csv: every complete row, and a sentence for every problem
(file, line, what is wrong), never a crash. A file cut in the middle of a line keeps its rows."""
import csv
from dataclasses import dataclass, field
from pathlib import Path

from . import judging, legacy
from .extra import parse as parse_extra
from .identity import item_key
from ..contracts.input_files import InputError, read_utf8
from ..contracts.run_meta import results_schema
from ..contracts.schema import REQUIRED_RESULT_COLUMNS, RESULT_COLUMNS

REQUIRED = list(REQUIRED_RESULT_COLUMNS)
OPTIONAL = [c for c in RESULT_COLUMNS if c not in REQUIRED]


@dataclass
class Row:
    line: int
    fields: dict
    origin: str = ""  # where a row that is not in results.csv comes from ("topology.json")

    @property
    def where(self):
        """Where the figure can be read: results.csv's line, and for an imported row the tool's output
        it came from (its `source` item)."""
        try:
            source = parse_extra(self.fields.get("extra", "")).get("source")
        except InputError:  # a damaged extra (a cut row's) names no source
            source = None
        line = self.origin or f"results.csv line {self.line}"
        return f"{source} ({line})" if source else line

    def text(self, name):
        return self.fields.get(name, "") or ""

    def number(self, name):
        value = self.text(name)
        return float(value) if value != "" else None

    @property
    def status(self):
        return self.text("status") or "OK"

    @property
    def key(self):
        """What the row measured, stable across runs (for comparisons and JUnit names)."""
        return item_key(self.fields)

    @property
    def samples(self):
        """Timed batches behind the figure, or None where the file predates the column."""
        value = self.text("samples")
        return int(float(value)) if value else None


@dataclass
class Results:
    path: Path
    rows: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    # The row the file ends in the middle of, as far as it goes (its fields that survived whole):
    # the sweep it belongs to is incomplete, and no verdict may rest on that sweep's largest size.
    cut_row: Row = None
    schema: int = 3


IDENTITY = REQUIRED[:10]  # bench .. bytes: what of a cut row tells its sweep and size


def read_results(path: Path) -> Results:
    if not path.exists():
        raise InputError(f"{path}: no such file (is this a run directory?)")
    text = read_utf8(path)
    result = Results(path)
    lines = text.split("\n")
    if not text.strip():
        raise InputError(f"{path}:1: file is empty: no header line")
    header = next(csv.reader([lines[0]]))
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(f"{path}:1: header lacks column(s) {', '.join(missing)}")
    schema = results_schema(path.parent / "meta.json", header)
    result.schema = schema
    unknown = [c for c in header if c not in REQUIRED + OPTIONAL]
    if unknown:
        result.problems.append(f"{path}:1: unknown column(s) {', '.join(unknown)} ignored")
    cut = not text.endswith("\n")
    body = lines[1:-1] if text.endswith("\n") else lines[1:]
    for offset, line_text in enumerate(body):
        number = offset + 2
        if cut and offset == len(body) - 1:
            result.problems.append(f"{path}:{number}: row is cut short (the file ends mid-line); row skipped")
            partial = next(csv.reader([line_text]), [])
            # the last field may itself be cut: only the fields before it are whole
            result.cut_row = Row(number, dict(zip(header, partial[:-1])))
            continue
        if not line_text.strip():
            continue
        values = next(csv.reader([line_text]))
        if len(values) != len(header):
            result.problems.append(f"{path}:{number}: row has {len(values)} fields, the header {len(header)}; row skipped")
            continue
        fields = dict(zip(header, values))
        bad = _bad_number(fields)
        if bad:
            result.problems.append(f"{path}:{number}: column {bad}: '{fields[bad]}' is not a number; row skipped")
            continue
        try:
            parse_extra(fields["extra"], f"{path}:{number}")
            judging.parse(fields.get("judged", ""), f"{path}:{number}")
        except InputError as error:
            result.problems.append(f"{error}; row skipped")
            continue
        if schema < 3:
            legacy.fill(fields)
        result.rows.append(Row(number, fields))
    return result


def _bad_number(fields):
    for name in ("bytes", "ranks", "nodes", "iters", "time_us", "time_us_p05", "time_us_p95", "algbw_GBps",
                 "busbw_GBps", "errors", "samples", "spread_pct"):
        value = fields.get(name, "")
        if value == "":
            continue
        try:
            float(value)
        except ValueError:
            return name
    return None
