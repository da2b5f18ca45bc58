"""A whole program's assembly as an answer (the SuperCoder dataset's rows): every check that applies to a
whole program, then hyperfine against the baseline on the problem's own inputs.

screen the text (against the baseline's own assembly) -> same code as the baseline (identical) ->
assemble -> ELF and object screens -> CPU features -> link with the sandbox constructor, load-time code
compared with the baseline's link -> every test, contained -> timing, in which every timed run writes
its output to a file that is compared afterwards (a program that notices it is being timed and skips
the work is `wrong-output`, not fast).

Not checked for a whole program: the calling convention (there is no function boundary to guard; the
program's calls into libc are its own business and its tests show their effect).
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import build
from ..asm.elfcheck import check_linked, check_object, inspect_object
from ..asm.features import missing_cpu_flags, required_cpu_flags
from ..asm.objscreen import object_facts, screen_object
from ..asm.screen import screen
from ..file_context import program_sandbox_object
from ..measure.hyperfine import time_programs
from ..verify.program import first_difference
from ..verify.sandbox import run_limited

TEST_TIMEOUT = 10.0  # seconds per test run
TIME_LIMIT = 180.0  # seconds for all the timed runs of one answer (a reward must be bounded in time)


@dataclass
class Outcome:
    """What one answer got: the fields eval, the reward and export read."""

    compiled: bool  # assembled and linked
    correct: bool  # passed every screen and every test
    passed: int  # tests passed
    total: int
    reason: str | None  # why not correct (a model.Reason value), or None
    detail: str
    identical: bool = False  # the baseline's own code: correct, speedup 1 without timing
    speedup: float | None = None  # t(baseline)/t(answer), measured, never floored
    ci: tuple[float, float] | None = None
    significant: bool = False
    cpu_features: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> Outcome:
        d = dict(d)
        if d.get("ci") is not None:
            d["ci"] = tuple(d["ci"])
        return cls(**d)


def no_answer(n_tests: int) -> Outcome:
    return Outcome(False, False, 0, n_tests, "unusable", "the answer holds no ```assembly block")


def _normalized(asm: str) -> str:
    lines = (ln.split("#", 1)[0].strip() for ln in asm.splitlines())
    return "\n".join(ln for ln in lines if ln and not ln.startswith((".file", ".ident", ".cfi")))


def answer_digest(asm: str) -> str:
    return hashlib.sha256(_normalized(asm).encode()).hexdigest()


class ProgramVerifier:
    """Checks answers to one problem against one baseline (built once): the dataset's own -O3 assembly,
    or its unoptimized assembly (`baseline="O0"`, as the released SuperCoder scripts time)."""

    def __init__(
        self,
        tests: list[tuple[bytes, bytes]],
        baseline_asm: str,
        work: Path,
        *,
        timing: bool = True,
        time_lock: Callable[[], AbstractContextManager] = nullcontext,
        also_trusted: tuple[str, ...] = (),
    ):
        """`time_lock()` is held while timing (eval: nothing else runs on the machine meanwhile);
        `also_trusted`: the problem's other assemblies (its -O3 one when the baseline is -O0), whose
        sections and symbols an answer may use too."""
        self.tests, self.base_asm, self.work, self.timing, self.time_lock = tests, baseline_asm, work, timing, time_lock
        self.trusted = "\n".join((baseline_asm, *also_trusted))
        work.mkdir(parents=True, exist_ok=True)
        self.inputs: list[Path] = []
        for i, (x, _) in enumerate(tests):
            f = work / f"in{i}.txt"
            f.write_bytes(x)
            self.inputs.append(f)
        self._base_exe: Path | None = None
        self.baseline_problem: str | None = None  # the baseline itself fails a test: answers cannot be judged

    def baseline(self) -> Path:
        if self._base_exe is None:
            obj = self.work / "baseline.o"
            try:
                build.assemble(self.base_asm, obj)
                exe = self.work / "baseline"
                build.link([obj, program_sandbox_object(self.work)], exe)
            except build.BuildError as e:
                self.baseline_problem = f"the baseline assembly does not build here ({e.what}): {e.output[:300]}"
                raise
            self._base_obj, self._base_exe = obj, exe
            self._base_facts = object_facts(obj)
            self._base_globals = set(inspect_object(obj).globals)
            p, _, why, detail = self._run_tests(exe)
            if p != len(self.tests):
                self.baseline_problem = f"the baseline itself fails the dataset's tests ({why}: {detail})"
        return self._base_exe

    def check(self, asm: str | None, label: str = "answer") -> Outcome:
        n = len(self.tests)
        if asm is None:
            return no_answer(n)
        base = self.baseline()
        unsafe = screen(asm, self.trusted)
        if unsafe:
            return Outcome(False, False, 0, n, "unsafe", "; ".join(unsafe[:4]))
        if _normalized(asm) == _normalized(self.base_asm):
            return Outcome(True, True, n, n, None, "the baseline's own code", identical=True, speedup=1.0)
        obj = self.work / f"{label}.o"
        try:
            build.assemble(asm, obj)
        except build.BuildError as e:
            return Outcome(
                False, False, 0, n, "assemble-error", e.output.replace(str(obj.with_suffix(".s")), "answer.s")
            )
        problems = check_object(obj, "main", allowed_globals=self._base_globals)
        problems += screen_object(obj, self._base_facts)
        if problems:
            missing = any("does not define" in p for p in problems)
            return Outcome(False, False, 0, n, "link-error" if missing else "unsafe", "; ".join(problems[:4]))
        needs = sorted(required_cpu_flags(asm))
        lacking = missing_cpu_flags(asm)
        if lacking:
            return Outcome(
                True, False, 0, n, "unsupported-cpu", f"needs {', '.join(sorted(lacking))}", cpu_features=needs
            )
        exe = self.work / label
        try:
            build.link([obj, program_sandbox_object(self.work)], exe)
        except build.BuildError as e:
            return Outcome(False, False, 0, n, "link-error", e.output[:2000])
        load_time = check_linked(exe, base)
        if load_time:
            return Outcome(True, False, 0, n, "unsafe", "; ".join(load_time))
        passed, _, why, detail = self._run_tests(exe)
        if passed < n:
            return Outcome(True, False, passed, n, why, detail, cpu_features=needs)
        out = Outcome(True, True, n, n, None, f"{n} tests pass", cpu_features=needs)
        if self.timing:
            self._time(base, exe, out)
        return out

    def _run_tests(self, exe: Path) -> tuple[int, int, str | None, str]:
        """(tests passed, index of the first failure, its reason, what a user needs to see); every test runs,
        so that a partly right answer's fraction is known."""
        passed, first, why, detail = 0, -1, None, ""
        for i, (inp, (_, want)) in enumerate(zip(self.inputs, self.tests)):
            r = run_limited([str(exe)], timeout=TEST_TIMEOUT, stdin_path=str(inp), binary=True)
            bad = None
            if r.killed_by_seccomp:
                bad = ("unsafe", "made a forbidden system call; the seccomp filter stopped it")
            elif r.timed_out:
                bad = ("timeout", f"no result within {TEST_TIMEOUT:.0f}s")
            elif r.returncode < 0:
                bad = ("crash", f"killed by signal {-r.returncode}")
            elif r.stdout != want:
                bad = ("wrong-output", first_difference(want, r.stdout))
            if bad is None:
                passed += 1
            elif first < 0:
                first, why, detail = i, bad[0], f"test {i}: {bad[1]}"
        return passed, first, why, detail

    def _time(self, base: Path, exe: Path, out: Outcome) -> None:
        """hyperfine over all the problem's inputs in one command; each run writes every output to a file."""
        steps = [f"{{exe}} < {shlex.quote(str(f))} > {{exe}}.out{i}" for i, f in enumerate(self.inputs)]
        try:
            with self.time_lock():
                t = time_programs(
                    base, exe, workload="; ".join(steps), workdir=self.work, min_speedup=1.0, timeout=TIME_LIMIT
                )
        except RuntimeError as e:
            out.correct, out.reason, out.detail = False, "timeout", f"could not be timed: {e}"
            return
        for i, (_, want) in enumerate(self.tests):
            got = Path(f"{exe}.out{i}").read_bytes() if Path(f"{exe}.out{i}").exists() else b""
            if got != want:
                out.correct, out.reason = False, "wrong-output"
                out.detail = f"a timed run of test {i} gave another output: {first_difference(want, got)}"
                return
        out.speedup, out.ci, out.significant = t.speedup, t.ci, t.significant
        out.detail = t.detail or out.detail


def compile_program(c_code: str, cc: str, flags: tuple[str, ...]) -> str | None:
    """The whole program's assembly from this compiler and flags (None when it does not compile)."""
    p = subprocess.run(
        [cc, "-O3", *flags, "-S", "-x", "c", "-", "-o", "-"], input=c_code, capture_output=True, text=True, timeout=120
    )
    if p.returncode != 0:
        return None
    return "\n".join(
        ln for ln in p.stdout.splitlines() if not ln.lstrip().startswith(".addrsig")
    )  # clang's, not GNU as's
