"""What a result claims, said one way everywhere: which timing decides, the headline of a
verified win, and the summary when nothing won. The CLI, the language server's hints and
the pipeline all say it through these functions (the JSON form carries their output)."""

from __future__ import annotations

from .model import CandidateResult, FunctionResult, Timing


def deciding_timing(c: CandidateResult) -> Timing | None:
    """The timing that decides "faster": the function's own (interleaved, over alignments)
    where it has a harness, else the whole program's (hyperfine on the bench input or workload)."""
    return c.timing or c.program_timing


def claim_basis(c: CandidateResult) -> str:
    """What the correctness claim rests on, in the user's words."""
    if c.proof:
        return c.proof
    proving = "; proving it equal on every input..." if c.proving else ""
    if c.inputs_checked:
        within = f" with {c.inputs_domain}" if c.inputs_domain else ""
        return f"verified on {c.inputs_checked:,} inputs{within}{proving}"
    return f"only {c.tests_passed} program tests pass (no function harness){proving}"


def headline(c: CandidateResult | None) -> str | None:
    """'1.62x faster (95% CI 1.55-1.70), uses popcnt - verified on 200,000 inputs', or None."""
    t = deciding_timing(c) if c is not None else None
    if c is None or t is None:
        return None
    uses = f", uses {', '.join(c.features)}" if c.features else ""
    so_far = f", {t.interim}" if t.interim else ""
    return f"{t.speedup:.2f}x faster (95% CI {t.ci[0]:.2f}-{t.ci[1]:.2f}{so_far}){uses} - {claim_basis(c)}"


def no_win_summary(candidates: list[CandidateResult], so_far: bool = False) -> str:
    """'no faster verified candidate (5 tried: 3 not-faster, 2 wrong-output)'; with `so_far`, while more
    are being tried: 'no faster verified candidate yet (2 tried: 2 not-faster); trying more'. A candidate
    that passed every check but whose timing run failed counts as 'could not be timed', not 'not-faster'."""
    counts: dict[str, int] = {}
    for c in candidates:
        key = c.reason or ("accepted" if c.status == "accepted" else "?")
        if key == "not-faster" and c.detail.startswith("could not be timed"):  # right, and no speed known
            key = "could not be timed"
        counts[key] = counts.get(key, 0) + 1
    tried = ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    counted = f"({len(candidates)} tried{': ' + tried if tried else ''})"
    return (
        f"no faster verified candidate yet {counted}; trying more"
        if so_far
        else f"no faster verified candidate {counted}"
    )


def builds_all_differ(candidates: list[CandidateResult]) -> str | None:
    """Where every build of the original's own C that was tried (two or more compiler variants) is wrong-output
    on the same input, the fault is the input's: C that every compiler reads alike cannot give builds that all
    differ, unless the input makes its result undefined (an overflow, memory it does not own, state the harness
    does not give). Words that say so, or None."""
    builds = [
        c for c in candidates if c.origin.startswith("compilers:") and c.reason not in ("duplicate", "unsupported-cpu")
    ]
    if len(builds) < 2 or any(c.reason != "wrong-output" for c in builds):
        return None
    inputs = {_failing_input(c.detail) for c in builds}
    if len(inputs) != 1 or not next(iter(inputs)):
        return None
    names = ", ".join(c.origin.split(":", 1)[1] for c in builds[:4]) + (", ..." if len(builds) > 4 else "")
    return (
        f"every build of the original's own C tried ({len(builds)}: {names}) differs from its -O3 build on the same "
        f"input, {next(iter(inputs))}: the C does not give that input one answer (an overflow, memory it does not "
        "own, state the harness does not make), so the input, not the builds, is wrong; give the program's own "
        "calls (--tests, --workload, or the project's tests with --test-command auto)"
    )


def _failing_input(detail: str) -> str:
    """The input a wrong-output finding names: its text before what was expected."""
    cut = [detail.find(m) for m in (": expected ", ": returns ", " [") if m in detail]
    return detail[: min(cut)] if cut else ""


def inputs_summary(fn: FunctionResult) -> str | None:
    """'inputs: 5,801 generated, 17 recorded from the program; they run 100% of its 7 lines (generated alone 29%)'."""
    c = fn.coverage
    if not c:
        return None
    rec = f", {c['recorded']:,} recorded from the program" if c["recorded"] else ""
    alone = f" (generated alone {c['generated_percent']}%)" if c["recorded"] else ""
    within = f" with {c['narrowed']}" if c.get("narrowed") else ""
    return (
        f"inputs: {c['generated']:,} generated{within}{rec}; they run {c['percent']}% of its {c['lines']} lines{alone}"
    )


def best_speedup(fn: FunctionResult) -> float:
    best = fn.best_result()
    t = deciding_timing(best) if best is not None else None
    return t.speedup if t is not None else 0.0
