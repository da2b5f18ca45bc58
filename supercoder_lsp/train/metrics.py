"""The paper's metrics over samples, in the paper's convention and in ours, side by side.

Per sample: compiled (assembled and linked), correct (every test passes and every check holds).
Per problem, best-of-N:
- paper: the best of max(1, speedup) over correct samples; 1.0 when none is correct or faster (an
  incorrect or slower answer counts as keeping the baseline);
- ours: the best measured speedup over correct samples, slowdowns as measured (< 1), and no value when
  no sample is correct; a problem counts as "faster" only when that speedup is significant.
Percentiles are linear interpolations over the per-problem values (numpy's default).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass


@dataclass
class Sample:
    problem: str
    label: str
    origin: str
    compiled: bool
    correct: bool
    speedup: float | None  # measured, never floored; None when not timed
    significant: bool
    reason: str | None
    detail: str
    identical: bool = False
    level: str = ""  # "tested on 8 tests", "proven equal on all 2^32 inputs", ...
    answer: str = ""  # the answer's assembly (for export)

    def to_json(self) -> dict:
        return asdict(self)


def paper_best(samples: list[Sample]) -> float:
    return max([max(1.0, s.speedup or 1.0) for s in samples if s.correct] or [1.0])


def our_best(samples: list[Sample]) -> Sample | None:
    correct = [s for s in samples if s.correct and s.speedup is not None]
    return max(correct, key=lambda s: (s.significant, s.speedup or 0.0)) if correct else None


def spread(xs: list[float]) -> dict:
    """mean, geometric mean, p25, p50, p75 and max of `xs` (all None when empty)."""
    if not xs:
        return {k: None for k in ("n", "mean", "geomean", "p25", "p50", "p75", "max")} | {"n": 0}
    s = sorted(xs)

    def pct(p: float) -> float:
        k = (len(s) - 1) * p
        lo, hi = math.floor(k), math.ceil(k)
        return s[lo] + (s[hi] - s[lo]) * (k - lo)

    return {
        "n": len(s),
        "mean": statistics.fmean(s),
        "geomean": statistics.geometric_mean(s) if all(x > 0 for x in s) else None,
        "p25": pct(0.25),
        "p50": pct(0.5),
        "p75": pct(0.75),
        "max": s[-1],
    }


def summarize(by_problem: dict[str, list[Sample]]) -> dict:
    samples = [s for ss in by_problem.values() for s in ss]
    n = len(samples)
    ours = {p: our_best(ss) for p, ss in by_problem.items()}
    return {
        "problems": len(by_problem),
        "samples": n,
        "compile_rate": sum(s.compiled for s in samples) / n if n else None,
        "correct_rate": sum(s.correct for s in samples) / n if n else None,
        "problems_with_correct": sum(b is not None for b in ours.values()),
        "paper": spread([paper_best(ss) for ss in by_problem.values()]),
        "ours": spread([b.speedup for b in ours.values() if b is not None and b.speedup is not None])
        | {
            "significantly_faster": sum(1 for b in ours.values() if b is not None and b.significant),
            "slower": sum(1 for b in ours.values() if b is not None and (b.speedup or 1.0) < 1.0),
        },
    }


def per_problem(by_problem: dict[str, list[Sample]]) -> list[dict]:
    rows = []
    for p, ss in by_problem.items():
        b = our_best(ss)
        rows.append(
            {
                "problem": p,
                "samples": len(ss),
                "compiled": sum(s.compiled for s in ss),
                "correct": sum(s.correct for s in ss),
                "paper_speedup": paper_best(ss),
                "speedup": b.speedup if b else None,
                "significant": bool(b and b.significant),
                "best": b.label if b else None,
                "level": b.level if b else None,
            }
        )
    return rows
