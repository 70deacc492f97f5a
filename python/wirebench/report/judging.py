"""How a row is judged, as the binary that measured it declared (results.csv's `judged` column,
results schema 3; schema/judgements.csv): METRIC@AT:AGAINST judgements, space-separated. The
reporter's passes ask these questions of a row, never its bench name. A run of an older schema gets
the same declarations from legacy.py."""
from dataclasses import dataclass

from ..contracts.input_files import InputError
from ..contracts.schema import JUDGED_AGAINST, JUDGED_AT, RESULT_COLUMNS

METRICS = ("busbw_GBps", "algbw_GBps", "time_us")
SMALL_MESSAGE_BYTES = 64  # a ping-pong up to this size is held against the typical latency (harness/judging.h)
assert all(m in RESULT_COLUMNS for m in METRICS)


@dataclass(frozen=True)
class Judgement:
    metric: str   # a results column
    at: str       # largest, smallest, each
    against: str  # ceiling, typical_latency, siblings, culprits, prediction

    def __str__(self):
        return f"{self.metric}@{self.at}:{self.against}"


def _checked(judgement):
    """The judgement's text, its words checked against the grammar where it is written."""
    parse(str(judgement), "a judgement declared in python/wirebench")
    return str(judgement)


def small_message_latency(size, half_round_trip=True):
    """[time_us@smallest:typical_latency] for a ping-pong's half round trip of at most
    SMALL_MESSAGE_BYTES (wb-net's rule, harness/judging.h), else []: a whole round trip (ib_read_lat)
    or a larger message has no typical latency to be held against."""
    return [_checked(Judgement("time_us", "smallest", "typical_latency"))] \
        if half_round_trip and size <= SMALL_MESSAGE_BYTES else []


LATENCY_EACH_AGAINST_SIBLINGS = "time_us@each:siblings"  # a latency at a fixed size, each pair against the others
STEP_AGAINST_PREDICTION = "time_us@each:prediction"


def declare(bandwidth=None, against="ceiling", latency=()):
    """results.csv's `judged` text as a Python writer (an importer, legacy.py) declares it: the
    `bandwidth` metric (None where nothing moved or nothing was measured) at the sweep's largest
    size against `against`, then the `latency` judgements; a row with neither is held against its
    siblings at its smallest size. Every word is checked here, as the C++ side's are by its types."""
    words = ([_checked(Judgement(bandwidth, "largest", against))] if bandwidth else []) + [
        _checked(Judgement(*_split(word))) for word in latency]
    return " ".join(words) or _checked(Judgement("time_us", "smallest", "siblings"))


def _split(word):
    metric, _, rest = word.partition("@")
    return (metric, *rest.partition(":")[::2])


def unit_of(metric):
    """How a metric's figure is said: us for a time, GB/s for a bandwidth."""
    return "us" if metric == "time_us" else "GB/s"


def parse(text, where=""):
    """The judgements of a `judged` text; InputError naming `where` for one outside the grammar."""
    judgements = []
    for word in text.split():
        metric, _, rest = word.partition("@")
        at, _, against = rest.partition(":")
        if metric not in METRICS or at not in JUDGED_AT or against not in JUDGED_AGAINST:
            raise InputError(f"{where}: judgement '{word}' is not METRIC@AT:AGAINST (metric: {', '.join(METRICS)}; "
                             f"at: {', '.join(JUDGED_AT)}; against: {', '.join(JUDGED_AGAINST)}; schema/judgements.csv)")
        judgements.append(Judgement(metric, at, against))
    return tuple(judgements)


def of(row):
    """The row's judgements (the reader has checked them; a row built by the reporter has none)."""
    try:
        return parse(row.text("judged"))
    except InputError:
        return ()


def against(row, what):
    """The row's judgement against `what`, or None."""
    return next((j for j in of(row) if j.against == what), None)


def bandwidth(row):
    """The judgement of a figure where higher is better (a bandwidth), or None."""
    return next((j for j in of(row) if j.metric != "time_us"), None)


def by_prediction(row):
    """A row held against a model's prediction (a step): each is an item, compared with no sibling."""
    return against(row, "prediction") is not None
