#!/usr/bin/env python3
"""What each error class most often was, from the NCCL corpus's train split (issue 55): writes
suites/nccl-class-causes.csv, which the diagnosis reads for a generic finding's likely causes
(python/wirebench/diagnosis/class_causes.py).

For each train case, the classes of the errors the diagnosis's error finder reads in it (each class
once a case: the class its generic finding has, or would have where no catalogue entry knew the
error); per class, the causes the threads established (index.csv's cause_class), with their count
and threads. Each cause carries the check of the catalogue entry that names it: the entry (or coded
rule) the diagnosis names it by in most of these threads, else the first that names the cause
(entry-causes.csv); its fix column's clause that starts "check", else its first clause. Held-out and
fresh cases are never read.

    python3 bench/diagnosis/class_causes.py            # the file's text on stdout
    python3 bench/diagnosis/class_causes.py --write    # (re)writes suites/nccl-class-causes.csv

Exit 0; 3 when the corpus is malformed (its file and line named).
"""
import argparse
import csv
import io
import sys
from collections import Counter, defaultdict

import corpus

sys.path.insert(0, str(corpus.ROOT / "python"))
from wirebench.contracts.input_files import InputError  # noqa: E402
from wirebench.diagnosis import catalogue, diagnose, errors, read_log, registry  # noqa: E402
from wirebench.diagnosis import class_causes  # noqa: E402
from wirebench.diagnosis.class_causes import COLUMNS  # noqa: E402
from wirebench.diagnosis.error_classes import CLASSES  # noqa: E402

OUT = corpus.ROOT / "suites" / "nccl-class-causes.csv"
COMMAND = "python3 bench/diagnosis/class_causes.py --write"
HEADER = f"""\
# What each error class most often was (issue 55): for each class a generic finding names (error-not-in-catalogue,
# warn-not-in-catalogue; python/wirebench/diagnosis/error_classes.py's names), the causes that the NCCL corpus's TRAIN
# threads (tests/data/nccl-corpus/index.csv, split train) established for their errors of that class. Generated, do
# not edit: {COMMAND}
# class: the error class; cases: train threads with an error of it; cause: index.csv's cause_class; count: threads
# of the class with that cause; threads: their origins; check_from: the catalogue entry (suites/nccl-warnings.csv)
# or coded rule whose fix tells the cause apart (the one the diagnosis names it by in these threads); check: that
# fix's clause that starts "check", else its first clause (empty where no entry names the cause). A prior from
# other threads, never a log's cause: the diagnosis lists up to 3 causes of 2 threads or more for a class of 3
# threads or more (python/wirebench/diagnosis/class_causes.py). A bare NCCL WARN and an unread line are no class (errors
# of unrelated kinds share them): they have no rows.
"""


def clauses(text):
    """A fix's clauses: split at each ';' outside parentheses, backticks and a quoted command
    (`python -c 'import torch; ...'`: a quote opens after a space, an apostrophe after a letter does not)."""
    out, depth, quote, start = [], 0, None, 0
    for at, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char == "`" or (char == "'" and (at == 0 or text[at - 1] in " (=")):
            quote = char
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == ";" and depth == 0:
            out.append(text[start:at].strip())
            start = at + 1
    return [c for c in out + [text[start:].strip()] if c]


def check_of(fix):
    """What tells a cause apart, from its entry's fix: the fix's clause that is a check (`check `hostname -s` on
    every node`), else its first clause."""
    found = clauses(fix)
    return next((c for c in found if c.startswith("check ")), found[0] if found else "")


def fixes():
    """{entry or rule id: its fix}: the catalogue's rows, then the coded rules."""
    out = {entry.id: entry.fix for entry in catalogue.read(coded_ids=registry.RULES)}
    for rule in registry.RULES.values():
        out.setdefault(rule.id, rule.fix)
    return out


def rows():
    """The file's rows (dicts of COLUMNS), classes with most cases first, then their causes, most first."""
    saved = class_causes._loaded.pop("suite", None)
    class_causes._loaded["suite"] = {}  # the file this writes plays no part in it (and need not exist yet)
    try:
        return _rows()
    finally:
        class_causes._loaded.pop("suite")
        if saved is not None:
            class_causes._loaded["suite"] = saved


UNCLASSED = (CLASSES["warn"].name, CLASSES["unread"].name)


def _rows():
    causes_of, by_entry = corpus.entry_causes(), fixes()
    cases, named_by = defaultdict(list), defaultdict(Counter)
    for case in corpus.index():
        if case["split"] != "train":
            continue
        try:
            log = read_log(corpus.CORPUS / case["file"])
        except InputError:
            continue  # nothing the diagnosis reads: no error, no class
        # a class that is a class: a bare WARN (no code after it) and an unread line group errors of unrelated kinds
        # (the bare WARN's train threads ranked Windows' missing NCCL first, for logs NCCL printed on Linux)
        classes = {error.error_class.name for error in errors.find(log) if error.error_class.name not in UNCLASSED}
        for name in classes:
            cases[name].append(case)
        for finding in diagnose(log):
            if case["cause_class"] in causes_of.get(finding.id, ()):
                for name in classes:
                    named_by[(name, case["cause_class"])][finding.id] += 1
    order = {entry: at for at, entry in enumerate(by_entry)}
    out = []
    for name, of in sorted(cases.items(), key=lambda item: (-len(item[1]), item[0])):
        counted = Counter(case["cause_class"] for case in of)
        for cause, count in sorted(counted.items(), key=lambda item: (-item[1], item[0])):
            named = named_by[(name, cause)]
            naming = sorted(named, key=lambda e: (-named[e], order.get(e, len(order)))) or \
                [e for e in by_entry if cause in causes_of.get(e, ())]
            entry = naming[0] if naming else ""
            out.append({"class": name, "cases": len(of), "cause": cause, "count": count,
                        "threads": " ".join(c["origin"] for c in of if c["cause_class"] == cause),
                        "check_from": entry, "check": check_of(by_entry[entry]) if entry else ""})
    return out


def render():
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows())
    return HEADER + text.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(corpus.ROOT)}")
    args = parser.parse_args(argv)
    problems = corpus.problems()
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 3
    text = render()
    if args.write:
        OUT.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
