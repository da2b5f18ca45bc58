"""Stage orchestration: one C file in, one Report out.

source -> hotness -> build -> asm -> propose -> verify -> measure -> result.
Each function is handled on its own: a failure in one function or one
candidate is recorded with its reason and the others go on.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import build, tools
from ..asm.constants import compared_constants, compared_fields
from ..asm.cut import FunctionMissing, cut_function, list_functions
from ..asm.features import instruction_features
from ..asm.statics import shared_statics
from ..build.object_cache import compile_file_kept
from ..harness.plan import OUTPUT_FUNCTIONS, Plan, make_plan, probe_past_types
from ..hotness import ProfileError, callgrind_profile, rank
from ..measure.interleaved import N_TIMING_INPUTS, InterleavedTimer, TimingSetup
from ..model import ACCEPTED, RUNNING, Candidate, CandidateResult, CFunction, FunctionResult, Report
from ..options import InputError, Options
from ..propose.base import Feedback, ProposalRequest, ProposerUnavailable
from ..propose.registry import make_proposer
from ..results import deciding_timing, no_win_summary
from ..source import parse_functions
from ..stopwatch import Stopwatch
from ..verify.coverage import coverage_json
from ..verify.function_check import READS_PAST, FunctionHarness
from ..verify.harness_c import render_verify
from ..verify.probe import probe_sizes
from ..verify.program import find_tests
from ..verify.program_state import Recording
from ..verify.sandbox import require_sandbox
from .cache import Cache
from .environment import cache_key, environment
from .file_context import FileContext
from .first_look import FirstLook
from .harness_setup import build_harness, needed_symbols, own_program_recording, program_recording
from .judge import Judge, choose_best
from .selection import as_compiled, compiled_as, compiled_names, holders, missing_detail

log = logging.getLogger(__name__)


Progress = Callable[..., None]  # (function, stage, step=None, steps=None)


class Pipeline:
    """One C file in, one Report out. `proposers` replaces the ones the options name
    (tests and embedders pass their own); each function goes through the named steps of
    `_optimize`: cut, harness and timer, one round per proposer, refinement, summary."""

    def __init__(
        self,
        opts: Options,
        progress: Progress | None = None,
        on_update: Callable[[FunctionResult], None] | None = None,
        proposers: list | None = None,
    ):
        self.opts = opts
        self.on_update = on_update
        self.progress = progress or (lambda fn, stage, step=None, steps=None: None)
        if proposers is None:
            try:
                proposers = [make_proposer(p, opts) for p in opts.proposers]
            except ProposerUnavailable as e:
                raise InputError(str(e)) from e
        self.proposers = list(proposers)
        self.notes: list[str] = []
        self.tests = find_tests(opts.tests_dir) if opts.tests_dir else None
        if opts.bench_input or opts.workload:
            tools.require("hyperfine", "whole-program timing with --bench-input/--workload")
        if opts.bench_input and not Path(opts.bench_input).is_file():
            raise InputError(f"--bench-input '{opts.bench_input}' does not exist")
        self.cache = Cache(opts.cache_dir) if opts.use_cache else None

    # -- file level -------------------------------------------------------------
    def run(self, path: str | Path) -> Report:
        t0 = time.perf_counter()
        path = Path(path)
        if not path.is_file():
            raise InputError(f"'{path}' does not exist or is not a file")
        text = path.read_text(errors="replace")
        tools.require("gcc")
        require_sandbox()
        try:
            cfg = build.resolve(
                path,
                compiler=self.opts.compiler,
                flags=self.opts.flags,
                ldflags=self.opts.ldflags,
                programs=self.opts.programs,
            )
            bounds = build.flags.bounds_from_config(path)
        except build.ConfigError as e:
            raise InputError(str(e)) from e
        for fn_name, params in self.opts.bounds.items():  # the command line wins over the project file
            bounds.setdefault(fn_name, {}).update(params)
        self.bounds = bounds
        functions = parse_functions(text)
        notes: list[str] = []
        env = environment(cfg, self.opts)
        if self.cache and self.cache.problem:
            notes.append(self.cache.problem)
        notes += [p.note for p in self.proposers if p.note]
        if cfg.dropped:
            notes.append(
                f"left out of the project's flags: {' '.join(cfg.dropped)} (-g does not change the code; with "
                "-flto the final link may re-optimize across files, which a function measured in its own "
                "object does not see)"
            )
        has_main = any(f.name == "main" for f in functions)
        if (self.opts.bench_input or self.opts.workload) and not has_main and not cfg.ldflags:
            raise InputError(
                f"--bench-input and --workload time the whole program built from {path.name}, which defines no "
                "main(); give the rest of the program to link with it (--ldflags 'test/example.o libz.a'), "
                "optimize the file that has main, or drop them"
            )
        work = Path(tempfile.mkdtemp(prefix="supercoder-")) if not self.opts.keep_dir else Path(self.opts.keep_dir)
        work.mkdir(parents=True, exist_ok=True)
        try:
            self.progress("", "build")
            objects = self.cache.objects_dir() if self.cache and not self.cache.problem else None
            # the -g object beside it, for FileContext.compiled; kept, as the editor's choice of functions
            # built both a moment before (selection.choose)
            built = compile_file_kept(path, cfg, work / "baseline.s", work / "debug.o", objects)
            asm = (work / "baseline.s").read_text()
            ctx = FileContext(path, text, cfg, asm, work, self.tests, objects, built.inputs, built.settled)
            functions = compiled_names(functions, ctx.compiled() or {}, path)
            renamed = [f"{f.source_name} as {f.name}" for f in functions if f.source_name]
            if renamed:
                more = f" and {len(renamed) - 3} more" if len(renamed) > 3 else ""
                notes.append(
                    f"a macro renames {len(renamed)} function(s) ({', '.join(renamed[:3])}{more}): "
                    "each is optimized and reported under the compiler's name"
                )
            selected = self._select(ctx, functions, notes)
            results = []
            for fn, score in selected:
                results.append(self._function(ctx, fn, score, env))
        finally:
            if not self.opts.keep_dir:
                shutil.rmtree(work, ignore_errors=True)
        program = {
            "file": str(path.resolve()),
            "source_sha256": hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
            "has_main": has_main,
            "tests": str(Path(self.opts.tests_dir).resolve()) if self.opts.tests_dir else None,
        }
        notes = list(dict.fromkeys(notes + self.notes))
        return Report(str(path), env, results, notes, time.perf_counter() - t0, program)

    def _select(self, ctx: FileContext, functions: list[CFunction], notes: list[str]):
        if not functions:
            raise InputError(f"no function definitions found in {ctx.path}")
        if self.opts.functions:
            by_name: dict[str, CFunction] = {}
            compiled = ctx.compiled() or {}
            for f in functions:  # of definitions under #if and #else, the one the flags compile
                if f.name not in by_name or compiled_as(compiled, f) is not None:
                    by_name[f.name] = f
                if f.source_name:  # the text's name too, where a macro renames it (the editor's jobs)
                    by_name.setdefault(f.source_name, f)
            missing = [n for n in self.opts.functions if n not in by_name]
            if missing:
                raise InputError(
                    f"no function named {', '.join(missing)} in {ctx.path}; it defines: {', '.join(by_name)}"
                )
            return [(by_name[n], 0.0) for n in self.opts.functions]
        profile = None
        if self.opts.workload or self.opts.bench_input:
            if any(f.name == "main" for f in functions) or ctx.cfg.ldflags:
                self.progress("", "profile")
                exe = ctx.baseline_program()
                try:
                    profile = callgrind_profile(
                        str(exe),
                        workload=self.opts.workload,
                        stdin_path=str(self.opts.bench_input) if self.opts.bench_input else None,
                    )
                    notes.append("functions ranked by instructions executed under callgrind on the workload")
                except ProfileError as e:
                    notes.append(f"no profile ({e}); falling back to the static score")
        ranked = rank(functions, profile=profile)
        if profile is None:
            notes.append(
                "functions ranked by a static score (loops, nesting, calls in loops); "
                "give --bench-input or --workload to rank by a measured profile"
            )
        return holders(ranked, ctx.compiled() or {}, set(list_functions(ctx.asm)), self.opts.top, notes)

    # -- function level ---------------------------------------------------------
    def _cache_key(self, ctx: FileContext, fn: CFunction, env: dict) -> str:
        return cache_key(
            self.opts,
            ctx.text,
            ctx.tests,
            fn.name,
            self.bounds.get(fn.name),
            env,
            [p.settings() for p in self.proposers],
        )

    def _function(self, ctx: FileContext, fn: CFunction, score: float, env: dict) -> FunctionResult:
        cache = self.cache
        key = self._cache_key(ctx, fn, env) if cache else None
        if cache and key:
            hit = cache.get(key)
            if hit is not None:
                hit.range = fn.range
                hit.cached = True
                return hit
        fn, missing = as_compiled(ctx, fn)
        res = FunctionResult(fn.name, fn.range, str(fn.signature) if fn.signature else "?", "done", "", score)
        res.source_name = fn.source_name
        notes_before = len(self.notes)
        try:
            if missing:
                res.status, res.detail = "unsupported", missing
            else:
                self._optimize(ctx, fn, res)
        except build.BuildError as e:
            res.status, res.detail = "error", str(e)
        except (RuntimeError, OSError) as e:
            res.status, res.detail = "error", f"{type(e).__name__}: {e}"
        # a proposer that failed (server down, model error) makes the result partial: not cached, so the
        # next run asks it again
        # nor where a file it came from changed while it was built (a header saved then: either version)
        if cache and key and res.status != "error" and len(self.notes) == notes_before and ctx.settled:
            cache.put(key, res, ctx.inputs())
        return res

    def _optimize(self, ctx: FileContext, fn: CFunction, res: FunctionResult) -> None:
        sw = Stopwatch(res.stage_seconds)
        fdir = ctx.work / fn.name
        fdir.mkdir(parents=True, exist_ok=True)
        cut = self._cut(ctx, fn, res, fdir, sw)
        if cut is None:
            return
        base_obj = fdir / "baseline.o"
        plan = make_plan(fn.signature, self.bounds.get(fn.name))
        plan.constants = compared_constants(cut.text)
        plan.field_constants = compared_fields(cut.text)
        plan.field_enums = compared_fields(cut.text, exact=True)
        writes = sorted(set(cut.external_refs) & OUTPUT_FUNCTIONS)
        if writes and plan.supported:  # its output is its result, and the function harness compares results only
            plan = Plan(
                False, f"it writes output ({', '.join(writes)}), which the function harness does not compare", [], None
            )
        request = ProposalRequest(fn, ctx.path, ctx.text, cut.text, ctx.cfg, fdir)
        first = self._first_look(ctx, fn, cut, base_obj, fdir, res, request) if self.on_update else None
        harness, timer = self._harness_and_timer(ctx, fn, plan, base_obj, fdir, res, sw, first)
        if harness is None and not ctx.tests:
            res.status = "unsupported"
            ask = "" if "--tests" in res.harness else "; give program tests with --tests DIR"
            res.detail = f"cannot verify candidates: {res.harness}{ask}"
            return
        rest_obj = ctx.rest_object(fn) if ctx.tests or self.opts.bench_input or self.opts.workload else None
        judge = Judge(
            ctx,
            fn,
            cut.text,
            instruction_features(cut.text),
            harness,
            timer,
            rest_obj,
            fdir,
            bench_input=self.opts.bench_input,
            workload=self.opts.workload,
            min_speedup=self.opts.min_speedup,
            base_obj=base_obj,
            extern_sizes=ctx.data_sizes() if cut.external_refs else {},
            timing_caveat=_timing_caveat(harness.plan if harness is not None else plan, timer),
            coverage_caveat=_coverage_caveat(harness, self.opts.min_coverage),
            proof_budget=self.opts.proof_budget,
            program_share=functools.partial(ctx.instruction_share, fn.name, self.opts.workload, self.opts.bench_input),
        )
        if harness is not None and harness.coverage is not None:
            res.coverage = coverage_json(harness)
        if timer is not None and not judge.coverage_caveat and self.proposers:
            timer.compile_in_background()  # a candidate checked is timed next
        if self.on_update and judge.coverage_caveat and self.proposers:
            # no candidate can be claimed faster on these inputs (Judge._covered): the editor says why at
            # once, not after the first candidate's checks (inflateBack: 53% of its lines, 2 s sooner)
            self.on_update(
                dataclasses.replace(
                    res,
                    status=RUNNING,
                    candidates=[],
                    best=None,
                    detail=f"no speedup can be claimed: its harness's inputs {judge.coverage_caveat.removeprefix('they ')}; "
                    "give program tests (--tests), --bench-input or --workload so the program's own calls are "
                    "recorded and replayed (candidates are still checked)",
                )
            )
        for k, proposer in enumerate(self.proposers):
            batch = self._round(proposer, request, judge, res, sw, first if k == 0 else None, harness)
            self._refine(proposer, request, judge, res, sw, batch)
        self._prove_best(judge, res)
        self._summarize(res)

    def _first_look(
        self, ctx: FileContext, fn: CFunction, cut, base_obj: Path, fdir: Path, res: FunctionResult, request
    ) -> FirstLook | None:
        """The editor's first verdicts, on the first inputs, while the original runs on the rest (first_look.py)."""
        if not self.proposers or self.on_update is None:
            return None
        show = self.on_update
        proposer = self.proposers[0]
        proposer.note = None  # a failure from an earlier function is already reported
        (fdir / "first").mkdir(exist_ok=True)

        def judge_on(early) -> Judge:
            refs = ctx.data_sizes() if cut.external_refs else {}
            features = instruction_features(cut.text)
            timer = None
            # timed as the round will time it, on the program's recorded calls (FunctionHarness._recorded_look)
            # or the first random inputs the original finishes, where the first look holds them: a verdict
            # where the first pass shows a candidate no faster
            if early.only_recorded or early.finished_random() >= N_TIMING_INPUTS:
                recorded = early.recorded if early.only_recorded else None
                where = fdir / "first" / "timing"
                timer = self._timer(ctx, fn, early.plan, recorded, early.support_objs, where, lazy=True)
                timer.s.skip_file = early.timing_skip_file()
                timer.compile_in_background()  # beside the candidate's checks
            return Judge(
                ctx, fn, cut.text, features, early, timer, None, fdir / "first", base_obj=base_obj, extern_sizes=refs
            )

        return FirstLook(
            proposer.propose(request, self.opts.samples),
            judge_on,
            lambda verdicts: show(dataclasses.replace(res, status=RUNNING, candidates=list(verdicts), best=None)),
            lambda message: self.progress(fn.name, message),
        )

    def _cut(self, ctx: FileContext, fn: CFunction, res: FunctionResult, fdir: Path, sw: Stopwatch):
        """The function's -O3 assembly, cut out and assembled alone; None (with the reason) when it cannot be."""
        self.progress(fn.name, "cut")
        with sw("asm"):
            try:
                cut = cut_function(ctx.asm, fn.name)
            except FunctionMissing as e:
                res.status, res.detail = "unsupported", missing_detail(e, ctx, fn.name)
                return None
            res.baseline_assembly = cut.text
            base_obj = fdir / "baseline.o"
            build.assemble(cut.text, base_obj)
            shared = shared_statics(ctx.asm, cut, base_obj)
            if shared:
                res.status = "unsupported"
                res.detail = (
                    f"it shares file-static data ({', '.join(shared)}) with other code of the file; a replacement "
                    "in its own object would get its own copy. Make the variable non-static to optimize it."
                )
                return None
            if cut.local_calls:
                # gcc split or cloned it (f.part.0, f.constprop.0) or it calls a static helper:
                # the cut carries those along, and candidates must define or inline them too.
                res.detail = f"calls local function(s) {', '.join(cut.local_calls)}, carried along with it; "
        return cut

    def _harness_and_timer(
        self,
        ctx: FileContext,
        fn: CFunction,
        plan: Plan,
        base_obj: Path,
        fdir: Path,
        res: FunctionResult,
        sw: Stopwatch,
        first: FirstLook | None = None,
    ):
        """The function harness (recording the baseline's outputs) and the timing driver, or None for either;
        `first` looks at the first candidates on the first inputs on the way (first_look.py)."""
        self.progress(fn.name, "harness")
        if plan.supported and any(p.probe for p in plan.params):
            with sw("harness"):
                probed = self._probed(ctx, fn, plan, base_obj, fdir)
                grown = probe_past_types(plan) if not probed.supported else None
                if grown is not None:  # a buffer probed beside a public struct the original reads further
                    again = self._probed(ctx, fn, grown, base_obj, fdir)
                    probed = again if again.supported else probed
                plan = probed
        if not plan.supported:
            res.harness = plan.why
            return None, None
        with sw("harness"):
            rec = program_recording(ctx, fn, plan, base_obj, fdir, self.opts, self.notes)

        def make_timer(
            support_objs: tuple[Path, ...], timed: Plan | None = None, lazy: bool = False
        ) -> InterleavedTimer:
            # `timed`: the harness's own plan, where its inputs were narrowed
            return self._timer(ctx, fn, timed or plan, rec.inputs, support_objs, fdir / "timing", lazy)

        own: Recording | None = None
        if not rec.runs and _timing_caveat(plan, None) and any(p.owned for p in plan.params):
            # a handle to a private state (z_stream and its inflate_state): generated ones leave its pointer
            # fields NULL, so no speedup could be claimed on them alone, and rarely get past its checks: the
            # project's own programs' calls first (trees.c's send_tree: its generated harness ran 2.7 s
            # before it was refused; inflate_fast's 67 s). A plain struct's generated inputs run first, as
            # before: where they give a harness, the editor has its verdicts sooner (gzread.c: 4 s, not 14)
            with sw("harness"):
                own = own_program_recording(ctx, fn, plan, base_obj, fdir, self.opts, self.notes)
                got = self._own_programs(ctx, fn, plan, base_obj, fdir, res, own, first)
            if got is not None:
                harness, support, rec = got  # make_timer times its recorded calls too
                return self._with_timer(harness, plan, support, None, make_timer, sw)
        with sw("harness"):
            # compile the timing driver while the verification harness is built and run
            with ThreadPoolExecutor(max_workers=1) as pool:
                early = pool.submit(make_timer, ())
                harness, support, why = build_harness(ctx, fn, plan, base_obj, fdir, self.opts, rec, first)
                res.harness = f"{why}; {res.harness}" if res.harness else why  # after the own programs' note
                try:
                    early_timer = early.result()
                except build.BuildError:
                    early_timer = None
        # where the original reads past its buffers, they may be sized wrong: a public struct it reads as a
        # larger private one, an array that only shares another's length. Tried where the harness was refused
        # so, and where generated inputs were left out instead (a private state's data pointers may run past
        # their buffer, as long as most inputs do not): there the probed harness is taken where it leaves out
        # fewer (frame/table.c's `unsigned *bits`, one value: once more of its inputs finished, its 253 left
        # out had kept it sized by `codes`)
        left_out = harness is not None and harness.outside_generated > 0 and not harness.n_recorded
        refused = harness is None and READS_PAST in (res.harness or "")
        grown = probe_past_types(plan) if refused or left_out else None
        if grown is not None:
            with sw("harness"):
                probed = self._probed(ctx, fn, grown, base_obj, fdir)
                # a probe that grew nothing gives the same harness, which fails the same way (inflate_fast:
                # its first run and self-check again, 45 s)
                if probed.supported and not self._same_harness(probed, plan):
                    at = fdir / "grown" if harness is not None else fdir  # the first harness's files kept
                    rec2 = program_recording(ctx, fn, probed, base_obj, at, self.opts, self.notes)
                    got = build_harness(ctx, fn, probed, base_obj, at, self.opts, rec2)
                    if harness is None or (got[0] is not None and got[0].outside_generated < harness.outside_generated):
                        plan, early_timer, rec = probed, None, rec2  # make_timer and the recording follow it
                        harness, support, res.harness = got
        if plan.supported and harness is None and own is None:
            with sw("harness"):
                got = self._own_programs(ctx, fn, plan, base_obj, fdir, res)
            if got is not None:
                (harness, support, rec), early_timer = got, None
        if harness is None:
            return None, None
        if early_timer is not None and support:
            # compiled early, before the harness knew what it links: the driver links the same (its support
            # and the project's files, where they were needed), not compiled again beside its first candidate
            early_timer.support = list(support)
            early_timer.s.link_flags = ctx.library_flags()
        return self._with_timer(harness, plan, support, early_timer, make_timer, sw)

    def _timer(
        self,
        ctx: FileContext,
        fn: CFunction,
        plan: Plan,
        recorded,
        support_objs: tuple[Path, ...],
        workdir: Path,
        lazy: bool = False,
    ) -> InterleavedTimer:
        """The timing driver of `fn`'s inputs under `plan`, or of the program's `recorded` calls where any."""
        return InterleavedTimer(
            TimingSetup(
                workdir,
                fn.name,
                plan,
                self.opts.seed,
                self.opts.rounds,
                min_speedup=self.opts.min_speedup,
                recorded=recorded or None,
                link_flags=ctx.library_flags(),
            ),
            support_objs,
            lazy,
        )

    @staticmethod
    def _with_timer(harness: FunctionHarness, plan: Plan, support, early_timer, make_timer, sw: Stopwatch):
        """The harness and its timing driver: `early_timer` where it was built for the same inputs (and links
        what the harness links)."""
        if harness.plan is not plan:  # its inputs were narrowed: time on the same
            early_timer = None
        with sw("measure"):
            # compiled at the first candidate timed: none may get that far (an under-tested harness)
            timer = early_timer if early_timer is not None else make_timer(support, harness.plan, lazy=True)
        timer.s.skip_file = harness.timing_skip_file()  # timed on inputs the original completes
        return harness, timer

    def _same_harness(self, a: Plan, b: Plan) -> bool:
        """Whether two plans give the same generated inputs (the same harness text)."""
        return render_verify(a, self.opts.seed, self.opts.n_random) == render_verify(
            b, self.opts.seed, self.opts.n_random
        )

    def _own_programs(
        self,
        ctx: FileContext,
        fn: CFunction,
        plan: Plan,
        base_obj: Path,
        fdir: Path,
        res,
        own: Recording | None = None,
        first: FirstLook | None = None,
    ):
        """Where the user named nothing to record calls in: a harness with the calls of the project's own
        programs too (`own`, else harness_setup.own_program_recording), as (harness, support, recording),
        else None. res.harness says what came of it (after what it said, where it says anything)."""
        own = own or own_program_recording(ctx, fn, plan, base_obj, fdir, self.opts, self.notes)
        before = f"{res.harness}; " if res.harness else ""
        if own.inputs is None or not own.inputs.calls:
            if own.runs:
                res.harness = f"{before}{own.found} never called it out of line"
            elif own.found:  # not run, and why
                res.harness = f"{before}{own.found}"
            return None
        self.progress(fn.name, "harness with the calls of the project's own programs")
        harness, support, why = build_harness(ctx, fn, plan, base_obj, fdir, self.opts, own, first)
        if harness is None:
            res.harness = f"{before}{'also ' if before else ''}with the calls recorded in {own.found}: {why}"
            return None
        res.harness = why
        return harness, support, own

    def _probed(self, ctx: FileContext, fn: CFunction, plan: Plan, base_obj: Path, fdir: Path) -> Plan:
        """The plan with each array that has no length parameter sized by probing the original."""
        self.progress(fn.name, "probe buffer sizes")
        try:
            return ctx.linked(
                lambda support: probe_sizes(
                    plan, fn.name, base_obj, fdir / "probe", support, self.opts.seed, ctx.library_flags()
                ),
                needed_symbols(plan, base_obj),
            )
        except build.BuildError as e:
            return Plan(False, f"its buffer sizes could not be probed: {e.what}: {e.output[-300:]}", [], None)

    def _round(
        self,
        proposer,
        req: ProposalRequest,
        judge: Judge,
        res: FunctionResult,
        sw: Stopwatch,
        first: FirstLook | None = None,
        harness=None,
    ) -> list[tuple[Candidate, CandidateResult]]:
        """One round of one proposer: its candidates one at a time (the first win shows early). With `first`,
        the candidates it drew come first, and its verdicts stand where they hold for `harness`."""
        name, done = req.function.name, []
        if first is None:
            proposer.note = None  # a failure from an earlier function or round is already reported
        self.progress(name, f"propose ({proposer.name})")
        stream = first.stream if first is not None else proposer.propose(req, self.opts.samples)
        drawn = list(first.drawn) if first is not None else []
        failed = first.error if first is not None else None
        for i in range(self.opts.samples):
            early: CandidateResult | None = None
            cand: Candidate | None = None
            with sw("propose"):
                try:
                    if drawn:
                        cand, early = drawn.pop(0)
                    elif failed is not None:  # where the first look's draw failed
                        err: Exception = failed
                        failed = None
                        raise err
                    else:
                        cand = next(stream, None)
                except Exception as e:  # a proposer's own failure: say so, keep what the others found
                    note = f"{proposer.name} proposer failed on {name} (round {req.round}): {type(e).__name__}: {e}"
                    log.warning(note, exc_info=True)
                    self.notes.append(note)
                    cand = None
            if cand is None:
                break
            self.progress(name, f"{proposer.name}: {cand.label}", i, self.opts.samples)
            if cand.label in {c.label for c in res.candidates}:
                cand.label = f"{cand.label}-{len(res.candidates)}"
            kept = first.verdict(harness, early) if first is not None else None
            if kept is not None:
                kept.label = cand.label
                r = judge.adopt(cand, kept)
            else:  # where the first look timed it on the same calls, no faster: kept, not timed again
                r = judge(cand, first.timing(harness, early) if first is not None else None)
            res.candidates.append(r)
            done.append((cand, r))
            if self.on_update:  # the editor shows each verdict as it comes: a win (once no proof is to come), or
                # none faster yet
                won = [c for c in res.candidates if c.status == ACCEPTED]
                top = choose_best(won) if won else None
                best = top.label if top is not None and not judge.may_prove(top) else None
                self.on_update(dataclasses.replace(res, status=RUNNING, candidates=list(res.candidates), best=best))
        if proposer.note:
            self.notes.append(proposer.note)
        return done

    def _refine(self, proposer, req: ProposalRequest, judge: Judge, res: FunctionResult, sw: Stopwatch, batch) -> None:
        """Iterative refinement (SuperCoder): the rejection reasons go back to the model."""
        for k in range(self.opts.refine if proposer.refinable else 0):
            if not batch or any(r.status == ACCEPTED for _, r in batch):
                return
            feedback = [Feedback(c, r.reason, r.detail) for c, r in batch if r.reason != "duplicate"]
            if not feedback:
                return
            batch = self._round(proposer, dataclasses.replace(req, feedback=feedback, round=k + 1), judge, res, sw)

    def _prove_best(self, judge: Judge, res: FunctionResult) -> None:
        """The symbolic proof for the candidate that will be claimed (judge.prove_symbolic): one that
        it refutes is rejected, and the next best is tried, three at most. Then the next two
        accepted candidates are compared with a proven one, so that one wrong on a rare input is
        not listed as verified."""
        for _ in range(3):
            accepted = [c for c in res.candidates if c.status == ACCEPTED]
            if not accepted:
                return
            best = choose_best(accepted)
            self.progress(res.name, f"prove: {best.label}")
            judge.prove_symbolic(best)
            if best.status == ACCEPTED and best.proof is None:
                self._prove_by_another(judge, res, best)
            if best.status == ACCEPTED:
                break
        proven = next((c for c in res.candidates if c.status == ACCEPTED and c.proof), None)
        if proven is not None:
            for c in [c for c in res.candidates if c.status == ACCEPTED and not c.proof][:2]:
                self.progress(res.name, f"prove: {c.label} against {proven.label}")
                judge.prove_symbolic(c, reference=proven)

    def _prove_by_another(self, judge: Judge, res: FunctionResult, best: CandidateResult) -> None:
        """The best is not proven (a loop in the original that only induction gets through, and a
        best that does not fit it): another accepted candidate that is proven becomes the reference
        the best is compared with, so a best wrong on one rare input is refuted with it."""
        others = [c for c in res.candidates if c.status == ACCEPTED and c is not best]

        def speedup(c: CandidateResult) -> float:
            t = deciding_timing(c)
            return t.speedup if t else 0.0

        for other in sorted(others, key=speedup, reverse=True)[:2]:
            self.progress(res.name, f"prove: {other.label}")
            judge.prove_symbolic(other)
            if other.proof:
                self.progress(res.name, f"prove: {best.label} against {other.label}")
                judge.prove_symbolic(best, reference=other)
                return

    @staticmethod
    def _summarize(res: FunctionResult) -> None:
        accepted = [c for c in res.candidates if c.status == ACCEPTED]
        res.best = choose_best(accepted).label if accepted else None  # a win the proof refuted is none
        if accepted:
            res.detail += f"{len(accepted)} of {len(res.candidates)} candidates verified faster"
            return
        res.detail += no_win_summary(res.candidates)
        under = [c for c in res.candidates if c.reason == "under-tested"]
        if under and res.coverage:
            res.detail += (
                f"; the inputs run only {res.coverage['percent']}% of its lines: give program tests (--tests), "
                "--bench-input or --workload so the program's own calls are recorded"
            )


def _coverage_caveat(harness, min_coverage: int) -> str | None:
    """Why the harness's inputs cannot verify the function: they run too few of its lines."""
    cov = harness.coverage if harness is not None else None
    if cov is None or cov.percent >= min_coverage:
        return None
    never = f" (never run: {cov.never()})" if cov.missed else ""
    return f"they run only {cov.percent}% of its {cov.lines} lines{never}, below --min-coverage {min_coverage}"


def _timing_caveat(plan: Plan, timer: InterleavedTimer | None) -> str | None:
    """Why a speedup measured on the generated inputs would not say how the function runs in its program;
    None where it is timed on the program's recorded calls (zlib's send_tree: its own programs' calls)."""
    nulled = [p.name for p in plan.params if p.null_offsets]
    if plan.supported and nulled and not (timer is not None and timer.s.recorded):
        return f"the pointer fields of {', '.join(nulled)} are NULL, so it may run little more than its argument checks"
    return None
