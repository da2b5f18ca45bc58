"""Order functions hottest first, by measured instructions or by static score."""

from __future__ import annotations

from ..model import CFunction
from .static import static_score


def rank(
    functions: list[CFunction],
    *,
    profile: dict[str, int] | None,
    exclude=("main",),
) -> list[tuple[CFunction, float]]:
    """(function, score) pairs, hottest first, without the names in `exclude`.

    With a profile the score is the function's exclusive instruction count
    (0 for functions the profile does not know, e.g. ones inlined into their
    callers; see `inlined_or_unprofiled`).  Without one it is the static score.
    Ties keep the higher static score first, then source order.
    """
    skip = set(exclude)
    kept = [(i, fn) for i, fn in enumerate(functions) if fn.name not in skip]
    scored = []
    for i, fn in kept:
        static = static_score(fn)
        score = float(profile.get(fn.name, 0)) if profile is not None else static
        scored.append((-score, -static, i, fn, score))
    scored.sort(key=lambda t: t[:3])
    return [(fn, score) for *_, fn, score in scored]


def inlined_or_unprofiled(functions: list[CFunction], profile: dict[str, int]) -> list[str]:
    """Names of functions the profile never saw (inlined, never called, or optimised away)."""
    out: list[str] = []
    for fn in functions:
        if fn.name not in profile and fn.name not in out:
            out.append(fn.name)
    return out
