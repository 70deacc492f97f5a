"""The catalogue of NCCL's lines whose cause a maintainer or the thread established
(suites/nccl-warnings.csv): each entry's signature, what it means, why, the fix and the thread it
comes from. Read with the csv module; the file's `#` lines are comments. Columns past the seven
(scope, ...) are optional, so rows written in the seven-column format stay valid. A bad entry (a
signature that is no regular expression, a verdict other than FAIL or WARN, no source, an id a
coded rule owns) is an InputError naming the file's line: never dropped in silence."""
import csv
import functools
import io
import re
from dataclasses import dataclass
from pathlib import Path

try:  # the parse behind re.compile, read for required_literals (Python 3.11 on; before it, sre_parse)
    from re import _constants, _parser
except ImportError:  # pragma: no cover
    import sre_constants as _constants
    import sre_parse as _parser

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


def required_literals(pattern):
    """Strings one of which every match of `pattern` holds, read from its parse (a run of literal characters the match
    must pass through, or one such run in each branch of an alternation it must pass through); None where the pattern
    names none, or matches without regard to case. Lookarounds, optional and repeated-from-zero parts are never
    required."""
    try:
        parsed = _parser.parse(pattern)
    except Exception:  # noqa: BLE001  (the parser is Python's own, behind its public compile: no prefilter then)
        return None
    if parsed.state.flags & re.IGNORECASE:
        return None
    return _required(parsed)


def _required(items):
    found, run = [], []

    def end_run():
        if run:
            found.append({"".join(run)})
            run.clear()
    for op, av in items:
        if op is _constants.LITERAL:
            run.append(chr(av))
            continue
        end_run()
        inner = None
        if op is _constants.SUBPATTERN and not av[1] & re.IGNORECASE:
            inner = _required(av[-1])
        elif op is _constants.BRANCH:
            branches = [_required(branch) for branch in av[1]]
            inner = set().union(*branches) if all(branches) else None
        elif op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT) and av[0] >= 1:
            inner = _required(av[2])
        if inner:
            found.append(inner)
    end_run()
    return max(found, key=lambda literals: min(map(len, literals)), default=None)


def literal_gate(patterns):
    """(an expression that finds any literal one of the compiled patterns requires (required_literals), or None where
    none requires one; the patterns that require none, in order): a text the expression finds nothing in can match
    only those. The catalogue's entries and the error finder's lines (errors.py) are gated by it."""
    literals, ungated = set(), []
    for pattern in patterns:
        required = None if pattern.flags & re.IGNORECASE else required_literals(pattern.pattern)
        if required:
            literals |= required
        else:
            ungated.append(pattern)
    gate = re.compile("|".join(map(re.escape, sorted(literals, key=len, reverse=True)))) if literals else None
    return gate, ungated


@functools.lru_cache(maxsize=8)
def _joined(patterns):
    """The expression that finds any of the patterns' required literals, or None where one pattern has none."""
    gate, ungated = literal_gate([re.compile(p) for p in patterns])
    return None if ungated else gate


def any_of(entries):
    """An expression that finds, in a text any entry's signature matches, one of the literals that signature requires
    (required_literals): a text it finds nothing in matches no entry. None where an entry requires none (every text is
    then searched). Compiled once per catalogue."""
    return _joined(tuple(e.signature.pattern for e in entries))


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
            raise InputError(f"{where}: id {entry_id} is a coded rule's (python/wirebench/diagnosis/, docs/nccl-diagnosis.md's first table): "
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
