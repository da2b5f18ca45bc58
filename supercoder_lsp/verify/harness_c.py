"""Render the verification harness: every call goes through the ABI-checking
trampoline and writes one record (return value, hash of buffers) per input."""

from __future__ import annotations

from pathlib import Path

from ..harness.inputs_c import call_args, render_inputs, ret_ctype
from ..harness.plan import Plan
from ..harness.recorded import RecordedInputs
from .program_state import render_snapshots


def _ret_bits(plan: Plan) -> str:
    """The result's bits, exactly: floats bit for bit (NaN sign and payload included)."""
    r = plan.ret
    if r is None:
        return "0"
    if r.role == "float":
        return "({ uint64_t b = 0; memcpy(&b, &ret, sizeof ret); b; })"
    if r.role == "int" and r.signed:
        return "(uint64_t)(int64_t)ret"
    return "(uint64_t)ret"


def _hash_buffers(plan: Plan) -> str:
    parts = ["uint64_t h = 0xcbf29ce484222325ULL;", "if (in->deep) { sc_clear_loose(in); return sc_hash_deep(h, in); }"]
    for k, p in enumerate(plan.params):
        if p.null_offsets:
            parts.append(f"if (in->pv[{k}]) sc_nullptrs{k}(in->pv[{k}]);")
        if p.role == "array":
            parts.append(f"h = sc_fnv(h, in->pv[{k}], in->len[{k}] * sizeof({p.element.ctype}));")
        elif p.role == "cstring":  # NULL only where the program passed NULL (a recorded call)
            parts.append(f"if (in->pv[{k}]) h = sc_fnv(h, in->pv[{k}], in->len[{k}] + 1);")
    return " ".join(parts)


def _show_input(plan: Plan, fn: str) -> str:
    lines = [f'    printf("{fn}(");']
    for k, p in enumerate(plan.params):
        sep = ", " if k else ""
        if p.role == "float":
            lines.append(f'    printf("{sep}{p.name}=%.17g", ({p.ctype})in->fv[{k}]);')
        elif p.role in ("int", "bool", "length"):
            fmt = "%lld" if p.signed else "%llu"
            cast = "(long long)(int64_t)" if p.signed else "(unsigned long long)"
            lines.append(f'    printf("{sep}{p.name}={fmt}", {cast}in->iv[{k}]);')
        elif p.role == "cstring":
            lines.append(
                f'    printf("{sep}{p.name}=\\""); for (size_t t = 0; t < in->len[{k}] && t < 48; t++) {{ unsigned char c = ((unsigned char*)in->pv[{k}])[t]; '
                f'if (c >= 32 && c < 127 && c != 34 && c != 92) putchar(c); else printf("\\\\x%02x", c); }} printf(in->len[{k}] > 48 ? "\\"... (%zu bytes)" : "\\"", in->len[{k}]);'
            )
        else:
            et = p.element.ctype
            fmt = "%.17g" if p.element.role == "float" else ("%lld" if p.element.signed else "%llu")
            cast = (
                "(double)"
                if p.element.role == "float"
                else ("(long long)" if p.element.signed else "(unsigned long long)")
            )
            lines.append(
                f'    printf("{sep}{p.name}={{"); for (size_t t = 0; t < in->len[{k}] && t < 12; t++) printf(t ? ", {fmt}" : "{fmt}", {cast}(({et}*)in->pv[{k}])[t]); '
                f'printf(in->len[{k}] > 12 ? ", ...}} (%zu elements)" : "}}", in->len[{k}]);'
            )
    lines.append('    printf(")\\n");')
    return "\n".join(lines)


def _padded_call(plan: Plan) -> tuple[list[str], list[str]]:
    """The call's argument types and values, with junk in every argument register the function does not use."""
    types, vals = call_args(plan, poison=True)
    if types == ["void"]:
        types, vals = [], []
    n_int = sum(1 for p in plan.params if p.role != "float")
    n_sse = sum(1 for p in plan.params if p.role == "float")
    for _ in range(n_int, 6):
        types.append("uint64_t")
        vals.append("sc_next(&jr)")
    for _ in range(n_sse, 8):
        types.append("double")
        vals.append("sc_bits_double(sc_next(&jr))")
    return types, vals


def render_verify(
    plan: Plan,
    seed: int,
    n_random: int,
    snapshots: str = "",
    recorded: RecordedInputs | None = None,
    blob: Path | None = None,
) -> str:
    """The verification harness: links with one object that defines `sc_fn`; `snapshots` is the C of
    the recorded program states (verify/program_state.render_snapshots), `recorded` the program's
    recorded calls (harness/recorded.py, their bytes in the file `blob`)."""
    types, vals = _padded_call(plan)
    ret = ret_ctype(plan)
    call = f"(({ret} (*)({', '.join(types)}))sc_tramp)({', '.join(vals)})"
    if plan.ret is None:
        show_ret = 'printf("(void)\\n");'
    elif plan.ret.role == "float":
        show_ret = (
            f"{{ {plan.ret.ctype} v; memcpy(&v, &bits, sizeof v); "
            f'printf("%.17g (bits 0x%0{plan.ret.bits // 4}llx)\\n", (double)v, (unsigned long long)bits); }}'
        )
    elif plan.ret.role == "int" and plan.ret.signed:
        show_ret = 'printf("%lld\\n", (long long)(int64_t)bits);'
    else:
        show_ret = 'printf("%llu\\n", (unsigned long long)bits);'
    writes = any(p.role in ("array", "cstring") and not p.ctype.startswith("const") for p in plan.params)
    return f"""#include "sc_rt.h"
#include "sc_sandbox.h"
{render_inputs(plan, seed, n_random, recorded, blob)}
static volatile uint64_t sc_cur;
static uint64_t sc_upper_junk(uint64_t k);
extern void sc_tramp(void);
#define SC_WRITES_BUFFERS {int(writes)}
static uint64_t sc_call(sc_input *in) {{
    sc_rng jr = {{ sc_mix(sc_cur ^ 0x77aa55ULL) }};
    {"" if plan.ret is None else ret + " ret = "}{call};
    return {_ret_bits(plan)};
}}
static uint64_t sc_hash_outputs(sc_input *in) {{
    {_hash_buffers(plan)}
    return h;
}}
static void sc_show(sc_input *in, const char *f) {{
    printf("%s", f);
{_show_input(plan, "")}
}}
static void sc_show_ret(uint64_t bits) {{ {show_ret} }}
{snapshots or render_snapshots([], None)}
#include "sc_verify.h"
"""
