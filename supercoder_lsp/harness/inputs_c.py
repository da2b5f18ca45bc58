"""The C input generator shared by the verification and timing harnesses.

Both harnesses include this generated code, so the inputs a candidate is
verified on and the inputs it is timed on come from one definition.

Input i is a pure function of (seed, i): edge inputs first (the cross product
of each parameter's edge values when it is small, else seeded picks from
it), then random inputs.

Its parts: inputs_edges.py, inputs_buffers.py, inputs_records.py, inputs_relations.py.
"""

from __future__ import annotations

import math
from pathlib import Path

from .inputs_buffers import _buffer, _long, _long_inputs
from .inputs_edges import EDGE_CAP, _edges, _u64
from .inputs_records import DEEP_C, owned_sizes, pointer_fields
from .inputs_relations import ALONE_C, _aliasing, _crossing, _field_relations, _inside, _keys_from_data
from .plan import ParamPlan, Plan
from .recorded import RecordedInputs, render_replay


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
        "static sc_guard sc_g[SC_NP], sc_rg[SC_NR];\n" + ALONE_C,
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
            out += _scalar(k, p)
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
    out += _inside(plan) + _crossing(plan)
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


def _scalar(k: int, p: ParamPlan) -> list[str]:
    """C: integer or bool parameter k: an edge, or random; one random input in sixteen near an edge of its
    type, on an extreme long input near its most, one in two where the candidate's constants are given one of
    them."""
    out: list[str] = []
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
        # (on an extreme long input near its most: sc_near_edge's first case)
        top = f"sc_near_edge(sc_mix(i ^ (0xed6fULL + {k})) & ~3ULL, {p.bits}, {int(p.signed)})"
        if p.lo is not None and p.hi is not None:
            top = f"sc_clamp({top}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
        out.append(f"    if (sc_long_extreme(i)) in->iv[{k}] = {top};")
        cand = "sc_cdict_draw(&dr)"
        if p.lo is not None and p.hi is not None:
            cand = f"sc_clamp({cand}, {int(p.signed)}, {_u64(int(p.lo))}, {_u64(int(p.hi))})"
        out.append(f"    if (dict && sc_below(&dr, 2)) in->iv[{k}] = {cand};")
    return out
