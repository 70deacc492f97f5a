"""The error-line finder: never silent on an error. The first error of each rank becomes a
finding, whether the catalogue knows it or not: an NCCL `WARN` line, an error chain of NCCL's
(`transport/net.cc:592 -> 2`), and every line error_lines.py reads beside NCCL's (nccl-tests',
PyTorch's, XLA's, CUDA's, a launcher's, the shell's, the loader's), and any other line a FAIL entry of the
catalogue reads (NCCL's words without NCCL's prefix). Each is quoted verbatim with its
line, with what its class means and the generic next step (error_classes.py); the rank is NCCL's
`host:pid`, PyTorch's `[rankN]`, nccl-tests' host, else the program's output as one. Ranks whose
first errors say the same fold into one; a launcher's report of an exited rank counts only where
nothing else does; a log with nothing else to read (no line of NCCL's) gives each line that says an
error: each exception line, else each line of error words."""
import functools
import re
from dataclasses import dataclass

from . import catalogue, nccl_tests
from .error_classes import CLASSES, ErrorClass, class_of
from .error_lines import (CHAIN, EMPHASIS, GLOG, LAST_ERROR, OTHER_ERRORS, PG_OF, PYTORCH_RANK, PYTORCH_WORK,
                          RUNTIME_NOISE, SANITIZER_DETAIL, SANITIZER_MARGIN, SELF_TAGGED, UNIT, UNREAD, WENT_ON, WORK_OP)
from .nccl_tests import RESULT, SUMMARY  # nccl-tests' result row and summary, as its reader reads them


@dataclass
class Error:
    line: int
    rank: str        # host:pid, rank N, a host, or "" (the program's output)
    quote: str       # the line as the file has it, the launcher's tag off
    said: str        # what the catalogue's signatures are searched in
    error_class: ErrorClass
    classed: bool    # the class is said (a code, a name, a timeout), not guessed from a bare WARN
    kind: str = "nccl"  # nccl (a WARN, a chain), tool (nccl-tests), pytorch, program, timeout, cuda, launcher,
    #                     check, crash, loader, exited, catalogued (a line a FAIL entry reads, no line of NCCL's)
    ranks: int = 1   # ranks whose first error says the same (errors of several ranks fold)
    last_line: int = 0  # the line of NCCL's last WARN that PyTorch's `Last error:` quotes under it, folded into it



def _table_seen(log):
    """nccl-tests' results or its header: a table (or one that stopped) is not an unread error."""
    return bool(nccl_tests.results(log)) or nccl_tests.stopped_before_a_result(log)


def find(log):
    """The first error of each rank, in the log's order; ranks whose first errors say the same
    thing fold into the first of them (with their count). Found once per log (the diagnosis and several rules ask;
    each asking scanned every line): kept on the log with the size of what it was found in."""
    return list(log.once("errors", _find))


def _find(log):
    lines = sorted([(m.line, m) for m in log.messages] + [(o.line, o) for o in log.others], key=lambda x: x[0])
    went_on = max((line for line, item in lines if (WENT_ON.search(item.text) if hasattr(item, "host") else
                                                    RESULT.match(item.text) or SUMMARY.search(item.text))), default=0)
    first, classed_later, last_error, previous, unit = {}, {}, False, None, None
    before = None  # the line above, where it was no error
    below = {item.line: nxt for (_, item), (_, nxt) in zip(lines, lines[1:])}
    heads = _chain_heads(log.messages)
    for _, item in lines:
        nccl = hasattr(item, "host")
        error = _error_of(item, last_error)
        if error is not None and error.kind == "catalogued" and _heads_a_wrapped_error(item, below, last_error):
            error = None  # the error below reads it as its message's start (_opens_it), as it was without the entry
        if error is not None and not error.rank and item.line in log.origins:
            error.rank = log.origins[item.line]  # the node a launcher's prefix named (pdsh's host, Ray's address)
        if error is not None and not nccl:
            _join_wrapped(error, item, before, below, last_error)
        before = item if error is None else None
        last_error = not nccl and bool(LAST_ERROR.search(item.text))
        if not nccl and UNIT.match(plain(item.text)):
            unit = item  # systemctl status's unit line: the `Active: failed` line under it is said of it
        if error is not None and error.kind == "service" and not error.rank:
            if unit is None or not 0 < error.line - unit.line <= 12:
                unit = None
            else:
                named = unit.text.strip()
                error.rank = UNIT.match(plain(named)).group(1)
                error.quote, error.said = f"{named} / {error.quote}", f"{plain(named)} {error.said}"
        if error is None or (error.kind == "launcher" and error.line < went_on and RUNTIME_NOISE.search(error.said)):
            continue  # Open MPI's runtime noise: the job went on after it
        # a line that names no rank: the first of each kind (NCCL's, the tool's, PyTorch's, ...)
        rank = error.rank or f"(the program's output: {error.kind})"
        if error.kind == "catalogued" and not error.rank:  # each entry's line said: two such lines may be two causes
            rank = f"(the program's output: {error.kind} {_entry_reading(error.said)})"
        if error.kind == "last" and previous in first:
            # PyTorch's `Last error:` and, on the next line, NCCL's last WARN's text: the error above's
            first[previous].quote += f" / Last error: {error.quote}"
            first[previous].said += f" {error.said}"
            first[previous].last_line = error.line
            continue
        if not nccl and error.rank and rank in {k.split(":")[0] for k in first if k != rank}:
            continue  # nccl-tests' line of a host whose NCCL lines said the error first
        previous = rank
        if rank in first and nccl and item.warn and _went_on_from(first[rank], classed_later.get(rank)) \
                and item.line in heads:
            # the rank's first WARN a WARN entry reads (NCCL went on from it: no libibverbs, sockets then) and a later
            # WARN of the rank that heads a `-> N` chain: that one is the rank's failure (NVIDIA/nccl#573's `Could not
            # find real path of /sys/class/pci_bus/...` after `Failed to open libibverbs.so[.1]`, hidden behind it)
            first[f"{rank} (went on from)"] = first.pop(rank)
        if rank not in first:
            first[rank] = error
        elif first[rank].kind != "catalogued" and not first[rank].classed and error.classed and rank not in classed_later:
            # a bare WARN's class: the chain after it says it (a catalogued line's entry says its cause: no class borrowed)
            classed_later[rank] = error.error_class
    # A launcher's report of a rank that exited is a consequence: said only where no error of the log's own is
    if any(e.kind != "exited" for e in first.values()):
        first = {rank: e for rank, e in first.items() if e.kind != "exited"}
    if not first and not log.messages and not _table_seen(log):
        # never silent: nothing this module reads, but lines say an error (each exception, else each line of error
        # words): a file without NCCL's lines that says an error failed with it (FAIL), whatever its words
        for pattern in UNREAD:
            for hit in (o for o in log.others if (pattern.search(o.text) or pattern.search(plain(o.text)))
                        and not SELF_TAGGED.search(plain(o.text))):
                text = hit.text.strip()
                said = text if pattern.search(text) else plain(text)
                first.setdefault(f"(the program's output: unread {text})",
                                 Error(hit.line, "", text, said, CLASSES["unread"], True, "unread"))
            if first:
                break
    if not first and not log.messages and not _table_seen(log):
        # nor there: the error lines of the note's prose, the reporter's copy of what the run said where its log was
        # not posted (NVIDIA/caffe#492: `_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled cuda _error_`
        # under "I get the following error:", the code block below it holding the run's version lines only)
        for line in log.prose:
            error = _error_of(line, False)
            if error is not None:
                first.setdefault(f"(the note's prose: {error.kind})", error)
    out, by_text, works, groups = [], {}, [], _groups(log)
    for rank, error in first.items():
        if not error.classed and rank in classed_later:
            error.error_class, error.classed = classed_later[rank], True
        work = _work(error, groups)
        if work is not None:  # PyTorch's timeout of one work: the ranks that timed out in that work fold
            twin = next((e for e, w in works if _same_work(w, work)), None)
            if twin is not None:
                twin.ranks += 1
                continue
            works.append((error, work))
            out.append(error)
            continue
        key = _fold_key(error)
        if key in by_text:
            by_text[key].ranks += 1
            continue
        by_text[key] = error
        out.append(error)
    return out


# a heading that ends in a colon is no sentence the line below finishes
HEADING = re.compile(r"^\W*(?:Traceback\b|(?:\w+\s+){0,2}(?:log|logs|output|error|errors|stderr|stdout|message|"
                     r"details|warning|result)s?\s*:\s*$)", re.I)


def _join_wrapped(error, item, before, below, last_error):
    """An error's message with the lines it was wrapped onto: the line above where the message starts there, cut
    after its colon (pytorch/ci-infra#541: `Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152:` above
    `CUDA error 401 '...'`), and the lines below that finish it (_goes_on_below: alan-turing-institute/autocast#381's
    `[Rank 0] Watchdog caught collective operation timeout:` above `  WorkNCCL(..., OpType=ALLREDUCE, ...)`)."""
    for nxt in _goes_on_below(error, below, last_error):
        text = nxt.text.strip()
        if error.kind == "memcheck":  # compute-sanitizer's margin off the lines below its report
            text = "/ " + SANITIZER_MARGIN.sub("", text)
        elif PYTORCH_VERSION_END.search(error.quote):  # the reason PyTorch gives under the error: a part of its own
            text = "/ " + text
        error.quote, error.said = f"{error.quote} {text}", f"{error.said} {plain(text)}"
        if not error.classed:  # the class may be in the part below the cut (`..., invalid argument (run with ...`)
            error.error_class, error.classed = class_of(error.said)
    if _opens_it(before, item):
        text = before.text.strip()
        error.quote, error.said = f"{text} {error.quote}", f"{plain(text)} {error.said}"


def _heads_a_wrapped_error(item, below, last_error):
    """Whether a line cut after its colon opens the error on the line directly below (pytorch/ci-infra#541's
    `Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152:` above `CUDA error 401 '...'`): that error
    is the one, its message starting here."""
    nxt = below.get(item.line)
    return (nxt is not None and not hasattr(nxt, "host") and nxt.line == item.line + 1
            and _opens_it(item, nxt) and _error_of(nxt, last_error) is not None)


def _opens_it(before, item):
    """Whether the line above an error (no error itself, directly above) is the start of its message: a sentence of
    three or more words cut after a colon."""
    if before is None or hasattr(before, "host") or before.line != item.line - 1:
        return False
    text = before.text.strip()
    return text.endswith(":") and len(text.split()) >= 3 and not HEADING.search(text)


def _goes_on_below(error, below, last_error):
    """The lines below an error (directly below, no line of NCCL's, no error themselves) that finish its message: the
    one under a line cut after its colon (no heading), compute-sanitizer's lines under its report that say where
    (the kernel, the thread, the address and the allocation it missed), and PyTorch's line under its `..., NCCL
    version X` that says why (_says_why_below)."""
    out, line, quote = [], error.line, error.quote
    while (nxt := below.get(line)) is not None and not hasattr(nxt, "host") and nxt.line == line + 1:
        text = nxt.text.strip()
        if error.kind == "memcheck" and SANITIZER_DETAIL.match(text):
            out.append(nxt)
        elif not out and text and _cut(quote, text) and not HEADING.search(quote) and _error_of(nxt, last_error) is None:
            out.append(nxt)  # one line cut: what follows it may be the reason PyTorch gives below its version
        elif _says_why_below(quote, text) and _error_of(nxt, last_error) is None:
            return out + [nxt]
        else:
            break
        quote, line = f"{quote} {text}", nxt.line
    return out


# PyTorch's DistBackendError: `NCCL error in: FILE:LINE, <NCCL's error string>, NCCL version X.Y.Z`, a newline, then
# why: the process group's failure reason, or the class in words (c10d's C10D_NCCL_CHECK, getNcclErrorDetailStr)
PYTORCH_VERSION_END = re.compile(r"NCCL error in:.*\bNCCL version \d+(?:\.\d+)*(?:[+-][\w.]+)?\s*$")
# ... or the class in PyTorch's words (`ncclInvalidUsage: This usually reflects ...`): the class, said already
PYTORCH_CLASS_WORDS = re.compile(r"^(?:nccl[A-Z]\w*:|Unknown NCCL error)")


def _says_why_below(quote, below):
    """Whether `below` is the reason PyTorch printed under its NCCL error's `..., NCCL version X` (a sentence; not a
    heading, a traceback's line or PyTorch's `Last error:`, read as the error's own)."""
    return (bool(PYTORCH_VERSION_END.search(quote)) and len(below.split()) >= 3 and not HEADING.search(below)
            and not below.startswith(("File ", "Traceback")) and not LAST_ERROR.search(below)
            and not PYTORCH_CLASS_WORDS.match(below))


def _cut(quote, below):
    """Whether an error's line was cut where its message goes on in the line below: after a colon, or after a comma
    with the line below going on in lower case (pytorch/pytorch#188567's `DistBackendError: NCCL error in:
    .../NCCLSymmetricMemory.cu:174,` over `invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version ...`)."""
    end = quote.rstrip()
    return end.endswith(":") or (end.endswith(",") and below[:1].islower())


def _went_on_from(error, class_said_later):
    """Whether a rank's first error is a bare WARN of NCCL's (no class of its own, none said after it yet) that a WARN
    entry of the catalogue reads: a degradation NCCL goes on from, not a failure."""
    return (error.kind == "nccl" and not error.classed and class_said_later is None
            and any(e.signature.search(error.said) for e in _warning_entries()))


@functools.lru_cache(maxsize=None)
def _warning_entries():
    return [e for e in catalogue.read() if e.verdict == "WARN"]


def _chain_heads(messages):
    """The lines of NCCL's WARNs whose process' next line of NCCL's is an error chain's (`file.cc:N -> 2`)."""
    heads, last = set(), {}
    for m in sorted(messages, key=lambda m: m.line):
        before = last.get((m.host, m.pid))
        if before is not None and before.warn and CHAIN.match(m.text):
            heads.add(before.line)
        last[(m.host, m.pid)] = m
    return heads


def _groups(log):
    """{(rank, work number): process group} where PyTorch's lines name the group of a rank's work
    (`[rank7]:[E816 ...] [PG 0 (default_pg) Rank 7] Exception (either an error or timeout) detected by
    watchdog at work: 80078`, the line after the watchdog's, which names none)."""
    out = {}
    for o in log.others:
        group, work = PG_OF.search(o.text), PYTORCH_WORK.search(o.text)
        if group and work:
            seq = next(g for g in work.groups() if g)
            out.setdefault((_rank_of(o.text, None), seq), group.group(2) or group.group(1))
    return out


def _work(error, groups):
    """What identifies the work a PyTorch timeout names: (its sequence number, its process group, its
    collective), None for what its lines do not say; None where the error is no timeout of a work."""
    work = PYTORCH_WORK.search(error.said)
    if not work or error.error_class is not CLASSES["timeout"]:
        return None
    seq = next(g for g in work.groups() if g)
    group, op = PG_OF.search(error.said), WORK_OP.search(error.said)
    return (seq, (group.group(2) or group.group(1)) if group else groups.get((error.rank, seq)),
            op.group(2) if op else None)


def _same_work(one, other):
    """Two timeouts are of one work where their numbers agree and neither's group or collective says
    otherwise: a sequence number counts the works of one process group, so two groups (or two
    collectives, NVIDIA/nccl#1409's BROADCAST and ALLREDUCE at 80078) at one number are two works."""
    return one[0] == other[0] and all(a is None or b is None or a == b for a, b in zip(one[1:], other[1:]))


def _fold_key(error):
    """What ranks' first errors must share to fold into one finding (PyTorch's timeouts aside: _same_work):
    NCCL's chain of one code (the ranks a failure stopped), or the same words but for the rank and a
    watchdog's elapsed time."""
    found = CHAIN.match(error.said)
    if found:
        return ("chain", found.group(3))
    said = re.sub(r"\[(?:PG \d+ )?Rank \d+\]|\brank \d+\b", "", PYTORCH_RANK.sub("", error.said))
    said = GLOG.sub("", re.sub(r"ran for \d+ milliseconds", "ran for N milliseconds", said))
    return ("said", said.strip())


def _error_of(item, after_last_error):
    quoted = hasattr(item, "host") and item.quoted and after_last_error  # NCCL's last WARN as PyTorch quotes it
    if hasattr(item, "host") and not quoted:  # an NCCL line
        if item.warn or CHAIN.match(item.text):
            error_class, classed = class_of(item.text)
            return Error(item.line, item.rank, item.raw, item.said, error_class, classed)
        return None
    quote = (item.raw if quoted else item.text).strip()
    if after_last_error and quote:  # PyTorch's `Last error:` and, on the next line, NCCL's last WARN's text
        error_class, classed = class_of(quote)
        return Error(item.line, _rank_of(quote, None), quote, quote, error_class, classed, "last")
    for text in dict.fromkeys((quote, plain(quote))):  # as the file has it, else without Markdown's emphasis
        for pattern, kind in (OTHER_ERRORS if _GATE is None or _GATE.search(text) else _UNGATED):
            found = pattern.search(text)
            if found:
                # a launcher's and nccl-tests' data check's lines have their own class (a `timed out` in Gloo's is its)
                # (a heartbeat monitor's `got stuck for 480 seconds` names no timeout but is one)
                error_class, classed = ((CLASSES[kind], True) if kind in ("launcher", "check", "crash", "loader",
                                                                         "timeout", "cuda", "exited", "gloo", "mismatch",
                                                                         "service", "kernel", "fabric", "memcheck")
                                        else class_of(text))
                return Error(item.line, _rank_of(text, found), quote, text, error_class, classed, kind)
    for text in dict.fromkeys((quote, plain(quote))):
        if catalogued(text):  # NCCL's words without NCCL's prefix, that the catalogue reads as a failure
            error_class, classed = class_of(text)
            return Error(item.line, _rank_of(text, None), quote, text, error_class, classed, "catalogued")
    return None


def an_error(item):
    """Whether the finder reads a line of no NCCL's (an item with .line and .text) as an error (a pattern of
    error_lines.OTHER_ERRORS, or a FAIL entry of the catalogue): what a reader may take from a note's prose."""
    return _error_of(item, False) is not None


# a line none of whose literals the gate finds can match only the patterns that require none (catalogue.literal_gate: a
# long job log's lines, most of them no error, were each searched with every pattern: bench/MEASUREMENTS.md, session 39)
_GATE, _ungated = catalogue.literal_gate([pattern for pattern, _ in OTHER_ERRORS])
_UNGATED = tuple((pattern, kind) for pattern, kind in OTHER_ERRORS if pattern in _ungated)


@functools.lru_cache(maxsize=None)
def _failing():
    """The catalogue's FAIL entries and the expression that finds a literal one of them requires (catalogue.any_of)."""
    entries = [e for e in catalogue.read() if e.verdict == "FAIL"]
    return entries, catalogue.any_of(entries)


def catalogued(text):
    """Whether a FAIL entry of the catalogue reads a line that is no line of NCCL's: NCCL's WARN text pasted without
    its prefix (ray-project/ray#48012's code block holding `Duplicate GPU detected : rank 0 and rank 1 both on CUDA
    device 3b000` alone), an error of PyTorch's as its traceback shows the source line that raised it
    (PlayVoice/whisper-vits-svc#97). The entry says its cause; without this the line was read as nothing."""
    return _entry_reading(text) is not None


def _entry_reading(text):
    """The id of the first FAIL entry of the catalogue that reads `text`, else None."""
    entries, either = _failing()
    if either is not None and not either.search(text):
        return None
    return next((e.id for e in entries if e.signature.search(text)), None)


def plain(text):
    """A line without Markdown's emphasis around it (`> **RuntimeError: ...**`, the quote mark already off): what
    is read where the line as the file has it says nothing; the quote keeps it as it is. (Open MPI's `*** Process
    received signal ***` is read as it is, before this.)"""
    return EMPHASIS.sub("", text.strip()).strip()


def _rank_of(text, found):
    host = found.groupdict().get("host") if found is not None else None
    if host:
        return host
    ranked = PYTORCH_RANK.search(text)
    return f"rank {ranked.group(1) or ranked.group(2)}" if ranked else ""
