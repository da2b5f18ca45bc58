"""The function harness of one function, built the way its file needs (FileContext.linked): alone
first, then linked with the rest of the file, and the project's other files, and started from the
program's recorded states when the function uses the file's globals or helpers. Calls recorded from the program's own runs are
replayed beside the generated inputs."""

from __future__ import annotations

import re
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from .. import build
from ..asm.elfcheck import inspect_object
from ..harness.plan import Plan, describe, narrowed
from ..harness.recorded import MAX_RECORD
from ..model import CFunction
from ..options import Options
from ..verify.coverage import Coverage, by_gcov, coverage_object
from ..verify.coverage import measure as measure_coverage
from ..verify.function_check import FunctionHarness, OutsideDomain
from ..verify.program_state import Recording, record_program
from .file_context import FileContext

T = TypeVar("T")


def _beside(work: Callable[..., T], *args) -> Future[T]:
    """`work(*args)` on a thread of its own (a daemon: a run that ends does not wait for it)."""
    done: Future[T] = Future()

    def run() -> None:
        try:
            done.set_result(work(*args))
        except BaseException as e:  # noqa: BLE001 - raised where the result is asked for
            done.set_exception(e)

    threading.Thread(target=run, daemon=True).start()
    return done


def _link_failure(output: str) -> str:
    """Why the harness did not link; where symbols of other files are missing (zlib's inflate calls
    adler32 and inflate_fast), which, and how to give them."""
    missing = sorted(set(re.findall(r"undefined reference to `([^']+)'", output)))
    if missing:
        names = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        return (
            f"the function-level harness could not be linked: it calls {names}, defined in other files of the "
            "program; give them to link with (--ldflags 'libz.a' or 'other.o', or .supercoder.toml [build] "
            "ldflags; --tests DIR)"
        )
    return f"the function-level harness could not be linked: {_lines(output, 600)}"


def needed_symbols(plan: Plan, base_obj: Path) -> list[str]:
    """What a harness of `plan` around the function in `base_obj` refers to outside them: the function's
    own undefined symbols and the file's const structs its inputs point at (FileContext.linked)."""
    statics = [n for p in plan.params for _, inst in p.statics for n, _ in inst]
    return inspect_object(base_obj).undefined + statics


def build_harness(
    ctx: FileContext,
    fn: CFunction,
    plan: Plan,
    base_obj: Path,
    fdir: Path,
    opts: Options,
    rec,
    first_look: Callable[[FunctionHarness], None] | None = None,
):
    """Build the function harness; link the rest of the file when the function needs it. `rec` is
    what the program's runs recorded (program_recording). Where the -O3 original runs out of time or
    fails on most generated inputs, its integer parameters are narrowed (harness.plan.narrowed) and the
    harness says so; the harness's own plan (`h.plan`) is the one its inputs follow. `first_look` (the
    editor's) gets a harness of the first inputs first, where the original is slow (FunctionHarness.prepare)."""
    flags = ctx.library_flags()
    # the file's build for gcov, beside the harness's own compile: both are needed before any claim
    fdir.mkdir(parents=True, exist_ok=True)
    at = Path(tempfile.mkdtemp(prefix="coverage-", dir=fdir))  # its own: an earlier harness's may still build
    early = _beside(coverage_object, fn.name, ctx.path, ctx.cfg, at) if by_gcov(ctx.cfg) is None else None

    def coverage(h: FunctionHarness) -> Coverage | str:
        return measure_coverage(h, ctx.path, ctx.cfg, at, flags, early.result if early is not None else None)

    try:
        h, support, narrowing, cov = ctx.linked(
            lambda sup: _prepare(ctx, fn, plan, base_obj, fdir, opts, rec, sup, coverage, first_look),
            needed_symbols(plan, base_obj),
        )
    except build.BuildError as e:
        return None, (), _link_failure(e.output)
    except RuntimeError as e:
        return None, (), str(e)
    linked = ctx.project_note()
    slow = (
        (
            f"; the -O3 baseline took {h.base_seconds:.0f}s on them: bound the inputs to make checks faster "
            f"(--bound {fn.name}.PARAM=LOW:HIGH)"
        )
        if h.base_seconds > 5
        else ""
    )
    narrow = (
        f"; inputs narrowed to {narrowing}: the -O3 original runs out of time or fails on most wider ones, "
        "or breaks the harness itself on them "
        f"(--bound {fn.name}.PARAM=LOW:HIGH to choose)"
        if narrowing
        else ""
    )
    h.narrowing = narrowing
    if isinstance(cov, Coverage):
        h.coverage, cov = cov, cov.describe()
    return h, support, f"{h.describe_inputs()} ({describe(h.plan)}){linked}{slow}{narrow}{_recording_note(rec)}; {cov}"


def _prepare(
    ctx: FileContext,
    fn: CFunction,
    plan: Plan,
    base_obj: Path,
    fdir: Path,
    opts: Options,
    rec,
    support,
    coverage: Callable[[FunctionHarness], Coverage | str],
    first_look: Callable[[FunctionHarness], None] | None = None,
):
    """The harness linked with `support`, its baseline run, and its `coverage` measured after the
    self-check: (harness, support, narrowing, coverage). Inputs the original is outside its domain on
    are narrowed step by step; a BuildError (it does not link) or a RuntimeError (why not, with the
    narrowing tried) is raised."""
    narrowing, tried, steps = "", plan, [0, 1]

    def harness(p: Plan) -> FunctionHarness:
        return FunctionHarness(
            fdir / "verify",
            fn.name,
            p,
            n_random=opts.n_random,
            seed=opts.seed,
            support_objs=support,
            states=rec.states if support else [],
            recorded=rec.inputs,
            link_flags=ctx.library_flags(),
            budget_seconds=opts.baseline_seconds,
        )

    while True:
        h = harness(tried)
        # the next narrowing's harness compiled meanwhile, at the lowest priority (FunctionHarness.compile_ahead)
        ahead = next((n[0] for n in (narrowed(tried, step) for step in steps) if n is not None), None)
        if ahead is not None:
            threading.Thread(target=harness(ahead).compile_ahead, daemon=True).start()
        try:
            cov = h.prepare(base_obj, lambda: coverage(h), first_look)  # noqa: B023 (called before h changes)
            return h, support, narrowing, cov
        except OutsideDomain as e:
            nxt = None
            while nxt is None and steps:
                nxt = narrowed(tried, steps.pop(0))
            if nxt is None:
                raise RuntimeError(str(e) + (f" (also with {narrowing})" if narrowing else "")) from e
            tried, narrowing = nxt[0], f"{narrowing}, {nxt[1]}" if narrowing else nxt[1]


def _recording_note(rec: Recording) -> str:
    if not rec.runs or rec.inputs is None:
        return ""
    ins = rec.inputs
    failed = f"; runs that failed: {', '.join(rec.failed)}" if rec.failed else ""
    left = []
    if ins.unreadable:
        left.append(
            f"{ins.unreadable:,} not recorded: a buffer was shorter than its length parameter says, "
            "so that parameter is not its length (give a bound, or program tests that call it)"
        )
    if ins.too_big:
        left.append(f"{ins.too_big:,} not recorded: their buffers are over {MAX_RECORD // 1024} KiB")
    if not ins.calls and not left:
        return f"; the program's runs never called it out of line, so no call was recorded{failed}"
    if ins.region_bytes:
        size = sum(ins.region_bytes)
        amount = f"{size // 1024:,} KiB" if size >= 1024 else f"{size} bytes"
        left.append(
            f"in them its struct's pointers were followed into up to {len(ins.region_bytes)} region(s) "
            f"of the program's memory ({amount}), replayed with every pointer relocated"
        )
    runs = f"{rec.runs} program run{'s' if rec.runs > 1 else ''}" + (f" of {rec.found}" if rec.found else "")
    return f"; {ins.calls:,} calls recorded over {runs}{''.join('; ' + x for x in left)}{failed}"


def user_inputs(ctx: FileContext, opts: Options) -> bool:
    """Whether the user named anything to record calls in: tests, a bench input, a workload, programs."""
    return bool(ctx.tests or opts.bench_input or opts.workload or ctx.cfg.programs or ctx.test_suite(opts.test_command))


def own_program_recording(
    ctx: FileContext, fn: CFunction, plan: Plan, base_obj: Path, fdir: Path, opts: Options, notes: list[str]
) -> Recording:
    """Where the user named nothing to record calls in: the calls of the project's own programs
    (compile_commands.json's files that define main, each run once with no arguments in a scratch
    folder, under run_limited's resource limits); an empty Recording where there are none."""
    if user_inputs(ctx, opts) or not opts.own_programs:
        return Recording()
    if ctx.named_elsewhere(fn) is None:  # none of them could call it: not built, not run (lz4.c: 5 s)
        return Recording(found=f"the project's own programs were not run: no file of the project names {fn.name}")
    programs = ctx.own_programs()
    if not programs:
        return Recording()
    rec = program_recording(ctx, fn, plan, base_obj, fdir / "own", opts, notes, tuple(programs.values()))
    names = ", ".join(programs)
    rec.found = f"the project's own programs ({names}, from compile_commands.json, each run with no arguments)"
    return rec


def program_recording(
    ctx: FileContext,
    fn: CFunction,
    plan: Plan,
    base_obj: Path,
    fdir: Path,
    opts: Options,
    notes: list[str],
    programs: tuple[tuple[str, ...], ...] | None = None,
) -> Recording:
    """The globals as the program has them when it calls `fn`, and its arguments, over its tests and
    bench input or workload, and the other programs (`programs`, else the user's)."""
    if programs is None and not user_inputs(ctx, opts):
        return Recording()
    suite = ctx.test_suite(opts.test_command) if programs is None else None
    if isinstance(suite, str):
        if suite not in notes:
            notes.append(suite)
        suite = None
    try:
        return record_program(
            ctx.rest_object(fn),
            base_obj,
            fn.name,
            fdir / "state",
            plan=plan,
            compiler=ctx.cfg.compiler,
            ldflags=ctx.cfg.ldflags,
            stdin_files=[i for _, i, _ in ctx.tests or []] + ([Path(opts.bench_input)] if opts.bench_input else []),
            workload=opts.workload,
            programs=ctx.cfg.programs if programs is None else programs,
            suite=suite,
        )
    except build.BuildError as e:
        lines = e.output.splitlines()
        said = next((x.strip() for x in lines if "error:" in x), "")  # what the compiler or linker said first
        notes.append(
            f"{fn.name}: the program's own calls could not be recorded ({e.what}{': ' + said if said else ''}); "
            "the harness uses generated inputs, with initial and random globals, only"
        )
        return Recording()


def _lines(text: str, limit: int) -> str:
    """Whole lines of `text` up to about `limit` characters (a tool's message is never cut mid-word)."""
    out: list[str] = []
    for line in text.strip().splitlines():
        if out and sum(len(x) + 1 for x in out) + len(line) > limit:
            out.append(f"... ({len(text.strip().splitlines()) - len(out)} more lines)")
            break
        out.append(line)
    return "\n".join(out)
