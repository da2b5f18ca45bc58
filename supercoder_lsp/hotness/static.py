"""Hotness without running anything: loops weigh most.

A function with loops scores 10**loop_depth plus one per call inside a loop
(so any looping function outranks every loop-free one).  A loop-free function
scores its size in bytes / 10000, capped below 1.  Functions sharing a name
(e.g. both arms of an #ifdef) keep the highest score.
"""

from __future__ import annotations

from ..model import CFunction


def static_score(fn: CFunction) -> float:
    """The static hotness of one function (see the module docstring)."""
    if fn.has_loops:
        return float(10**fn.loop_depth + fn.calls_in_loops)
    return min(len(fn.text.encode("utf-8", "surrogatepass")) / 10000.0, 0.99)


def static_scores(functions: list[CFunction]) -> dict[str, float]:
    """name -> static score for every function (main included; callers skip it)."""
    scores: dict[str, float] = {}
    for fn in functions:
        scores[fn.name] = max(scores.get(fn.name, 0.0), static_score(fn))
    return scores
