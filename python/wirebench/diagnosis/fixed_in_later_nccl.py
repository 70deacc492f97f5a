"""Bugs of the log's NCCL that a later NCCL fixed (suites/nccl-fixes.csv: one row per fix of NCCL's
release notes whose symptom a log shows, with the release that fixed it, the first with the bug where
the notes say, the symptom's line as a regular expression and the note's source). Two registered rules
that need no entry per thread: fixed-in-later-nccl, where a line of the log matches a fix's signature
and the NCCL that printed it (its host's `NCCL version` line) is older than the fix; and
internal-error-on-old-nccl, where no fix matches but NCCL failed inside itself (ncclInternalError, a
crash in libnccl) on a version many fixing releases behind: a hint, not a proven cause. The version
is NCCL's own line's, else the one PyTorch's error names, else one said in the paste's prose (`when
using NCCL 2.19.3`), which the finding marks as read from prose. Where the log does not say its NCCL
version, neither says anything (the error finder still quotes the line)."""
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from ..contracts.input_files import InputError, read_utf8
from ..run.paths import SUITES
from . import errors
from .error_classes import CLASSES, class_of
from .error_lines import CHAIN, OTHER_ERRORS
from .parameters import version_key
from .registry import rule
from .log_facts import VERSION  # NCCL's `NCCL version 2.19.3+cuda12.3` line, as version-mismatch reads it

COLUMNS = ("fixed_in", "affected_from", "signature", "symptom", "source")
RELEASE_NOTES = ("NCCL's release notes (docs.nvidia.com/deeplearning/nccl/release-notes/, the release commits of "
                 "github.com/NVIDIA/nccl), as suites/nccl-fixes.csv lists them")
BEHIND = 3  # fixing releases of the table after the log's NCCL beyond which an internal error is worth the hint
# a frame of a backtrace inside NCCL's library: Open MPI's `[h:1] [ 3] /usr/lib/libnccl.so.2(+0x7c1a2)[0x7f..]`,
# gdb's `#1 0x7f.. in ?? () from /lib/x86_64-linux-gnu/libnccl.so.2`
LIBNCCL_FRAME = re.compile(r"libnccl[\w.-]*\.so[\w.]*\s*(?:\(|\[0x)|\bfrom \S*libnccl[\w.-]*\.so")
CRASHES = tuple(pattern for pattern, kind in OTHER_ERRORS if kind == "crash")
DOTTED = re.compile(r"\d+\.\d+\.\d+")
# the words of a finding whose NCCL version was read from the paste's prose (no line of NCCL's says it)
_PROSE = " (read from the prose at line {}: no line of NCCL's says its version)"
_WORDS = "the paste's prose at line {} says NCCL {}, read as the NCCL that ran"


@dataclass(frozen=True)
class Fix:
    fixed_in: tuple          # (2, 26, 2)
    affected_from: tuple     # the first release with the bug, or None where the notes do not say
    signature: re.Pattern
    symptom: str
    source: str
    line: int                # in the CSV file

    def applies_to(self, version):
        return version < self.fixed_in and (self.affected_from is None or version >= self.affected_from)


def dotted(version):
    return ".".join(map(str, version))


def path():
    return SUITES / "nccl-fixes.csv"


def read(file=None):
    """The table's fixes, in the file's order (`#` lines are comments); an InputError naming the
    file's line for a missing column, a version that is not X.Y.Z, an affected_from not older than
    fixed_in, a signature that is no regular expression, or a row without its symptom or source."""
    file = Path(file or path())
    numbered = [(n, row) for n, row in enumerate(read_utf8(file).split("\n"), 1)
                if row.strip() and not row.startswith("#")]
    reader = csv.DictReader(io.StringIO("\n".join(row for _, row in numbered)))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"{file}:{numbered[0][0] if numbered else 1}: the header lacks {', '.join(missing)}")
    fixes = []
    for row in reader:
        number = numbered[reader.line_num - 1][0]  # a quoted field never spans lines here
        where = f"{file}:{number}"
        if None in row:
            raise InputError(f"{where}: more fields than the header's {len(reader.fieldnames)}")
        values = {k: (v or "").strip() for k, v in row.items()}
        if not DOTTED.fullmatch(values["fixed_in"]):
            raise InputError(f"{where}: fixed_in must be a release X.Y.Z, not {values['fixed_in']!r}")
        if values["affected_from"] and not DOTTED.fullmatch(values["affected_from"]):
            raise InputError(f"{where}: affected_from must be a release X.Y.Z or empty, not {values['affected_from']!r}")
        fixed_in, affected_from = version_key(values["fixed_in"]), version_key(values["affected_from"])
        if affected_from and affected_from >= fixed_in:
            raise InputError(f"{where}: affected_from {values['affected_from']} is not older than fixed_in "
                             f"{values['fixed_in']}")
        if not values["symptom"] or not values["source"]:
            raise InputError(f"{where}: every fix needs its symptom and its source")
        try:
            signature = re.compile(values["signature"])
        except re.error as error:
            raise InputError(f"{where}: signature is not a regular expression: {error}") from None
        fixes.append(Fix(fixed_in, affected_from, signature, values["symptom"], values["source"], number))
    return fixes


_loaded = {}


def known():
    """The suite's fixes, read once."""
    if "suite" not in _loaded:
        _loaded["suite"] = read()
    return _loaded["suite"]


# PyTorch's error names the NCCL it was built with at its end: `NCCL error in: .../ProcessGroupNCCL.cpp:1970,
# internal error ..., NCCL version 2.20.5` (c10d's ncclGetErrorWithVersion)
PYTORCH_VERSION = re.compile(r"\bNCCL error in: .*,\s*NCCL version (\d+)\.(\d+)\.(\d+)")


def pytorch_version(text):
    """(2, 10, 3) of PyTorch's `NCCL error in: ..., NCCL version X.Y.Z`, or None. PyTorch 1.10 split NCCL
    2.9's new version code (20903 = 2.9.3) as if it were the old one (major = code / 1000), printing
    `NCCL version 21.0.3` for 2.10.3 (DeepSpeed#1604): a major above 9 is such a code, read back."""
    found = PYTORCH_VERSION.search(text)
    if not found:
        return None
    major, minor, patch = (int(g) for g in found.groups())
    if major > 9:
        code = major * 1000 + minor * 100 + patch
        return code // 10000, code // 100 % 100, code % 100
    return major, minor, patch


# an NCCL release said in the paste's words: the word NCCL (or nccl) and, closely after it (an optional `version`, a
# colon or `=`, a `v`), a release X.Y.Z: `when using NCCL 2.19.3`, `nccl version 2.18.1`, `NCCL 2.21.5 on H100`, an
# environment list's `NCCL: 2.4.8` (NVIDIA/nccl#293), `NCCL 2.27.5 + cuda 13.0` (NVIDIA/nccl#1882); not a word that
# only ends in nccl (`libnccl.so.2.18.1`, `nvidia-nccl-cu12==2.18.1`), nor a release with no NCCL before it
# (`fails on v2.20.3-1`, `to work with 2.25.1`)
PROSE_VERSION = re.compile(r"(?<![\w./-])(?:NCCL|nccl)(?:[ _]?(?:[Vv]ersion|VERSION))?(?: ?[:=])? ?v?(\d+\.\d+\.\d+)(?!\d)")


def prose_version(log):
    """(version, line) of the one NCCL release the paste's prose names (its first line saying it), or None
    where it names none or several (`fails in nccl2.22.3, works in nccl2.19.3`: which ran is not said)."""
    said = [(version_key(found.group(1)), o.line) for o in log.others for found in PROSE_VERSION.finditer(o.text)]
    return said[0] if said and len({version for version, _ in said}) == 1 else None


def versions(log):
    """{host: (version, line)} of each host's first `NCCL version` line; a version line without
    NCCL's prefix (NCCL_DEBUG=VERSION, a paste that lost it) under the host "". Where the log has no
    such line, the version PyTorch's error names (the library it loaded) stands under the host "", else
    the one the paste's prose names (prose_version)."""
    return log.once("versions", _versions)


def _versions(log):
    seen, said_by_pytorch = {}, None
    for item in [*log.messages, *log.others]:
        host = getattr(item, "host", "")
        found = VERSION.search(item.text.strip())
        key = version_key(found.group(1)) if found else None
        if key and host not in seen:
            seen[host] = (key, item.line)
        if said_by_pytorch is None and (key := pytorch_version(item.text)):
            said_by_pytorch = (key, item.line)
    if not seen and said_by_pytorch:
        seen[""] = said_by_pytorch
    if not seen and (prose := prose_version(log)):
        seen[""] = prose
    return seen


def from_prose(log, line):
    """Whether the version at `line` was read from the paste's prose, not from a line of NCCL's or PyTorch's."""
    item = next((o for o in log.others if o.line == line), None)
    return item is not None and not VERSION.search(item.text.strip()) and pytorch_version(item.text) is None


def _version_of(item, seen):
    """(version, line) of the NCCL that printed `item`: its host's; else the log's one version (NCCL
    prints it on rank 0 only, 2.20's init.cc: other hosts say none); None where the log says none, or
    several and not which printed this line."""
    host = getattr(item, "host", "")
    if host in seen:
        return seen[host]
    said = {version for version, _ in seen.values()}
    if len(said) == 1:
        return min(seen.values(), key=lambda v: v[1])
    return None


def _lines(log):
    """(item, what the signatures are searched in, the line as quoted) of every line, in the log's order."""
    items = sorted([*log.messages, *log.others], key=lambda item: item.line)
    for item in items:
        if hasattr(item, "host"):
            yield item, item.said, item.raw
        else:
            yield item, item.text.strip(), item.text.strip()


def matches(log, fixes=None):
    """[(item, quote, (version, version line), [Fix])] of the first line each fix's signature matches
    where the NCCL that printed it has the bug; the fixes a line matches are one entry."""
    fixes = known() if fixes is None else fixes
    seen = versions(log)
    if not seen:
        return []
    by_line, taken = {}, set()
    for item, said, quote in _lines(log):
        version = _version_of(item, seen)
        if version is None:
            continue
        for fix in fixes:
            if fix.line not in taken and fix.applies_to(version[0]) and fix.signature.search(said):
                taken.add(fix.line)
                by_line.setdefault(item.line, (item, quote, version, []))[3].append(fix)
    return list(by_line.values())


def _failing(log, item, text, first_errors):
    """Whether the line is an error of the log that says its class (FAIL), as the error finder reads
    it: its words or code, or for an NCCL WARN the code of the error chain its process prints after
    it; a line that is no error (an INFO, the GPU's name, a setting) or a WARN no chain follows is a WARN."""
    error = first_errors.get(item.line)
    if error is not None and error.classed:
        return True
    if not hasattr(item, "host"):
        return any(pattern.search(text) for pattern in CRASHES)
    if not (item.warn or CHAIN.match(item.text)):
        return False
    if class_of(item.text)[1]:
        return True
    chain = next((m for m in log.messages if m.line > item.line and CHAIN.match(m.text)
                  and (m.host, m.pid, m.device) == (item.host, item.pid, item.device)), None)
    return chain is not None and class_of(chain.text)[1]


@rule("fixed-in-later-nccl", "FAIL", "any",
      "a line matching a fix's signature in suites/nccl-fixes.csv (NCCL's release notes: one row per fixed bug whose "
      "symptom a log shows), where the host's `NCCL version X` (else the one PyTorch's error names, else one the "
      "paste's prose names right after the word NCCL, `when using NCCL 2.19.3`: marked so) is older than the fix's "
      "release and not older than the first release with the bug; FAIL where the line is an error that says its "
      "class, else WARN; nothing where the log says no NCCL version",
      "this NCCL has a bug that a later NCCL fixed, and the log shows its symptom",
      "upgrade NCCL to the release that fixed it (the finding names it)", RELEASE_NOTES)
def fixed_in_later_nccl(r, c):
    found = matches(c.log)
    if not found:
        return None
    first_errors = {e.line: e for e in errors.find(c.log)}
    out = []
    for item, quote, (version, version_line), fixes in found:
        lead = max(fixes, key=lambda f: f.fixed_in)  # the newest fix: upgrading to it mends them all
        newest = lead.fixed_in
        host = f" on {item.host}" if getattr(item, "host", "") else ""
        said = "; ".join(f"fixed in {dotted(f.fixed_in)}: {f.symptom}" for f in fixes)
        came_in = [f"the bug came in {dotted(f.affected_from)}" for f in fixes if f.affected_from]
        prose = from_prose(c.log, version_line)
        marked = _PROSE.format(version_line) if prose else ""
        told = (_WORDS.format(version_line, dotted(version)) if prose
                else f"its `NCCL version` at line {version_line} is {dotted(version)}")
        finding = r.finding(
            item.line, f"NCCL {dotted(version)}{host}{marked} has a bug that NCCL fixed in {dotted(newest)} "
                       f"({lead.symptom}): \"{quote}\"",
            f"line {item.line} matches the symptom NCCL's release notes give for a fix this NCCL lacks "
            f"({told}{'; ' + ', '.join(came_in) if came_in else ''}): {said}",
            f"upgrade NCCL to >= {dotted(newest)}")
        finding.source = "; ".join(dict.fromkeys(f.source for f in fixes))
        finding.verdict = "FAIL" if _failing(c.log, item, quote, first_errors) else "WARN"
        out.append(finding)
    return out


def _internal_error(log):
    """The first line where NCCL failed inside itself: an ncclInternalError (a `-> 3` chain, its name,
    NCCL's `internal error`) or a backtrace frame in libnccl; None where the log shows none."""
    for item, said, quote in _lines(log):
        nccl = hasattr(item, "host")
        erring = not nccl or item.warn or CHAIN.match(item.text)
        if erring and class_of(item.text if nccl else said)[0] is CLASSES[3]:
            return item, quote
        if not nccl and LIBNCCL_FRAME.search(said):
            return item, quote
    return None


@rule("internal-error-on-old-nccl", "WARN", "any",
      "an ncclInternalError (`-> 3`, `internal error`) or a backtrace frame in libnccl, where no fix of "
      f"suites/nccl-fixes.csv matches the log and its `NCCL version X` is more than {BEHIND} of the table's fixing "
      "releases behind",
      "NCCL failed inside itself on a release that many fixes came after: a later NCCL may have fixed it (not a proven "
      "cause)",
      "rerun on a current NCCL; where it fails the same, report it to NCCL's developers with the NCCL_DEBUG=INFO log",
      RELEASE_NOTES)
def internal_error_on_old_nccl(r, c):
    seen = versions(c.log)
    if not seen or matches(c.log):
        return None
    internal = _internal_error(c.log)
    if internal is None:
        return None
    item, quote = internal
    version = _version_of(item, seen)
    if version is None:
        return None
    fixes = known()
    releases = sorted({f.fixed_in for f in fixes if f.fixed_in > version[0]})
    if len(releases) <= BEHIND:
        return None
    after = [f for f in fixes if f.applies_to(version[0])]
    prose = _PROSE.format(version[1]) if from_prose(c.log, version[1]) else ""
    hint = r.finding(item.line, f"NCCL {dotted(version[0])}{prose} failed inside itself and is {len(releases)} fixing "
                                f"releases behind NCCL {dotted(releases[-1])}: \"{quote}\"",
                     f"{len(after)} fixes of NCCL's release notes came after {dotted(version[0])} "
                     f"(suites/nccl-fixes.csv, releases {dotted(releases[0])} to {dotted(releases[-1])}); none of "
                     "their symptoms is in this log, so no known bug is proven here, but an internal error on an old "
                     "NCCL is often one a later release fixed")
    hint.gives_way = True  # a hint: a catalogue entry that reads the same error names its cause (aws-ofi-nccl#663)
    return hint
