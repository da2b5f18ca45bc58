"""A whole program's assembly as an answer (the SuperCoder dataset's rows): every check that applies to a
whole program, then hyperfine against the baseline on the problem's own inputs.

screen the text (against the baseline's own assembly) -> same code as the baseline (identical) ->
assemble -> ELF and object screens -> CPU features -> link with the sandbox constructor, load-time code
compared with the baseline's link -> every test, contained -> generated inputs: each test's input with
its numbers changed (seeded by the answer itself), on which the answer must print what the baseline
prints, with its exit status -> timing on those generated inputs (the tests' own where none could be
made), in which every timed run writes its output to a file that is compared afterwards.

An answer cannot profit from knowing the tests: one that prints stored outputs for the test inputs is
timed on inputs it has never seen, and one that is right only on them is `wrong-output`. A program
that notices it is being timed and skips the work is `wrong-output`, not fast.

Not checked for a whole program: the calling convention (there is no function boundary to guard; the
program's calls into libc are its own business and its tests show their effect).
"""

from __future__ import annotations

import hashlib
import random
import re
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
from ..measure.hyperfine import RunsFailed, TooShort, time_programs
from ..optimize.file_context import program_sandbox_object
from ..verify.program import first_difference
from ..verify.sandbox import run_limited

TEST_TIMEOUT = 10.0  # seconds per test run
TIME_LIMIT = 180.0  # seconds for all the timed runs of one answer (a reward must be bounded in time)
MUTANTS_PER_TEST = 2
MAX_MUTANTS = 16
_NUMBER = re.compile(rb"-?\d+")


def mutate(data: bytes, rng: random.Random) -> bytes:
    """`data` with every number other than -1, 0 and 1 replaced by one of the same sign between half its
    magnitude and all of it: the same shape of input (counts never grow), values the answer has not seen."""

    def one(m: re.Match) -> bytes:
        v = int(m.group())
        if abs(v) < 2:
            return m.group()
        lo, hi = (v // 2, v) if v > 0 else (v, -((-v) // 2))
        return str(rng.randint(lo, hi)).encode()

    return _NUMBER.sub(one, data)


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
        self._test_seconds = 0.0  # the baseline's slowest test

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
            self._test_seconds = self._slowest
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
        generated = self._generated(base, int(answer_digest(asm)[:16], 16))
        differs = self._differs(exe, generated)
        if differs:
            return Outcome(True, False, n, n, differs[0], differs[1], cpu_features=needs)
        more = f", and {len(generated)} generated inputs" if generated else ""
        out = Outcome(True, True, n, n, None, f"{n} tests pass{more}", cpu_features=needs)
        if self.timing and generated:  # inputs the answer has never seen
            self._time(base, exe, out, generated, "generated inputs")
        elif self.timing:  # no number to change in any test input
            self._time(base, exe, out, [(x, y, 0) for x, y in self.tests], "test inputs")
        return out

    def _generated(self, base: Path, seed: int) -> list[tuple[bytes, bytes, int]]:
        """(input, the baseline's output, its exit status) for each test's input with its numbers changed;
        inputs on which the baseline crashes, times out or that no number changes are left out."""
        rng = random.Random(seed)
        out: list[tuple[bytes, bytes, int]] = []
        for x, _ in self.tests:
            for _ in range(MUTANTS_PER_TEST):
                y = mutate(x, rng)
                if y == x or len(out) >= MAX_MUTANTS:
                    continue
                f = self.work / f"gen{len(out)}.txt"
                f.write_bytes(y)
                r = run_limited([str(base)], timeout=TEST_TIMEOUT, stdin_path=str(f), binary=True)
                # no longer than the tests take (a changed range can ask for far more work)
                if not r.timed_out and r.returncode >= 0 and r.seconds <= max(0.5, 2 * self._test_seconds):
                    out.append((y, r.stdout, r.returncode))
        return out

    def _differs(self, exe: Path, generated: list[tuple[bytes, bytes, int]]) -> tuple[str, str] | None:
        for i, (x, want, status) in enumerate(generated):
            f = self.work / f"gen{i}.txt"
            f.write_bytes(x)
            r = run_limited([str(exe)], timeout=TEST_TIMEOUT, stdin_path=str(f), binary=True)
            where = f"generated input {i} (a test's numbers changed: {x[:60]!r})"
            if r.timed_out:
                return "timeout", f"{where}: no result within {TEST_TIMEOUT:.0f}s"
            if r.returncode < 0:
                return "crash", f"{where}: killed by signal {-r.returncode}"
            if r.stdout != want:
                return "wrong-output", f"{where}: {first_difference(want, r.stdout)}"
            if r.returncode != status:
                return "wrong-output", f"{where}: exit status {r.returncode}, the baseline's is {status}"
        return None

    def _run_tests(self, exe: Path) -> tuple[int, int, str | None, str]:
        """(tests passed, index of the first failure, its reason, what a user needs to see); every test runs,
        so that a partly right answer's fraction is known."""
        passed, first, why, detail = 0, -1, None, ""
        self._slowest = 0.0
        for i, (inp, (_, want)) in enumerate(zip(self.inputs, self.tests)):
            r = run_limited([str(exe)], timeout=TEST_TIMEOUT, stdin_path=str(inp), binary=True)
            self._slowest = max(self._slowest, r.seconds)
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

    def _time(self, base: Path, exe: Path, out: Outcome, inputs: list[tuple[bytes, bytes, int]], what: str) -> None:
        """hyperfine over all `inputs` in one command; each run writes every output to a file, compared after."""
        files = []
        for i, (x, _, _) in enumerate(inputs):
            f = self.work / f"timed{i}.txt"
            f.write_bytes(x)
            files.append(f)
        steps = [f"{{exe}} < {shlex.quote(str(f))} > {{exe}}.out{i}" for i, f in enumerate(files)]
        try:
            with self.time_lock():
                t = time_programs(
                    base, exe, workload="; ".join(steps), workdir=self.work, min_speedup=1.0, timeout=TIME_LIMIT
                )
        except RunsFailed as e:  # a timed run that did not end as the baseline's did: no time is taken from it
            if e.side == "candidate":
                why = {"sandbox": "unsafe", "crash": "crash"}.get(e.kind, "wrong-output")
                out.correct, out.reason, out.detail = False, why, f"while timed: {e}"
            else:
                out.correct, out.reason, out.detail = False, "timeout", f"could not be timed: {e}"
            return
        except TooShort as e:  # every run ended, one too fast to time (one that skips its work when timed):
            if not self._timed_outputs_differ(exe, out, inputs):  # what they wrote is compared all the same
                out.correct, out.reason, out.detail = False, "timeout", f"could not be timed: {e}"
            return
        except RuntimeError as e:
            out.correct, out.reason, out.detail = False, "timeout", f"could not be timed: {e}"
            return
        if self._timed_outputs_differ(exe, out, inputs):
            return
        out.speedup, out.ci, out.significant = t.speedup, t.ci, t.significant
        out.detail = f"{out.detail}; timed on {len(inputs)} {what}: {t.detail}"

    @staticmethod
    def _timed_outputs_differ(exe: Path, out: Outcome, inputs: list[tuple[bytes, bytes, int]]) -> bool:
        """Whether a timed run wrote another output than the test's (then `out` says wrong-output)."""
        for i, (_, want, _) in enumerate(inputs):
            got = Path(f"{exe}.out{i}").read_bytes() if Path(f"{exe}.out{i}").exists() else b""
            if got != want:
                out.correct, out.reason = False, "wrong-output"
                out.detail = f"a timed run of input {i} gave another output: {first_difference(want, got)}"
                return True
        return False


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
