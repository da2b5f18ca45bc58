"""Synthesis proposer: a C expression over the compiler's builtins that computes what a scalar
function computes, found by enumeration.

For a function of one or two integer parameters with an integer result that reads no memory
and calls nothing (a bit loop, a clamp), the -O3 original is run on edge and random inputs;
expressions over the parameters, small constants, C operators and builtins (popcount,
count trailing/leading zeros with the zero case defined, byte swap, parity, min/max,
comparisons, the halving add, rotates, the high half of a widening multiply, saturating add and
subtract) are enumerated bottom up, smallest first, keeping one expression per vector of
outputs (observational equivalence, as enumerative synthesizers such as Souper and SyGuS
solvers do); where none matches, a step function (f(0) + a sum of x >= t) is looked for by
bisection. An expression that gives the original's outputs on every sample becomes a
candidate: a C function compiled with the project's compiler and flags (plus the CPU
features its builtins want on this machine), then verified and timed like any other.
A counterexample from verification (the failing input in the rejection) joins the samples
for the next round (CEGIS), so a wrong guess is not proposed twice. A function it cannot take
(pointers, a loop over an array) gets the same for the scalar helpers -O3 inlined into it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from .. import build
from ..asm.cut import FunctionMissing, cut_function
from ..asm.features import cpu_flags
from ..build.debuginfo import compile_debug_object, compiled_functions
from ..harness.plan import scalar_ctype as _ctype
from ..model import Candidate, CType, SourceChange
from ..source.edit import apply_body_change
from ..source.parse import parse_functions
from ..verify.sandbox import run_limited
from .base import ProposalRequest
from .portable import clones_attribute
from .synth_search import MAX_SIZE, MAX_STEPS, TIME_BUDGET, Expr, Samples, _sample_inputs, enumerate_expr, step_function

MAX_HELPERS = 2  # static helpers of one function tried


def _scalar(t: CType) -> bool:
    return t.kind in ("int", "bool") and t.bits in (8, 16, 32, 64)


def applicable(request: ProposalRequest) -> str | None:
    """None when the function is one the synthesizer handles, else why not."""
    sig = request.function.signature
    if sig is None or sig.variadic or not 1 <= len(sig.params) <= 2:
        return "it takes one or two integer parameters only"
    if not all(_scalar(p.type) for p in sig.params) or not _scalar(sig.ret):
        return "its parameters and result must be integers"
    asm = request.baseline_asm
    if re.search(r"\bcall|\bjmp\s+[A-Za-z_]|\(%rip\)", asm):
        return "it calls functions or reads memory"
    return None


def build_sampler(request: ProposalRequest, workdir: Path) -> Path | None:
    """A program that prints the -O3 original's result for each input line, or None when it does
    not build."""
    sig = request.function.signature
    assert sig is not None
    name = request.function.name
    params = ", ".join(_ctype(p.type) for p in sig.params)
    args = ", ".join(f"({_ctype(p.type)})v[{k}]" for k, p in enumerate(sig.params))
    workdir.mkdir(parents=True, exist_ok=True)
    fmt = " ".join(["%llu"] * len(sig.params))
    ptrs = ", ".join(f"&v[{k}]" for k in range(len(sig.params)))
    driver = workdir / "sample.c"
    driver.write_text(
        "#include <stdint.h>\n#include <stdio.h>\n"
        f"extern {_ctype(sig.ret)} {name}({params});\n"
        "int main(void) {\n  unsigned long long v[2] = {0, 0};\n"
        f'  while (scanf("{fmt}", {ptrs}) == {len(sig.params)})\n'
        f'    printf("%llu\\n", (unsigned long long){name}({args}));\n'
        "  return 0;\n}\n"
    )
    try:
        build.assemble(request.baseline_asm, workdir / "original.o")
        build.run_tool(["gcc", "-O1", "-w", "-c", str(driver), "-o", str(workdir / "sample.o")], "compile sampler")
        build.link([workdir / "sample.o", workdir / "original.o"], workdir / "sample")
    except build.BuildError:
        return None
    return workdir / "sample"


def run_sampler(exe: Path, inputs: list[tuple[int, ...]], ret_bits: int) -> list[int] | None:
    """The original's result on each input (contained), or None when it cannot be run on them all."""
    stdin = exe.with_name("samples.in")
    stdin.write_text("\n".join(" ".join(str(v) for v in inp) for inp in inputs) + "\n")
    r = run_limited([str(exe)], timeout=20, stdin_path=str(stdin))
    lines = r.stdout.split()
    if r.returncode != 0 or r.timed_out or len(lines) != len(inputs):
        return None
    mask = (1 << ret_bits) - 1
    return [int(x) & mask for x in lines]


COUNTEREXAMPLE = re.compile(r"\b(\w+)=(-?\d+)")


def _counterexamples(request: ProposalRequest, names: list[str], bits: list[int]) -> list[tuple[int, ...]]:
    """Inputs on which an earlier synthesized candidate was wrong (from the rejection's detail)."""
    out = []
    for fb in request.feedback:
        if fb.reason != "wrong-output" or not fb.candidate.label.startswith("synth"):
            continue
        got = dict(COUNTEREXAMPLE.findall(fb.detail.split(":", 1)[0]))
        if all(n in got for n in names):
            out.append(tuple(int(got[n]) & ((1 << b) - 1) for n, b in zip(names, bits, strict=True)))
    return out


TARGETS = {"popcnt": "popcnt", "lzcnt": "abm", "bmi": "bmi1"}  # target name -> /proc/cpuinfo flag


class SynthProposer:
    name = "synth"
    refinable = True
    note: str | None = None

    def __init__(self, budget: float = TIME_BUDGET, seed: int = 0x5C0DE):
        self.budget, self.seed = budget, seed
        self._extra: dict[str, list[tuple[int, ...]]] = {}

    def settings(self) -> dict:
        return {"name": self.name, "version": 2, "max_size": MAX_SIZE, "max_steps": MAX_STEPS, "budget": self.budget}

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        if applicable(request) is not None:
            if request.round == 0:
                yield from self._helpers(request)
            return
        found = self._search(request)
        if found is not None:
            yield from self._candidates(request, found, found.width)

    def _search(self, request: ProposalRequest) -> Expr | None:
        """An expression for request.function (scalar), from its -O3 assembly: enumeration, then a
        step function."""
        sig = request.function.signature
        assert sig is not None
        names = [p.name for p in sig.params]
        bits = [p.type.bits if p.type.kind == "int" else 8 for p in sig.params]
        key = request.function.name
        self._extra.setdefault(key, []).extend(_counterexamples(request, names, bits))
        inputs = _sample_inputs(bits, [p.type.signed for p in sig.params], self.seed) + self._extra[key]
        work = request.workdir / f"synth{request.round}"
        exe = build_sampler(request, work)
        outputs = run_sampler(exe, inputs, sig.ret.bits) if exe else None
        if exe is None or outputs is None:
            return None
        s = Samples(names, bits, [p.type.signed for p in sig.params], sig.ret.bits)
        s.inputs, s.outputs = inputs, outputs
        found = enumerate_expr(s, self.budget) or step_function(s, lambda xs: run_sampler(exe, xs, sig.ret.bits))
        return dataclasses.replace(found, width=s.width()) if found else None

    def _helpers(self, request: ProposalRequest) -> Iterator[Candidate]:
        """For a function the synthesizer cannot take (pointers, a loop over an array), the scalar
        helpers with loops that it calls, which -O3 inlines into it (static ones always): an expression for the
        helper (from an out-of-line copy of it, -fkeep-static-functions), and as candidate the
        function compiled from the file with the helper's body replaced, with the project's flags
        alone (what the source change gives: no -m flags; the builtins call libgcc where the flags
        do not enable the instruction, so it runs on every CPU the project targets)."""
        work = request.workdir / "synth-helpers"
        work.mkdir(parents=True, exist_ok=True)
        try:
            # which helpers the compiler inlined here, with the types it saw (macros expanded)
            compile_debug_object(request.source_path, request.build, work / "debug.o")
            compiled = compiled_functions(work / "debug.o")
        except build.BuildError as e:
            self.note = f"synth: no debug build to find its inlined helpers ({e})"
            return
        here = request.function.name
        helpers = [
            dataclasses.replace(f, signature=compiled[f.name].signature)
            for f in parse_functions(request.source_text)
            if f.has_loops and f.name in compiled and here in compiled[f.name].inlined_into
        ][:MAX_HELPERS]
        if not helpers:
            return
        include = (f"-I{request.source_path.resolve().parent}",)
        try:
            kept = build.compile_to_asm(
                request.source_path, request.build, work / "kept.s", extra=("-fkeep-static-functions",)
            )
        except build.BuildError as e:
            self.note = f"synth: no out-of-line copy of its helpers ({e})"
            return
        for h in helpers:
            try:
                h_asm = cut_function(kept, h.name).text
            except FunctionMissing:
                continue
            sub = dataclasses.replace(request, function=h, baseline_asm=h_asm, workdir=work / h.name)
            if applicable(sub) is not None:
                continue
            found = self._search(sub)
            if found is None:
                continue
            assert h.signature is not None
            body = f"{{\n    return ({_ctype(h.signature.ret)})({found.c});\n}}"
            src = work / h.name / request.source_path.name
            src.write_text(apply_body_change(request.source_text, h.name, body))
            try:
                asm = build.compile_to_asm(src, request.build, src.with_suffix(".s"), extra=include)
                cut = cut_function(asm, request.function.name)
            except (build.BuildError, FunctionMissing) as err:
                self.note = f"synth: {request.function.name} with {h.name}'s new body did not compile: {err}"
                continue
            yield Candidate(
                request.function.name,
                cut.text,
                f"synth: helper {h.name}: {request.build.compiler} {' '.join(request.build.flags)}",
                f"synth_{h.name}",
                source_change=SourceChange(
                    "body",
                    body,
                    f"replace the body of the helper {h.name} (inlined here) with this expression (found by "
                    "synthesis; verified and timed in this function with the project's flags)",
                    function=h.name,
                ),
            )

    def _candidates(self, request: ProposalRequest, e: Expr, w: int) -> Iterator[Candidate]:
        sig = request.function.signature
        assert sig is not None
        name = request.function.name
        params = ", ".join(f"{_ctype(p.type)} {p.name}" for p in sig.params)
        expr = f"({_ctype(sig.ret)})({e.c})"
        here = cpu_flags()
        # the instructions its builtins want, where this CPU has them and the change can keep the
        # project portable (portable.py); else the builtins as the project's flags compile them
        portable = clones_attribute(["popcnt"], request.build.compiler) is not None
        targets = sorted(t for t in e.needs if TARGETS[t] in here) if portable else []
        flags = tuple(f"-m{t}" for t in targets)
        src = request.workdir / f"synth{request.round}" / f"{name}.c"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(f"#include <stdint.h>\n{_ctype(sig.ret)} {name}({params}) {{\n    return {expr};\n}}\n")
        try:
            asm = build.compile_to_asm(src, request.build, src.with_suffix(".s"), extra=flags)
            cut = cut_function(asm, name)
        except (build.BuildError, FunctionMissing) as e2:
            self.note = f"synth: its expression for {name} did not compile: {e2}"
            return
        clones = clones_attribute(targets, request.build.compiler)
        attr = f"__attribute__(({clones}))\n" if clones else ""
        change = SourceChange(
            "body",
            f"{attr}{{\n    return {expr};\n}}",
            "replace the body with this expression (found by synthesis, verified like every candidate)"
            + (f"; target_clones keeps it running on CPUs without {', '.join(targets)}" if targets else ""),
        )
        yield Candidate(
            name,
            cut.text,
            f"synth: {request.build.compiler} {' '.join([*request.build.flags, *flags])}",
            f"synth_r{request.round}",
            source_change=change,
        )
