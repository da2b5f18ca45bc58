"""The function harness of one function, built the way its file needs: alone first, then linked
with the rest of the file (weakened) and started from the program's recorded states when the
function uses the file's globals or helpers."""

from __future__ import annotations

from pathlib import Path

from . import build
from .file_context import FileContext
from .harness.plan import Plan, describe
from .model import CFunction
from .options import Options
from .verify.function_check import FunctionHarness
from .verify.program_state import record_states


def build_harness(
    ctx: FileContext, fn: CFunction, plan: Plan, base_obj: Path, fdir: Path, opts: Options, notes: list[str]
):
    """Build the function harness; link the rest of the file when the function needs it."""
    attempts = [()]
    for support in attempts + [(ctx.support_object(),)]:
        states = _program_states(ctx, fn, base_obj, fdir, opts, notes) if support else []
        h = FunctionHarness(
            fdir / "verify",
            fn.name,
            plan,
            n_random=opts.n_random,
            seed=opts.seed,
            support_objs=support,
            states=states,
        )
        try:
            h.prepare(base_obj)
        except build.BuildError as e:
            last = e
            continue
        except RuntimeError as e:
            return None, (), str(e)
        slow = (
            (
                f"; the -O3 baseline took {h.base_seconds:.0f}s on them: bound the inputs to make checks faster "
                f"(--bound {fn.name}.PARAM=LOW:HIGH)"
            )
            if h.base_seconds > 5
            else ""
        )
        return h, support, f"{h.describe_inputs()} ({describe(plan)}){slow}"
    return None, (), f"the function-level harness could not be linked: {_lines(last.output, 600)}"


def _program_states(
    ctx: FileContext, fn: CFunction, base_obj: Path, fdir: Path, opts: Options, notes: list[str]
) -> list:
    """The globals as the program has them when it calls `fn`, over its tests and bench input or workload."""
    if not (ctx.tests or opts.bench_input or opts.workload):
        return []
    try:
        return record_states(
            ctx.rest_object(fn),
            base_obj,
            fn.name,
            fdir / "state",
            compiler=ctx.cfg.compiler,
            ldflags=ctx.cfg.ldflags,
            stdin_files=[i for _, i, _ in ctx.tests or []] + ([Path(opts.bench_input)] if opts.bench_input else []),
            workload=opts.workload,
        )
    except build.BuildError as e:
        notes.append(
            f"{fn.name}: the program's own state could not be recorded ({e.what}); "
            "the harness starts from initial and random globals only"
        )
        return []


def _lines(text: str, limit: int) -> str:
    """Whole lines of `text` up to about `limit` characters (a tool's message is never cut mid-word)."""
    out: list[str] = []
    for line in text.strip().splitlines():
        if out and sum(len(x) + 1 for x in out) + len(line) > limit:
            out.append(f"... ({len(text.strip().splitlines()) - len(out)} more lines)")
            break
        out.append(line)
    return "\n".join(out)
