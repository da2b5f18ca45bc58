"""One candidate through every check, in order, until the first that fails: that failure is its verdict.

screen the text (unsafe) -> same code as the original (duplicate) -> assemble -> ELF check -> screen the
object (decoded bytes, symbol, section and relocation kinds) -> CPU features -> function harness (generated
inputs through the ABI trampoline) -> program tests (the linked program checked for load-time code first) ->
interleaved timing over alignments -> whole-program timing (outputs checked on the timed input).
A candidate that passes them all, and is faster beyond the noise of the same run, is accepted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from . import build
from .asm.elfcheck import check_linked, check_object
from .asm.objscreen import screen_object
from .asm.features import instruction_features, missing_cpu_flags, required_cpu_flags
from .asm.screen import screen
from .file_context import FileContext
from .measure.hyperfine import command_for, time_programs
from .measure.interleaved import InterleavedTimer, TimingError, TimingMismatch
from .model import ACCEPTED, REJECTED, Candidate, CandidateResult, CFunction
from .stopwatch import Stopwatch
from .verify.function_check import FunctionHarness
from .verify.program import first_difference, run_tests
from .verify.sandbox import run_limited
from .verify.thunk import CHECKING_ALLOCATOR, checked_objects


@dataclass
class Judge:
    """Judges the candidates of one function against its -O3 baseline."""

    ctx: FileContext
    fn: CFunction
    base_asm: str
    base_features: set[str]
    harness: FunctionHarness | None
    timer: InterleavedTimer | None
    rest_obj: Path | None  # the file without the function, for program tests and whole-program timing
    fdir: Path
    bench_input: Path | None = None
    workload: str | None = None
    min_speedup: float = 1.0
    base_obj: Path | None = None  # the original's cut, assembled: what the object screen compares with
    extern_sizes: dict[str, int] = field(default_factory=dict)  # sizes of the file's data symbols
    seen: dict[str, str] = field(default_factory=dict)  # normalized assembly -> label, for duplicates
    _reference_program: Path | None = None
    _ref_status: dict[str, int] | None = None
    _ref_timed: object = None

    def __call__(self, cand: Candidate) -> CandidateResult:
        ctx, fn, base_asm, harness, timer, fdir = self.ctx, self.fn, self.base_asm, self.harness, self.timer, self.fdir
        seen = self.seen
        r = CandidateResult(cand.label, cand.origin, REJECTED, None, "", cand.assembly, source_change=cand.source_change)
        sw_c = Stopwatch(r.stage_seconds)

        def reject(reason: str, detail: str) -> CandidateResult:
            r.reason, r.detail = reason, detail
            return r

        if cand.problem:
            return reject("unusable", cand.problem)
        norm = "\n".join(ln.strip() for ln in cand.assembly.splitlines() if ln.strip())
        if norm in seen:
            return reject("duplicate", f"same assembly as candidate {seen[norm]}")
        seen[norm] = cand.label
        if norm == _normalized(base_asm):
            return reject("duplicate", "same code as the -O3 original: nothing to time")
        unsafe = screen(cand.assembly, base_asm)
        if unsafe:
            return reject("unsafe", "; ".join(unsafe[:4]) + (f" (and {len(unsafe) - 4} more)" if len(unsafe) > 4 else ""))
        feats = instruction_features(cand.assembly)
        r.features = sorted(feats - self.base_features)
        r.cpu_features = sorted(required_cpu_flags(cand.assembly))
        cobj = fdir / f"cand-{cand.label}.o"
        with sw_c("assemble"):
            try:
                build.assemble(cand.assembly, cobj)
            except build.BuildError as e:
                return reject("assemble-error", e.output.replace(str(cobj.with_suffix(".s")), f"{cand.label}.s"))
            problems = check_object(cobj, fn.name)
            if problems:
                missing = [p for p in problems if "does not define" in p]
                return reject("link-error" if missing else "unsafe", "; ".join(problems))
            if self.base_obj is not None:
                hidden = screen_object(cobj, self.base_obj, extern_sizes=self.extern_sizes)
                if hidden:
                    return reject("unsafe", "; ".join(hidden[:4]) + (f" (and {len(hidden) - 4} more)" if len(hidden) > 4 else ""))
        lacking = missing_cpu_flags(cand.assembly)
        if lacking:
            return reject("unsupported-cpu", f"needs CPU features this machine lacks: {', '.join(sorted(lacking))}")
        if harness is not None:
            with sw_c("verify"):
                chk = harness.check(cobj, cand.label)
            r.inputs_checked = chk.inputs if chk.ok else 0
            if not chk.ok:
                return reject(chk.reason, chk.detail)
        cand_exe = None
        if ctx.tests or self.bench_input or self.workload:
            cand_exe = fdir / f"prog-{cand.label}"
            with sw_c("verify"):
                try:
                    build.link([self.rest_obj, cobj, ctx.program_sandbox()], cand_exe, compiler=ctx.cfg.compiler)
                except build.BuildError as e:
                    return reject("link-error", e.output)
                load_time = check_linked(cand_exe, self._reference())
                if load_time:
                    return reject("unsafe", "; ".join(load_time))
                if ctx.tests:  # behind the checking thunk, with the checking allocator
                    checked = fdir / f"prog-{cand.label}-checked"
                    try:
                        build.link([self.rest_obj, *checked_objects(cobj, fn.name, fdir / "checked"), ctx.program_sandbox()],
                                   checked, compiler=ctx.cfg.compiler)
                    except build.BuildError as e:
                        return reject("link-error", e.output)
                    load_time = check_linked(checked, self._reference())
                    if load_time:
                        return reject("unsafe", "; ".join(load_time))
                    pc = run_tests(checked, ctx.tests, expected_status=self._reference_status(), env=CHECKING_ALLOCATOR)
                    r.tests_passed = pc.passed
                    if not pc.ok:
                        return reject(pc.reason, pc.detail)
        if timer is not None:
            with sw_c("measure"):
                try:
                    r.timing = timer.time(base_asm, cand.assembly, cand.label)
                except TimingMismatch as e:
                    return reject("unsafe", str(e))
                except TimingError as e:
                    return reject("not-faster", f"could not be timed: {e}")
        if cand_exe is not None and (self.bench_input or self.workload):
            with sw_c("verify"):
                differs = self._differs_on_timed_input(cand_exe)
            if differs:
                return reject("wrong-output", differs)
            with sw_c("measure"):
                try:
                    r.program_timing = time_programs(ctx.baseline_program(), cand_exe, bench_input=self.bench_input,
                                                     workload=self.workload, workdir=fdir, min_speedup=self.min_speedup)
                except RuntimeError as e:  # this candidate's timing failed: the others go on
                    return reject("not-faster", f"could not be timed: {e}")
        fast = r.timing.significant if r.timing else (r.program_timing.significant if r.program_timing else False)
        if r.timing is None and r.program_timing is None:
            return reject("not-faster", "could not be timed: no function harness and no --bench-input/--workload")
        if not fast:
            t = r.timing or r.program_timing
            return reject("not-faster", t.detail)
        pt = r.program_timing
        if pt is not None and pt.ci[1] < 1 / max(self.min_speedup, pt.noise[1] if pt.noise else 1):
            return reject("not-faster", f"faster alone ({r.timing.detail}) but the whole program is slower: {pt.detail}")
        r.status = ACCEPTED
        r.detail = (r.timing or pt).detail
        return r

    def _reference_status(self) -> dict[str, int]:
        """The -O3 program's exit status on each program test."""
        if self._ref_status is None:
            self._ref_status = {name: run_limited([str(self._reference())], timeout=10, stdin_path=str(inp),
                                                  env=CHECKING_ALLOCATOR).returncode
                                for name, inp, _ in self.ctx.tests or []}
        return self._ref_status

    def _timed_run(self, exe: Path):
        if self.workload:
            return run_limited(["/bin/sh", "-c", command_for(exe, None, self.workload)], timeout=300, binary=True,
                               cwd=os.getcwd())
        return run_limited([str(exe)], timeout=300, stdin_path=str(self.bench_input), binary=True)

    def _differs_on_timed_input(self, cand_exe: Path) -> str | None:
        """Whole-program timing runs the candidate on the bench input or workload: its output there
        must be the -O3 program's, byte for byte, with the same exit status."""
        if self._ref_timed is None:
            self._ref_timed = self._timed_run(self._reference())
        want, got = self._ref_timed, self._timed_run(cand_exe)
        what = "the workload" if self.workload else f"the bench input {Path(self.bench_input).name}"
        if got.timed_out and not want.timed_out:
            return f"no result on {what} within 300s"
        if got.stdout != want.stdout:
            return f"differs from the -O3 program on {what}: {first_difference(want.stdout, got.stdout)}"
        if got.returncode != want.returncode:
            return f"exit status {got.returncode} on {what}, the -O3 program's is {want.returncode}"
        return None

    def _reference(self) -> Path:
        """The program linked exactly as a candidate's is, with the -O3 original in its place."""
        if self._reference_program is None:
            exe = self.fdir / "prog-reference"
            base = self.base_obj
            if base is None:
                base = self.fdir / "reference-base.o"
                build.assemble(self.base_asm, base)
            build.link([self.rest_obj, base, self.ctx.program_sandbox()], exe, compiler=self.ctx.cfg.compiler)
            self._reference_program = exe
        return self._reference_program


def _normalized(asm: str) -> str:
    return "\n".join(ln.strip() for ln in asm.splitlines() if ln.strip())


CHANGE_PREFERENCE = {"attribute": 0, "flag": 1, "compiler": 2}


def choose_best(accepted: list[CandidateResult]) -> CandidateResult:
    """The fastest accepted candidate; among those statistically tied with it
    (intervals overlap), the one whose win is easiest to keep: a source-level
    attribute, then a flag, then a compiler change, then raw assembly."""
    def timing(c):
        return c.timing or c.program_timing

    top = max(accepted, key=lambda c: timing(c).speedup)
    tied = [c for c in accepted if timing(c).ci[1] >= timing(top).ci[0]]
    return min(tied, key=lambda c: (CHANGE_PREFERENCE.get(c.source_change.kind, 3) if c.source_change else 3,
                                    -timing(c).speedup))
