"""When one member of a fleet (the pairs of one measurement) is slow: the rule the matrix culprits
(culprits.py) and the adaptive screen (adaptive_screen.py) both judge by.
  - more than SLOW_MAD MADs and SLOW_RELATIVE below the fleet's median: a noisy but healthy fleet
    blames nobody;
  - or below the healthy fraction of its ceiling: what robust statistics cannot see when half the
    fleet is slow (4 nodes, one bad)."""
from ..robust import median_and_sigma

SLOW_MAD = 3.0
SLOW_RELATIVE = 0.20


def fleet_reference(values):
    """(median, scaled MAD) of a fleet's figures: what a healthy member reads and how far noise goes."""
    return median_and_sigma(values)


def below_fleet(value, reference):
    median, mad = reference
    return median > 0 and median - value > SLOW_MAD * mad and (median - value) / median > SLOW_RELATIVE


def below_ceiling(fraction, healthy_fraction):
    return fraction is not None and healthy_fraction is not None and fraction < healthy_fraction
