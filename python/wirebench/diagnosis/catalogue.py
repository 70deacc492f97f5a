"""The catalogue of NCCL's lines whose cause a maintainer or the thread established
(suites/nccl-warnings.csv): each entry's signature, what it means, why, the fix and the thread it
comes from. Read with the csv module; the file's `#` lines are comments. Columns past the seven
(scope, ...) are optional, so rows written in the seven-column format stay valid. A bad entry (a
signature that is no regular expression, a verdict other than FAIL or WARN, no source, an id a
coded rule owns) is an InputError naming the file's line: never dropped in silence."""
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from ..contracts.input_files import InputError, read_utf8
from ..run.paths import SUITES

COLUMNS = ("id", "verdict", "signature", "what", "why", "fix", "source")
OPTIONAL = ("scope",)  # network, node or any (default any): a network entry says nothing where no data crossed it
SCOPES = ("network", "ib", "node", "any")  # ib: the network's InfiniBand/RoCE side (moot where NCCL_IB_DISABLE=1)


@dataclass(frozen=True)
class Entry:
    id: str
    verdict: str
    signature: re.Pattern  # searched in "LOCATION TEXT" of each NCCL line, or the whole line of an error
    what: str
    why: str
    fix: str
    source: str
    scope: str
    line: int              # in the CSV file

    def what_of(self, found):
        """`what` with {1}, {2}, ... replaced by the signature's groups."""
        said = self.what
        for number in range(len(found.groups()), 0, -1):
            said = said.replace("{" + str(number) + "}", found.group(number) or "")
        return said


def path():
    return SUITES / "nccl-warnings.csv"


def read(file=None, coded_ids=()):
    """The catalogue's entries, in the file's order. `coded_ids`: the ids the rule registry codes,
    which no row may take."""
    file = Path(file or path())
    text = read_utf8(file)
    kept, numbers = [], []
    for number, row in enumerate(text.split("\n"), 1):
        if row.startswith("#") or not row.strip():
            continue
        kept.append(row)
        numbers.append(number)
    reader = csv.DictReader(io.StringIO("\n".join(kept)), skipinitialspace=True)
    header = reader.fieldnames or []
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{file}:{numbers[0] if numbers else 1}: the header lacks {', '.join(missing)}")
    unknown = [c for c in header if c not in COLUMNS + OPTIONAL]
    if unknown:
        raise InputError(f"{file}:{numbers[0]}: unknown column {', '.join(unknown)} (known: {', '.join(COLUMNS + OPTIONAL)})")
    entries, seen = [], {}
    for row in reader:
        # DictReader counts records from the header (1); a quoted field never spans lines here
        where = f"{file}:{numbers[reader.line_num - 1]}"
        if None in row:
            raise InputError(f"{where}: more fields than the header's {len(header)}")
        values = {k: (v or "").strip() for k, v in row.items()}
        entry_id = values["id"]
        if not entry_id:
            raise InputError(f"{where}: an entry needs its id")
        if entry_id in coded_ids:
            raise InputError(f"{where}: id {entry_id} is a coded rule's (python/wirebench/diagnosis/structural.py): "
                             "give the row another id")
        if entry_id in seen:
            raise InputError(f"{where}: id {entry_id} again (first at line {seen[entry_id]})")
        if values["verdict"] not in ("FAIL", "WARN"):
            raise InputError(f"{where}: verdict must be FAIL or WARN, not {values['verdict']!r}")
        if not values["source"]:
            raise InputError(f"{where}: every entry needs its source thread")
        scope = values.get("scope") or "any"
        if scope not in SCOPES:
            raise InputError(f"{where}: scope must be {', '.join(SCOPES)}, not {scope!r}")
        try:
            signature = re.compile(values["signature"])
        except re.error as error:
            raise InputError(f"{where}: signature is not a regular expression: {error}") from None
        seen[entry_id] = numbers[reader.line_num - 1]
        entries.append(Entry(entry_id, values["verdict"], signature, values["what"], values["why"], values["fix"],
                             values["source"], scope, numbers[reader.line_num - 1]))
    return entries
