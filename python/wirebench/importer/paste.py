"""One reader of pasted text: a tool's output or an NCCL log as people paste it, read once, and read
the same way by the importers' detection (`looks_like`), by their parsing and by the NCCL-log reader.

    read_text(path)             a file's text: UTF-8, or UTF-16 with its byte-order mark (or without one,
                                told by its zero bytes); anything else an InputError naming the file,
                                the line and the encoding, with the `iconv` that makes it UTF-8
    Paste.read(path)            Paste.of(read_text(path))
    Paste.of(text)              the paste of a text
    paste.lines                 [Line(number, text, last_and_cut)]: the tool's lines, each with its line
                                number in the file, every line transform below applied
    paste.text                  those lines joined: what a `looks_like` searches
    paste.nccl                  NCCL's own INFO/WARN lines and its `NCCL version` banner, set apart (a line
                                of NCCL's quoted inline between backticks, in a note's prose too: the
                                quoted text)
    paste.commands, .prompts    (number, command) of each command line, (number, host) of each prompt
    paste.hosts, .rank_hosts()  the ranks' hosts that the launchers' tags name
    paste.nccl_version()        NCCL's version from its banner or INFO line
    paste.unwrapped()           the same paste with the lines a terminal wrapped at its width joined
                                again (its wrapped_at: the width), None where no line looks wrapped
    Paste.folded(source)        a long log's lines, transformed, streamed in bounded memory, a line
                                repeated within the last `window` distinct lines folded into its first
                                with a count: Folded(number, text, count)
    clean(text, hosts)          one line through the per-line transforms (what `folded` yields)
    numbered_lines(path)        (number, line) of a file's lines as they stream, decoded as read_text
                                decodes (the NCCL-log reader folds a long log from it)

The transforms, each a line's (`clean`), in this order: the line end (CRLF); Markdown's quote marks
(`> `) and list bullets (`- `, `* `, `+ `); any stack of line prefixes: timestamps (ISO 8601 of
`kubectl logs --timestamps`, `docker logs -t` and CI logs, `[2024-08-01 12:00:00]`, `ts`'s `Aug 01
12:00:00`), `kubectl logs --prefix`'s `[pod/NAME/CONTAINER]`, docker compose's `NAME | ` and Ray's
`(RayTrainWorker pid=N) ` and SkyPilot's `(head, rank=0, pid=N) `, mpirun --tag-output's `[1,0]<stdout>:` (PRRTE's
`[prterun-host-1@1,0]<stdout>:`, horovodrun's `[1]<stdout>:`), torchrun's `[default0]:` /
`[rank0]:`, MPICH's `-prepend-pattern '[%h:%r] '`'s `[dgx01:0] `, srun --label's `0: ` and
`-prepend-rank`'s `[0] `; then the tags a launcher wrote inside a line where output came in pieces
or two ranks interleaved (`[1,0]<stdout>:`, `[0]` before each piece of an nccl-tests row). A line
that only says which host a rank runs on (`srun -l hostname`'s `0: dgx01`) names the host and is no
line of the tool's. Those of the whole paste (Paste.of): a paste flattened into one line split again at the srun
label it repeats (`... 10: ... 10: ... 10: ...`); pdsh's `HOST: ` before half its lines or more (DeepSpeed's
multi-node launcher), kept in `origins` as the line's node; an editor's or `cat -n`'s line numbers, a
Markdown note's text outside its code blocks (fences) and the blocks' common indentation, a shell
line ending in a backslash joined to its continuation (`mpirun -np 8` so ended, then `
./build/all_reduce_perf ...`: one command, at its first line's number), and (unwrapped) a
terminal's hard wrap."""
import codecs
import functools
import io
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from ..contracts.input_files import InputError, readable_file, unreadable

# -- the per-line transforms ------------------------------------------------------------------------
QUOTE = re.compile(r"^\s*(?:>\s?)+")  # Markdown's quote, nested or not (indented with its note too)
# a list item's marker and its space (the line's own indentation stays), or a bare one (an empty item)
BULLET = re.compile(r"^\s{0,3}[-*+](?: |$)")
TIMESTAMP = re.compile(
    r"^\s*(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?:?"  # ISO 8601, [..] or not
    r"|\[\d\d:\d\d:\d\d(?:[.,]\d+)?\]"                                                   # [12:00:00]
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:[.,]\d+)?)[ \t]")  # ts(1): Aug 01 12:00:00
# (one space after a prefix goes: the line's own indentation stays, nvbandwidth's header needs it)
# kubectl logs --prefix; docker compose's service; Ray's worker (NVIDIA/nccl#1212: `(RayTrainWorker pid=355353) `) and
# SkyPilot's node (skypilot-org/skypilot's GPUDirect-TCPX example: `(head, rank=0, pid=3808) `, `(worker1, rank=1,
# pid=2769, ip=10.100.10.12) `)
POD = re.compile(r"^\s*(?:\[pod/[\w.-]+/[\w.-]+\] |\w[\w.-]*\s+\| |\(\w+ pid=\d+(?:, ip=[\d.]+)?\) |"
                 r"\([\w.-]+, rank=\d+, pid=\d+(?:, ip=[\d.]+)?\) )")
# Ray's prefix names the address of the node a worker runs on (`(RayWorkerVllm pid=207931, ip=10.0.1.75) `, left out
# on the driver's node): kept as the line's origin where the prefix goes (OpenRLHF/OpenRLHF#265)
RAY_ORIGIN = re.compile(r"\(\w+ pid=\d+, ip=([\d.]+)\) ")
TAG = re.compile(r"\[(?:[\w.-]+@)?\d+(?:,\d+)?\]<std(?:out|err)>:")  # mpirun --tag-output, anywhere in a line
# a tag starting a line goes with the indentation before it (a test log indenting a launcher's output)
# and PRRTE's space after it (`<stdout>: f5n18`)
LEADING_TAG = re.compile(r"^\s*" + TAG.pattern + "(?: (?=\\S))?")
TORCHRUN = re.compile(r"^\s*\[(?:default|rank)\d+\]:")  # torchrun's --tee / --log-dir prefix
# MPICH/Intel MPI's `-prepend-pattern "[%h:%r] "` (or `%r@%h`), [HOST:RANK]: names the rank's host
HOST_TAG = re.compile(r"^\s*\[(?P<host>[A-Za-z][\w.-]*):(?P<rank>\d+)\]:? ?")
# srun -l hostname (or `mpirun ... hostname`) in the job's script: a rank's label and its host alone
HOST_LINE = re.compile(r"^\s*(?:(?P<rank>\d+): |\[(?P<tagged>\d+)\]:? ?)(?P<host>[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*)\s*$")
# srun -l (padded for wide jobs; glued to a tag after it: `8:[default0]:`), -prepend-rank's [N]; each
# prefix also after the indentation of a code block the paste was put in
RANK_PREFIX = re.compile(r"^\s*(?:\d+: |\d+:(?=\[)|\[\d+\]:? ?)")
INNER_RANK = re.compile(r"(?<=\S)\s?\[\d+\]:?(?=\s)")  # `[0]` before each piece of a row written in pieces

# -- what the paste holds beside the tool's lines ------------------------------------------------------
NCCL_LINE = re.compile(r"\bNCCL (INFO|WARN)\b|^\s*NCCL version \d")
# NCCL's line quoted inline in a note's prose, between backticks (NVIDIA/nccl#733: "problem 1: one pod hang with error
# message: `task-646--1-mhpnk:91:123 [0] transport/net_ib.cc:881 NCCL WARN NET/IB : Got completion ...`"), or an inline
# span that opens on a line and closes on a later one (aws/aws-ofi-nccl#156): the span's text is the line. Only a
# span that holds NCCL's whole prefix (`host:pid:tid [dev]`, then `NCCL INFO|WARN` and a word) counts: prose naming
# `NCCL WARN` or `NCCL_DEBUG=INFO` between backticks is no line of NCCL's.
INLINE_SPAN = re.compile(r"(?<!`)`(?!`)([^`]+)(?:`(?!`)|$)")
NCCL_PREFIXED = re.compile(r"(?:^|[\s>\]:])[^:\s\[\]<>`]+:\d+:\d+ \[\d+\] (?:[\w./-]+:\d+ )?NCCL (?:INFO|WARN) \S")
# NCCL's line as it begins, with or without its prefix (a program that strips it: lmdeploy's `init.cc:1582 NCCL WARN
# Cuda failure '...'`): a note's prose line so begun is NCCL's, posted outside the code blocks (InternLM/lmdeploy#1108:
# its versions fenced, its NCCL lines not). Prose that names `NCCL WARN` mid-sentence is not.
NCCL_OWN_LINE = re.compile(r"^(?:[^:\s\[\]<>`]+:\d+:\d+ \[\d+\] )?(?:[\w./-]+\.(?:cc|cu|cpp|h):\d+ )?NCCL (?:INFO|WARN) \S")
# the kernel's line as dmesg prints it (`[1478401.486981] DMAR: ...`): machine output wherever it sits in a note (a paste
# whose code block lost its closing fence puts the next block's lines outside: tensorflow/tensorflow#32654's gdb session
# cut before its fence, then its dmesg lines)
DMESG_LINE = re.compile(r"^\[\s*\d+\.\d{6}\] \S")
FENCE = re.compile(r"^\s*(`{3,4}|~{3,4})(?![`~])\s*[\w+-]*\s*$")  # a longer run of ~ is a separator line
# A command as pasted: a shell prompt (user@host:dir$, root@host:~#, $, #; a conda or venv's `(base) ` before it)
# before a launcher or a tool.
COMMAND = re.compile(r"^(?:\([\w.-]+\)\s+)?(?:\S+@\S+:\S*[$#]\s*|[$#]\s+)?((?:\S+=\S+\s+)*(?:mpirun|mpiexec|srun|salloc|sbatch|"
                     r"torchrun|kubectl|docker|\S*_perf\S*|\S*p2pBandwidthLatencyTest|\S*osu_\w+|\S*IMB-\w+|\S*nvbandwidth|\S*ib_\w+_(?:bw|lat))\b.*)$")
PROMPT = re.compile(r"^(?:\([\w.-]+\)\s+)?[\w.-]+@([A-Za-z][\w.-]*):\S*[$#]")  # user@HOST:dir$ before a command: where it ran
# its banner alone (`NCCL version 2.21.5+cuda12.4`) or as an INFO line (`host:pid:tid [0] NCCL INFO NCCL version ...`)
NCCL_VERSION = re.compile(r"(?:^|\bNCCL INFO )NCCL version (\d+\.\d+\.\d+)")
LINE_NUMBER = re.compile(r"^\s*(\d+)(?: |$)")
# an NCCL setting as a command line, an export or an environment listing writes it: `-x NCCL_ALGO=Ring`,
# `NCCL_IB_HCA=mlx5_0 ./app`, `export NCCL_DEBUG=INFO`
NCCL_SETTING = re.compile(r"(?<![\w$])(NCCL_[A-Z0-9_]+)=['\"]?([\w,^=:;./-]+)")  # a value quoted or not; '=' asks exact names (NCCL_IB_HCA=^=mlx5_8)
EXPORT = re.compile(r"^\s*(?:export\s+)?NCCL_[A-Z0-9_]+=")  # an export or a line of `env`
# NCCL saying a setting it read (NCCL_DEBUG_SUBSYS's ENV): `NCCL_ALGO set by environment to Ring.`
NCCL_SETTING_SAID = re.compile(r"\b(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?\s*$")
# a shell line continued on the next (`mpirun -np 8 \`, `srun ... --label \` / `    -- all_gather_perf ...`,
# ROCm/rccl#1490): one backslash last, not an escaped one
CONTINUED = re.compile(r"(?<!\\)\\\s*$")
WRAP_MIN = 60  # a terminal narrower than this is not a terminal a table is read in


@dataclass
class Line:
    number: int
    text: str
    last_and_cut: bool = False  # the file ends in this line without a line break (cut short)


@dataclass
class Folded:
    number: int  # the line number of its first occurrence
    text: str
    count: int   # how many times it came (within the fold's window)


def clean(text, hosts=None):
    """One line through the per-line transforms (the module's text); None where the line only says
    which host a rank runs on (recorded in `hosts`, {rank: {host}}, where given)."""
    text = text.rstrip("\r")
    for _ in range(8):  # a stack of prefixes: a quote's list item, a timestamp before a pod's name before srun's label ...
        before = text
        text = QUOTE.sub("", text, count=1)
        text = BULLET.sub("", text, count=1)
        text = TIMESTAMP.sub("", text, count=1)
        text = POD.sub("", text, count=1)
        text = LEADING_TAG.sub("", text, count=1)
        text = TORCHRUN.sub("", text, count=1)
        named = HOST_LINE.match(text) or HOST_TAG.match(text)
        if named:
            if hosts is not None:
                hosts.setdefault(int(named["rank"] or named.groupdict().get("tagged") or 0), set()).add(named["host"])
            if HOST_LINE.match(text):  # the launcher saying where a rank runs: not the tool's
                return None
            text = text[named.end():]
        else:
            tagged = RANK_PREFIX.match(text)
            text = text[tagged.end():] if tagged else text
            if tagged and tagged.group(0).lstrip().startswith("[") and not NCCL_LINE.search(text):
                text = INNER_RANK.sub("", text)  # the same launcher's tag before each later piece
        if text == before:
            break
    return TAG.sub("", text)


@functools.lru_cache(maxsize=None)
def _cleaned(text):
    """(clean(text), the (rank, host) pairs its launcher's tag names), each text once: the passes of a paste's build
    (its fences, indentation, continued lines, editor's numbers, then its lines) each read every line; Paste._build
    empties the cache when it is done."""
    hosts = {}
    return clean(text, hosts), tuple((rank, host) for rank, named in hosts.items() for host in named)


def _clean_once(text):
    """clean(text) without a host map, each text once (_cleaned)."""
    return _cleaned(text)[0]


def _decoding(path, head):
    """The encoding of a file that starts with the bytes `head`: UTF-16 by its byte-order mark or by
    the zero byte beside each ASCII one (PowerShell's `>` and Out-File write UTF-16LE), else UTF-8."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if len(head) >= 4 and head[1::2].count(0) > len(head) // 4 and head[0::2].count(0) == 0:
        return "utf-16-le"
    if len(head) >= 4 and head[0::2].count(0) > len(head) // 4 and head[1::2].count(0) == 0:
        return "utf-16-be"
    return "utf-8"


def _refused(path, line, error, encoding, offset=None):
    """The InputError of a file that is not the text its start says: its file, line and encoding,
    and the `iconv` that makes it UTF-8."""
    if encoding.startswith("utf-16"):
        return InputError(f"{path}:{line}: not UTF-16 text, as its start says it is ({error.reason}); convert it: "
                          f"iconv -f UTF-16 -t UTF-8 {path} > {Path(path).stem}-utf8.txt")
    byte = f"byte {offset} (0x{error.object[error.start]:02x})" if offset is not None else \
        f"0x{error.object[error.start]:02x}"
    return InputError(f"{path}:{line}: {byte} is not UTF-8 text; written in another encoding, convert it: "
                      f"iconv -f ENCODING -t UTF-8 {path} > {Path(path).stem}-utf8.txt")


def read_text(path):
    """A file's text (the module's text on encodings); an InputError naming file and line else."""
    try:
        raw = readable_file(path).read_bytes()
    except OSError as error:
        raise unreadable(path, error) from None
    encoding = _decoding(path, raw[:64])
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise _refused(path, raw[:error.start].count(b"\n") + 1, error, encoding, error.start) from None


@dataclass
class Paste:
    lines: list                                       # the tool's lines and the rest of the paste
    nccl: list = field(default_factory=list)          # NCCL's INFO/WARN lines and its version banner
    commands: list = field(default_factory=list)      # (number, command) of each command line
    hosts: dict = field(default_factory=dict)         # {rank: host} the launcher's tags name
    prompts: list = field(default_factory=list)       # (number, host) of each shell prompt before a command
    origins: dict = field(default_factory=dict)       # {number: node} Ray's prefix names (RAY_ORIGIN's address), pdsh's
    pdsh: dict = field(default_factory=dict)          # {number: host} of the lines pdsh's prefix named (_without_pdsh)
    prose: list = field(default_factory=list)         # a note's prose lines around its code blocks, kept apart
    raw: list = field(default_factory=list, repr=False)  # (number, text) as the file has them, for unwrapped()
    cut: bool = False                                 # the file ends without its last line break
    wrapped_at: int = 0                               # unwrapped(): the terminal's width its lines were cut at

    @property
    def text(self):
        return "\n".join(line.text for line in self.lines)

    @classmethod
    def read(cls, path):
        """The paste of a file (read_text's encodings)."""
        return cls.of(read_text(path))

    @classmethod
    def of(cls, text):
        """The paste of a text (see the module's text)."""
        raw = text.split("\n")
        cut = not text.endswith("\n")
        return cls._build(list(enumerate(raw if cut else raw[:-1], 1)), cut)

    @classmethod
    def _build(cls, numbered, cut):
        paste = cls([], raw=numbered, cut=cut)
        try:
            numbered, by_host = _without_pdsh(_unflattened(numbered))
            paste.origins.update(by_host)
            paste.pdsh.update(by_host)
            fenced = _fenced(numbered)
            numbered = _continued(_without_line_numbers(_dedented(numbered, fenced), fenced))
            paste._read_lines(numbered, fenced)
        finally:
            _cleaned.cache_clear()
        # indented as a Markdown code block (or a quote in a ticket): every line's common indentation goes
        indents = [len(l.text) - len(l.text.lstrip(" ")) for l in paste.lines if l.text.strip()]
        common = min(indents, default=0)
        if common:
            for l in paste.lines:
                l.text = l.text[common:]
        return paste

    def _read_lines(self, numbered, fenced):
        """Each line, cleaned, into the paste's NCCL lines, commands and tool's lines (a Markdown note's prose out)."""
        inside = False
        for position, (number, line) in enumerate(numbered):
            ray = RAY_ORIGIN.search(line) if "ip=" in line else None
            if ray:
                self.origins[number] = ray.group(1)
            line, named = _cleaned(line)
            for rank, host in named:
                self.hosts.setdefault(rank, set()).add(host)
            if line is None:
                continue
            if FENCE.match(line):
                inside = not inside
                continue
            quoted = inline_nccl(line)
            if quoted is not None and not inside:  # NCCL's line quoted inline, in a note's prose or a line of its own
                self.nccl.append(Line(number, quoted))
                continue
            if fenced and not inside and NCCL_OWN_LINE.match(line.strip()):
                self.nccl.append(Line(number, line.strip()))
                continue
            if fenced and not inside and not DMESG_LINE.match(line.strip()):
                found = COMMAND.match(line.strip().strip("`"))  # a command quoted in the note's prose
                if found:
                    self.commands.append((number, found.group(1)))
                elif line.strip():
                    self.prose.append(Line(number, line.strip()))  # a reader may take what the prose quotes
                continue
            if NCCL_LINE.search(line):
                self.nccl.append(Line(number, line.strip()))
                continue
            found = COMMAND.match(line.strip())
            if found:
                self.commands.append((number, found.group(1)))
                prompt = PROMPT.match(line.strip())
                if prompt:
                    self.prompts.append((number, prompt.group(1)))
            self.lines.append(Line(number, line.expandtabs(8) if line.startswith("\t") else line,
                                    self.cut and position == len(numbered) - 1))

    def unwrapped(self, strict=False):
        """The paste as it was before a terminal (or a console log's viewer) wrapped its long lines at
        its width: the longest lines' length, where it is 60 or more, taken as the width, each line
        of that length is joined with the line after it (the wrap cut it there, no character lost;
        a quote's or a launcher's decoration of the rest goes) unless that line is blank or a line
        of its own: it starts as the cut one does, or with `#`, a fence or NCCL's `host:pid:tid
        [dev] NCCL`. `strict`: nor where the cut line ends in a word and the next starts with a
        space (a line that is just the width long, then the next). None where no line is that
        long. Which reading is right is the table's to say: wirebench import reads them all and
        keeps the joined one where it reads no fewer rows and other ones (a wrap cuts rows, or a
        row's figures)."""
        texts = [(number, t.rstrip("\r")) for number, t in _dedented(self.raw, _fenced(self.raw))]
        width = max((len(t) for _, t in texts), default=0)
        if width < WRAP_MIN:
            return None
        joined = []
        for number, text in texts:
            if joined and len(joined[-1][2]) == width and _continues(joined[-1][2], text, strict):
                first, so_far, _ = joined[-1]
                rest = clean(text)
                joined[-1] = (first, so_far + (rest if rest is not None and text.endswith(rest) else text), text)
            else:
                joined.append((number, text, text))  # (its first line's number, the line, its last piece)
        paste = type(self)._build([(number, text) for number, text, _ in joined], self.cut)
        paste.wrapped_at = width
        return paste

    def rank_hosts(self):
        """The ranks' hosts in rank order as the launcher's tags name them ([] where none do, or
        where a rank is named twice with other names, or ranks are missing)."""
        if not self.hosts or any(len(h) != 1 for h in self.hosts.values()) or sorted(self.hosts) != list(range(len(self.hosts))):
            return []
        return [next(iter(self.hosts[rank])) for rank in sorted(self.hosts)]

    def nccl_version(self):
        """NCCL's version from its banner or its INFO line, or None."""
        return next((found.group(1) for found in map(NCCL_VERSION.search, (l.text for l in self.nccl)) if found), None)

    @staticmethod
    def folded(source, window=256):
        """Folded(number, text, count) of each line of `source` (a path, or an iterable of lines),
        through `clean`, read as it streams: a line that came within the last `window` distinct lines
        adds to that line's count instead of coming again (680,894 identical channel lines of a
        50 MB log are one), so memory stays bounded by the window, whatever the file's size. Lines
        come in the order of their first occurrence; a blank line and a host's line (`0: dgx01`) are
        passed by."""
        recent = OrderedDict()  # text -> [number, count], the window, oldest first
        cleaned = OrderedDict()  # the window's lines as read -> as cleaned: a repeated line is cleaned once
        for number, raw in numbered_lines(source):
            text = cleaned.get(raw, raw)
            if raw not in cleaned:
                text = cleaned[raw] = clean(raw)
                if len(cleaned) > window:
                    cleaned.popitem(last=False)
            if text is None or not text.strip():
                continue
            seen = recent.get(text)
            if seen is not None:
                seen[1] += 1
                continue
            recent[text] = [number, 1]
            if len(recent) > window:
                old, (first, count) = recent.popitem(last=False)
                yield Folded(first, old, count)
        for text, (first, count) in recent.items():
            yield Folded(first, text, count)


def inline_nccl(line):
    """The text of NCCL's line a line quotes between backticks (INLINE_SPAN, NCCL_PREFIXED), or None."""
    if "`" not in line:
        return None
    return next((span.group(1).strip() for span in INLINE_SPAN.finditer(line) if NCCL_PREFIXED.search(span.group(1))),
                None)


NCCL_START = re.compile(r"^\S+:\d+:\d+ \[\d+\] NCCL |^NCCL version ")  # a line of NCCL's log, where it begins
NCCL_PREFIX = re.compile(r"^([^:\s\[\]<>]+):(\d+):\d+ \[(\d+)\] NCCL ")  # its host, pid and device


def _continues(piece, text, strict=False):
    """Whether `text` can be the rest of a line a wrap cut after `piece` (Paste.unwrapped)."""
    cut, rest = clean(piece) or "", clean(text)
    if rest is None or not rest.strip() or rest.lstrip().startswith(("#", "```")) or NCCL_START.match(rest.lstrip()):
        return False
    if cut.split(None, 1)[:1] == rest.split(None, 1)[:1]:
        return False
    return not (strict and piece[-1:].strip() and rest[:1].isspace())


def numbered_lines(source):
    """(number, line without its line break) of a path's lines, decoded as Paste.read decodes and
    read as they stream (a long log is never held whole), or of an iterable of lines."""
    if not isinstance(source, (str, Path)):
        yield from ((number, line.rstrip("\n")) for number, line in enumerate(source, 1))
        return
    path = readable_file(Path(source))
    with open(path, "rb") as binary:
        encoding = _decoding(path, binary.peek(64)[:64] if hasattr(binary, "peek") else b"")
        number = 0
        try:
            for number, line in enumerate(io.TextIOWrapper(binary, encoding=encoding, newline="\n"), 1):
                yield number, line.rstrip("\n")
        except UnicodeDecodeError as error:
            raise _refused(path, number + 1, error, encoding) from None


# a label srun --label wrote before each line, inside one line whose line breaks were lost
INNER_LABEL = re.compile(r" (\d{1,5}): ")


def _unflattened(numbered):
    """The lines of a paste flattened into one (its line breaks lost, as a rendered page's copy gives them), split
    again before each srun label the line repeats: where a line holds the same `N: ` three times or more
    (awslabs/awsome-distributed-ai#192: `... in broadcast 10: work = ... 10: torch.distributed.DistBackendError: ...
    10: Last error: 10: socketStartConnect: Connect to 127.0.0.1<45069> failed ...`), each piece is a line, at the
    line's number. A label seen once or twice is a line's own text (a time, a count)."""
    out = []
    for number, line in numbered:
        labels = INNER_LABEL.findall(line)
        repeated = max(set(labels), key=labels.count) if labels else None
        if repeated is None or labels.count(repeated) < 3:
            out.append((number, line))
            continue
        # before each ` N: ` (an empty line's piece is `N: ` alone, a line's trailing spaces end the piece before)
        pieces = re.split(rf" (?={re.escape(repeated)}: )", line)
        out += [(number, piece) for piece in pieces]
    return out


# pdsh's (and clush's) `HOST: ` before each line of a remote node's output, as DeepSpeed's multi-node launcher prints it
# (`rdma-test-gpu-worker-1: torch.distributed.DistBackendError: ...`, NVIDIA/nccl#1029; `gadi-gpu-v100-0010: [INFO]
# ...`): a host name of letters, digits, dots and hyphens, one of them a digit, a dot or a hyphen (no word of prose)
PDSH = re.compile(r"^([a-z][a-z0-9.-]*[0-9.-][a-z0-9.-]*): ")


def _without_pdsh(numbered):
    """((number, line) without pdsh's `HOST: `, {number: HOST}) where the paste is pdsh's output: half its lines or
    more begin with one of a few such names (64 at most), each on two lines or more. A name seen on one line, or
    prefixes on a few lines of many, are the lines' own text (numbered as it came, no hosts)."""
    said = [(number, PDSH.match(line)) for number, line in numbered]
    counts = {}
    for _, found in said:
        if found:
            counts[found.group(1)] = counts.get(found.group(1), 0) + 1
    texts = sum(1 for _, line in numbered if line.strip())
    hosts = {name for name, n in counts.items() if n >= 2}
    if not hosts or len(hosts) > 64 or sum(counts[h] for h in hosts) * 2 < texts:
        return numbered, {}
    out, by_host = [], {}
    for (number, line), (_, found) in zip(numbered, said):
        if found and found.group(1) in hosts:
            by_host[number] = found.group(1)
            line = line[found.end():]
        out.append((number, line))
    return out, by_host


def _fenced(numbered):
    """Whether the paste is a Markdown note: only its code blocks are the tool's. Fences whose blocks
    hold nothing are no note's: a paste that lost its first opening fence and its last closing one
    (`...log...`, ```` ``` ````, ```` ``` ````, `...log...`: ultralytics/ultralytics#1439) reads whole."""
    inside = False
    for line in (_clean_once(t) for _, t in numbered):
        if line is None:
            continue
        if FENCE.match(line):
            inside = not inside
        elif inside and line.strip():
            return True
    return False


def _dedented(numbered, fenced):
    """The lines without the indentation they all share (of its code blocks, in a Markdown note):
    a code block indented in a note or under a list item, before any prefix a line carries (the
    indentation of a line whose quote or tag goes would otherwise count as none)."""
    inside, indents = False, []
    for _, line in numbered:
        line = line.rstrip("\r")
        if FENCE.match(_clean_once(line) or ""):
            inside = not inside
        elif line.strip() and (inside or not fenced):
            indents.append(len(line) - len(line.lstrip(" ")))
    common = min(indents, default=0)
    if not common:
        return numbered
    return [(number, line[common:] if line[:common].isspace() else line) for number, line in numbered]


def _continued(numbered):
    """The lines with each shell line continued by a trailing backslash joined to the line after it,
    at the first one's number (a command pasted over several lines is one command: its binary and
    options on the continuation lines belong to it). A blank line or a fence after it ends it."""
    out = []
    for number, line in numbered:
        cleaned = _clean_once(line)
        continues = cleaned is not None and bool(CONTINUED.search(cleaned))
        if out and out[-1][2] and cleaned is not None and cleaned.strip() and not FENCE.match(cleaned):
            first, so_far, _ = out[-1]
            out[-1] = (first, CONTINUED.sub("", so_far).rstrip() + " " + cleaned.strip(), continues)
            continue
        out.append((number, line, continues))
    return [(number, line) for number, line, _ in out]


def _without_line_numbers(numbered, fenced):
    """The lines without an editor's or `cat -n`'s numbers (NVIDIA/cuda-samples#230 pasted from vim):
    numbered where every line of the paste (of its code blocks, in a Markdown note) starts with a
    number that counts up with the line (an empty line numbered or not). A table's row numbers
    alone never do: its titles and headers are not numbered."""
    inside, found_numbers = False, []
    for position, (_, line) in enumerate(numbered):
        line = _clean_once(line)
        if line is None:
            continue
        if FENCE.match(line):
            inside = not inside
        elif line.strip() and (inside or not fenced):
            found_numbers.append((position, line, LINE_NUMBER.match(line)))
    if len(found_numbers) < 3 or not all(found for _, _, found in found_numbers):
        return numbered
    if len({int(found.group(1)) - position for position, _, found in found_numbers}) != 1:
        return numbered
    lines = list(numbered)
    for position, line, found in found_numbers:
        lines[position] = (lines[position][0], line[found.end():])
    return lines
