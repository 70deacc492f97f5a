"""An item's baseline from its history and the test that names a regression. The baseline is the
median and robust spread (1.4826 x MAD, as a % of the median) of the item's last BASELINE_RUNS
healthy runs (no FAIL, ERROR or SKIP) before the recent ones. A regression is decided by a
one-sided Mann-Whitney U test (scipy, exact) of the last RECENT_RUNS runs, this one included,
against that window, and a change of at least MIN_CHANGE and 3 spreads: one noisy night among
the recent ones does not flag; a step change does on its RECENT_RUNS-th night (k = 2)."""
import statistics
from dataclasses import dataclass

from ..robust import median_and_mad, median_and_sigma, modified_z

BASELINE_RUNS = 30
RECENT_RUNS = 2      # k: with 5 baseline runs or more, two nights both worse give p <= 1/21
MIN_BASELINE = 5     # fewer healthy runs: no baseline, said so
ALPHA = 0.05
MIN_CHANGE = 0.05    # a change smaller than 5% is noise to a nightly CI, however significant
NOT_HEALTHY = ("FAIL", "ERROR", "SKIP")
VERSION_NAMES = {"driver": "driver", "cuda": "CUDA", "nccl": "NCCL", "mpi": "MPI", "kernel": "kernel",
                 "wirebench": "wirebench", "revision": "wirebench revision"}


@dataclass
class Baseline:
    median: float
    spread_pct: float
    runs: int


@dataclass
class Regression:
    baseline: Baseline
    recent_median: float
    change: float          # (recent median - baseline median) / baseline median
    p_value: float
    first: object          # history.store.Run: the first night of the change (this run where it is this one)
    changes: list          # "NCCL 2.21.5 -> 2.23.4": what changed on that night, against the night before


def baseline_of(values):
    median, sigma = median_and_sigma(values)
    return Baseline(median, 100 * sigma / median if median else 0.0, len(values))


def latest_baseline(points):
    """The baseline of a series' last BASELINE_RUNS healthy points, or None with fewer than
    MIN_BASELINE (wirebench history show)."""
    healthy = [p.value for p in points if p.verdict not in NOT_HEALTHY and p.value is not None][-BASELINE_RUNS:]
    return baseline_of(healthy) if len(healthy) >= MIN_BASELINE else None


def regression(earlier, current_value, current_run, higher_is_better):
    """The regression the item shows in `current_run`, or None. `earlier`: the item's points of the
    runs before it (history.store.Point, oldest first). The nights of the change (the run's and the
    ones before it, back to the first beyond MIN_CHANGE of the baseline) stay out of the baseline."""
    if current_value is None:
        return None
    values = [p.value for p in earlier] + [current_value]
    runs = [p.run for p in earlier] + [current_run]
    healthy = [p.verdict not in NOT_HEALTHY and p.value is not None for p in earlier] + [True]
    recent_from = len(values) - RECENT_RUNS
    first_guess = [v for v, ok in zip(values[:recent_from], healthy[:recent_from]) if ok][-BASELINE_RUNS:]
    if len(first_guess) < MIN_BASELINE or recent_from < 0 or None in values[recent_from:]:
        return None
    median = statistics.median(first_guess)

    def beyond(value):
        return value is not None and (value < median * (1 - MIN_CHANGE) if higher_is_better
                                      else value > median * (1 + MIN_CHANGE))
    if not beyond(current_value):
        return None
    start = len(values) - 1  # the first night of the change: back while each night is beyond
    while start > 0 and beyond(values[start - 1]):
        start -= 1
    window = [v for v, ok in zip(values[:min(start, recent_from)], healthy) if ok][-BASELINE_RUNS:]
    if len(window) < MIN_BASELINE:
        return None
    base = baseline_of(window)
    recent = values[recent_from:]
    # imported here: scipy.stats takes over a second to import, and only a history's test needs it
    from scipy.stats import mannwhitneyu
    p_value = mannwhitneyu(recent, window, alternative="less" if higher_is_better else "greater",
                           method="exact").pvalue
    change = (statistics.median(recent) - base.median) / base.median if base.median else 0.0
    worse = -change if higher_is_better else change
    if p_value >= ALPHA or worse < max(MIN_CHANGE, 3 * base.spread_pct / 100):
        return None
    before = runs[start - 1] if start > 0 else None
    return Regression(base, statistics.median(recent), change, p_value, runs[start],
                      changes_between(before, runs[start]))


def changes_between(before, after):
    """What differs between two runs' versions: ["NCCL 2.21.5 -> 2.23.4", ...]."""
    if before is None or after is None:
        return []
    return [f"{VERSION_NAMES[name]} {getattr(before, name) or '?'} -> {getattr(after, name) or '?'}"
            for name in VERSION_NAMES if (getattr(before, name) or "") != (getattr(after, name) or "")]


# The fleet: the same item's latest healthy figure on other nodes of the same kind (the same shape:
# measurement, size, link class, endpoints within their node) over the last FLEET_DAYS.
FLEET_DAYS = 30
FLEET_NODES = 3          # fewer other nodes: no fleet baseline
FLEET_Z = 3.5            # Iglewicz and Hoaglin's outlier bound for the modified z-score
FLEET_MIN_CHANGE = 0.10  # and at least 10% off the fleet's median


@dataclass
class FleetOutlier:
    median: float
    nodes: int
    change: float     # (value - median) / median
    z: float          # the modified z-score, 0.6745 (value - median) / MAD (inf where the MAD is 0)


def fleet_outlier(value, others, higher_is_better):
    """Whether `value` stands out from the other nodes' figures (a robust z-score test), or None."""
    if value is None or len(others) < FLEET_NODES:
        return None
    median, mad = median_and_mad(others)
    change = (value - median) / median if median else 0.0
    worse = -change if higher_is_better else change
    z = modified_z(value, median, mad)
    if worse < FLEET_MIN_CHANGE or abs(z) < FLEET_Z:
        return None
    return FleetOutlier(median, len(others), change, z)
