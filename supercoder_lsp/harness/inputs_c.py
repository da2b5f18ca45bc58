"""The C input generator shared by the verification and timing harnesses.

Both harnesses include this generated code, so the inputs a candidate is
verified on and the inputs it is timed on come from one definition.

Input i is a pure function of (seed, i): edge inputs first (the cross product
of each parameter's edge values when it is small, else seeded picks from
it), then random inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from .contract import STATIC_ALIAS
from .plan import LONG_STRIDE, OWNED_DATA, TRAP, OwnedPlan, ParamPlan, Plan
from .recorded import RecordedInputs, render_replay

EDGE_CAP = 50_000
# every length up to 17, multiples of 8 up to 128 and powers of two (and three times them) up to 4096, each +-1:
# past every vector width and unroll factor
LENGTH_EDGES = tuple(
    sorted(
        set(range(18))
        | {m * 8 + d for m in range(1, 17) for d in (-1, 0, 1)}
        | {k * 2**e + d for e in range(3, 13) for k in (1, 3) for d in (-1, 0, 1)}
    )
)
FLOAT_EDGES = (
    "0.0",
    "-0.0",
    "1.0",
    "-1.0",
    "0.5",
    "-0.5",
    "2.0",
    "3.0",
    "0.1",
    "-7.25",
    "1e10",
    "-1e10",
    "1e-300",
    "2.2250738585072014e-308",
    "4.9e-324",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "1.17549435e-38",
    "3.40282347e38",
    "1.4e-45",
    "3.141592653589793",
    "(1.0/0.0)",
    "(-1.0/0.0)",
    "(0.0/0.0)",
    "(-(0.0/0.0))",
)


def int_edges(bits: int, signed: bool, lo=None, hi=None) -> list[int]:
    mn = -(1 << (bits - 1)) if signed else 0
    mx = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    vals = {0, 1, 2, 3, mx, mx - 1, mn, mn + 1}
    for k in range(1, bits):
        for d in (-1, 0, 1):
            vals.add((1 << k) + d)
            if signed:
                vals.add(-(1 << k) + d)
    p = 1
    while p <= mx:
        vals.update({p - 1, p, p + 1} | ({-p + 1, -p, -p - 1} if signed else set()))
        p *= 10
    umask = (1 << bits) - 1
    for pat in (0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0F0F0F0F0F0F0F0F, 0x8000000000000001, 0x00FF00FF00FF00FF):
        u = pat & umask
        vals.add(u - (1 << bits) if signed and u >> (bits - 1) else u)
    for k in (0, bits // 2, bits - 1):  # all ones with one bit clear
        u = umask ^ (1 << k)
        vals.add(u - (1 << bits) if signed and u >> (bits - 1) else u)
    if signed:
        vals.add(-1)
    lo = mn if lo is None else lo
    hi = mx if hi is None else hi
    vals |= {lo, hi, min(lo + 1, hi), max(hi - 1, lo)}
    return sorted(v for v in vals if lo <= v <= hi and mn <= v <= mx)


def _u64(v: int) -> str:
    return f"0x{v & ((1 << 64) - 1):x}ULL"


def _edges(p: ParamPlan) -> list[str]:
    """C literals of the parameter's edge values (for arrays and strings: lengths)."""
    if p.role == "bool":
        return ["0", "1"]
    if p.role == "int":
        return [_u64(v) for v in int_edges(p.bits, p.signed, p.lo, p.hi)]
    if p.role == "float":
        vals = list(FLOAT_EDGES)
        if p.lo is not None and p.hi is not None:
            vals = [repr(float(p.lo)), repr(float(p.hi)), repr((float(p.lo) + float(p.hi)) / 2)]
        return vals
    lo = p.lo or 0
    lens = sorted({n for n in LENGTH_EDGES if lo <= n <= p.max_len} | {lo, p.max_len})
    return [str(n) for n in lens]


def _elem_gen(e: ParamPlan, dst: str) -> str:
    if e.role == "float":
        return f"{dst} = ({e.ctype})sc_rand_double(&r);"
    if e.role == "bool":
        return f"{dst} = (_Bool)(sc_next(&r) & 1);"
    return f"{dst} = ({e.ctype})sc_rand_int(&r, {e.bits}, {int(e.signed)});"


def render_inputs(
    plan: Plan, seed: int, n_random: int, recorded: RecordedInputs | None = None, blob: Path | None = None
) -> str:
    """C code: SC_NP, SC_NINPUTS, sc_input, sc_setup() and sc_gen(i, in). Inputs past the edge and
    random ones are the program's recorded calls (harness/recorded.py; their bytes in the file `blob`)."""
    ps = plan.params
    n = max(len(ps), 1)
    regions = recorded.region_bytes if recorded else []
    out = [
        f"#define SC_NP {n}\n#define SC_NR {max(len(regions), len(owned_sizes(plan)), 1)}",
        "typedef struct { uint64_t iv[SC_NP]; double fv[SC_NP]; void *pv[SC_NP]; size_t len[SC_NP];",
        "    /* a deep recorded call (harness/recorded.py): buffer bytes, where the program had them, its regions */",
        "    size_t pbytes[SC_NP]; uint64_t pa[SC_NP]; void *rp[SC_NR]; size_t rlen[SC_NR]; uint64_t ra[SC_NR];",
        "    uint32_t nr, deep; } sc_input;",
        "static sc_guard sc_g[SC_NP], sc_rg[SC_NR];",
    ]
    if plan.constants:
        out.append(f"#define SC_NDICT {len(plan.constants)}")
        out.append(f"static const uint64_t sc_dict[] = {{{', '.join(_u64(c) for c in plan.constants)}}};")
    if plan.field_constants:
        flat = [c for off in sorted(plan.field_constants) for c in plan.field_constants[off]]
        out.append(f"static const uint64_t sc_fdict[] = {{{', '.join(_u64(c) for c in flat)}}};")
    out.append(DEEP_C)
    out += pointer_fields(plan)
    out.append(render_replay(plan, recorded, blob))
    radices = []
    for k, p in enumerate(ps):
        if p.role == "length":
            continue
        e = _edges(p)
        mult = 3 if p.role in ("array", "cstring") else 1  # three element patterns per length
        radices.append((k, len(e) * mult))
        ctype = "double" if p.role == "float" else "uint64_t"
        out.append(f"static const {ctype} sc_edge{k}[] = {{{', '.join(e)}}};")
    product = math.prod(r for _, r in radices) if radices else 1
    full = product <= EDGE_CAP
    n_edge = product if full else EDGE_CAP // 2
    out.append(
        f"#define SC_NEDGE {n_edge}ULL\n#define SC_NRANDOM {n_random}ULL\n"
        f"#define SC_NINPUTS ({n_edge}ULL + {n_random}ULL + SC_NREC)\n#define SC_SEED {_u64(seed)}"
    )
    out.append(
        "static size_t sc_probe_len[SC_NP] __attribute__((unused)); /* verify/probe.py: SC_PROBE_LEN=k:n[,j:m...] */"
    )
    out += _long_inputs()
    out.append("static void sc_setup(void) {")
    out.append("    sc_pool_init(sc_mix(SC_SEED ^ 0x706f6f6cULL));")
    out.append("    sc_cdict_load(); /* the candidate's constants, in its own pass (harness/sc_cdict.h) */")
    if any(p.probe for p in ps):  # the probed buffer moves between the two sides, no other one (verify/probe.py)
        # k:n moves buffer k between the sides, with n elements; each j:m after it fixes buffer j's length
        # (one probed before it), which stays on its side
        out.append(
            '    { const char *s = sc_getenv("SC_PROBE_LEN"); unsigned k; unsigned long n; int used;'
            ' if (s && sscanf(s, "%u:%lu%n", &k, &n, &used) == 2 && k < SC_NP) { sc_probe_len[k] = n;'
            " for (unsigned j = 0; j < SC_NP; j++) sc_g[j].still = j != k;"
            " for (unsigned j = 0; j < SC_NR; j++) sc_rg[j].still = 1;"
            ' for (s += used; sscanf(s, ",%u:%lu%n", &k, &n, &used) == 2 && k < SC_NP; s += used)'
            " sc_probe_len[k] = n; } }"
        )
    for k, p in enumerate(ps):
        if p.role in ("array", "cstring"):
            size = f"sizeof({p.element.ctype})" if p.role == "array" else "1"
            most = recorded.max_bytes.get(k, 0) if recorded else 0
            out.append(f"    sc_guard_init(&sc_g[{k}], sc_max(({max(p.max_len, _long(p))} + 68) * {size}, {most}));")
    owned = owned_sizes(plan)
    for j in range(max(len(regions), len(owned))):
        most = max(regions[j] if j < len(regions) else 0, owned[j] if j < len(owned) else 0)
        out.append(f"    sc_guard_init(&sc_rg[{j}], {most} + 64);")
    out.append("}")
    rel_top, relations = _field_relations(plan)
    out += rel_top
    out += _nans_meet(plan)
    out.append("static void sc_gen_input(uint64_t i, sc_input *in) {")
    out.append("    sc_rng r = { sc_mix(SC_SEED ^ (i * 0xd1342543de82ef95ULL)) };")
    out.append(
        "    int edge = i < SC_NEDGE; uint64_t idx = i; (void)idx; (void)edge; int len_set[SC_NP] = {0}; (void)len_set;"
    )
    out.append("    size_t len_of[SC_NP] = {0}; (void)len_of;")
    # the candidate's constants (sc_cdict.h), where given: drawn apart from `r`, so that the other inputs stay
    out.append("    sc_rng dr = { sc_mix(i ^ 0xd1c7d1c7ULL) }; int dict = sc_ncdict && !edge; (void)dr; (void)dict;")
    out.append(
        "    int at_start = (int)(sc_mix(i ^ 0x5eed) & 1) ^ sc_flip_sides; (void)at_start; /* buffer against the guard before or after it */"
    )
    out.append("    memset(in, 0, sizeof *in);")
    out.append("    sc_loose = 0; /* a recorded call's regions lie as the program's, against their guards */")
    if owned_sizes(plan):
        out.append("    int sc_owned = 0;")
    out.append("    if (i >= SC_NEDGE + SC_NRANDOM) { sc_replay(i - SC_NEDGE - SC_NRANDOM, in, at_start); return; }")
    # one generated input in four: every buffer where a malloc'd block would lie (sc_rt.h); in the self-check,
    # tight against the guard after it, so that a read past it shows
    out.append("    if (sc_loose_for(i) && sc_flip_sides) at_start = 0;")
    for k, p in enumerate(ps):
        if p.role == "length":
            continue
        ne = len(_edges(p))
        mult = 3 if p.role in ("array", "cstring") else 1
        pick = (
            f"uint64_t e{k} = edge ? {'idx % ' + str(ne * mult) if full else 'sc_below(&r, ' + str(ne * mult) + ')'} : 0;"
            f" idx /= {ne * mult};"
        )
        out.append(f"    {pick}")
        if p.role in ("int", "bool"):
            if p.role == "bool":
                rnd = "sc_next(&r) & 1"
            else:
                rnd = f"sc_rand_int(&r, {p.bits}, {int(p.signed)})"
                if p.lo is not None and p.hi is not None:
                    rnd = f"sc_clamp({rnd}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
            out.append(f"    in->iv[{k}] = edge ? sc_edge{k}[e{k}] : {rnd};")
            if p.role == "int":  # one random input in sixteen: near an edge of its type (sc_near_edge); apart from `r`
                near = f"sc_near_edge(sc_mix(i ^ (0xed6fULL + {k})), {p.bits}, {int(p.signed)})"
                if p.lo is not None and p.hi is not None:
                    near = f"sc_clamp({near}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
                out.append(f"    if (!edge && (sc_mix(i ^ (0xed6eULL + {k})) & 15) == 0) in->iv[{k}] = {near};")
                cand = "sc_cdict_draw(&dr)"
                if p.lo is not None and p.hi is not None:
                    cand = f"sc_clamp({cand}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
                out.append(f"    if (dict && sc_below(&dr, 2)) in->iv[{k}] = {cand};")
        elif p.role == "float":
            rnd = "sc_rand_double(&r)"
            if p.lo is not None and p.hi is not None:
                rnd = f"({float(p.lo)!r} + ({float(p.hi)!r} - {float(p.lo)!r}) * ((double)(sc_next(&r) >> 11) / 9007199254740992.0))"
            out.append(f"    in->fv[{k}] = edge ? sc_edge{k}[e{k}] : {rnd};")
            if p.lo is None or p.hi is None:
                out.append(
                    f"    if (dict && sc_below(&dr, 2)) in->fv[{k}] = sc_cdict_double(&dr, {int(p.ctype == 'float')});"
                )
        else:
            out += _buffer(plan, k, p, ne)
    for k, p in enumerate(ps):  # a length passed by pointer: the buffer's capacity, or less (one in four)
        if p.capacity_of is not None:
            i, et = p.capacity_of, p.element.ctype
            out.append(
                f"    if (in->len[{k}]) {{ uint64_t v = sc_below(&r, 4) == 0 ? sc_below(&r, in->len[{i}] + 1)"
                f" : in->len[{i}]; (({et} *)in->pv[{k}])[0] = ({et})v; }}"
            )
    out += relations
    out += _keys_from_data(plan)
    out += _aliasing(plan)
    out += _inside(plan)
    if owned_sizes(plan):  # a struct generated with what it owns: compared as a deep call is (its words
        # from each buffer's start: where the buffer lies, at the start or the end of its pages, changes nothing)
        out.append("    if (sc_owned) { in->deep = 1;")
        for k, p in enumerate(plan.params):
            if p.role == "array":
                out.append(f"        in->pa[{k}] = 0; in->pbytes[{k}] = in->len[{k}] * sizeof({p.element.ctype});")
            elif p.role == "cstring":
                out.append(f"        in->pa[{k}] = 0; in->pbytes[{k}] = in->len[{k}] + 1;")
        out.append("    }")
    out.append("}")
    out.append("static void sc_gen(uint64_t i, sc_input *in) { sc_gen_input(i, in); sc_nan_loose = sc_nans_meet(in); }")
    return "\n".join(out)


def _nans_meet(plan: Plan) -> list[str]:
    """C: `sc_nans_meet(in)`, whether two NaNs may meet in the call: its float inputs hold a NaN other than
    the one x86 makes (0xfff8000000000000, 0xffc00000: inf - inf, inf * 0, 0 / 0, and overflows lead there
    from any numbers). Which NaN an operation on two gives is not IEEE 754's to say (x86 gives its first
    operand's; a compiler that commutes `s + a * b` gives the other), so there a float result's NaN is
    compared as any NaN (sc_rt.h: sc_fnv_fp); elsewhere bit for bit (fabs of x86's NaN differs from it)."""
    out = ["static int sc_nans_meet(const sc_input *in) {", "    (void)in;"]
    for k, p in enumerate(plan.params):
        if p.role == "float":
            out.append(f"    if (sc_other_nan_{'f' if p.ctype == 'float' else 'd'}(({p.ctype})in->fv[{k}])) return 1;")
        elif p.role == "array" and p.element.role == "float" and not p.record:
            et = p.element.ctype
            out.append(
                f"    if (in->pv[{k}]) for (size_t t = 0; t < in->len[{k}]; t++)"
                f" if (sc_other_nan_{'f' if et == 'float' else 'd'}(((const {et} *)in->pv[{k}])[t])) return 1;"
            )
    out += ["    return 0;", "}"]
    return out


DEEP_C = r"""
/* Buffer b of a deep recorded call: parameter b, or region b - SC_NP; its bytes. */
static unsigned char *sc_deep_buf(const sc_input *in, unsigned b, size_t *len) {
    if (b < SC_NP) { *len = in->pv[b] ? in->pbytes[b] : 0; return in->pv[b]; }
    *len = in->rlen[b - SC_NP]; return in->rp[b - SC_NP];
}
/* the program's address of buffer b: the phase of its 8-byte words */
static uint64_t sc_deep_orig(const sc_input *in, unsigned b) { return b < SC_NP ? in->pa[b] : in->ra[b - SC_NP]; }
/* which buffer (at the addresses `at`) holds w, and where; one past a buffer's end if no buffer holds it */
static int sc_deep_find(const sc_input *in, const uint64_t *at, uint64_t w, uint64_t *off) {
    unsigned nb = SC_NP + in->nr; size_t len; int end = -1;
    for (unsigned b = 0; b < nb; b++) {
        sc_deep_buf(in, b, &len);
        if (!at[b] || !len || w < at[b] || w > at[b] + len) continue;
        if (w < at[b] + len) { *off = w - at[b]; return (int)b; }
        if (end < 0) end = (int)b;
    }
    if (end >= 0) { sc_deep_buf(in, (unsigned)end, &len); *off = len; }
    return end;
}
/* [lo, hi]: the addresses any buffer at `at` holds (or is one past); a word outside is in none of them,
 * and most words (data, not pointers) are: sc_deep_find is not asked about them */
static void sc_deep_span(const sc_input *in, const uint64_t *at, uint64_t *lo, uint64_t *hi) {
    *lo = UINT64_MAX; *hi = 0;
    for (unsigned b = 0; b < SC_NP + in->nr; b++) {
        size_t len; sc_deep_buf(in, b, &len);
        if (!at[b] || !len) continue;
        if (at[b] < *lo) *lo = at[b];
        if (at[b] + len > *hi) *hi = at[b] + len;
    }
}
/* every 8-byte word of the buffers that held an address in buffer j (at `from`) now points there in this copy */
static void __attribute__((unused)) sc_relocate(sc_input *in, const uint64_t *from) {
    unsigned nb = SC_NP + in->nr; uint64_t lo, hi;
    sc_deep_span(in, from, &lo, &hi);
    for (unsigned b = 0; b < nb; b++) {
        size_t len; unsigned char *p = sc_deep_buf(in, b, &len);
        for (size_t o = (8 - (sc_deep_orig(in, b) & 7)) & 7; p && o + 8 <= len; o += 8) {
            uint64_t w, off; memcpy(&w, p + o, 8);
            int j = w < lo || w > hi ? -1 : sc_deep_find(in, from, w, &off);
            if (j < 0) continue;
            size_t jl; w = (uint64_t)(uintptr_t)sc_deep_buf(in, (unsigned)j, &jl) + off; memcpy(p + o, &w, 8);
        }
    }
}
/* The hash of every buffer of a deep call: an address inside one of them counts as (buffer, offset),
 * so where the function leaves a pointer is compared, never the address itself; one elsewhere as
 * sc_mapped_word (harness/sc_heap.h) says: a block the call allocated, the static data it points to. */
static uint64_t __attribute__((unused)) sc_hash_deep(uint64_t h, const sc_input *in) {
    uint64_t at[SC_NP + SC_NR] = {0}; unsigned nb = SC_NP + in->nr;
    for (unsigned b = 0; b < nb; b++) { size_t len; at[b] = (uint64_t)(uintptr_t)sc_deep_buf(in, b, &len); }
    uint64_t lo, hi;
    sc_deep_span(in, at, &lo, &hi);
    for (unsigned b = 0; b < nb; b++) {
        size_t len, o = 0; const unsigned char *p = sc_deep_buf(in, b, &len);
        if (!p) continue;
        size_t first = (8 - (sc_deep_orig(in, b) & 7)) & 7;
        for (; o < first && o < len; o++) { h ^= p[o]; h *= 0x100000001b3ULL; }
        uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3}; /* four chains, not one: a multiply's latency per word */
        for (size_t q = 0; o + 8 <= len; o += 8, q++) {
            uint64_t w, off; memcpy(&w, p + o, 8);
            int j = w < lo || w > hi ? -1 : sc_deep_find(in, at, w, &off);
            w = j >= 0 ? (0x5CA1ULL << 48) ^ ((uint64_t)j << 40) ^ off : sc_mapped_word(w);
            uint64_t *l = &lane[q & 3]; *l ^= w; *l *= 0x100000001b3ULL; *l ^= *l >> 29;
        }
        for (int q = 0; q < 4; q++) { h ^= lane[q]; h *= 0x100000001b3ULL; h ^= h >> 29; }
        for (; o < len; o++) { h ^= p[o]; h *= 0x100000001b3ULL; }
    }
    return h;
}
"""


def pointer_fields(plan: Plan) -> list[str]:
    """For each struct parameter with pointer fields, `sc_nullptrs<k>(p)`: set them to NULL. Inputs get NULL
    there, and both harnesses clear them again before comparing: addresses differ between processes, so
    what a function writes through its pointers is compared, never pointer values themselves."""
    out = []
    for k, p in enumerate(plan.params):
        if p.null_offsets:
            out.append(f"static const uint32_t sc_ptr{k}[] = {{{', '.join(map(str, p.null_offsets))}}};")
            out.append(  # a field the call pointed at a block it allocated keeps which block, and where
                f"static void sc_nullptrs{k}(void *p) {{ for (size_t t = 0; t < sizeof sc_ptr{k} / sizeof sc_ptr{k}[0]; t++)"
                f" {{ uint64_t w, off; memcpy(&w, (char *)p + sc_ptr{k}[t], 8); int b = sc_heap_find(w, &off);"
                f" w = b < 0 ? 0 : sc_heap_tag((unsigned)b, off); memcpy((char *)p + sc_ptr{k}[t], &w, 8); }} }}"
            )
    # pointer fields given one of the file's own const structs (trees.c's stat_desc): by their global aliases
    aliases = sorted({n for p in plan.params for _, inst in p.statics for n, _ in inst})
    out += [f"extern const unsigned char {STATIC_ALIAS}{n}[];" for n in aliases]
    for k, p in enumerate(plan.params):
        for i, (_, inst) in enumerate(p.statics):
            at = ", ".join(f"{STATIC_ALIAS}{n} + {o}" for n, o in inst)
            out.append(f"static const unsigned char *const sc_st{k}_{i}[] = {{{at}}};")
    # a deep call: the struct's pointer fields that point into no buffer of the call (a string constant, a
    # function) are cleared like the fields of a generated struct; the rest are compared as (buffer, offset)
    out.append("static void __attribute__((unused)) sc_clear_loose(sc_input *in) {")
    out.append("    uint64_t at[SC_NP + SC_NR] = {0}, w, off; size_t len;")
    out.append(
        "    for (unsigned b = 0; b < SC_NP + in->nr; b++) at[b] = (uint64_t)(uintptr_t)sc_deep_buf(in, b, &len);"
    )
    for k, p in enumerate(plan.params):
        if p.null_offsets:
            out.append(
                f"    for (size_t t = 0; in->pv[{k}] && t < sizeof sc_ptr{k} / sizeof sc_ptr{k}[0]; t++) {{"
                f" unsigned char *f = (unsigned char *)in->pv[{k}] + sc_ptr{k}[t]; memcpy(&w, f, 8);"
                " if (sc_deep_find(in, at, w, &off) < 0) { int hb = sc_heap_find(w, &off);"
                " w = hb < 0 ? 0 : sc_heap_tag((unsigned)hb, off); memcpy(f, &w, 8); } }"
            )
    out.append("}")
    return out


def _field_dict(plan: Plan, off: int) -> tuple[int, int]:
    """(start, count) in sc_fdict of the values the original compares the word at byte `off` with;
    count 0 where it compares none."""
    start = 0
    for o in sorted(plan.field_constants):
        if o == off:
            return start, len(plan.field_constants[o])
        start += len(plan.field_constants[o])
    return 0, 0


def _run_of(arrays: tuple[tuple[int, int], ...], off: int) -> int:
    """1 + the index of the big array member (CType.arrays) holding the field at `off`; 0 where none does."""
    return next((q + 1 for q, (lo, hi) in enumerate(arrays) if lo <= off < hi), 0)


def _runs_drawn(name: str, n: int, indent: str = "") -> list[str]:
    """C that draws, per input, the way each of `n` big array members is given (sc_runs_draw)."""
    if not n:
        return []
    return [
        f"{indent}      unsigned char sc_how{name}[{n}], sc_b{name}[{n}];"
        f" sc_runs_draw(&r, sc_how{name}, sc_b{name}, {n});"
    ]


def _record_fields(k: int, p: ParamPlan, dictionary: bool, plan: Plan | None = None) -> list[str]:
    """A struct's integer fields drawn one by one (small values, bit lengths, powers of two, as scalar
    parameters get them; zero one time in eight, as an `err` that must be Z_OK is): random bytes would
    almost never give a count of 1 or a flag of 0. With a
    `dictionary` (the constants the original compares with), one field in eight is one of those: a
    `mode` that must be GZ_READ before the function does anything."""
    out = []
    rows = []
    for off, kind, bits, signed in p.fields:
        start, count = _field_dict(plan, off) if plan is not None and kind != "bool" else (0, 0)
        run = 0 if count else _run_of(p.arrays, off)
        rows.append(f"{{{off}, {int(kind == 'bool')}, {bits}, {int(signed)}, {start}, {count}, {run}}}")
    if rows:  # a table and a loop: zlib's deflate_state has 2,900 fields, one line each took seconds to compile
        # zero one time in eight: an err, a count
        draw = "(sc_below(&r, 8) == 0 ? 0 : sc_rand_int(&r, (int)f[2], (int)f[3]))"
        if dictionary:
            draw = f"(sc_below(&r, 8) == 0 ? sc_dict[sc_below(&r, SC_NDICT)] : {draw})"
        if plan is not None and plan.field_constants:  # a field the original compares with constants: one
            # of them, one time in two
            draw = f"(f[5] ? (sc_below(&r, 2) == 0 ? sc_fdict[f[4] + sc_below(&r, f[5])] : {draw}) : {draw})"
        nr = len(p.arrays)
        out += [
            f"    {{ static const uint32_t sc_rf{k}[][7] = {{{', '.join(rows)}}};",
            *_runs_drawn(f"{k}", nr),
            f"      for (size_t t = 0; t < {len(rows)}; t++) {{ const uint32_t *f = sc_rf{k}[t];",
            # whatever the pattern: a byte other than 0 or 1 is not a _Bool
            f"        if (f[1]) {{ ((unsigned char *)a{k})[f[0]] = (unsigned char)(sc_next(&r) & 1); continue; }}",
            *(
                [
                    f"        if (f[6] && pat{k} == 2 && sc_run_field((unsigned char *)a{k} + f[0], f[2] / 8,"
                    f" sc_how{k}[f[6] - 1], sc_b{k}[f[6] - 1])) continue;"
                ]
                if nr
                else []
            ),
            f"        if (pat{k} == 2 && (f[5] || sc_below(&r, 8) != 0)) {{ uint64_t v = {draw};"
            f" sc_put((unsigned char *)a{k} + f[0], v, f[2] / 8); }} }}",
            # one random input in two: up to four fields are another one's value (half the time), or one off
            # (a `have` checked against a `size`: wrong only where they are equal, which two draws almost never are)
            f"      if (pat{k} == 2 && sc_below(&r, 2) == 0) for (int q = 1 + (int)sc_below(&r, 4); q > 0; q--) {{",
            f"        const uint32_t *d = sc_rf{k}[sc_below(&r, {len(rows)})], *s = sc_rf{k}[sc_below(&r, {len(rows)})];",
            "        if (d[1] || s[1]) continue;",
            f"        uint64_t v = 0; memcpy(&v, (unsigned char *)a{k} + s[0], s[2] / 8);",
            "        if (s[3] && s[2] < 64 && (v >> (s[2] - 1) & 1)) v |= ~0ULL << s[2];",
            f"        uint64_t e = sc_below(&r, 4); v += e == 2 ? -1 : e == 3; memcpy((unsigned char *)a{k} + d[0], &v, d[2] / 8); }}",
        ]
        out.append("    }")
    if dictionary:  # the bytes no field describes (a public struct's larger private one): a few words from it
        out.append(
            f"    if (pat{k} == 2 && L{k} >= 4) for (int t = (int)sc_below(&r, 5); t > 0; t--) {{"
            f" uint32_t v = (uint32_t)sc_dict[sc_below(&r, SC_NDICT)];"
            f" memcpy((unsigned char *)a{k} + 4 * sc_below(&r, L{k} / 4), &v, 4); }}"
        )
    if plan is not None:  # narrowed: last, whatever drew the bytes before
        out += _narrowed_fields(plan, p.fields, f"((unsigned char *)a{k})", f"{k}", "    ")
    return out


def _narrowed_fields(plan: Plan, fields, base: str, name: str, indent: str) -> list[str]:
    """Narrowed inputs (harness.plan.narrowed): C that clears the sign bit of each signed integer field
    (plan.nonneg_fields: a skip of -1 that gz_read loops on is not a state the program makes), then sets
    each field the original compares for equality with constants to one of them or 0 (plan.enum_fields),
    whatever drew its bytes before."""
    out = []
    signed = [(off, bits) for off, kind, bits, sg in fields if kind == "int" and sg and bits >= 8]
    if plan.nonneg_fields and signed:
        rows = ", ".join(str(off + bits // 8 - 1) for off, bits in signed)  # the byte with the sign bit
        out.append(
            f"{indent}{{ static const uint32_t sc_sb{name}[] = {{{rows}}};"
            f" for (size_t t = 0; t < {len(signed)}; t++) {base}[sc_sb{name}[t]] &= 0x7f; }}"
        )
    enums, most = [], 0
    for off, kind, bits, _ in fields if plan.enum_fields else ():
        vals = plan.field_enums.get(off) if kind == "int" else None
        if vals:
            vals = tuple(dict.fromkeys((*vals, 0)))
            enums.append(f"{{{bits // 8}, {off}, {len(vals)}, {', '.join(_u64(v) for v in vals)}}}")
            most = max(most, 3 + len(vals))
    if enums:
        out += [
            f"{indent}{{ static const uint64_t sc_en{name}[][{most}] = {{{', '.join(enums)}}};",
            f"{indent}  for (size_t t = 0; t < {len(enums)}; t++) {{ const uint64_t *f = sc_en{name}[t];"
            f" uint64_t v = f[3 + sc_below(&r, f[2])]; memcpy({base} + f[1], &v, f[0]); }} }}",
        ]
    return out


@dataclass
class _Regions:
    """Where the regions generated behind the parameters lie (sc_rg[i]): each private struct, then the data
    buffer of each one that has data pointers, then that of each struct parameter that has them."""

    sizes: list[int] = field(default_factory=list)
    owned: dict[tuple[int, int], int] = field(default_factory=dict)  # (param, i-th owned) -> its region
    owned_data: dict[tuple[int, int], int] = field(default_factory=dict)  # ... -> its data buffer's region
    own_data: dict[int, int] = field(default_factory=dict)  # param -> its own data buffer's region


def _regions(plan: Plan) -> _Regions:
    out = _Regions()
    for k, p in enumerate(plan.params):
        for i, o in enumerate(p.owned):
            out.owned[k, i] = len(out.sizes)
            out.sizes.append(o.size)
    for k, p in enumerate(plan.params):
        for i, o in enumerate(p.owned):
            if o.data:
                out.owned_data[k, i] = len(out.sizes)
                out.sizes.append(OWNED_DATA)
    for k, p in enumerate(plan.params):
        if _has_own_data(p):
            out.own_data[k] = len(out.sizes)
            out.sizes.append(OWNED_DATA)
    return out


def owned_sizes(plan: Plan) -> list[int]:
    """The size of every region generated behind the parameters, in region order (_Regions)."""
    return _regions(plan).sizes


def _has_own_data(p: ParamPlan) -> bool:
    """A struct parameter of its own size (not one probed as a larger private struct) with data pointers."""
    return bool(p.data) and not (p.probe or p.probed)


def _own_data(plan: Plan, k: int, p: ParamPlan) -> list[str]:
    """C that points struct parameter k's own data pointers into a buffer (trees.c's deflate_state *s:
    pending_buf, sym_buf), on three in four random inputs; compared as a deep call is."""
    if not _has_own_data(p):
        return []
    d = _regions(plan).own_data[k]
    body = _data_pointers(1000 + k, d, OwnedPlan(0, p.max_len, (), (), p.data), f"a{k}")
    return [f"    if (pat{k} == 2 && sc_below(&r, 4) != 0) {{", *body, "        sc_owned = 1;", "    }"]


def _data_pointers(j: int, d: int, o: OwnedPlan, c: str = "c") -> list[str]:
    """C that points private struct j's data pointers (`c`) into region d, OWNED_DATA random bytes, or,
    where the struct has an array of what they point to, into that (inflate's next into its codes[]): at
    the start, a few elements in, anywhere; one in eight NULL. One buffer for all of them, so the
    original's comparisons between them (deflatePrime's sym_buf < pending_out + 8) do not depend on
    where buffers lie."""
    rows = ", ".join(f"{{{off}, {size}, {aoff}, {count}}}" for off, size, aoff, count in o.data)
    return [
        f"        static const uint32_t sc_od{j}[][4] = {{{rows}}};",
        f"        unsigned char *dd = sc_guard_place(&sc_rg[{d}], {OWNED_DATA}, at_start);",
        f"        sc_pool_fill(&r, dd, {OWNED_DATA});",
        f"        for (size_t t = 0; t < {len(o.data)}; t++) {{ const uint32_t *f = sc_od{j}[t];"
        " uint64_t k = sc_below(&r, 8), n = "
        + str(OWNED_DATA)
        + " / f[1], e = k < 3 ? 0 : k < 5 ? sc_below(&r, n < 256 ? n : 256) : sc_below(&r, n);"
        " unsigned char *q = dd + e * f[1];"
        f" if (f[3]) q = (unsigned char *){c} + f[2] + f[1] * (k < 3 ? 0 : sc_below(&r, f[3]));"
        f" if (k == 7) q = 0; memcpy((unsigned char *){c} + f[0], &q, 8); }}",
        f"        in->rp[{d}] = dd; in->rlen[{d}] = {OWNED_DATA}; in->ra[{d}] = 0; if (in->nr < {d + 1}) in->nr = {d + 1};",
    ]


def _owned(plan: Plan, k: int, p: ParamPlan) -> list[str]:
    """C that gives struct parameter k, on three in four random inputs, non-NULL function pointers that
    crash when called (where it owns a private struct and has an allocator pair, zlib's zalloc and zfree,
    those are the harness's malloc and free: deflateCopy allocates its copy with them), and the private
    structs it owns: random bytes, integer fields drawn as the
    parameter's are, pointer fields NULL but the ones back to it (z_stream's state, whose strm is the
    stream: zlib's deflateStateCheck asks for both)."""
    if not (p.code_offsets or p.owned):
        return []
    regions = _regions(plan)
    out = [f"    if (pat{k} == 2 && sc_below(&r, 4) != 0) {{"]
    kinds = dict(zip(p.code_offsets, p.code_kinds))
    pair = p.owned and sorted(kinds.values()) == ["alloc", "free"]  # a private state's allocator: callable
    for t, off in enumerate(p.code_offsets):
        w = f"(uint64_t)(uintptr_t)sc_cb_{kinds[off]}" if pair else f"{TRAP + 64 * t}ULL"
        out.append(f"        {{ uint64_t w = {w}; memcpy((unsigned char *)a{k} + {off}, &w, 8); }}")
    for i, owned in enumerate(p.owned):
        j, off, size, back = regions.owned[k, i], owned.offset, owned.size, owned.back
        ints = [(o, b, int(sg), *_field_dict(plan, o)) for o, kind, b, sg in owned.fields if kind == "int"]
        nulls = [o for o, kind, _, _ in owned.fields if kind == "pointer"]
        bools = [o for o, kind, _, _ in owned.fields if kind == "bool"]
        draw = "(sc_below(&r, 8) == 0 ? 0 : sc_rand_int(&r, (int)f[1], (int)f[2]))"
        if plan.constants:
            draw = f"(sc_below(&r, 8) == 0 ? sc_dict[sc_below(&r, SC_NDICT)] : {draw})"
        if plan.field_constants:  # a field the original compares with constants: one of them, one time in two
            draw = f"(f[4] && sc_below(&r, 2) == 0 ? sc_fdict[f[3] + sc_below(&r, f[4])] : {draw})"
        nr = len(owned.arrays)
        rows = (
            ", ".join(
                f"{{{o}, {b}, {sg}, {st}, {cn}, {0 if cn else _run_of(owned.arrays, o)}}}" for o, b, sg, st, cn in ints
            )
            or "{0, 0, 0, 0, 0, 0}"
        )
        run = (
            f" if (f[5] && sc_run_field(c + f[0], f[1] / 8, sc_howo{j}[f[5] - 1], sc_bo{j}[f[5] - 1])) continue;"
            if nr
            else ""
        )
        out += [
            "        {",  # a block per owned struct: each has its own c and dd (cJSON's next and prev, one type)
            f"        static const uint32_t sc_of{j}[][6] = {{{rows}}};",
            f"        static const uint32_t sc_op{j}[] = {{{', '.join(map(str, nulls)) or '0'}}};",
            f"        static const uint32_t sc_ob{j}[] = {{{', '.join(map(str, bools)) or '0'}}};",
            f"        unsigned char *c = sc_guard_place(&sc_rg[{j}], {size}, at_start);",
            f"        sc_pool_fill(&r, c, {size});",
            *_runs_drawn(f"o{j}", nr, "    "),
            f"        for (size_t t = 0; t < {len(ints)}; t++) {{ const uint32_t *f = sc_of{j}[t];{run}"
            f" if (f[4] || sc_below(&r, 8) != 0) {{ uint64_t v = {draw}; sc_put(c + f[0], v, f[1] / 8); }} }}",
            f"        for (size_t t = 0; t < {len(bools)}; t++) c[sc_ob{j}[t]] = (unsigned char)(sc_next(&r) & 1);",
            f"        for (size_t t = 0; t < {len(nulls)}; t++) memset(c + sc_op{j}[t], 0, 8);",
        ]
        out += _narrowed_fields(plan, owned.fields, "c", f"o{j}", "        ")
        if owned.data:
            out += _data_pointers(j, regions.owned_data[k, i], owned)
        out += [f"        memcpy(c + {b}, &a{k}, 8);" for b in back]
        out += [
            f"        memcpy((unsigned char *)a{k} + {off}, &c, 8);",
            f"        in->rp[{j}] = c; in->rlen[{j}] = {size}; in->ra[{j}] = 0;"
            f" if (in->nr < {j + 1}) in->nr = {j + 1}; sc_owned = 1;",
            "        }",
        ]
    out.append("    }")
    return out


def _long(p: ParamPlan) -> int:
    """How long the long inputs make array `p` (plan.LONG_LEN), 0 where it has none."""
    ok = (p.role == "array" and p.length_param is not None or p.role == "cstring") and not p.probe and not p.record
    return p.long_len if ok and p.long_len > p.max_len else 0


def _long_inputs() -> list[str]:
    """C: which random inputs are long ones, and how long: the first of them plan.LONG_LEN (or the most the
    length's type holds), the k-th next one a random length in the k-th octave past the usual most (4,097 to
    8,192, then to 16,384, ...), so that no range of lengths past it goes unchecked. Only
    the checking harness draws them (sc_long_ok): the timing driver times the inputs of ordinary length."""
    return [
        f"#define SC_LONG_STRIDE {LONG_STRIDE}ULL",
        "static inline int __attribute__((unused)) sc_long_for(uint64_t i) {",
        "    return sc_long_ok && i >= SC_NEDGE && i - SC_NEDGE < SC_NRANDOM && (i - SC_NEDGE) % SC_LONG_STRIDE == SC_LONG_STRIDE - 1;",
        "}",
        "static inline size_t __attribute__((unused)) sc_long_len(uint64_t i, size_t lo, size_t most) {",
        "    uint64_t k = (i - SC_NEDGE) / SC_LONG_STRIDE;",
        "    if (k == 0) return most;",
        "    uint64_t h = sc_mix(i ^ 0x10b6ULL); /* one in two the octave's top: a power of two, as buffers are */",
        "    size_t base = lo << (k - 1 < 20 ? k - 1 : 20), n = (h >> 40) & 1 ? 2 * base : base + 1 + (size_t)(h % base);",
        "    return n > most ? most : n;",
        "}",
    ]


# the words of a text (inputs_c._buffer: C strings and byte or 16-bit arrays one random input in eight):
# English, and two- and three-byte UTF-8 (Latin, Cyrillic, Greek, CJK)
PROSE_WORDS = (
    "the ", "and ", "of ", "to ", "a ", "in ", "is ", "that ", "it ", "for ", "The ", "\n", ", ", ". ", "e", "s ",
    "  ", "\t", "café ", "да ", "αβγδεζηθ", "здравствуйте ", "日本", "😀 ", "𝄞",
)  # fmt: skip


def _prose_words(k: int) -> str:
    """C: the array sc_words<k> of PROSE_WORDS, as UTF-8 bytes (octal escapes: a hex one would take the letters
    after it)."""
    lits = ", ".join(
        '"' + "".join(f"\\{b:03o}" if b >= 0x80 or b < 0x20 else chr(b) for b in w.encode()) + '"' for w in PROSE_WORDS
    )
    return f"static const char *const sc_words{k}[] = {{ {lits} }};"


def _buffer(plan: Plan, k: int, p: ParamPlan, ne: int) -> list[str]:
    """C lines that fill array or string parameter k and its length parameter."""
    lo = p.lo or 0
    out = [
        f"    size_t L{k} = edge ? (size_t)sc_edge{k}[e{k} / 3] : (sc_below(&r, 4) == 0 ? (size_t)sc_edge{k}[sc_below(&r, {ne})]"
        f" : sc_rand_len(&r, {lo}, {p.max_len}));",
        f"    int pat{k} = edge ? (int)(e{k} % 3) : (int)(sc_below(&r, 4) == 0 ? 1 : 2);",
    ]
    if _long(p):
        # besides the long inputs, one random input in 64 a length past the usual most, up to four times it
        # (a candidate wrong only where n % 4096 lies in 32..63 passed the one long input in each octave)
        out.append(
            f"    if (sc_long_ok && !edge && (sc_mix(i ^ (0x10b7ULL + {k})) & 63) == 0)"
            f" L{k} = {p.max_len + 1} + (size_t)(sc_mix(i ^ (0x10b8ULL + {k})) % {min(3 * p.max_len, _long(p) - p.max_len)});"
        )
        out.append(f"    if (sc_long_for(i)) L{k} = sc_long_len(i, {p.max_len}, {_long(p)});")
    longest = f"(sc_long_ok ? {max(p.max_len, _long(p))} : {p.max_len})"
    out.append(
        f"    if (dict && sc_below(&dr, 4) == 0) {{ uint64_t v = sc_cdict_draw(&dr); if (v >= {lo} && v <= {longest}) L{k} = v; }}"
    )
    if p.probe:  # one length per run, set by the prober
        out.append(f"    if (sc_probe_len[{k}]) L{k} = sc_probe_len[{k}];")
    j = p.length_param
    if j is not None:
        q = plan.params[j]
        out.append(
            f"    if (len_set[{j}]) L{k} = len_of[{j}]; else {{ in->iv[{j}] = L{k}; len_of[{j}] = L{k}; len_set[{j}] = 1;"
        )
        if q.signed and (p.lo or 0) <= 0:
            # a signed length is also zero or negative: where the original reads nothing, so must the candidate
            mn = _u64(-(1 << (q.bits - 1)))
            out.append(
                f"        if (!edge && sc_below(&r, 8) == 0) {{ uint64_t w = sc_below(&r, 4); L{k} = len_of[{j}] = 0;"
                f" in->iv[{j}] = w == 0 ? (uint64_t)-1 : w == 1 ? {mn} : w == 2 ? 0 : (uint64_t)-(int64_t)(1 + sc_below(&r, 5000)); }}"
            )
        out.append("    }")
    if p.role == "array":
        et = p.element.ctype
        out.append(f"    {et} *a{k} = sc_guard_place(&sc_g[{k}], L{k} * sizeof({et}), at_start);")
        out.append(f"    {et} fill{k}; {_elem_gen(p.element, f'fill{k}')}")
        if p.element.role == "int":  # one bit length per array, cheap draws per element
            out.append(
                f"    int bl{k} = sc_below(&r, 4) == 0 ? (int)sc_below(&r, {p.element.bits + 1}) : {p.element.bits};"
            )
            rnd = f"a{k}[t] = ({et})sc_rand_elem(&r, bl{k}, {p.element.bits}, {int(p.element.signed)});"
        else:
            rnd = _elem_gen(p.element, f"a{k}[t]")
        whole = ""  # a struct's bytes before its fields are drawn: from the pool, where no bit length narrows them
        if p.record and p.element.role == "int" and p.element.bits == 8:
            whole = f"if (pat{k} == 2 && bl{k} == 8) sc_pool_fill(&r, (unsigned char *)a{k}, L{k}); else "
        out.append(
            f"    {whole}for (size_t t = 0; t < L{k}; t++) {{ if (pat{k} == 1) a{k}[t] = fill{k}; "
            f"else if (pat{k} == 0) a{k}[t] = ({et})((t & 1) ? -(int64_t)t : (int64_t)t * 0x10001); "
            f"else {{ {rnd} }} }}"
        )
        if p.element.role == "int" and not p.record:
            # one random input in eight: sorted up to a random cut or to the end, as a program's sorted data:
            # increasing or (one in two, the same reversed) decreasing, by steps of 1-3 or with runs of equal
            # elements (0-2) (counted down from a small start, an unsigned one wrapped: most originals failed);
            # drawn apart from `r`
            out.append(
                f"    if (!edge && pat{k} == 2 && L{k} > 1 && (sc_mix(i ^ (0x50e7ULL + {k})) & 7) == 0) {{"
                f" sc_rng sr = {{ sc_mix(i ^ (0x5047ULL + {k})) }}; size_t cut = sc_below(&sr, 2) ? L{k} : 1 + sc_below(&sr, L{k});"
                f" uint64_t step = sc_below(&sr, 2), down = sc_below(&sr, 2); {et} v = ({et})(a{k}[0] / 4);"
                f" for (size_t t = 0; t < cut; t++) {{ a{k}[t] = v; v = ({et})(v + ({et})(step + sc_below(&sr, 3))); }}"
                f" if (down) for (size_t t = 0; t < cut / 2; t++) {{ {et} w = a{k}[t]; a{k}[t] = a{k}[cut - 1 - t];"
                f" a{k}[cut - 1 - t] = w; }} }}"
            )
            # one random input in eight (another): sparse, zero but for about one element in 2 to 4,096 (a
            # bitmap, a mostly empty table: a candidate that skips zero blocks and is wrong past them passed)
            out.append(
                f"    if (!edge && pat{k} == 2 && L{k} > 1 && (sc_mix(i ^ (0x50e7ULL + {k})) & 7) == 1) {{"
                f" sc_rng sr = {{ sc_mix(i ^ (0x59a4ULL + {k})) }}; uint64_t one_in = 2 + sc_below(&sr, 4095);"
                f" for (size_t t = 0; t < L{k}; t++) if (sc_below(&sr, one_in)) a{k}[t] = 0; }}"
            )
            # one in eight (another): one record of 2 to 16 bytes repeated (an array of equal doubles, of one struct
            # value, seen as these elements), its bytes random or those of a small double (1.0: six zero bytes):
            # a candidate wrong only on such runs passed every draw (sc_rt.h: sc_period_fill)
            out.append(
                f"    if (!edge && pat{k} == 2 && L{k} > 1 && (sc_mix(i ^ (0x50e7ULL + {k})) & 7) == 3) {{"
                f" sc_rng sr = {{ sc_mix(i ^ (0x9e71ULL + {k})) }}; size_t w = sizeof({et}), per = w >= 8 ? w << sc_below(&sr, 3) : (size_t)2 << sc_below(&sr, 4);"
                f" sc_period_fill(&sr, (unsigned char *)a{k}, L{k} * w, per); }}"
            )
            # one in eight (another): one lane of every 1, 2 or 4 elements (a field of a table of records) either
            # clustered, a common base plus deltas of up to 20 bits (timestamps, addresses), counting up from
            # it (row numbers, ids), or smooth, a sampled signal whose slope changes by -2 to 2 a step: a
            # candidate wrong on such values alone passed every random draw
            out.append(
                f"    if (!edge && pat{k} == 2 && L{k} > 2 && (sc_mix(i ^ (0x50e7ULL + {k})) & 7) == 2) {{"
                f" sc_rng sr = {{ sc_mix(i ^ (0x1a4eULL + {k})) }}; size_t s = (size_t)1 << sc_below(&sr, 3), lane = sc_below(&sr, s);"
                f" uint64_t base = (uint64_t)a{k}[0], how = sc_below(&sr, 3), step = sc_below(&sr, 2) ? 1 : 1 + sc_below(&sr, 8);"
                f" int db = 1 + (int)sc_below(&sr, 20); int64_t v = (int64_t)sc_below(&sr, 2001) - 1000, d = (int64_t)sc_below(&sr, 65) - 32;"
                f" for (size_t t = lane; t < L{k}; t += s) {{ a{k}[t] = ({et})(how == 1 ? base + (t / s) * step"
                f" : how == 0 ? base + (sc_next(&sr) >> (64 - db)) : (uint64_t)v); v += d; d += (int64_t)sc_below(&sr, 5) - 2; }} }}"
            )
            if p.element.bits in (8, 16):
                # one in eight: words of a text, as a program's bytes are (prose in a byte buffer, a UTF-16 string;
                # as C strings get them), one in two of the 8-bit ones wide: each character followed by a zero byte
                out.append(
                    f"    if (!edge && pat{k} == 2 && (sc_mix(i ^ (0x7e47ULL + {k})) & 7) == 0) {{"
                    f" {_prose_words(k)}"
                    f" sc_rng sr = {{ sc_mix(i ^ (0x7e4bULL + {k})) }}; size_t t = 0; int wide = {int(p.element.bits == 8)} && sc_below(&sr, 2);"
                    f" unsigned er = sc_edge_rate(&sr); size_t wn = 0, bad = sc_bad_at(&sr, L{k});"
                    f" while (t < L{k}) {{ const char *w = sc_text_word(&sr, sc_words{k}, sizeof sc_words{k} / sizeof *sc_words{k}, er, wn++, bad);"
                    f" while (*w && t < L{k}) {{ a{k}[t++] = ({et})*w++; if (wide && t < L{k}) a{k}[t++] = 0; }} }} }}"
                )
        out += _candidate_elements(k, p)
        out += _record_fields(k, p, bool(plan.constants), plan)
        if p.null_offsets:
            out.append(f"    sc_nullptrs{k}(a{k});")
        for i, (off, inst) in enumerate(p.statics):
            pick = f"sc_below(&r, {len(inst)})" if len(inst) > 1 else "0"
            out.append(
                f"    if (pat{k} == 2) {{ const void *w = sc_st{k}_{i}[{pick}]; memcpy((unsigned char *)a{k} + {off}, &w, 8); }}"
            )
        out += _own_data(plan, k, p)
        out += _owned(plan, k, p)
    else:
        out.append(f"    unsigned char *a{k} = sc_guard_place(&sc_g[{k}], L{k} + 1, at_start);")
        out.append(f'    static const char sc_alpha{k}[] = "aeiouAEIOUbcdxyz XYZ0189.,\\t";')
        out.append(
            f"    for (size_t t = 0; t < L{k}; t++) a{k}[t] = pat{k} == 0 ? (unsigned char)(32 + sc_below(&r, 95))"
            f" : pat{k} == 1 ? (unsigned char)(1 + sc_below(&r, 255))"
            f" : (unsigned char)sc_alpha{k}[sc_below(&r, sizeof sc_alpha{k} - 1)];"
        )
        # one random input in eight: words of a text, as a program's strings are (a word such as "the " is
        # almost never drawn letter by letter), one in three of them the pieces of paths, names and URLs (a
        # candidate wrong on "/usr/lib/..." alone passed); drawn apart from `r`
        out.append(
            f"    if (!edge && pat{k} == 2 && (sc_mix(i ^ (0x7e47ULL + {k})) & 7) == 0) {{"
            f" {_prose_words(k)}"
            f' static const char *const sc_tokens{k}[] = {{ "/", "/usr", "/lib/", "src", "x86_64", "-", "_", ".",'
            f' "..", ".c", ".so.6", "=", ":", "0", "42", "://", "a", "Z", "%20", "\\\\" }};'
            f" sc_rng sr = {{ sc_mix(i ^ (0x7e4bULL + {k})) }}; size_t t = 0; int tok = sc_below(&sr, 3) == 0;"
            f" unsigned er = sc_edge_rate(&sr); size_t wn = 0, bad = sc_bad_at(&sr, L{k});"
            f" while (t < L{k}) {{ const char *w = tok ? sc_tokens{k}[sc_below(&sr, sizeof sc_tokens{k} / sizeof *sc_tokens{k})]"
            f" : sc_text_word(&sr, sc_words{k}, sizeof sc_words{k} / sizeof *sc_words{k}, er, wn++, bad);"
            f" while (*w && t < L{k}) a{k}[t++] = (unsigned char)*w++; }} }}"
        )
        out.append(f"    if (dict) for (int m = 1 + (int)sc_below(&dr, 2); m--;) sc_cdict_bytes(&dr, a{k}, L{k}, 1);")
        out.append(f"    a{k}[L{k}] = 0;")
    out.append(f"    in->pv[{k}] = a{k}; in->len[{k}] = L{k};")
    return out


def _candidate_elements(k: int, p: ParamPlan) -> list[str]:
    """C that, where the candidate's constants are given (sc_cdict.h), sets a few elements of array k to
    them, or all (one time in four); a byte array also gets a constant's bytes at a random place (a word
    compared through a wider load); a struct's bytes only that."""
    e, et = p.element, p.element.ctype
    out = []
    if e.role == "int" and e.bits == 8:
        cond = "dict" if p.record else "dict && sc_below(&dr, 2)"
        out.append(f"    if ({cond}) sc_cdict_bytes(&dr, (unsigned char *)a{k}, L{k} * sizeof({et}), 0);")
    if p.record or e.role not in ("int", "float"):
        return out
    val = f"({et})sc_cdict_draw(&dr)" if e.role == "int" else f"({et})sc_cdict_double(&dr, {int(et == 'float')})"
    out.append(
        f"    if (dict && L{k}) {{ size_t m = sc_below(&dr, 4) == 0 ? L{k} : 1 + sc_below(&dr, 3);"
        f" for (size_t t = 0; t < m; t++) a{k}[m == L{k} ? t : sc_below(&dr, L{k})] = {val}; }}"
    )
    return out


MAX_RELATED_FIELDS = 512  # integer fields an integer parameter may be drawn from (a struct's first ones)


def _field_relations(plan: Plan) -> tuple[list[str], list[str]]:
    """C that sets an integer parameter, one random input in four, to one of the generated structs'
    integer fields, or one more or one less: a count checked against a struct's own (zlib's `used`
    against `avail_in`, wrong only where used == avail_in - 1) is almost never met by two random draws.
    The fields are those of the struct parameters and of the private structs behind them. Returns the
    function that finds a struct's bytes (before sc_gen) and the lines in sc_gen, after every parameter."""
    ints = [k for k, p in enumerate(plan.params) if p.role == "int" and not p.callback]
    sources: list[str] = []  # C: the bytes of one struct, and how many there are
    table: list[str] = []
    regions = _regions(plan)
    for k, p in enumerate(plan.params):
        if p.role != "array" or p.element is None:
            continue
        structs = [(f"in->pv[{k}]", f"in->len[{k}] * sizeof({p.element.ctype})", p.fields)]
        structs += [
            (f"in->rp[{regions.owned[k, i]}]", f"in->rlen[{regions.owned[k, i]}]", o.fields)
            for i, o in enumerate(p.owned)
        ]
        for base, size, fields in structs:
            picked = [
                (off, bits // 8, signed) for off, kind, bits, signed in fields if kind == "int" and 8 <= bits <= 64
            ]
            picked = picked[: MAX_RELATED_FIELDS - len(table)]
            if picked:
                sources.append(f"    case {len(sources)}: *n = {base} ? {size} : 0; return {base};")
                table += [f"{{{len(sources) - 1}, {off}, {n}, {int(signed)}}}" for off, n, signed in picked]
    if not ints or not table:
        return [], []
    top = [
        "/* the bytes of generated struct s, and how many (_field_relations) */",
        "static const unsigned char *sc_rel_base(const sc_input *in, unsigned s, size_t *n) {",
        "    switch (s) {",
        *sources,
        "    }",
        "    *n = 0;",
        "    return NULL;",
        "}",
        f"static const struct {{ unsigned src, off, n, sgn; }} sc_rel[] = {{{', '.join(table)}}};",
    ]
    body = ["    /* an integer parameter one of a struct's fields, or one off */"]
    for k in ints:
        p = plan.params[k]
        val = "v"
        if p.lo is not None and p.hi is not None:
            val = f"sc_clamp(v, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
        body.append(
            f"    if (!edge && sc_below(&r, 4) == 0) {{ unsigned t = (unsigned)sc_below(&r, {len(table)}); size_t nb;"
            " const unsigned char *b = sc_rel_base(in, sc_rel[t].src, &nb);"
            " if (b && sc_rel[t].off + sc_rel[t].n <= nb) { uint64_t v = 0; memcpy(&v, b + sc_rel[t].off, sc_rel[t].n);"
            " if (sc_rel[t].sgn && sc_rel[t].n < 8 && (v >> (8 * sc_rel[t].n - 1) & 1)) v |= ~0ULL << (8 * sc_rel[t].n);"
            f" v += sc_below(&r, 3) - 1; in->iv[{k}] = {val}; }} }}"
        )
    return top, body


def _keys_from_data(plan: Plan) -> list[str]:
    """C that sets an integer parameter, one random input in eight, to one of the elements of an integer
    array of the input: a key searched for, counted or compared is almost never met by a random draw, and
    a program passes one it has. Drawn apart from `r`."""
    ints = [k for k, p in enumerate(plan.params) if p.role == "int" and not p.callback]
    arrays = [
        k
        for k, p in enumerate(plan.params)
        if p.role == "array" and not p.record and p.element is not None and p.element.role == "int"
    ]
    out: list[str] = []
    for k in ints:
        p = plan.params[k]
        for n, a in enumerate(arrays):
            et = plan.params[a].element.ctype
            val = f"(uint64_t)({'(int64_t)' if p.signed else ''}({p.ctype})v)"
            if p.lo is not None and p.hi is not None:
                val = f"sc_clamp({val}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
            out.append(
                f"    if (!edge && (sc_mix(i ^ (0x6b3ULL + {k})) & 7) == 0 && sc_mix(i ^ 0x6b5ULL) % {len(arrays)} == {n}"
                f" && in->pv[{a}] && in->len[{a}]) {{ sc_rng kr = {{ sc_mix(i ^ (0x6b7ULL + {k})) }};"
                f" {et} v = (({et} *)in->pv[{a}])[sc_below(&kr, in->len[{a}])]; in->iv[{k}] = {val}; }}"
            )
    return out


def aliasable_pairs(plan: Plan) -> list[tuple[int, int]]:
    """Pairs of arrays that C lets point into the same memory: the same element
    type, the same length parameter, neither `restrict`; two read-only ones too (a dot product of an array
    with itself, or with itself a few elements on: a candidate wrong there alone passed)."""
    ps = plan.params
    pairs = []
    for a, p in enumerate(ps):
        for b in range(a + 1, len(ps)):
            q = ps[b]
            if (
                p.role == q.role == "array"
                and p.element.ctype == q.element.ctype
                and p.length_param == q.length_param
                and p.length_param is not None
                and not (p.restrict or q.restrict)
            ):
                pairs.append((a, b))
    return pairs


def _aliasing(plan: Plan) -> list[str]:
    """Random inputs where two arrays are the same memory, or overlap either way: by 1-3 elements, by 4-64
    (past a vector of 8 or 16 elements, where code that checks only the nearest overlaps goes wrong), or by
    65 up to the length (a check written in bytes where elements were meant passed at 65-127)."""
    out = []
    for a, b in aliasable_pairs(plan):
        et = plan.params[a].element.ctype
        out.append(
            f"    if (!edge) {{ uint64_t mode = sc_below(&r, 8); size_t L = in->len[{a}],"
            " c = sc_below(&r, 4), s = c < 2 ? 1 + sc_below(&r, 3) : c == 2 ? 4 + sc_below(&r, 61) : 65 + sc_below(&r, 1 + ((L > 65 ? L - 65 : 0) >> sc_below(&r, 8)));"
            f" if ((L + s) * sizeof({et}) + 8192 > sc_g[{a}].cap) s = 1 + s % 64;"
        )
        out.append(f"        if (mode == 0) in->pv[{b}] = in->pv[{a}];")
        # a loose placement zeroes the bytes around the new place, over where the elements were: they wait in
        # b's own buffer's slot meanwhile (b points into a's from here; the same element type and length)
        out.append(
            f"        else if (mode <= 2) {{ {et} *was = in->pv[{a}];"
            f" if (sc_loose) {{ was = ({et} *)sc_g[{b}].base; memmove(was, in->pv[{a}], L * sizeof({et})); }}"
            f" {et} *base = sc_guard_place(&sc_g[{a}], (L + s) * sizeof({et}), 0);"
            f" memmove(base, was, L * sizeof({et}));"
            f" for (size_t t = L; t < L + s; t++) {{ {_elem_gen(plan.params[a].element, 'base[t]')} }}"
            f" if (mode == 1) {{ in->pv[{a}] = base; in->pv[{b}] = base + s; }} else {{ in->pv[{b}] = base; in->pv[{a}] = base + s; }} }}"
        )
        out.append("    }")
    return out


def inside_pairs(plan: Plan) -> list[tuple[int, int]]:
    """Pairs of read-only arrays with lengths of their own that one may lie inside the other (a needle that is a
    piece of its haystack, a buffer compared with a later part of itself): the same element type, neither
    `restrict`, each its own length parameter."""
    ps = plan.params
    out = []
    for a, p in enumerate(ps):
        for b in range(a + 1, len(ps)):
            q = ps[b]
            if (
                p.role == q.role == "array"
                and p.element.ctype == q.element.ctype
                and p.ctype.startswith("const ")
                and q.ctype.startswith("const ")
                and not (p.restrict or q.restrict)
                and p.length_param is not None
                and q.length_param is not None
                and p.length_param != q.length_param
                and ps[p.length_param].length_of == [a]
                and ps[q.length_param].length_of == [b]
            ):
                out.append((a, b))
    return out


def _inside(plan: Plan) -> list[str]:
    """One random input in eight: of a pair of inside_pairs, one lies inside the other (at any offset, as long as
    the rest or shorter, its length parameter set to match); drawn apart from `r`."""
    out = []
    for a, b in inside_pairs(plan):
        et = plan.params[a].element.ctype
        la, lb = plan.params[a].length_param, plan.params[b].length_param
        out.append(
            f"    if (!edge && (sc_mix(i ^ (0x1d51ULL + {16 * a + b})) & 7) == 0) {{"
            f" sc_rng sr = {{ sc_mix(i ^ (0x1d52ULL + {16 * a + b})) }}; int flip = (int)sc_below(&sr, 2);"
            f" unsigned o = flip ? {b} : {a}, n = flip ? {a} : {b}, lo = flip ? {lb} : {la}, ln = flip ? {la} : {lb};"
            " size_t L = in->len[o]; if (L) { size_t k = sc_below(&sr, L), m = sc_below(&sr, 2) ? in->len[n] : 1 + sc_below(&sr, L - k);"
            f" if (m > L - k) m = L - k; in->pv[n] = ({et} *)in->pv[o] + k; in->len[n] = m; in->iv[ln] = m; (void)lo; }} }}"
        )
    return out


def _poison(p: ParamPlan, k: int) -> str:
    """The register value passed for an integer-class parameter: extended to 32
    bits as gcc and clang callers do, upper 32 bits poisoned with junk."""
    v = f"in->iv[{k}]"
    if p.bits == 64:
        return v
    if p.role == "bool":
        ext = f"({v} & 1)"
    elif p.bits == 32:
        ext = f"({v} & 0xffffffffULL)"
    else:
        ct = f"int{p.bits}_t" if p.signed else f"uint{p.bits}_t"
        ext = f"((uint64_t)(uint32_t)(int32_t)({ct}){v})"
    return f"({ext} | (sc_upper_junk({k}) << 32))"


def ret_ctype(plan: Plan) -> str:
    r = plan.ret
    if r is None:
        return "void"
    return "uint8_t" if r.role == "bool" else r.ctype


def call_args(plan: Plan, poison: bool) -> tuple[list[str], list[str]]:
    types, vals = [], []
    for k, p in enumerate(plan.params):
        if p.role in ("array", "cstring"):
            types.append("void *" if poison else p.ctype)
            vals.append(f"in->pv[{k}]")
        elif p.role == "float":
            types.append(p.ctype)
            vals.append(f"({p.ctype})in->fv[{k}]")
        elif poison:
            types.append("uint64_t")
            vals.append(_poison(p, k))
        else:
            types.append(p.ctype)
            vals.append(f"({p.ctype})in->iv[{k}]")
    return types or ["void"], vals
