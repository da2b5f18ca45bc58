"""The C input generator shared by the verification and timing harnesses.

Both harnesses include this generated code, so the inputs a candidate is
verified on and the inputs it is timed on come from one definition.

Input i is a pure function of (seed, i): edge inputs first (the cross product
of each parameter's edge values when it is small, else seeded picks from
it), then random inputs.
"""

from __future__ import annotations

import math

from .plan import Plan, ParamPlan

EDGE_CAP = 50_000
LENGTH_EDGES = (0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 4095)
FLOAT_EDGES = ("0.0", "-0.0", "1.0", "-1.0", "0.5", "-0.5", "2.0", "3.0", "0.1", "-7.25", "1e10", "-1e10",
               "1e-300", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "-1.7976931348623157e308",
               "1.17549435e-38", "3.40282347e38", "1.4e-45", "3.141592653589793", "(1.0/0.0)", "(-1.0/0.0)", "(0.0/0.0)")


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
        if p.lo is not None:
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


def render_inputs(plan: Plan, seed: int, n_random: int) -> str:
    """C code: SC_NP, SC_NINPUTS, sc_input, sc_setup() and sc_gen(i, in)."""
    ps = plan.params
    n = max(len(ps), 1)
    out = [f"#define SC_NP {n}", "typedef struct { uint64_t iv[SC_NP]; double fv[SC_NP]; void *pv[SC_NP]; size_t len[SC_NP]; } sc_input;",
           f"static sc_guard sc_g[SC_NP];"]
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
    out.append(f"#define SC_NEDGE {n_edge}ULL\n#define SC_NINPUTS ({n_edge}ULL + {n_random}ULL)\n#define SC_SEED {_u64(seed)}")
    out.append("static void sc_setup(void) {")
    for k, p in enumerate(ps):
        if p.role in ("array", "cstring"):
            size = f"sizeof({p.elem.ctype})" if p.role == "array" else "1"
            out.append(f"    sc_guard_init(&sc_g[{k}], ({p.max_len} + 1) * {size});")
    out.append("}")
    out.append("static void sc_gen(uint64_t i, sc_input *in) {")
    out.append("    sc_rng r = { sc_mix(SC_SEED ^ (i * 0xd1342543de82ef95ULL)) };")
    out.append(f"    int edge = i < SC_NEDGE; uint64_t idx = i; (void)idx; (void)edge; int len_set[SC_NP] = {{0}}; (void)len_set;")
    out.append("    memset(in, 0, sizeof *in);")
    for k, p in enumerate(ps):
        if p.role == "length":
            continue
        ne = len(_edges(p))
        mult = 3 if p.role in ("array", "cstring") else 1
        pick = (f"uint64_t e{k} = edge ? {'idx % ' + str(ne * mult) if full else 'sc_below(&r, ' + str(ne * mult) + ')'} : 0;"
                f" idx /= {ne * mult};")
        out.append(f"    {pick}")
        if p.role in ("int", "bool"):
            if p.role == "bool":
                rnd = "sc_next(&r) & 1"
            else:
                rnd = f"sc_rand_int(&r, {p.bits}, {int(p.signed)})"
                if p.lo is not None:
                    rnd = f"sc_clamp({rnd}, {int(p.signed)}, {_u64(p.lo)}, {_u64(p.hi)})"
            out.append(f"    in->iv[{k}] = edge ? sc_edge{k}[e{k}] : {rnd};")
        elif p.role == "float":
            rnd = "sc_rand_double(&r)"
            if p.lo is not None:
                rnd = f"({float(p.lo)!r} + ({float(p.hi)!r} - {float(p.lo)!r}) * ((double)(sc_next(&r) >> 11) / 9007199254740992.0))"
            out.append(f"    in->fv[{k}] = edge ? sc_edge{k}[e{k}] : {rnd};")
        else:
            lo = p.lo or 0
            choose = (f"edge ? (size_t)sc_edge{k}[e{k} / 3] : (sc_below(&r, 2) ? (size_t)({lo} + sc_below(&r, {p.max_len - lo + 1}))"
                      f" : (size_t)sc_edge{k}[sc_below(&r, {ne})])")
            out.append(f"    size_t L{k} = {choose};")
            out.append(f"    int pat{k} = edge ? (int)(e{k} % 3) : (int)(sc_below(&r, 4) == 0 ? 1 : 2);")
            j = p.length_param
            if j is not None:
                out.append(f"    if (len_set[{j}]) L{k} = (size_t)in->iv[{j}]; else {{ in->iv[{j}] = L{k}; len_set[{j}] = 1; }}")
            if p.role == "array":
                et = p.elem.ctype
                out.append(f"    {et} *a{k} = sc_guard_place(&sc_g[{k}], L{k} * sizeof({et}));")
                out.append(f"    {et} fill{k}; {_elem_gen(p.elem, f'fill{k}')}")
                out.append(f"    for (size_t t = 0; t < L{k}; t++) {{ if (pat{k} == 1) a{k}[t] = fill{k}; "
                           f"else if (pat{k} == 0) a{k}[t] = ({et})((t & 1) ? -(int64_t)t : (int64_t)t * 0x10001); "
                           f"else {{ {_elem_gen(p.elem, f'a{k}[t]')} }} }}")
            else:
                out.append(f"    unsigned char *a{k} = sc_guard_place(&sc_g[{k}], L{k} + 1);")
                out.append(f"    static const char sc_alpha[] = \"aeiouAEIOUbcdxyz XYZ0189.,\\t\";")
                out.append(f"    for (size_t t = 0; t < L{k}; t++) a{k}[t] = pat{k} == 0 ? (unsigned char)(32 + sc_below(&r, 95))"
                           f" : pat{k} == 1 ? (unsigned char)(1 + sc_below(&r, 255)) : (unsigned char)sc_alpha[sc_below(&r, sizeof sc_alpha - 1)];")
                out.append(f"    a{k}[L{k}] = 0;")
            out.append(f"    in->pv[{k}] = a{k}; in->len[{k}] = L{k};")
    out.append("}")
    return "\n".join(out)


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
    return f"({ext} | (junk << 32))"


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
