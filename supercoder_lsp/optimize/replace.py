"""Replace a function's C with its verified assembly, keeping the C as the
portable fallback, and check the edited file before anyone is offered it.

The function's definition becomes:

    #if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(__ILP32__) [&& defined(__POPCNT__) ...]
    <prototype>;
    __asm__(".att_syntax prefix\\n" ... the candidate, local labels made unique ...);
    #else
    <the original definition, untouched>
    #endif

`.att_syntax prefix` makes an `-masm=intel` build fail loudly instead of
computing garbage; the candidate's code is RIP-relative (PIE) as verified.
gcc cannot see into the block, so IPA-RA never assumes anything about it.

Before the edit is offered, the edited file is rebuilt with the project's real
flags; the rebuilt function is verified against the -O3 original (generated
inputs through the ABI trampoline) and timed against it.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .. import build, tools
from ..asm.cut import cut_function, rename_local_labels
from ..asm.features import required_cpu_flags
from ..harness.plan import make_plan
from ..measure.interleaved import InterleavedTimer, TimingError, TimingSetup
from ..model import BuildConfig, CFunction, ReplacementCheck
from ..source import declaration_of
from ..source.replaced import MARKER, asm_fingerprint, asm_of_literals, c_fingerprint, evidence_line
from ..verify import VERIFIER_VERSION
from ..verify.function_check import FunctionHarness
from ..verify.probe import probe_sizes

PLATFORM_GUARD = "defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(__ILP32__)"
ISA_MACROS = {
    "popcnt": "__POPCNT__",
    "abm": "__LZCNT__",
    "bmi1": "__BMI__",
    "bmi2": "__BMI2__",
    "avx": "__AVX__",
    "avx2": "__AVX2__",
    "fma": "__FMA__",
    "sse4_1": "__SSE4_1__",
    "sse4_2": "__SSE4_2__",
    "ssse3": "__SSSE3__",
    "movbe": "__MOVBE__",
    "avx512f": "__AVX512F__",
    "avx512bw": "__AVX512BW__",
    "avx512vl": "__AVX512VL__",
    "avx512dq": "__AVX512DQ__",
    "adx": "__ADX__",
    "aes": "__AES__",
    "pclmulqdq": "__PCLMUL__",
    "sha_ni": "__SHA__",
    "f16c": "__F16C__",
    "gfni": "__GFNI__",
    "vaes": "__VAES__",
    "vpclmulqdq": "__VPCLMULQDQ__",
    "tbm": "__TBM__",
    "sse4a": "__SSE4A__",
    "avx512cd": "__AVX512CD__",
    "avx512_vpopcntdq": "__AVX512VPOPCNTDQ__",
    "avx512_bitalg": "__AVX512BITALG__",
    "avx512vbmi": "__AVX512VBMI__",
}
_DROP = re.compile(r"^\s*\.(file|ident|section\s+\.note\.GNU-stack)\b")


class ReplaceError(ValueError):
    pass


def guard(asm: str) -> str:
    # a feature with no compiler macro here never passes the guard: the C runs instead (fails closed)
    macros = sorted(ISA_MACROS.get(f, f"__SUPERCODER_NO_MACRO_FOR_{f.upper()}__") for f in required_cpu_flags(asm))
    return " && ".join([PLATFORM_GUARD, *(f"defined({m})" for m in macros)])


def _c_string(line: str) -> str:
    return '"' + line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '\\n"'


def asm_block(fn_name: str, asm: str) -> str:
    tag = hashlib.sha256(asm.encode()).hexdigest()[:8]
    text = rename_local_labels(asm, f"sc_{fn_name}_{tag}_")
    lines = [".att_syntax prefix", "\t.pushsection .text"]
    lines += [
        ln.rstrip()
        for ln in text.splitlines()
        if ln.strip() and not _DROP.match(ln) and not ln.lstrip().startswith("#")
    ]
    lines.append("\t.popsection")
    return "__asm__(\n" + "\n".join("    " + _c_string(ln) for ln in lines) + "\n);"


def evidence(original: str, asm: str, cfg: BuildConfig, claim: str, level: str) -> dict:
    """What a replacement was verified with, for its block's evidence line: the C under #else (its tokens'
    fingerprint), the compiler (its --version line) and flags, the verifier, the CPU features the assembly
    needs, the claim and how far it was established (source/replaced.py); render() adds the fingerprint of
    the assembly as written."""
    return {
        "c": c_fingerprint(original),
        "cc": tools.version(cfg.compiler),
        "flags": " ".join(cfg.flags),
        "verifier": VERIFIER_VERSION,
        "features": sorted(required_cpu_flags(asm)),
        "claim": claim,
        "evidence": level,
    }


def claim_of(res: ReplacementCheck) -> str:
    """The evidence line's claim: the rebuilt function's speedup and interval."""
    return f"{res.speedup:.2f}x (95% CI {res.ci[0]:.2f}-{res.ci[1]:.2f})" if res.speedup and res.ci else "not timed"


def render(source: str, fn: CFunction, asm: str, note: str, proof: dict | None = None) -> str:
    """The whole edited source text; `proof` (evidence()) its evidence line."""
    if fn.is_static or fn.is_inline:
        raise ReplaceError(
            f"'{fn.name}' is static or inline: replacing it with a top-level assembly block would "
            "change its linkage; use the source-level change or make it non-static first"
        )
    data = source.encode("utf-8", "surrogatepass")
    original = data[fn.start_byte : fn.end_byte].decode("utf-8", "surrogatepass")
    proto = declaration_of(fn, data).strip()
    code = asm_block(fn.name, asm)
    literals = code.removeprefix("__asm__(\n").removesuffix("\n);")
    line = f"{evidence_line({**proof, 'asm': asm_fingerprint(literals)})}\n" if proof else ""
    block = f"#if {guard(asm)}\n/* supercoder: {note}. {MARKER} */\n{line}{proto}\n{code}\n#else\n{original}\n#endif"
    return (
        data[: fn.start_byte].decode("utf-8", "surrogatepass")
        + block
        + data[fn.end_byte :].decode("utf-8", "surrogatepass")
    )


def base_text_of(edited: str, name: str) -> str | None:
    """The assembly inside the edited file's block (from its C string literals)."""
    m = re.search(r"__asm__\(\n(.*?)\n\);", edited, re.S)
    return asm_of_literals(m.group(1)) if m else None


def check(
    path: Path,
    fn: CFunction,
    edited: str,
    cfg: BuildConfig,
    work: Path,
    *,
    n_random: int = 100_000,
    rounds: int = 60,
    min_speedup: float = 1.02,
) -> ReplacementCheck:
    """Rebuild the edited file with the project's flags, verify and time the function it now defines."""
    work.mkdir(parents=True, exist_ok=True)
    src = work / path.name
    src.write_text(edited)
    inc = (f"-iquote{path.resolve().parent}",)
    orig_asm = build.compile_to_asm(path, cfg, work / "original.s")
    base = cut_function(orig_asm, fn.name)
    build.assemble(base.text, work / "base.o")
    try:
        new_asm = build.compile_to_asm(src, cfg, work / "edited.s", extra=inc)
        build.compile_object(src, cfg, work / "edited.o", extra=inc)
    except build.BuildError as e:
        return ReplacementCheck(
            False, False, f"the edited file does not build with the project's flags: {e.output[:800]}"
        )
    if ".att_syntax prefix" not in new_asm:
        needs = guard(base_text_of(edited, fn.name) or "").replace(PLATFORM_GUARD, "").strip(" &")
        return ReplacementCheck(
            False,
            False,
            "with the project's flags the guard is false, so the build keeps the C "
            f"({needs or PLATFORM_GUARD}); add the flag that enables it, or use the source-level change",
        )
    new = cut_function(new_asm, fn.name)
    build.assemble(new.text, work / "new.o")
    plan = make_plan(fn.signature)
    if plan.supported and any(p.probe for p in plan.params):
        try:  # buffers without a length: as long as the original touches, as when it was first verified
            plan = probe_sizes(plan, fn.name, work / "base.o", work / "probe")
        except build.BuildError as e:
            return ReplacementCheck(False, False, f"cannot re-verify: its buffer sizes could not be probed: {e.what}")
    if not plan.supported:
        return ReplacementCheck(False, False, f"cannot re-verify: {plan.why}")
    h = FunctionHarness(work / "verify", fn.name, plan, n_random=n_random)
    h.prepare(work / "base.o")
    chk = h.check(work / "new.o", "edited")
    if not chk.ok:
        return ReplacementCheck(False, False, f"the rebuilt function fails verification ({chk.reason}): {chk.detail}")
    try:
        t = InterleavedTimer(TimingSetup(work / "timing", fn.name, plan, rounds=rounds, min_speedup=min_speedup))
        timing = t.time(base.text, new.text, "edited")
    except TimingError as e:
        return ReplacementCheck(False, False, f"could not be re-timed: {e}", inputs=chk.inputs)
    slower = timing.ci[1] < 1.0
    detail = timing.detail
    # In context: assembly cannot be inlined, so a caller that inlined the C may get slower.
    for caller, ct in callers_timed(path, fn, orig_asm, new_asm, new.text, cfg, work, rounds, min_speedup):
        detail += f"; caller {caller}: {ct.detail}"
        if ct.ci[1] < 1.0:
            return ReplacementCheck(
                False,
                False,
                f"the function alone: {timing.detail}; but its caller {caller} gets "
                f"slower ({ct.speedup:.2f}x, 95% CI {ct.ci[0]:.2f}-{ct.ci[1]:.2f}): the C was inlined "
                "there and the assembly cannot be",
                timing.speedup,
                timing.ci,
                chk.inputs,
            )
    return ReplacementCheck(not slower, timing.significant, detail, timing.speedup, timing.ci, chk.inputs)


def callers_timed(
    path: Path,
    fn: CFunction,
    orig_asm: str,
    new_asm: str,
    new_fn_asm: str,
    cfg: BuildConfig,
    work: Path,
    rounds: int,
    min_speedup: float,
    limit: int = 3,
):
    """Time each caller of `fn` in the file, original build against edited build, where the harness can."""
    from ..asm.cut import FunctionMissing, rename_symbols
    from ..source import parse_functions

    call = re.compile(rf"\b{re.escape(fn.name)}\s*\(")
    callers = [
        f
        for f in parse_functions(path.read_text(errors="replace"))
        if f.name not in (fn.name, "main") and call.search(f.text[f.body_start_byte - f.start_byte :])
    ]
    base_fn = cut_function(orig_asm, fn.name)
    build.assemble(base_fn.text, work / "ctx-orig-fn.o")
    build.assemble(rename_symbols(new_fn_asm, {fn.name: "sc_newfn"}), work / "ctx-new-fn.o")
    for caller in callers[:limit]:
        plan = make_plan(caller.signature)
        if not plan.supported:
            continue
        try:
            before = cut_function(orig_asm, caller.name)
            after = cut_function(new_asm, caller.name)
        except FunctionMissing:
            continue
        others = (set(before.external_refs) | set(after.external_refs)) - {fn.name}
        if others or before.local_calls or after.local_calls:
            continue  # needs more of the file than the timing harness links
        timer = InterleavedTimer(
            TimingSetup(work / f"ctx-{caller.name}", caller.name, plan, rounds=rounds, min_speedup=min_speedup),
            (work / "ctx-orig-fn.o", work / "ctx-new-fn.o"),
        )
        try:
            yield caller.name, timer.time(before.text, rename_symbols(after.text, {fn.name: "sc_newfn"}), "ctx")
        except TimingError:
            continue
