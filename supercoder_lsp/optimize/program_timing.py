"""A candidate's whole program, timed against the -O3 program's with hyperfine on the bench input or
workload: every timed run must exit as the -O3 program's does and write its output (runs that die give no
ratio), both programs run under the same containment, and a speedup past what the function's share of the
program allows (Amdahl's bound) is a measurement error, not a claim."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from pathlib import Path

from .. import build
from ..measure.hyperfine import Expected, RunsFailed, time_programs
from ..model import CandidateResult, CFunction, Reason, Timing
from ..stopwatch import Stopwatch
from ..verify.program import command_for, first_difference
from ..verify.program_policy import describe_status, forbidden_call, program_env, refusal, workload_files
from ..verify.sandbox import RunResult, run_limited
from ..verify.thunk import CHECKING_ALLOCATOR
from .file_context import FileContext


class Rejected(Exception):
    """A check's verdict: the reason (a model.Reason; anything else is a bug here) and what a user needs to see."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = Reason(reason), detail


class ProgramTiming:
    """Judge's whole-program timing (the fields are Judge's)."""

    ctx: FileContext
    fn: CFunction
    base_asm: str
    base_obj: Path | None
    rest_obj: Path | None
    fdir: Path
    bench_input: Path | None
    workload: str | None
    min_speedup: float
    timing_caveat: str | None
    program_share: Callable[[], float | None] | None
    _reference_program: Path | None
    _ref_status: dict[bool, dict[str, int]]
    _ref_timed: RunResult | None
    _untried: dict[str, str]

    def _time_program(self, cand_exe: Path | None, r: CandidateResult, sw: Stopwatch) -> None:
        """hyperfine on the bench input or workload: the file's -O3 program and the candidate's, under one
        containment; every timed run must end as the -O3 program's run did (status and output)."""
        if cand_exe is None or not (self.bench_input or self.workload):
            return
        with sw("verify"):
            differs = self._differs_on_timed_input(cand_exe)
        if differs:
            raise Rejected(*differs)
        ref = self._ref_timed
        assert ref is not None
        with sw("measure"):
            try:
                r.program_timing = time_programs(
                    self.ctx.baseline_program(contained=True),
                    cand_exe,
                    bench_input=self.bench_input,
                    workload=self.workload,
                    workdir=self.fdir,
                    min_speedup=self.min_speedup,
                    expected=Expected(ref.returncode, ref.stdout),
                    env=program_env(self.workload, Path.cwd()),
                )
            except RunsFailed as e:
                if e.side == "candidate":
                    why = {"sandbox": "unsafe", "crash": "crash"}.get(e.kind, "wrong-output")
                    raise Rejected(why, f"while timed on {self._what_timed()}: {e}") from e
                raise Rejected("not-faster", f"could not be timed: {e}") from e
            except RuntimeError as e:  # this candidate's timing failed: the others go on
                raise Rejected("not-faster", f"could not be timed: {e}") from e

    def _within_amdahl(self, pt: Timing) -> None:
        """A whole-program speedup the function's own share of the run cannot give is a measurement error.
        The share is of instructions (callgrind), not of time: a function may take up to twice its share of
        the time (cache misses, slow instructions) before the bound holds it."""
        share = self.program_share() if self.program_share is not None else None
        if share is None:
            return
        bound = amdahl_bound(share)
        if pt.ci[0] > bound:
            raise Rejected(
                "not-faster",
                f"measurement error, not a claim: {pt.detail}, but {self.fn.name} and what it calls ran "
                f"{share:.1%} of the program's instructions on {self._what_timed()} (callgrind), so even at "
                f"twice that share of the time making it free gives at most {bound:.2f}x; the timed runs do "
                "not measure the same work",
            )

    # -- references: the same program with the -O3 original ---------------------------
    def _reference_status(self, plain: bool = False) -> dict[str, int]:
        """The -O3 program's exit status on each program test (with the checking allocator, or `plain`)."""
        if plain not in self._ref_status:
            env = None if plain else CHECKING_ALLOCATOR
            as_program = self.ctx.path.stem if plain else None
            self._ref_status[plain] = {
                name: run_limited(
                    [str(self._reference())], timeout=10, stdin_path=str(inp), env=env, as_program=as_program
                ).returncode
                for name, inp, _ in self.ctx.tests or []
            }
        return self._ref_status[plain]

    def _timed_run(self, exe: Path, explain: bool = False) -> RunResult:
        """One run on the bench input or workload, contained as the timed runs are; `explain` (the -O3
        program only): a forbidden system call names itself."""
        env = program_env(self.workload, Path.cwd(), explain=explain)
        if self.workload:
            return run_limited(
                ["/bin/sh", "-c", command_for(exe, None, self.workload)],
                timeout=300,
                binary=True,
                cwd=os.getcwd(),
                env=env,
            )
        return run_limited([str(exe)], timeout=300, stdin_path=str(self.bench_input), binary=True, env=env)

    def _what_timed(self) -> str:
        return "the workload" if self.workload else f"the bench input {Path(self.bench_input or '').name}"

    def _differs_on_timed_input(self, cand_exe: Path) -> tuple[str, str] | None:
        """Whole-program timing runs the candidate on the bench input or workload: its output there
        must be the -O3 program's, byte for byte, with the same exit status; and the -O3 program must
        finish there under the same containment, or nothing can be timed. (reason, detail) where not."""
        what = self._what_timed()
        if self._ref_timed is None:
            self._ref_timed = self._timed_run(self._reference(), explain=True)
        want = self._ref_timed
        if _died(want):
            files = workload_files(self.workload, Path.cwd())
            if _sandboxed(want):
                return "not-faster", f"could not be timed: {refusal(want.stderr, files)}"
            how = "no result within 300s" if want.timed_out else f"exit status {describe_status(want.returncode)}"
            return "not-faster", f"could not be timed: the -O3 program itself fails on {what} ({how})"
        got = self._timed_run(cand_exe)
        if _sandboxed(got):
            return "unsafe", f"made a forbidden system call on {what}; the seccomp filter stopped it"
        if got.timed_out:
            return "timeout", f"no result on {what} within 300s"
        if got.stdout != want.stdout:
            return (
                "wrong-output",
                f"differs from the -O3 program on {what}: {first_difference(want.stdout, got.stdout)}",
            )
        if got.returncode != want.returncode:
            return "wrong-output", f"exit status {got.returncode} on {what}, the -O3 program's is {want.returncode}"
        return None

    def _reference(self) -> Path:
        """The program linked exactly as a candidate's is, with the -O3 original in its place."""
        if self._reference_program is None:
            exe = self.fdir / "prog-reference"
            base = self.base_obj
            if base is None:
                base = self.fdir / "reference-base.o"
                build.assemble(self.base_asm, base)
            assert self.rest_obj is not None
            build.link(
                [self.rest_obj, base, self.ctx.program_sandbox()],
                exe,
                extra=self.ctx.cfg.ldflags,
                compiler=self.ctx.cfg.compiler,
            )
            self._reference_program = exe
        return self._reference_program


def _died(r: RunResult) -> bool:
    """Killed (by the sandbox, a signal or the time limit): no output of it is the program's. A workload
    runs under a shell, which reports a program's death by signal N as status 128+N."""
    return r.timed_out or r.returncode < 0 or r.returncode > 128 or forbidden_call(r.stderr) is not None


def _sandboxed(r: RunResult) -> bool:
    return r.killed_by_seccomp or r.returncode == 128 + signal.SIGSYS or forbidden_call(r.stderr) is not None


def amdahl_bound(share: float) -> float:
    """The largest whole-program speedup a function with this share of the instructions can give, allowing
    it twice that share of the time (inf where that is all of it)."""
    s = min(1.0, 2 * share)
    return float("inf") if s >= 1.0 else 1.0 / (1.0 - s)
