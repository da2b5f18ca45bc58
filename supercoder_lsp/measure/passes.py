"""What the interleaved timing's passes say (interleaved.py): each round's ratio, whether more passes could
still make a candidate faster (hopeless), whether the passes so far already show it faster beyond doubt
(clear_win: the editor's early hint), and the verdict over the alignments."""

from __future__ import annotations

import statistics
from typing import Any

from ..model import Timing
from .stats import median_ci, noise_floor

EARLY_PASSES = 2  # a win shown before the last pass (clear_win): after this many passes at least (two windows of
# the machine's drift: one pass of identical code once ran 1.37x "faster" in all four alignments, 1.04x after all) ...
EARLY_CONF = 0.99  # ... where every alignment's 99% interval ...
EARLY_MARGIN = 1.05  # ... is above this many times the noise floor of the passes so far (the claim: 95%, all passes)


def ratios(rows: list[tuple[float, float, float]]) -> list[float]:
    """Each round's speedup: the original's time (the geometric mean of its two copies, which run before
    and after the candidate: less bias from position) over the candidate's."""
    return [(a * b) ** 0.5 / c for a, b, c in rows]


def hopeless(rows_by: dict[int, list[tuple[float, float, float]]], min_speedup: float) -> str:
    """Why more passes cannot make the candidate significantly faster ("" while they can): its ratio to
    the original is below `min_speedup` over all alignments, or not above 1 in one of them. A speedup needs
    every alignment's lower bound above a floor of at least `min_speedup`, so either ends the timing of a
    candidate that is no faster early; it never accepts one (only the full run can)."""
    by = {off: ratios(rows) for off, rows in rows_by.items()}
    pooled = statistics.median(r for rs in by.values() for r in rs)
    if pooled < min_speedup:
        return f"{pooled:.2f}x over all alignments, below {min_speedup:g}x"
    worst = min(by, key=lambda off: statistics.median(by[off]))
    med = statistics.median(by[worst])
    return f"{med:.2f}x at alignment +{worst}" if med <= 1.0 else ""


def clear_win(rows_by: dict[int, list[tuple[float, float, float]]], passes: int, min_speedup: float) -> bool:
    """Whether the `passes` so far already show the candidate faster beyond doubt: EARLY_PASSES of them at
    least, and in every alignment the EARLY_CONF interval of its ratio above EARLY_MARGIN times the noise floor
    (the worst alignment's A/A at EARLY_CONF, never below `min_speedup`). Stricter than the claim's test
    (verdict) on fewer rounds, so that an early hint is one the full timing keeps; the claim is still made
    from every pass."""
    if passes < EARLY_PASSES:
        return False
    lows, floor = [], min_speedup
    for rows in rows_by.values():
        lows.append(median_ci(ratios(rows), EARLY_CONF)[1])
        _, aa_lo, aa_hi = median_ci([a / b for a, b, _ in rows], EARLY_CONF)
        floor = max(floor, noise_floor(aa_lo, aa_hi, min_speedup))
    return min(lows) > floor * EARLY_MARGIN


def verdict(per_alignment: list[dict[str, Any]], pooled: list[float], samples: dict) -> Timing:
    """The noise floor is the worst A/A deviation seen in any layout; the candidate must clear it in
    every alignment."""
    floor = max(a["noise_floor"] for a in per_alignment)
    significant = all(a["ci"][0] > floor for a in per_alignment)
    slower = all(a["ci"][1] < 1 / floor for a in per_alignment)
    med = median_ci(pooled)[0]
    lo = min(a["ci"][0] for a in per_alignment)
    hi = max(a["ci"][1] for a in per_alignment)
    noise = (min(a["aa_ci"][0] for a in per_alignment), max(a["aa_ci"][1] for a in per_alignment))
    if significant:
        detail = f"{med:.2f}x faster (95% CI {lo:.2f}-{hi:.2f}) in all {len(per_alignment)} alignments"
    elif slower:
        detail = f"slower: {med:.2f}x (95% CI {lo:.2f}-{hi:.2f})"
    else:
        detail = (
            f"no significant difference: {med:.2f}x (95% CI {lo:.2f}-{hi:.2f}); "
            f"noise floor {floor:.2f}x (A/A {noise[0]:.2f}-{noise[1]:.2f})"
        )
    return Timing("interleaved", med, (lo, hi), noise, significant, per_alignment, samples, detail)
