"""The NCCL error corpus of issue 55 (tests/data/nccl-corpus/): its index, the map from catalogue
entry to cause, and the text a catalogue signature is searched in. Read with the csv module."""
import csv
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "nccl-corpus"
CATALOGUE = ROOT / "suites" / "nccl-warnings.csv"
# train: entries are written from it; held-out: measures recall; fresh: a set collected blind, apart from the corpus
# (tests/data/nccl-fresh-*), measured once before anything was written from it
SPLITS = ("train", "held-out", "fresh")
COLUMNS = ["file", "origin", "url", "cause_class", "established", "split"]
ORIGIN = re.compile(r"^([\w.-]+/[\w.-]+)#(\d+)$")
LABEL = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LINES = (3, 40)  # an excerpt's lines, as posted
FRESH_LINES = (1, 400)  # a fresh set keeps what the thread posted: one line, or a whole gdb session
# A fresh set's collector names each cause freely; cause-synonyms.csv (optional, in the set's folder) says which
# of its labels are one of the corpus's causes, and why: written after the blind measure, it makes the tool count
# what reading counted, never more (a label without a row is only right by its own name).
SYNONYMS = "cause-synonyms.csv"
SYNONYM_COLUMNS = ["label", "cause_class", "why"]

# NCCL's line: [anything] [file.cc:N ]NCCL WARN|INFO text. A signature is searched in "LOCATION TEXT"
# (suites/nccl-warnings.csv's header); any other line (nccl-tests', PyTorch's, a launcher's) whole.
NCCL_LINE = re.compile(r"(?:(\S+:\d+) )?NCCL (?:WARN|INFO) (.*)$")


def index(corpus=CORPUS):
    """The cases, in index.csv's order: dicts of file, origin, url, cause_class, established, split."""
    with open(Path(corpus) / "index.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def causes_file(corpus=CORPUS):
    """The map from catalogue entry to cause: the corpus's own, else (a fresh set's folder) the corpus's."""
    own = Path(corpus) / "entry-causes.csv"
    return own if own.is_file() else CORPUS / "entry-causes.csv"


def problems(corpus=CORPUS):
    """What is wrong with the corpus's index.csv and entry-causes.csv, each as "FILE:LINE: problem"
    (none for a well-formed corpus)."""
    corpus, found = Path(corpus), []
    for path, columns in ((corpus / "index.csv", COLUMNS), (causes_file(corpus), ["entry", "cause_class"])):
        if not path.is_file():
            return [f"{path}: no such file"]
        with open(path, newline="", encoding="utf-8") as f:
            header = next(csv.reader(f), [])
        if header != columns:
            found.append(f"{path}:1: the header is {','.join(header)}, not {','.join(columns)}")
    if found:
        return found
    seen = set()
    for number, case in enumerate(index(corpus), 2):
        where = f"{corpus / 'index.csv'}:{number}"
        origin = ORIGIN.match(case["origin"] or "")
        if not origin:
            found.append(f"{where}: origin {case['origin']!r} is not owner/repo#number")
        elif case["url"] not in (f"https://github.com/{origin.group(1)}/issues/{origin.group(2)}",
                                 f"https://github.com/{origin.group(1)}/pull/{origin.group(2)}"):
            found.append(f"{where}: url {case['url']!r} is not the thread {case['origin']} names")
        if not LABEL.match(case["cause_class"] or ""):
            found.append(f"{where}: cause_class {case['cause_class']!r} is not a short lower-case label")
        if not (case["established"] or "").strip():
            found.append(f"{where}: what the thread established is empty")
        if case["split"] not in SPLITS:
            found.append(f"{where}: split {case['split']!r} is not one of {', '.join(SPLITS)}")
        if case["file"] in seen:
            found.append(f"{where}: {case['file']} is listed twice")
        seen.add(case["file"])
        excerpt = corpus / (case["file"] or "")
        if not case["file"] or not excerpt.is_file():
            found.append(f"{where}: excerpt {case['file']!r} is not in {corpus}")
        else:
            low, high = FRESH_LINES if case["split"] == "fresh" else LINES
            if not low <= len(excerpt.read_text(encoding="utf-8").splitlines()) <= high:
                found.append(f"{where}: {case['file']} is not {low}-{high} lines")
    for number, row in enumerate(csv.DictReader(open(causes_file(corpus), newline="", encoding="utf-8")), 2):
        if not LABEL.match(row["entry"] or "") or not all(LABEL.match(c) for c in (row["cause_class"] or "").split("|")):
            found.append(f"{causes_file(corpus)}:{number}: {row['entry']!r},{row['cause_class']!r} "
                         f"is not an entry id and a cause_class")
    found += synonym_problems(corpus)
    return found


def synonym_problems(corpus):
    """What is wrong with a fresh set's cause-synonyms.csv, each as "FILE:LINE: problem" (none where it has none)."""
    path = Path(corpus) / SYNONYMS
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != SYNONYM_COLUMNS:
        return [f"{path}:1: the header is {','.join(rows[0] if rows else [])}, not {','.join(SYNONYM_COLUMNS)}"]
    labels = {case["cause_class"] for case in index(corpus)}
    known = set().union(*entry_causes(corpus).values())
    found = []
    for number, row in enumerate(rows[1:], 2):
        label, cause, why = (row + ["", "", ""])[:3]
        if label not in labels:
            found.append(f"{path}:{number}: label {label!r} is no case's cause_class in index.csv")
        if cause not in known:
            found.append(f"{path}:{number}: cause_class {cause!r} is named by no catalogue entry (entry-causes.csv)")
        if not why.strip():
            found.append(f"{path}:{number}: why {label} is {cause} is empty")
    return found


def synonyms(corpus=CORPUS):
    """{a case's cause_class: the corpus causes it is the same cause as} (a fresh set's cause-synonyms.csv)."""
    path, found = Path(corpus) / SYNONYMS, {}
    if path.is_file():
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                found.setdefault(row["label"], set()).add(row["cause_class"])
    return found


EVIDENCE = "evidence.csv"  # a fresh set's (optional): file,evidence: the posted line(s) showing the cause, ` | ` apart


def evidence(corpus=CORPUS):
    """{case file: the posted lines that show its cause} (a fresh set's evidence.csv; cases without one absent)."""
    path = Path(corpus) / EVIDENCE
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {row["file"]: [piece.strip() for piece in row["evidence"].split(" | ") if piece.strip()]
                for row in csv.DictReader(f) if row["evidence"].strip()}


def entry_causes(corpus=CORPUS):
    """{catalogue entry id: the cause_classes it names}: one, or several where its finding names them as equally
    likely and its fix checks each (written `a|b`: nccl-tests-stopped-on-one-node, the IOMMU or ACS)."""
    with open(causes_file(corpus), newline="", encoding="utf-8") as f:
        return {row["entry"]: set(row["cause_class"].split("|")) for row in csv.DictReader(f)}


def catalogue(file=CATALOGUE):
    """The catalogue's rows as dicts ({id, verdict, signature, ...}), `#` comment lines skipped."""
    with open(file, newline="", encoding="utf-8") as f:
        kept = [line for line in f if line.strip() and not line.startswith("#")]
    return list(csv.DictReader(kept, skipinitialspace=True))


def searched_texts(text):
    """Each line of an excerpt as a signature sees it: "LOCATION TEXT" for NCCL's lines, else whole."""
    for line in text.splitlines():
        found = NCCL_LINE.search(line)
        if found:
            yield (found.group(1) + " " if found.group(1) else "") + found.group(2)
        else:
            yield line


def matching_entries(text, rows):
    """The ids of the catalogue rows whose signature matches a line of `text`, in catalogue order."""
    lines = list(searched_texts(text))
    return [row["id"] for row in rows if any(re.search(row["signature"], line) for line in lines)]
