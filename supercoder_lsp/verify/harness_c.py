"""Render the verification harness: every call goes through the ABI-checking
trampoline and writes one record (return value, hash of buffers) per input."""

from __future__ import annotations

import random
from pathlib import Path

from ..harness.inputs_c import call_args, render_inputs, ret_ctype
from ..harness.plan import Plan, stack_words
from ..harness.recorded import RecordedInputs
from .harness_buffers import _movable, _perturb, _read_only, _watched, buffer_bytes
from .program_state import render_snapshots


def _ret_bits(plan: Plan) -> str:
    """The result's bits, exactly: floats bit for bit, but every NaN as one where two NaNs may meet in the call
    (inputs_c.py: sc_nans_meet; which NaN an operation on two NaNs gives is not IEEE 754's to say)."""
    r = plan.ret
    if r is None:
        return "0"
    if r.role == "float":
        return '({ uint64_t b = 0; __typeof__(ret) v = ret; if (sc_nan_loose && v != v) v = __builtin_nan(""); memcpy(&b, &v, sizeof v); b; })'
    if r.role in ("pointer", "string"):
        return f"sc_ret_ptr(in, sc_last_ret = (const unsigned char *)ret, {r.max_len}, {int(r.role == 'string')})"
    if r.role == "int" and r.signed:
        return "(uint64_t)(int64_t)ret"
    return "(uint64_t)ret"


def _ret_ptr(plan: Plan) -> str:
    """C: `sc_ret_ptr`, a returned pointer as a value that does not depend on where memory lies: 0 for
    NULL, (buffer, offset) where it points into an argument's buffer (or a recorded region), else a
    digest of what it points to: a string up to its NUL (4 KiB at most), else `n` bytes."""
    sizes = []
    for k, p in enumerate(plan.params):
        if p.role == "array":
            sizes.append(f"if (b == {k}) return in->len[{k}] * sizeof({p.element.ctype});")
        elif p.role == "cstring":
            sizes.append(f"if (b == {k}) return in->len[{k}] + 1;")
    return f"""static const unsigned char *sc_last_ret __attribute__((unused)); /* for sc_show_ret */
extern char __start_sc_gdata[] __attribute__((weak)), __stop_sc_gdata[] __attribute__((weak));
extern char __start_sc_gbss[] __attribute__((weak)), __stop_sc_gbss[] __attribute__((weak));
extern char __start_sc_fdata[] __attribute__((weak)), __stop_sc_fdata[] __attribute__((weak));
extern char __start_sc_fbss[] __attribute__((weak)), __stop_sc_fbss[] __attribute__((weak));
static size_t __attribute__((unused)) sc_arg_bytes(const sc_input *in, unsigned b) {{
    if (in->deep) {{ size_t n; sc_deep_buf(in, b, &n); return n; }}
    {" ".join(sizes)}
    (void)in; (void)b; return 0;
}}
static uint64_t __attribute__((unused)) sc_ret_ptr(sc_input *in, const unsigned char *p, size_t n, int string) {{
    if (!p) return 0;
    uint64_t w = (uint64_t)(uintptr_t)p, at[SC_NP + SC_NR] = {{0}}, off;
    size_t len;
    if (in->deep) {{
        for (unsigned b = 0; b < SC_NP + in->nr; b++) at[b] = (uint64_t)(uintptr_t)sc_deep_buf(in, b, &len);
        int j = sc_deep_find(in, at, w, &off);
        if (j >= 0) return (0x5CA1ULL << 48) ^ ((uint64_t)j << 40) ^ off;
    }} else {{
        for (unsigned b = 0; b < SC_NP; b++) {{
            uint64_t a = (uint64_t)(uintptr_t)in->pv[b];
            if (a && w >= a && w <= a + sc_arg_bytes(in, b)) return (0x5CA1ULL << 48) ^ ((uint64_t)b << 40) ^ (w - a);
        }}
    }}
    /* the stack (a dead frame's local, whatever it still holds) and the file's writable data (a static
     * buffer the next call overwrites) are where it points, never what they hold */
    int hb = sc_heap_find(w, &off); /* a block the call allocated (a handle it opened): which, and where */
    if (hb >= 0) return sc_heap_tag((unsigned)hb, off);
    uint64_t here = (uint64_t)(uintptr_t)&at;
    if (w + (8ULL << 20) > here && w < here + (8ULL << 20)) return 0x5CA3ULL << 48;
    uint64_t top = (uint64_t)(uintptr_t)sc_stack_top; /* the stack the call ran on */
    if (top && w < top && w + SC_CALL_STACK >= top) return 0x5CA3ULL << 48;
    char *sec[4][2] = {{ {{ __start_sc_gdata, __stop_sc_gdata }}, {{ __start_sc_gbss, __stop_sc_gbss }},
                        {{ __start_sc_fdata, __stop_sc_fdata }}, {{ __start_sc_fbss, __stop_sc_fbss }} }};
    for (uint64_t k = 0; k < 4; k++)
        if (sec[k][0] && w >= (uint64_t)(uintptr_t)sec[k][0] && w < (uint64_t)(uintptr_t)sec[k][1])
            return (0x5CA4ULL << 48) ^ (k << 40) ^ (w - (uint64_t)(uintptr_t)sec[k][0]);
    uint64_t h = 0xcbf29ce484222325ULL;
    if (string) {{ for (size_t i = 0; i < 4096; i++) {{ h ^= p[i]; h *= 0x100000001b3ULL; if (!p[i]) break; }} }}
    else h = sc_fnv(h, p, n);
    return (h & ~(0xFFFFULL << 48)) | (0x5CA2ULL << 48);
}}"""


def _hash_buffers(plan: Plan) -> str:
    parts = ["uint64_t h = 0xcbf29ce484222325ULL;", "if (in->deep) { sc_clear_loose(in); return sc_hash_deep(h, in); }"]
    for k, p in enumerate(plan.params):
        if p.null_offsets:
            parts.append(f"if (in->pv[{k}]) sc_tagptrs{k}(in->pv[{k}]);")
        if p.role in ("array", "cstring"):
            parts.append(f'sc_dump_label = "{p.name}";')
        if p.role == "array" and p.element.role == "float" and not p.record:
            et = p.element.ctype
            parts.append(f"h = sc_fnv_fp(h, in->pv[{k}], in->len[{k}], sizeof({et}), sc_nan_loose);")
        elif p.role == "array":
            parts.append(f"h = sc_fnv(h, in->pv[{k}], in->len[{k}] * sizeof({p.element.ctype}));")
        elif p.role == "cstring":  # NULL only where the program passed NULL (a recorded call)
            parts.append(f"if (in->pv[{k}]) h = sc_fnv(h, in->pv[{k}], in->len[{k}] + 1);")
    return " ".join(parts)


FP_STATE_C = """/* The SSE floating-point mode a call runs in: the default, but on one input in eight a rounding mode of
 * fesetround's or flush-to-zero with denormals-are-zero (what -ffast-math's startup sets), as a program may
 * run it; the original's runs and the candidate's alike. A candidate that sets its own mode is wrong there. */
static uint32_t sc_fp_mode(uint64_t i) {
    static const uint32_t modes[4] = { 0x1f80 | 0x4000, 0x1f80 | 0x2000, 0x1f80 | 0x6000, 0x1f80 | 0x8040 };
    uint64_t w = sc_mix(i ^ 0xfe5e7ULL);
    return (w & 7) == 0 ? modes[(w >> 3) & 3] : 0x1f80;
}
/* The exception flags set before a call: none, but on one input in four some of the five C has (a program's
 * earlier arithmetic left them), which the call must leave set (sc_plain.h's sc_fp_flags). */
static uint32_t sc_fp_pre(uint64_t i) {
    uint64_t w = sc_mix(i ^ 0xf1a65ULL);
    return (w & 3) == 0 ? (uint32_t)(w >> 8) & 0x3d : 0;
}
extern uint32_t sc_state[4]; /* sc_thunk.S: MXCSR before [0] and after [2] a call through it */"""


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
    lines.append('    printf(")");')
    lines += _show_overlaps(plan)
    lines.append('    printf("\\n");')
    return "\n".join(lines)


def _show_overlaps(plan: Plan) -> list[str]:
    """C: where two of the input's buffers overlap (C lets them, unless one is `restrict`), say so: a result
    that differs only there is otherwise a puzzle (a vectorized rewrite that is right on separate buffers)."""
    bufs = [k for k, p in enumerate(plan.params) if p.role in ("array", "cstring")]
    lines = []
    for a in bufs:
        for b in bufs:
            if a >= b:
                continue
            na, nb = plan.params[a].name, plan.params[b].name
            ea, eb = (buffer_bytes(plan, k) for k in (a, b))
            lines.append(
                f"    {{ const unsigned char *pa = in->pv[{a}], *pb = in->pv[{b}]; size_t ea = pa ? {ea} : 0, eb = pb ? {eb} : 0;"
                " if (ea && eb && pa < pb + eb && pb < pa + ea) {"
                f' if (pa == pb) printf(" [{na} and {nb} are the same memory");'
                f' else if (pa < pb) printf(" [{nb} lies %zu bytes into {na}", (size_t)(pb - pa));'
                f' else printf(" [{na} lies %zu bytes into {nb}", (size_t)(pa - pb));'
                ' printf(": C lets them overlap; where no caller does, declare them restrict]"); } }'
            )
    return lines


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


def _plain_callers(plan: Plan, ret: str, types: list[str], draw: int) -> str:
    """Two C callers of the function by its name (sc_fn): a candidate called from them is called as from
    any compiled C function, a direct call and compiled code after it, and cannot tell them from a real
    caller by an indirect call. Each checks what it kept across the call, in its own compiled code: the
    first some values in registers (callee-saved ones, the compiler's choice), the second some words in its
    frame, above the function's return address. How many, and their constants, are drawn for each harness
    (`draw`, verify/layout.py: unknown outside the process), so that the bytes after the call differ from one
    harness to the next. One input in eight the trampoline calls them (and still checks the calling
    convention around them); one in four the harness's own C calls them, on its own stack, no trampoline
    anywhere (sc_call_native; sc_plain.h says what they check then). A change is SC_ABI_CALLER."""
    rng = random.Random(draw)
    n_regs, n_words, n_pad = rng.randint(3, 6), rng.randint(2, 6), rng.randint(4, 40)
    const = [f"0x{rng.getrandbits(64):x}ULL" for _ in range(n_regs + n_words)]
    odd = [f"0x{rng.getrandbits(32) | 1:x}ULL" for _ in range(n_regs)]
    params = ", ".join(f"{t} a{k}" for k, t in enumerate(types)) or "void"
    args = ", ".join(f"a{k}" for k in range(len(types)))
    decl = ", ".join(types) or "void"
    get = "" if ret == "void" else f"{ret} r = "
    give = "return;" if ret == "void" else "return r;"
    regs = ", ".join(f'"+r"(v{k})' for k in range(n_regs))
    values = ", ".join(
        f"v{k} = {'s' if k % 3 == 0 else '~s' if k % 3 == 1 else '(s >> 7)'} ^ {const[k]}" for k in range(n_regs)
    )
    fold = "0"
    for k in range(n_regs):
        fold = f"({fold}) * {odd[k]} + v{k}"
    words = ", ".join(f"s ^ {const[n_regs + k]}" for k in range(n_words))
    kept = " || ".join(f"keep[{k}] != (s ^ {const[n_regs + k]})" for k in range(n_words))
    typed = f"(({ret} (*)({decl}))sc_native_target)"
    repoint = " ".join(f"a{k} = in->pv[{k}];" for k, p in enumerate(plan.params) if p.role in ("array", "cstring"))
    unmove = (
        f"r = ({ret})(uintptr_t)sc_moved_ptr((uintptr_t)r);"
        if plan.ret is not None and plan.ret.role in ("pointer", "string")
        else ""
    )
    return f"""#define SC_REPEATED (SC_NRANDOM ? SC_NEDGE : ~0ULL) /* the input called again and again (sc_verify.h) */
extern {ret} sc_fn_by_name({decl}) __asm__("sc_fn"); /* the function, called by its name */
static volatile uint64_t sc_plain_seed;
static uint64_t sc_plain_want;
__attribute__((noinline)) static {ret} sc_plain_regs({params}) {{
    uint64_t s = sc_plain_seed, {values};
    sc_plain_want = {fold};
    __asm__ volatile("" : {regs});
    sc_plain_enter();
    {get}sc_fn_by_name({args});
    sc_plain_leave();
    __asm__ volatile("" : {regs});
    if ({fold} != sc_plain_want) sc_plain_bad = 1;
    {give}
}}
__attribute__((noinline)) static {ret} sc_plain_frame({params}) {{
    uint64_t s = sc_plain_seed;
    volatile uint64_t keep[{n_words}] = {{ {words} }};
    sc_plain_enter();
    {get}sc_fn_by_name({args});
    sc_plain_leave();
    if ({kept}) sc_plain_bad = 1;
    {give}
}}
/* which caller input `i` is called from: the trampoline's own indirect call (one in two), a plain caller
 * through the trampoline (one in four), or a plain caller from the harness's C alone (one in four) */
static void *sc_native_target;
/* whether input i is called from the harness's C alone (sc_caller_for), where nothing forces the trampoline */
static int sc_is_native(uint64_t i) {{ return i == SC_REPEATED || (sc_mix(i ^ 0xca11e7ULL) & 7) >= 6; }}
static sc_input *sc_native_in;
static void *sc_caller_for(uint64_t i) {{
    uint64_t w = sc_mix(i ^ 0xca11e7ULL);
    sc_plain_seed = sc_mix(w);
    sc_plain_bad = 0;
    sc_plain_used = 0;
    sc_plain_native = 0;
    if (sc_force_tramp) return (void *)sc_fn;
    if (i == SC_REPEATED) w |= 6; /* called again and again (sc_verify.h's sc_repeat): from the harness's C alone */
    sc_plain_used = (w & 7) >= 4;
    sc_plain_native = (w & 7) >= 6;
    sc_native_target = (w & 1) ? (void *)sc_plain_frame : (void *)sc_plain_regs;
    return sc_plain_used ? sc_native_target : (void *)sc_fn;
}}
{_movable(plan)}
/* The call from the harness's own C, on its own stack: below drawn words of this frame (sc_plain_pad) and,
 * where the input's buffers move (sc_plain.h), a copy of them in this frame or in the .bss */
__attribute__((noinline)) static {ret} sc_call_native({params}) {{
    void **pv[SC_NP]; size_t bytes[SC_NP]; unsigned char *lo[SC_NP], *hi[SC_NP];
    sc_input *in = sc_native_in;
    unsigned n = sc_movable(in, pv, bytes, lo, hi);
    uint64_t w = sc_mix(sc_plain_seed ^ 0x5e7ULL);
    int where = n ? (int)(w & 3) : 0; /* 1, 2: this frame; 3: the .bss; 0: where they are */
    size_t room = where == 1 || where == 2 ? sc_move_room(bytes, n) : 0;
    if (room > ((size_t)64 << 10)) room = 0, where = 0;
    volatile uint64_t zone[{n_pad} + (room + 7) / 8]; /* the words nearest the call, then the copies */
    sc_plain_pad_fill(zone, {n_pad}, w);
    if (where == 1 || where == 2) /* from a 64-byte boundary: each copy at its buffer's address modulo 64 */
        sc_move((unsigned char *)(((uintptr_t)(zone + {n_pad}) + 63) & ~(uintptr_t)63), room - 64, pv, bytes, lo, hi, n, w);
    if (where == 3) sc_move(sc_near + 64 * (w >> 58), SC_NEAR_BYTES - 4096, pv, bytes, lo, hi, n, w);
    {repoint} /* the buffers' new places */
    {get}{typed}({args});
    sc_plain_pad_check(zone, {n_pad}, w);
    {unmove}
    sc_move_back(pv, n);
    {give}
}}"""


def render_verify(
    plan: Plan,
    seed: int,
    n_random: int,
    snapshots: str = "",
    recorded: RecordedInputs | None = None,
    blob: Path | None = None,
    callers: int = 0,
) -> str:
    """The verification harness: links with one object that defines `sc_fn`; `callers` draws its plain C
    callers (_plain_callers); `snapshots` is the C of
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
    elif plan.ret.role in ("pointer", "string"):
        names = ", ".join(f'"{p.name}"' for p in plan.params) or '""'
        show_ret = (
            f"static const char *nm[] = {{{names}}}; unsigned b = (unsigned)(bits >> 40) & 0xff; "
            'if (!bits) printf("NULL\\n"); '
            'else if (bits >> 48 == 0x5CA3) printf("a pointer into the stack (a local of a call that has returned)\\n"); '
            'else if (bits >> 48 == 0x5CA5) printf("a pointer %llu bytes into heap block %u (one the call allocated)\\n", '
            "(unsigned long long)(bits & 0xffffffffffULL), b); "
            'else if (bits >> 48 == 0x5CA4) printf("a pointer %llu bytes into the file\'s writable data\\n", '
            "(unsigned long long)(bits & 0xffffffffffULL)); "
            "else if (bits >> 48 == 0x5CA1) { if (b < SC_NP) printf(\"a pointer %llu bytes into '%s'\\n\", "
            '(unsigned long long)(bits & 0xffffffffffULL), nm[b]); else printf("a pointer %llu bytes into '
            'recorded region %u\\n", (unsigned long long)(bits & 0xffffffffffULL), b - SC_NP); } '
            + (
                'else { printf("a pointer to \\""); for (int t = 0; t < 60 && sc_last_ret[t]; t++) '
                "{ unsigned char c = sc_last_ret[t]; if (c >= 32 && c < 127 && c != 34 && c != 92) putchar(c); "
                'else printf("\\\\x%02x", c); } printf("\\"\\n"); }'
                if plan.ret.role == "string"
                else 'else printf("a pointer to data with digest 0x%012llx\\n", '
                "(unsigned long long)(bits & 0xffffffffffffULL));"
            )
        )
    elif plan.ret.role == "int" and plan.ret.signed:
        show_ret = 'printf("%lld\\n", (long long)(int64_t)bits);'
    else:
        show_ret = 'printf("%llu\\n", (unsigned long long)bits);'
    writes = any(p.role in ("array", "cstring") and not p.ctype.startswith("const") for p in plan.params)
    return f"""#include "sc_rt.h"
#include "sc_sandbox.h"
#include "sc_heap.h"
#include "sc_files.h"
#include "sc_plain.h"
{render_inputs(plan, seed, n_random, recorded, blob)}
{_ret_ptr(plan)}
static volatile uint64_t sc_cur;
static uint64_t sc_upper_junk(uint64_t k);
extern void sc_tramp(void);
extern void *sc_target;
extern char sc_fn[];
{_plain_callers(plan, ret, types, callers)}
#define SC_WRITES_BUFFERS {int(writes)}
#define SC_NSTACK {stack_words(plan.params)}
{_read_only(plan)}
{FP_STATE_C}
static uint64_t sc_call(sc_input *in) {{
    sc_rng jr = {{ sc_mix(sc_cur ^ 0x77aa55ULL) }};
    sc_ro_begin(in);
    sc_target = sc_caller_for(sc_cur);
    uint32_t fp_mode = sc_fp_mode(sc_cur) | sc_fp_pre(sc_cur); /* always: the harness's own arithmetic (a float
    input drawn) may have raised flags since the last call */
    __asm__ volatile("ldmxcsr %0" :: "m"(fp_mode));
    sc_native_in = in;
    void **hv[SC_NP]; size_t hb[SC_NP]; unsigned char *hl[SC_NP], *hh[SC_NP]; /* sc_plain.h's sc_move_heap */
    unsigned nh = sc_heapzone && (sc_mix(sc_cur ^ 0x4ea9ULL) & 7) == 0 ? sc_movable(in, hv, hb, hl, hh) : 0;
    if (nh) sc_move_heap(hv, hb, nh, sc_mix(sc_cur ^ 0x4eaaULL));
    {"" if plan.ret is None else ret + " ret = "}sc_plain_native ? sc_call_native({", ".join(vals)}) : {call};
    {"if (nh) ret = (" + ret + ")(uintptr_t)sc_moved_ptr((uintptr_t)ret); " if plan.ret is not None and plan.ret.role in ("pointer", "string") else ""}if (nh) sc_move_back(hv, nh);
    uint32_t fp_after = sc_plain_native ? sc_plain_mx_after : sc_state[2];
    {{ uint32_t d = 0x1f80; __asm__ volatile("ldmxcsr %0" :: "m"(d)); }}
    sc_fp_flags = (fp_after & 0x0d) | ((fp_mode & ~fp_after & 0x3d) << 8);
    sc_ro_end();
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
static unsigned sc_watch_regions(const sc_input *in);
{_perturb(plan)}
#include "sc_verify.h"
{_watched(plan)}
"""
