"""The names NCCL reads from its environment (suites/nccl-parameters.csv), with the release that
introduced each and the last that read it where NCCL dropped it, and the NCCL_* names that others
read (network plugins, nccl-tests, PyTorch, container images): a name in neither is one NCCL
silently ignores (a typo such as NCCL_SOCKET_IFNAMES). The CSV is data, written by this module
from the sources' git history (`python3 -m wirebench.diagnosis.parameters --nccl NCCL.git
[--other OWNER=GIT ...] > suites/nccl-parameters.csv`): NCCL's NCCL_PARAM(name, "ENV", ...) and
DEFINE_NCCL_PARAM(..., NCCL_ENV, ...) declarations and every "NCCL_..." string literal of src/
(ncclGetEnv and getenv calls, the P2P/GDR level names) at each release tag; a plugin's at its
newest commit. Only names are read, never code."""
import argparse
import csv
import io
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from ..contracts.input_files import InputError, read_utf8
from ..run.paths import SUITES

COLUMNS = ("name", "owner", "first", "last", "how", "source")
OWNER_NCCL = "NCCL"
# a name ending in `*` is a prefix: every name that starts with it is the owner's (NCCL_TESTS_*)
RELEASE = re.compile(r"^v2\.(\d+)\.(\d+)-1$")  # NCCL 2 (NCCL 1 was another library)
DECLARED = (  # (how NCCL reads it, the pattern whose group 1 is the name)
    ("NCCL_PARAM", re.compile(r'NCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"'), "NCCL_"),
    ("DEFINE_NCCL_PARAM", re.compile(r"DEFINE_NCCL_PARAM\(\s*\w+\s*,[^,]+,\s*(NCCL_[A-Z0-9_]+)"), ""),
    ("a string literal (ncclGetEnv, getenv)", re.compile(r'"(NCCL_[A-Z0-9_]+)"'), ""),
)


@dataclass(frozen=True)
class Parameter:
    name: str
    owner: str     # NCCL, or who else reads it (aws-ofi-nccl, nccl-tests, PyTorch ...)
    first: str     # the NCCL release that introduced it ("" where unknown or not NCCL's)
    last: str      # the last NCCL release that read it ("" where NCCL still does)
    how: str
    source: str
    line: int


class Parameters:
    def __init__(self, rows):
        self.rows = rows
        self.names = {p.name: p for p in rows if not p.name.endswith("*")}
        self.prefixes = [p for p in rows if p.name.endswith("*")]

    def known(self, name):
        """The Parameter that names it (NCCL's first), or None where nobody reads it."""
        return self.names.get(name) or next((p for p in self.prefixes if name.startswith(p.name[:-1])), None)

    def nccls(self):
        return sorted(n for n, p in self.names.items() if p.owner == OWNER_NCCL)


def path():
    return SUITES / "nccl-parameters.csv"


def read(file=None):
    """The CSV's parameters; an InputError naming the file's line for a row without a name, an
    owner or a source, or a name read twice."""
    file = Path(file or path())
    text = read_utf8(file)
    numbered = [(n, row) for n, row in enumerate(text.split("\n"), 1) if row.strip() and not row.startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(row for _, row in numbered)))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{file}:{numbered[0][0] if numbered else 1}: the header lacks {', '.join(missing)}")
    rows, seen = [], set()
    for (number, _), row in zip(numbered[1:], reader):
        name = (row.get("name") or "").strip()
        if not re.fullmatch(r"NCCL_[A-Z0-9_]+\*?|[A-Z][A-Z0-9_]*\*", name):
            raise InputError(f"{file}:{number}: '{name}' is not an NCCL_* name (or a PREFIX_*)")
        if not (row.get("owner") or "").strip() or not (row.get("source") or "").strip():
            raise InputError(f"{file}:{number}: {name} has no owner or no source")
        if name in seen:
            raise InputError(f"{file}:{number}: {name} is listed twice")
        seen.add(name)
        rows.append(Parameter(name, row["owner"].strip(), (row.get("first") or "").strip(),
                              (row.get("last") or "").strip(), (row.get("how") or "").strip(), row["source"].strip(),
                              number))
    return Parameters(rows)


_loaded = {}


def known():
    """The suite's parameters, read once."""
    if "suite" not in _loaded:
        _loaded["suite"] = read()
    return _loaded["suite"]


def version_key(version):
    """(2, 19, 3) of "2.19.3" (a release tag's or a log's `NCCL version 2.19.3+cuda12.3`)."""
    found = re.match(r"v?(\d+)\.(\d+)\.(\d+)", version or "")
    return tuple(int(g) for g in found.groups()) if found else None


# --- writing the CSV from the sources (run by hand when NCCL releases; the CSV is the data) ---

def _git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True,
                          text=True).stdout


def _names_at(git_dir, commit, under):
    """{name: how} read at one commit of the files under `under`."""
    try:
        text = _git(git_dir, "grep", "-h", "-I", "-F", "NCCL_", commit, "--", under)
    except subprocess.CalledProcessError:
        return {}  # no line names one
    names = {}
    for how, pattern, prefix in DECLARED:
        for found in pattern.finditer(text):
            names.setdefault(prefix + found.group(1), how)
    return names


def collect_nccl(git_dir):
    """[(name, first, last, how, source)] over every release tag of NCCL's repository."""
    tags = sorted((t for t in _git(git_dir, "tag").split() if RELEASE.match(t)), key=version_key)
    head = _git(git_dir, "rev-parse", "--short", "HEAD").strip()
    seen = {}  # name -> [first, last, how]
    for tag in tags + ["HEAD"]:
        for name, how in _names_at(git_dir, tag, "src").items():
            entry = seen.setdefault(name, [tag, tag, how])
            entry[1] = tag
    latest = tags[-1]
    out = []
    for name, (first, last, how) in sorted(seen.items()):
        first_said = "after " + latest[1:-2] if first == "HEAD" else ("" if first == tags[0] else first[1:-2])
        last_said = "" if last == "HEAD" else last[1:-2]
        out.append((name, first_said, last_said, how, f"NVIDIA/nccl src/ at the release tags {tags[0]}..{latest} "
                                                      f"and master {head}"))
    return out


def collect_other(owner, git_dir, under="."):
    """[(name, how, source)] of NCCL_* names another program reads, at its newest commit."""
    head = _git(git_dir, "rev-parse", "--short", "HEAD").strip()
    return [(name, how, f"{owner} at {head}") for name, how in sorted(_names_at(git_dir, "HEAD", under).items())]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m wirebench.diagnosis.parameters",
                                     description="write suites/nccl-parameters.csv from NCCL's (and plugins') git "
                                                 "history to stdout; the hand-kept rows of the current file are kept")
    parser.add_argument("--nccl", required=True, help="the git directory of NVIDIA/nccl")
    parser.add_argument("--other", action="append", default=[], metavar="OWNER=GIT",
                        help="another reader of NCCL_* names: its repository (owner/name) and git directory")
    args = parser.parse_args(argv)
    rows = [(name, OWNER_NCCL, first, last, how, source) for name, first, last, how, source in collect_nccl(args.nccl)]
    others = [("NVIDIA/nccl outside src/ (its example plugins, contrib)", args.nccl,
               ":(exclude)src")]
    others += [(owner, git_dir, ".") for owner, _, git_dir in (item.partition("=") for item in args.other)]
    for owner, git_dir, under in others:
        rows += [(name, owner, "", "", how, source) for name, how, source in collect_other(owner, git_dir, under)
                 if name not in {r[0] for r in rows}]
    # rows written by hand (a prefix, PyTorch's, a container image's): kept from the current file
    current = read() if path().exists() else Parameters([])
    by_source = {r[0] for r in rows}
    kept = [p for p in current.rows if p.how in ("by hand", "documented only") and p.name not in by_source]
    out = io.StringIO()
    out.write(HEADER)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(row)
    for p in kept:
        writer.writerow((p.name, p.owner, p.first, p.last, p.how, p.source))
    sys.stdout.write(out.getvalue())


HEADER = """# The NCCL_* names NCCL reads from its environment, and those others read (network plugins,
# nccl-tests, PyTorch, container images): python/wirebench/diagnosis/parameters.py writes the rows
# from the sources' git history (NCCL: NCCL_PARAM and DEFINE_NCCL_PARAM declarations and NCCL_*
# string literals of src/, ncclGetEnv's and getenv's, at every release tag v2.3.7-1 on; the
# others at their newest commit). first: the NCCL release that introduced it (empty: 2.3.7, the
# first release tag); last: the last release that read it (empty: NCCL still does). how = by
# hand: a row kept by hand, its source said; documented only: NCCL's documentation lists it and
# no release reads it. A name in none of them is one NCCL silently ignores.
"""

if __name__ == "__main__":
    main()
