"""A verdict and what is counted of verdicts: the Verdict record (its typed notes beside the prose),
the order of verdicts, the run's exit code, SKIPs and NOT JUDGED grouped by reason."""
from dataclasses import dataclass, field

from . import judging
from ..contracts.exit_policy import judged_code


ORDER = {"DATA": -1, "PASS": 0, "NOT JUDGED": 0, "SKIP": 0, "WARN": 1, "FAIL": 2, "ERROR": 3}
COUNTED = ("FAIL", "ERROR", "WARN", "PASS", "NOT JUDGED", "SKIP")
NO_CEILING = "no ceiling"  # Verdict.not_judged_why of an item nothing has judged yet


@dataclass
class Verdict:
    row: object
    verdict: str
    said: str                # the first judgement's sentence; `reason` is it with the later passes' notes
    metric: str = ""         # busbw_GBps, algbw_GBps, time_us
    value: float = None
    ceiling_GBps: float = None
    fraction: float = None   # of the ceiling
    healthy_fraction: float = None  # the fraction below which the ceiling verdict is FAIL
    floor_GBps: float = None        # a platform profile's floor that judged the row (of floor_metric)
    floor_metric: str = ""
    expected: str = ""       # what the figure was held against, as "measured vs expected" says it
    finding: str = ""        # a fact about the wiring worth showing that is no verdict (a step's exposed share)
    record: object = None    # a Finding (findings/): a culprit, a link of the wiring, a diagnosis of NCCL's log
    explained_by: str = ""   # a pair that a culprit explains (then DATA): "node node3"
    # Typed notes the later passes read, so that none reads the prose back:
    not_judged_why: str = ""  # NO_CEILING where nothing judged it yet (the reason is written at the end)
    # The figure `expected` names, in the metric's unit (a floor for a bandwidth, a limit for a time):
    # what the samples are read against (verdicts._note_confidence). None where no one number decides.
    bound: float = None
    uncertain: bool = False  # its samples' p05-p95 reach across `bound`: measured again where it can be
    measured_again: bool = False  # a culprit localised from both measurements (culprits.py): nothing left to rerun
    by_siblings: bool = False  # `bound` was set by its equivalent links (comparisons.py), not by a ceiling or floor

    # The later passes' notes, each (text, separator): said before the first sentence (the latest
    # outermost) or after it. They are only ever added; the prose is put together when read.
    notes_before: list = field(default_factory=list)
    notes_after: list = field(default_factory=list)

    @property
    def reason(self):
        """Why, in words: the notes before, the first sentence, the notes after."""
        text = self.said
        for note, separator in self.notes_before:
            text = note + separator + text
        for note, separator in self.notes_after:
            text = text + separator + note
        return text

    @reason.setter
    def reason(self, sentence):
        """A pass that judges the item anew says why from the start: earlier notes no longer apply."""
        self.said, self.notes_before, self.notes_after = sentence, [], []

    def note_before(self, note, separator="; "):
        self.notes_before.append((note, separator))

    def note_after(self, note, separator="; "):
        self.notes_after.append((note, separator))

    def hold_against(self, expected, bound=None):
        """The figure is now held against `expected` (prose for the reader) and its number `bound`;
        an earlier bound no longer applies."""
        self.expected, self.bound = expected, bound

    @property
    def item(self):
        """True for a judged item (counted, in JUnit); False for a sweep point (DATA)."""
        return self.verdict != "DATA"


def metric_of(row):
    """The number a row is judged by, as it declares (judging.py): its bandwidth (a collective's
    busbw, other transfers' algbw), else its time; and whether higher is better."""
    declared = judging.bandwidth(row)
    if declared and row.number(declared.metric) is not None:
        return declared.metric, row.number(declared.metric), True
    return "time_us", row.number("time_us"), False


def items(verdicts):
    return [v for v in verdicts if v.item]


def counts(verdicts, problems=()):
    """Judged items per verdict (sweep points are not counted); an input problem is an ERROR."""
    total = {name: 0 for name in COUNTED}
    for v in verdicts:
        if v.item:
            total[v.verdict] += 1
    total["ERROR"] += len(problems)
    return total


def exit_code(verdicts, problems=(), missing=()):
    """The run's exit code by the one policy (contracts/exit_policy.py): any ERROR 2 (an input problem
    is one), any FAIL 1, nothing judged or anything in `missing` (what was required and not judged:
    a profile floor no row matched) 4, else 0."""
    return judged_code([v.verdict for v in verdicts if v.item] + ["ERROR"] * len(problems), missing)


def without_rank(reason):
    """A SKIP reason as every rank would say it ("rank 0: no CUDA device" -> "no CUDA device")."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and head.startswith("rank ") and head[5:].isdigit() else reason


def grouped(verdicts, verdict):
    """[(reason, count, {bench: count})] of the items with `verdict`, one per distinct reason,
    most frequent first."""
    groups = {}
    for v in verdicts:
        if v.item and v.verdict == verdict:
            # a SKIP or ERROR in the benchmark's own words, as every rank would say it; other
            # verdicts by their sentence, so that identical ones are listed once
            reason = without_rank(v.row.text("reason")) if v.verdict in ("SKIP", "ERROR") and v.row.text("reason") else v.reason
            count, benches = groups.get(reason, (0, {}))
            benches[v.row.text("bench")] = benches.get(v.row.text("bench"), 0) + 1
            groups[reason] = (count + 1, benches)
    return sorted(((reason, count, benches) for reason, (count, benches) in groups.items()), key=lambda g: -g[1])
