"""When one member of a fleet (the pairs of one measurement) is slow: the rule the matrix culprits
(culprits.py) and the adaptive screen (adaptive_screen.py) both judge by.
  - more than SLOW_MAD MADs and SLOW_RELATIVE below the fleet's median: a noisy but healthy fleet
    blames nobody;
  - or below the healthy fraction of its ceiling: what robust statistics cannot see when half the
    fleet is slow (4 nodes, one bad);
  - or, with no ceiling to say it, below the faster of two groups the fleet falls into (faster_group):
    one slow node is in two thirds of three nodes' pairs and half of four's, so the median falls
    between the groups and the MAD is as wide as the fault. Two groups alone do not say which is sick
    (a rail's pairs are faster than pairs across rails): the matrix culprits take the slower group
    only where it is a node's or a path's, never where it would be the fabric."""
from ..robust import median_and_sigma

SLOW_MAD = 3.0
SLOW_RELATIVE = 0.20
# Lagging: the siblings' WARN band (comparisons.py), which the matrix names only as a node's or a
# rail's pattern (culprits.py): one node's every pair 10-20% down is a WARN naming it, not one per pair.
LAG_MAD = 2.0
LAG_RELATIVE = 0.10


def fleet_reference(values):
    """(median, scaled MAD) of a fleet's figures: what a healthy member reads and how far noise goes."""
    return median_and_sigma(values)


def below_fleet(value, reference, mads=SLOW_MAD, relative=SLOW_RELATIVE):
    median, mad = reference
    return median > 0 and median - value > mads * mad and (median - value) / median > relative


def below_ceiling(fraction, healthy_fraction):
    return fraction is not None and healthy_fraction is not None and fraction < healthy_fraction


def faster_group(values):
    """(median, scaled MAD) of the faster group where a fleet's figures (higher is better) fall into two
    groups: the widest gap between sorted figures splits them, the faster group has two members at
    least, its median is more than SLOW_RELATIVE above the slower group's, and the gap is wider than
    SLOW_MAD sigmas of either group (a noisy but healthy fleet has no such gap). None otherwise."""
    ordered = sorted(values)
    if len(ordered) < 3:
        return None
    cut = max(range(1, len(ordered) - 1), key=lambda i: ordered[i] - ordered[i - 1])
    slower, faster = ordered[:cut], ordered[cut:]
    (slow_median, slow_sigma), (fast_median, fast_sigma) = median_and_sigma(slower), median_and_sigma(faster)
    gap = faster[0] - slower[-1]
    if fast_median <= 0 or (fast_median - slow_median) / fast_median <= SLOW_RELATIVE:
        return None
    if gap <= SLOW_MAD * max(slow_sigma, fast_sigma):
        return None
    return fast_median, fast_sigma
