"""A function's harness and timing driver, as the pipeline sets them up: buffers sized by probing the
original, the program's calls recorded (the project's own programs first for a handle to a private state),
the harness built (grown or narrowed where its first did not fit), the timing driver compiled beside it, and
the editor's first look on the first inputs meanwhile."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import build
from ..asm.cut import FunctionMissing, cut_function
from ..asm.features import instruction_features
from ..asm.statics import shared_statics
from ..harness.plan import Plan, probe_past_types
from ..measure.interleaved import InterleavedTimer, TimingSetup
from ..measure.timing_driver import N_TIMING_INPUTS
from ..model import RUNNING, CFunction, FunctionResult
from ..options import Options
from ..stopwatch import Stopwatch
from ..verify.function_check import READS_PAST, FunctionHarness
from ..verify.harness_c import render_verify
from ..verify.probe import probe_sizes
from ..verify.program_state import Recording
from .file_context import FileContext
from .first_look import FirstLook, Prefetched
from .harness_setup import build_harness, needed_symbols, own_program_recording, program_recording
from .judge import Judge
from .selection import missing_detail

Progress = Callable[..., None]  # (function, stage, step=None, steps=None)


class FunctionSetup:
    """The harness and timer of each function (Pipeline's first steps for it)."""

    opts: Options
    progress: Progress
    on_update: Callable[[FunctionResult], None] | None
    proposers: list
    notes: list[str]

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

    def _before_candidates(self, judge: Judge, res: FunctionResult) -> None:
        """Where no candidate can be claimed faster on the harness's inputs (Judge._covered), the editor says
        why at once, not after the first candidate's checks (inflateBack: 53% of its lines, 2 s sooner)."""
        if self.on_update is None or not judge.coverage_caveat:
            return
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
            Prefetched(proposer.propose(request, self.opts.samples)),  # its first candidate built meanwhile
            judge_on,
            lambda verdicts: show(dataclasses.replace(res, status=RUNNING, candidates=list(verdicts), best=None)),
            lambda message: self.progress(fn.name, message),
        )

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
        if not rec.runs and timing_caveat(plan, None) and any(p.owned for p in plan.params):
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


def coverage_caveat(harness, min_coverage: int) -> str | None:
    """Why the harness's inputs cannot verify the function: they run too few of its lines."""
    cov = harness.coverage if harness is not None else None
    if cov is None or cov.percent >= min_coverage:
        return None
    never = f" (never run: {cov.never()})" if cov.missed else ""
    return f"they run only {cov.percent}% of its {cov.lines} lines{never}, below --min-coverage {min_coverage}"


def timing_caveat(plan: Plan, timer: InterleavedTimer | None) -> str | None:
    """Why a speedup measured on the generated inputs would not say how the function runs in its program;
    None where it is timed on the program's recorded calls (zlib's send_tree: its own programs' calls)."""
    nulled = [p.name for p in plan.params if p.null_offsets]
    if plan.supported and nulled and not (timer is not None and timer.s.recorded):
        return f"the pointer fields of {', '.join(nulled)} are NULL, so it may run little more than its argument checks"
    return None
