"""Robust statistics, one definition for the reporter, the history and the runner: the median and
the median absolute deviation (MAD), scaled to a normal distribution's sigma where a rule counts in
sigmas, and Iglewicz and Hoaglin's modified z-score."""
import statistics

MAD_TO_SIGMA = 1.4826  # a normal distribution's standard deviation per MAD


def median_and_mad(values):
    """(median, MAD) of `values` (a non-empty iterable)."""
    values = list(values)
    median = statistics.median(values)
    return median, statistics.median(abs(v - median) for v in values)


def median_and_sigma(values):
    """(median, 1.4826 x MAD): the median and a sigma that outliers do not inflate."""
    median, mad = median_and_mad(values)
    return median, MAD_TO_SIGMA * mad


def modified_z(value, median, mad):
    """Iglewicz and Hoaglin's modified z-score, 0.6745 (value - median) / MAD; infinite where the
    MAD is 0 and the value is not the median."""
    if mad:
        return 0.6745 * (value - median) / mad
    return float("inf") if value != median else 0.0
