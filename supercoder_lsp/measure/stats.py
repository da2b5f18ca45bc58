"""Medians and distribution-free confidence intervals of ratios."""

from __future__ import annotations

import math
import random
import statistics


def median_ci(xs: list[float], conf: float = 0.95) -> tuple[float, float, float]:
    """Median and a distribution-free interval from order statistics
    (the binomial interval for the median, normal approximation)."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("no samples")
    med = statistics.median(s)
    if n < 6:
        return med, s[0], s[-1]
    z = statistics.NormalDist().inv_cdf(0.5 + conf / 2)
    half = z * math.sqrt(n) / 2
    lo = max(0, math.floor(n / 2 - half) - 1)
    hi = min(n - 1, math.ceil(n / 2 + half))
    return med, s[lo], s[hi]


def ratio_of_medians_ci(
    base: list[float], cand: list[float], conf: float = 0.95, resamples: int = 2000, seed: int = 1
) -> tuple[float, float, float]:
    """median(base)/median(cand) with a bootstrap interval, for unpaired samples (whole-program runs)."""
    rng = random.Random(seed)
    point = statistics.median(base) / statistics.median(cand)
    boots = []
    for _ in range(resamples):
        b = statistics.median(rng.choices(base, k=len(base)))
        c = statistics.median(rng.choices(cand, k=len(cand)))
        boots.append(b / c)
    boots.sort()
    a = (1 - conf) / 2
    return point, boots[int(a * resamples)], boots[min(resamples - 1, int((1 - a) * resamples))]


def noise_floor(aa_lo: float, aa_hi: float, minimum: float = 1.02) -> float:
    """The smallest ratio that stands out from an A/A comparison: the A/A
    interval taken symmetrically around 1, and never below `minimum`."""
    return max(minimum, aa_hi, 1 / aa_lo if aa_lo > 0 else math.inf)
