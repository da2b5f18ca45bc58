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
from pathlib import Path

from .. import build, tools
from ..asm.constants import compared_constants, compared_fields
from ..asm.cut import list_functions
from ..asm.features import instruction_features
from ..build.object_cache import compile_file_kept
from ..harness.plan import UNCOMPARED_OUTPUT, Plan, make_plan
from ..hotness import ProfileError, callgrind_profile, rank
from ..model import ACCEPTED, RUNNING, BuildConfig, Candidate, CandidateResult, CFunction, FunctionResult, Report
from ..options import InputError, Options
from ..propose.base import Feedback, ProposalRequest, ProposerUnavailable
from ..propose.registry import make_proposer
from ..results import builds_all_differ, deciding_timing, no_win_summary
from ..source import parse_functions
from ..source.replaced import fingerprints
from ..stopwatch import Stopwatch
from ..verify.coverage import coverage_json
from ..verify.program import find_tests
from ..verify.sandbox import require_sandbox
from .cache import Cache
from .environment import cache_key, environment
from .file_context import FileContext
from .first_look import FirstLook
from .function_setup import FunctionSetup, Progress, coverage_caveat, timing_caveat
from .judge import Judge, choose_best
from .selection import as_compiled, compiled_as, compiled_names, holders

log = logging.getLogger(__name__)


class Pipeline(FunctionSetup):
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
    def _whole_program(self, cfg: BuildConfig, path: Path, has_main: bool, notes: list[str]) -> BuildConfig:
        """The build that whole-program timing links: a library file's first --program where no --ldflags
        names the rest of the program."""
        if (self.opts.bench_input or self.opts.workload) and not has_main and not cfg.ldflags and cfg.programs:
            # a library file with a program that calls it: that program is the whole program timed
            cfg = dataclasses.replace(cfg, ldflags=cfg.programs[0])
            notes.append(
                f"the whole program timed is {' '.join(cfg.programs[0])} with {path.name}'s code (the first "
                "--program), run as the workload says"
            )
        if (self.opts.bench_input or self.opts.workload) and not has_main and not cfg.ldflags:
            raise InputError(
                f"--bench-input and --workload time the whole program built from {path.name}, which defines no "
                "main(); give the rest of the program to link with it (--program 'test/example.o libz.a' or "
                "--ldflags), optimize the file that has main, or drop them"
            )
        return cfg

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
        cfg = self._whole_program(cfg, path, has_main, notes)
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
        return Report(str(path), env, results, notes, time.perf_counter() - t0, program, fingerprints(text))

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
        writes = sorted(set(cut.external_refs) & UNCOMPARED_OUTPUT)
        if writes and plan.supported:  # output to a descriptor by number: its result, which the harness does not see
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
            timing_caveat=timing_caveat(harness.plan if harness is not None else plan, timer),
            coverage_caveat=coverage_caveat(harness, self.opts.min_coverage),
            proof_budget=self.opts.proof_budget,
            program_share=functools.partial(ctx.instruction_share, fn.name, self.opts.workload, self.opts.bench_input),
        )
        if harness is not None and harness.coverage is not None:
            res.coverage = coverage_json(harness)
        if timer is not None and not judge.coverage_caveat and self.proposers:
            timer.compile_in_background(cut.text)  # a candidate checked is timed next
        if self.on_update and self.proposers:
            self._before_candidates(judge, res)
            judge.on_early = functools.partial(
                self._show_so_far, judge, res
            )  # a clear win shows before its timing ends
        for k, proposer in enumerate(self.proposers):
            batch = self._round(proposer, request, judge, res, sw, first if k == 0 else None, harness)
            self._refine(proposer, request, judge, res, sw, batch)
        self._prove_best(judge, res)
        self._summarize(res)

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
            self._show_so_far(judge, res)
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

    def _show_so_far(self, judge: Judge, res: FunctionResult, timing: CandidateResult | None = None) -> None:
        """The editor shows each verdict as it comes: the best win at once, with its evidence, and "proving"
        while a proof that may still refute it is to come (judge.may_prove; its code actions wait for it); or
        none faster yet. `timing`: the candidate being timed, shown as a win where the passes so far already
        show one beyond doubt (Judge.on_early), with their figures."""
        if self.on_update is None:
            return
        shown = res.candidates + ([timing] if timing is not None else [])
        won = [c for c in shown if c.status == ACCEPTED]
        top = choose_best(won) if won else None
        if top is not None and judge.may_prove(top):
            shown[shown.index(top)] = dataclasses.replace(top, proving=True)
        self.on_update(
            dataclasses.replace(res, status=RUNNING, candidates=shown, best=top.label if top is not None else None)
        )

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
            self._show_so_far(judge, res)  # after a refuted one, the next best while it is proven
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

    def _summarize(self, res: FunctionResult) -> None:
        accepted = [c for c in res.candidates if c.status == ACCEPTED]
        res.best = choose_best(accepted).label if accepted else None  # a win the proof refuted is none
        if accepted:
            res.detail += f"{len(accepted)} of {len(res.candidates)} candidates verified faster"
            return
        res.detail += no_win_summary(res.candidates)
        suspect = builds_all_differ(res.candidates)
        if suspect:
            res.detail += f"; {suspect}"
        under = [c for c in res.candidates if c.reason == "under-tested"]
        if under and res.coverage:
            suite = "" if self.opts.test_command else "the project's tests (--test-command auto), "
            res.detail += (
                f"; the inputs run only {res.coverage['percent']}% of its lines: give {suite}program tests "
                "(--tests), --bench-input or --workload so the program's own calls are recorded"
            )
