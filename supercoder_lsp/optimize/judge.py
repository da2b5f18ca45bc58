"""One candidate through every check, in order, until the first that fails: that failure is its verdict.

screen the text (unsafe) -> same code as the original (duplicate) -> assemble -> ELF check -> screen the
object (decoded bytes, symbol, section and relocation kinds) -> CPU features -> function harness (generated
inputs through the ABI trampoline) -> program tests (the linked program checked for load-time code first) ->
interleaved timing over alignments -> whole-program timing (outputs checked on the timed input).
A candidate that passes them all, and is faster beyond the noise of the same run, is accepted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import build
from ..asm.elfcheck import check_linked, check_object
from ..asm.features import instruction_features, missing_cpu_flags, required_cpu_flags
from ..asm.objscreen import ObjectFacts, object_facts, screen_object
from ..asm.screen import screen
from ..measure.interleaved import InterleavedTimer, TimingError, TimingMismatch
from ..model import ACCEPTED, REJECTED, Candidate, CandidateResult, CFunction, Timing
from ..results import deciding_timing
from ..stopwatch import Stopwatch
from ..verify.function_check import FunctionHarness
from ..verify.program import run_tests
from ..verify.proof import describe_counterexample, domain_bits, exhaustive, symbolic, symbolic_applies
from ..verify.sandbox import RunResult
from ..verify.thunk import CHECKING_ALLOCATOR, checked_objects
from .file_context import FileContext
from .program_timing import ProgramTiming, Rejected


def _first(problems: list[str], n: int = 4) -> str:
    return "; ".join(problems[:n]) + (f" (and {len(problems) - n} more)" if len(problems) > n else "")


@dataclass
class Judge(ProgramTiming):
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
    # why the generated inputs may not be typical ones (pointer fields NULL): then only the program's own
    # inputs (whole-program timing) may decide "faster"
    timing_caveat: str | None = None
    # why the harness's inputs cannot verify the function (they run too few of its lines): then nothing is claimed
    coverage_caveat: str | None = None
    proof_budget: float = 0.0  # seconds for an exhaustive proof of a scalar function (0: none)
    # the function's share (0-1) of the program's instructions on the timed input, with what it calls; asked
    # only of a significant whole-program speedup (Amdahl's bound); None where it cannot be measured
    program_share: Callable[[], float | None] | None = None
    # the editor's: an accepted candidate shown before its timing ends, where the passes so far already show
    # it faster beyond doubt and nothing after the function's own timing decides (_early_claim)
    on_early: Callable[[CandidateResult], None] | None = None
    seen: dict[str, str] = field(default_factory=dict)  # normalized assembly -> label, for duplicates
    _reference_program: Path | None = None
    _base_norm: str = ""  # the original's normalized text and object facts, made once for all candidates
    _base_facts: ObjectFacts | None = None
    _ref_status: dict[bool, dict[str, int]] = field(default_factory=dict)  # plain? -> test -> status
    _ref_timed: RunResult | None = None
    _untried: dict[str, str] = field(default_factory=dict)  # label -> why it was not proven
    _objects: dict[str, Path] = field(default_factory=dict)  # label -> the accepted candidate's object

    def __call__(self, cand: Candidate, timed: Timing | None = None) -> CandidateResult:
        """The candidate through every check in order; the first that fails is its verdict. `timed`: its
        timing on the same inputs from the first look (first_look.py), which showed it no faster, kept in
        place of timing it again."""
        r = _rejected(cand)
        sw = Stopwatch(r.stage_seconds)
        try:
            cobj = self._up_to_harness(cand, r, sw)
            cand_exe = self._program_tests(cand, cobj, r, sw)
            self._covered(r)
            self._prove(cobj, r, sw)
            if timed is not None and not timed.significant:
                r.timing = timed
            else:
                self._time_function(cand, r, sw)
            self._time_program(cand_exe, r, sw)
            self._objects[r.label] = cobj
            self._decide(r)
        except Rejected as e:
            r.reason, r.detail = e.reason, e.detail
        return r

    def first_look(self, cand: Candidate) -> CandidateResult | None:
        """The checks up to the function harness's, with this judge's harness (one of the first inputs, or
        of the program's recorded calls: first_look.py), and with a timer the first pass of the timing,
        where it already shows the candidate no faster or cannot time it: the verdict where one fails, else
        None (none yet: a candidate that may be faster has its verdict from the whole harness and every
        pass)."""
        r = _rejected(cand)
        sw = Stopwatch(r.stage_seconds)
        try:
            self._up_to_harness(cand, r, sw)
            if self.timer is None:
                return None
            with sw("measure"):
                try:
                    t = self.timer.first_pass(self.base_asm, cand.assembly, cand.label)
                except TimingMismatch as e:
                    raise Rejected("unsafe", str(e)) from e
                except TimingError as e:  # the original's own timing run fails (inflateBack's generated
                    # states, called again after what the last call left): the round's says the same
                    raise Rejected("not-faster", f"could not be timed: {e}") from e
            if t is None:
                return None
            r.timing = t
            raise Rejected("not-faster", t.detail)
        except Rejected as e:
            r.reason, r.detail = e.reason, e.detail
            return r

    def adopt(self, cand: Candidate, r: CandidateResult) -> CandidateResult:
        """A verdict on `cand` given by another judge (first_look.py), noted: the same code again is a duplicate."""
        self.seen.setdefault(_normalized(cand.assembly), cand.label)
        return r

    # -- the checks, in order; each raises Rejected ------------------------------------
    def _up_to_harness(self, cand: Candidate, r: CandidateResult, sw: Stopwatch) -> Path:
        """The checks up to the function harness's, that one included: the candidate's object."""
        self._usable_and_new(cand)
        self._screen_text(cand, r)
        cobj = self._assemble_and_screen_object(cand, sw)
        self._cpu(cand)
        self._function_harness(cand, cobj, r, sw)
        return cobj

    def _usable_and_new(self, cand: Candidate) -> None:
        if cand.problem:
            raise Rejected("unusable", cand.problem)
        norm = _normalized(cand.assembly)
        if norm in self.seen:
            raise Rejected("duplicate", f"same assembly as candidate {self.seen[norm]}")
        self.seen[norm] = cand.label
        self._base_norm = self._base_norm or _normalized(self.base_asm)
        if norm == self._base_norm:
            raise Rejected("duplicate", "same code as the -O3 original: nothing to time")

    def _screen_text(self, cand: Candidate, r: CandidateResult) -> None:
        unsafe = screen(cand.assembly, self.base_asm)
        if unsafe:
            raise Rejected("unsafe", _first(unsafe))
        r.features = sorted(instruction_features(cand.assembly) - self.base_features)
        r.cpu_features = sorted(required_cpu_flags(cand.assembly))

    def _assemble_and_screen_object(self, cand: Candidate, sw: Stopwatch) -> Path:
        cobj = self.fdir / f"cand-{cand.label}.o"
        with sw("assemble"):
            try:
                build.assemble(cand.assembly, cobj)
            except build.BuildError as e:
                raise Rejected(
                    "assemble-error", e.output.replace(str(cobj.with_suffix(".s")), f"{cand.label}.s")
                ) from e
            problems = check_object(cobj, self.fn.name)
            if problems:
                missing = [p for p in problems if "does not define" in p]
                raise Rejected("link-error" if missing else "unsafe", "; ".join(problems))
            if self.base_obj is not None:
                self._base_facts = self._base_facts or object_facts(self.base_obj)
                hidden = screen_object(cobj, self._base_facts, extern_sizes=self.extern_sizes)
                if hidden:
                    raise Rejected("unsafe", _first(hidden))
        return cobj

    @staticmethod
    def _cpu(cand: Candidate) -> None:
        lacking = missing_cpu_flags(cand.assembly)
        if lacking:
            raise Rejected("unsupported-cpu", f"needs CPU features this machine lacks: {', '.join(sorted(lacking))}")

    def _function_harness(self, cand: Candidate, cobj: Path, r: CandidateResult, sw: Stopwatch) -> None:
        if self.harness is None:
            return
        with sw("verify"):
            chk = self.harness.check(cobj, cand.label)
        r.inputs_checked = chk.inputs if chk.ok else 0
        r.inputs_domain = self.harness.narrowing or None
        if not chk.ok:
            raise Rejected(chk.reason or "wrong-output", chk.detail + self._on_program_inputs(cand, chk, sw))

    def _on_program_inputs(self, cand: Candidate, chk, sw: Stopwatch) -> str:
        """How fast a candidate that is wrong only where the program never goes runs on the calls it
        makes: information for a C change (never an edit: the candidate stays wrong-output)."""
        if not chk.program_agrees or self.timer is None or not self.timer.s.recorded:
            return ""
        with sw("measure"):
            try:
                t = self.timer.time(self.base_asm, cand.assembly, cand.label)
            except TimingError:
                return ""
        return f"; on the program's own calls: {t.detail}"

    def _link_program(self, objs: list[Path], exe: Path) -> Path:
        """The program with the candidate's objects in the function's place, checked for load-time code."""
        try:
            assert self.rest_obj is not None
            build.link(
                [self.rest_obj, *objs, self.ctx.program_sandbox()],
                exe,
                extra=self.ctx.cfg.ldflags,
                compiler=self.ctx.cfg.compiler,
            )
        except build.BuildError as e:
            raise Rejected("link-error", e.output) from e
        load_time = check_linked(exe, self._reference())
        if load_time:
            raise Rejected("unsafe", "; ".join(load_time))
        return exe

    def _program_tests(self, cand: Candidate, cobj: Path, r: CandidateResult, sw: Stopwatch) -> Path | None:
        """The program as it will live (for whole-program timing); its tests run behind the checking
        thunk with the checking allocator. None when there are neither tests nor a timed input."""
        ctx = self.ctx
        if not (ctx.tests or self.bench_input or self.workload):
            return None
        with sw("verify"):
            cand_exe = self._link_program([cobj], self.fdir / f"prog-{cand.label}")
            if ctx.tests:
                checked = self._link_program(
                    checked_objects(cobj, self.fn.name, self.fdir / "checked"), self.fdir / f"prog-{cand.label}-checked"
                )
                pc = run_tests(checked, ctx.tests, expected_status=self._reference_status(), env=CHECKING_ALLOCATOR)
                r.tests_passed = pc.passed
                if not pc.ok:
                    raise Rejected(pc.reason or "wrong-output", pc.detail)
                # and once as the plain program, nothing between its callers and it, code where the loader
                # puts it: a candidate that tells the checking thunk from a real caller is seen here
                plain = run_tests(
                    cand_exe, ctx.tests, expected_status=self._reference_status(plain=True), as_program=ctx.path.stem
                )
                if not plain.ok:
                    raise Rejected(
                        plain.reason or "wrong-output", f"{plain.detail} (the plain program, no checks between)"
                    )
        return cand_exe

    def _covered(self, r: CandidateResult) -> None:
        """Same results count only on inputs that run the function, not only its argument checks."""
        if self.coverage_caveat:
            raise Rejected(
                "under-tested",
                f"same results on {r.inputs_checked:,} inputs, but {self.coverage_caveat}; give the project's tests "
                "(--test-command), program tests (--tests), --bench-input or --workload so the program's own calls "
                "are recorded and replayed",
            )

    def _prove(self, cobj: Path, r: CandidateResult, sw: Stopwatch) -> None:
        """Equal on every input, where the inputs can all be tried (verify/proof.py)."""
        sig = self.fn.signature
        if self.harness is None or self.base_obj is None or not self.proof_budget or domain_bits(sig) is None:
            return
        assert sig is not None
        if self.harness.support or self.extern_sizes:
            return  # it reads the file's globals: its result is not a function of its arguments alone
        with sw("prove"):
            p = exhaustive(self.fn.name, sig, self.base_obj, cobj, self.fdir / f"prove-{r.label}", self.proof_budget)
        if p.status == "refuted":
            raise Rejected("wrong-output", describe_counterexample(self.fn.name, sig, p))
        if p.status == "proven":
            r.proof = p.detail
        else:
            self._untried[r.label] = p.detail  # tested only, and why: said after the timing

    def may_prove(self, r: CandidateResult) -> bool:
        """Whether accepted candidate r, if it is the one claimed, still goes through the symbolic proof
        (prove_symbolic), which may refute it: its win is not shown before that."""
        sig = self.fn.signature
        if r.proof or not self.proof_budget or self.harness is None or self.base_obj is None:
            return False
        if not symbolic_applies(sig) or (domain_bits(sig) is not None and r.label not in self._untried):
            return False  # exhaustion covered every input
        # one that reads the file's globals: its result is not a function of its arguments alone
        return not (self.harness.support or self.extern_sizes)

    def prove_symbolic(self, r: CandidateResult, reference: CandidateResult | None = None) -> None:
        """Equal on every input by symbolic execution (verify/symbolic.py), where exhaustion does not
        reach; for the accepted candidate whose speedup will be claimed (the pipeline picks it), so
        the claim says "proven". A confirmed counterexample rejects it as `wrong-output`. With a
        `reference`, a candidate already proven equal to the original, r is compared with it."""
        sig = self.fn.signature
        cobj = self._objects.get(r.label)
        ref = None
        if reference is not None:
            ref_obj = self._objects.get(reference.label)
            if ref_obj is None or not reference.proof or reference.status != ACCEPTED:
                return
            ref = (ref_obj, reference.label)
        if cobj is None or not self.may_prove(r):
            return
        assert self.base_obj is not None
        assert sig is not None
        with Stopwatch(r.stage_seconds)("prove"):
            where = self.fdir / (f"prove-{r.label}" if ref is None else f"prove-{r.label}-by-{ref[1]}")
            p = symbolic(self.fn.name, sig, self.base_obj, cobj, where, self.proof_budget, reference=ref)
        if p.status == "refuted":
            r.status, r.reason, r.detail = REJECTED, "wrong-output", describe_counterexample(self.fn.name, sig, p)
        elif p.status == "proven":
            r.proof = p.detail
            if r.label in self._untried:
                r.detail = r.detail.replace(f"; {self._untried.pop(r.label)}", "")
        elif r.label not in self._untried:
            self._untried[r.label] = p.detail
            r.detail += f"; {p.detail}"

    def _time_function(self, cand: Candidate, r: CandidateResult, sw: Stopwatch) -> None:
        if self.timer is None:
            return
        with sw("measure"):
            try:
                r.timing = self.timer.time(self.base_asm, cand.assembly, cand.label, self._early_claim(r))
            except TimingMismatch as e:
                raise Rejected("unsafe", str(e)) from e
            except TimingError as e:
                raise Rejected("not-faster", f"could not be timed: {e}") from e

    def _early_claim(self, r: CandidateResult) -> Callable[[Timing], None] | None:
        """Where the function's own timing alone decides (no whole-program timing, no caveat on its inputs:
        _decide accepts what is significant), `r` accepted with the timing of the passes so far, for on_early;
        every pass still runs, and the verdict comes from all of them."""
        show = self.on_early
        if show is None or self.timing_caveat or self.bench_input or self.workload:
            return None

        def claim(t: Timing) -> None:
            untried = f"; {self._untried[r.label]}" if r.label in self._untried else ""
            show(replace(r, status=ACCEPTED, reason=None, detail=t.detail + untried, timing=t))

        return claim

    def _decide(self, r: CandidateResult) -> None:
        """Faster beyond the noise of its own run, and not slower as a whole program."""
        t, pt = r.timing, r.program_timing
        if self.timing_caveat and t is not None and (t.significant or pt is not None):
            if pt is None:
                raise Rejected(
                    "not-faster",
                    f"{t.detail} on generated inputs only, where {self.timing_caveat}; "
                    "give --bench-input or --workload so the program's own inputs decide",
                )
            r.timing = None  # the program's inputs decide; the generated ones may not be typical
        decides = deciding_timing(r)
        if decides is None:
            raise Rejected("not-faster", "could not be timed: no function harness and no --bench-input/--workload")
        if not decides.significant:
            raise Rejected("not-faster", decides.detail)
        if t is not None and pt is not None and pt.ci[1] < 1 / max(self.min_speedup, pt.noise[1] if pt.noise else 1):
            raise Rejected("not-faster", f"faster alone ({t.detail}) but the whole program is slower: {pt.detail}")
        if pt is not None and pt.significant:
            self._within_amdahl(pt)
        r.status = ACCEPTED
        r.detail = decides.detail + (f"; {self._untried[r.label]}" if r.label in self._untried else "")


def _rejected(cand: Candidate) -> CandidateResult:
    """The candidate's result before any check: rejected until the last one passes."""
    return CandidateResult(cand.label, cand.origin, REJECTED, None, "", cand.assembly, source_change=cand.source_change)


def _normalized(asm: str) -> str:
    return "\n".join(ln.strip() for ln in asm.splitlines() if ln.strip())


CHANGE_PREFERENCE = {"attribute": 0, "flag": 1, "compiler": 2}


def choose_best(accepted: list[CandidateResult]) -> CandidateResult:
    """The fastest accepted candidate; among those statistically tied with it
    (intervals overlap), the one whose win is easiest to keep: a source-level
    attribute, then a flag, then a compiler change, then raw assembly."""

    def timing(c: CandidateResult) -> Timing:
        t = deciding_timing(c)
        assert t is not None, "accepted candidates are timed"
        return t

    top = max(accepted, key=lambda c: timing(c).speedup)
    tied = [c for c in accepted if timing(c).ci[1] >= timing(top).ci[0]]
    return min(
        tied,
        key=lambda c: (
            CHANGE_PREFERENCE.get(c.source_change.kind, 3) if c.source_change else 3,
            -timing(c).speedup,
        ),
    )
