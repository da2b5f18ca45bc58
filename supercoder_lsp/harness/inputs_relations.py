"""What ties one generated argument to another: integers drawn from a struct's fields or an array's
data, arrays that overlap (aliasable) or lie one inside the other."""

from __future__ import annotations

from collections.abc import Callable

from .inputs_edges import _elem_gen, _u64
from .inputs_records import _regions
from .plan import ParamPlan, Plan

# C: whether parameter k's buffer lies in its own guard region, and no other parameter's does: the overlaps
# below are drawn one pair at a time, each only where both of its buffers are still alone
ALONE_C = """static int __attribute__((unused)) sc_alone(const sc_input *in, unsigned k) {
    const unsigned char *b = sc_g[k].base, *e = b + sc_g[k].cap;
    /* up to its end inclusive: an empty buffer placed against the guard after it points at the end */
    for (unsigned j = 0; j < SC_NP; j++) { const unsigned char *q = in->pv[j]; if ((j == k) != (b && q >= b && q <= e)) return 0; }
    return 1;
}"""
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
    return _pairs(
        plan,
        lambda a, b, p, q: p.element.ctype == q.element.ctype
        and p.length_param == q.length_param
        and p.length_param is not None
        and not (p.restrict or q.restrict),
    )


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
        # one pair at a time: a second pair's buffer placed again where the first's points would change what the
        # first holds, by where each lies (three arrays of one length: a self-check refused such a plain function)
        out.append(f"        int alone = sc_alone(in, {a}) && sc_alone(in, {b});")
        out.append(f"        if (alone && mode == 0) in->pv[{b}] = in->pv[{a}];")
        # a loose placement zeroes the bytes around the new place, over where the elements were: they wait in
        # b's own buffer's slot meanwhile (b points into a's from here; the same element type and length)
        out.append(
            f"        else if (alone && mode <= 2) {{ {et} *was = in->pv[{a}];"
            f" if (sc_loose) {{ was = ({et} *)sc_g[{b}].base; memmove(was, in->pv[{a}], L * sizeof({et})); }}"
            f" {et} *base = sc_guard_place(&sc_g[{a}], (L + s) * sizeof({et}), 0);"
            f" memmove(base, was, L * sizeof({et}));"
            f" for (size_t t = L; t < L + s; t++) {{ {_elem_gen(plan.params[a].element, 'base[t]')} }}"
            f" if (mode == 1) {{ in->pv[{a}] = base; in->pv[{b}] = base + s; }} else {{ in->pv[{b}] = base; in->pv[{a}] = base + s; }} }}"
        )
        out.append("    }")
    return out


def crossing_pairs(plan: Plan) -> list[tuple[int, int]]:
    """Pairs of buffers (arrays of scalars, C strings) that C lets point into the same memory and that
    aliasable_pairs does not draw: neither `restrict`, at least one written, and either of one element type
    (with lengths of their own: a copy within one buffer) or one of them bytes, which may alias anything (a hex
    decoder writing `unsigned char *dst` over its own `const char *src`: a candidate wrong only in place
    passed every check). Compiled C must give the same result there; a rewrite that assumes them apart does not.
    Buffers with a length only: one object behind a pointer (`uint64_t *out`, zlib's `*destLen`) is not drawn
    inside another (a capacity read from the data it sizes breaks the original's own bounds)."""
    same = set(aliasable_pairs(plan))

    def buffer(p: ParamPlan) -> bool:  # a buffer with a length: not one object (`uint64_t *out`, `*destLen`)
        return p.role == "cstring" or (
            p.role == "array"
            and p.length_param is not None
            and not p.record
            and p.elem is not None
            and p.elem.role in ("int", "float")
        )

    def is_bytes(p: ParamPlan) -> bool:
        return p.element.role == "int" and p.element.bits == 8

    return [
        (a, b)
        for a, p in enumerate(plan.params)
        for b in range(a + 1, len(plan.params))
        if (a, b) not in same
        and buffer(p)
        and buffer(q := plan.params[b])
        and not (p.restrict or q.restrict)
        and not (p.ctype.startswith("const ") and q.ctype.startswith("const "))
        and (p.element.ctype == q.element.ctype or is_bytes(p) or is_bytes(q))
    ]


def _crossing(plan: Plan) -> list[str]:
    """One random input in eight per crossing pair (drawn apart from `r`): one buffer of the pair points into
    the other's elements, in place half the time, else a few elements on (1-3, or 4-64: past a vector), a
    multiple of both elements' sizes and aligned for its own. Where it does not fit, its length is cut to fit
    if the length is its own (a length parameter of its alone, not passed by pointer), else the input is left
    as it was. Its own bytes are then the other's: an in-place decoder reads what it has written."""
    out = []
    ps = plan.params

    def nbytes(k: int) -> str:  # a string's room: its characters, not its NUL (that stays)
        if ps[k].role == "cstring":
            return f"((size_t)in->len[{k}])"
        return f"((size_t)in->len[{k}] * sizeof({ps[k].element.ctype}))"

    def own_length(k: int) -> int | None:
        p = ps[k]
        lp = p.length_param
        if p.role != "array" or lp is None or p.capacity_param is not None or ps[lp].length_of != [k]:
            return None
        return lp

    for a, b in crossing_pairs(plan):
        out.append(
            f"    if (!edge && (sc_mix(i ^ (0xa1a5ULL + {16 * a + b})) & 7) == 0 && sc_alone(in, {a}) && sc_alone(in, {b})) {{"
            f" sc_rng xr = {{ sc_mix(i ^ (0xa1a6ULL + {16 * a + b})) }}; int flip = (int)sc_below(&xr, 2);"
            " size_t c = sc_below(&xr, 4), k = c < 2 ? 0 : c == 2 ? 1 + sc_below(&xr, 3) : 4 + sc_below(&xr, 61);"
        )
        for x, y in ((a, b), (b, a)):
            ey = ps[y].element.ctype
            if ps[y].role == "cstring":  # a string inside another buffer: where its NUL lies, a copy ahead
                continue  # of itself never ends (strcpy's dst a few bytes into its src), the original's too
            unit = f"(sizeof({ps[x].element.ctype}) > sizeof({ey}) ? sizeof({ps[x].element.ctype}) : sizeof({ey}))"
            lp = own_length(y)
            cut = ""
            if lp is not None:  # cut y's length to what fits
                cut = (
                    f" if (off < {nbytes(x)} && off + {nbytes(y)} > {nbytes(x)}) {{ size_t m = ({nbytes(x)} - off) / sizeof({ey});"
                    f" in->len[{y}] = m; in->iv[{lp}] = m; }}"
                )
            out.append(
                f"        if (flip == {int(x == a)}) {{ size_t off = k * {unit}; unsigned char *at = (unsigned char *)in->pv[{x}] + off;{cut}"
                f" if (off + {nbytes(y)} <= {nbytes(x)} && (uintptr_t)at % sizeof({ey}) == 0) in->pv[{y}] = at; }}"
            )
        out.append("    }")
    return out


def inside_pairs(plan: Plan) -> list[tuple[int, int]]:
    """Pairs of read-only arrays with lengths of their own that one may lie inside the other (a needle that is a
    piece of its haystack, a buffer compared with a later part of itself): the same element type, neither
    `restrict`, each its own length parameter."""
    ps = plan.params
    return _pairs(
        plan,
        lambda a, b, p, q: p.element.ctype == q.element.ctype
        and p.ctype.startswith("const ")
        and q.ctype.startswith("const ")
        and not (p.restrict or q.restrict)
        and p.length_param is not None
        and q.length_param is not None
        and p.length_param != q.length_param
        and ps[p.length_param].length_of == [a]
        and ps[q.length_param].length_of == [b],
    )


def _pairs(plan: Plan, related: Callable[[int, int, ParamPlan, ParamPlan], bool]) -> list[tuple[int, int]]:
    """The pairs (a, b), a before b, of array parameters that `related(a, b, param a, param b)` says are related."""
    ps = plan.params
    return [
        (a, b)
        for a, p in enumerate(ps)
        for b in range(a + 1, len(ps))
        if p.role == ps[b].role == "array" and related(a, b, p, ps[b])
    ]


def _inside(plan: Plan) -> list[str]:
    """One random input in eight: of a pair of inside_pairs, one lies inside the other (at any offset, as long as
    the rest or shorter, its length parameter set to match); drawn apart from `r`."""
    out = []
    for a, b in inside_pairs(plan):
        et = plan.params[a].element.ctype
        la, lb = plan.params[a].length_param, plan.params[b].length_param
        out += _needle_across_a_seam(a, b, et, la, lb)
        out.append(
            f"    if (!edge && !sc_long_for(i) && (sc_mix(i ^ (0x1d51ULL + {16 * a + b})) & 7) == 0 && sc_alone(in, {a}) && sc_alone(in, {b})) {{"
            f" sc_rng sr = {{ sc_mix(i ^ (0x1d52ULL + {16 * a + b})) }}; int flip = (int)sc_below(&sr, 2);"
            f" unsigned o = flip ? {b} : {a}, n = flip ? {a} : {b}, lo = flip ? {lb} : {la}, ln = flip ? {la} : {lb};"
            " size_t L = in->len[o]; if (L) { size_t k = sc_below(&sr, L), m = sc_below(&sr, 2) ? in->len[n] : 1 + sc_below(&sr, L - k);"
            f" if (m > L - k) m = L - k; in->pv[n] = ({et} *)in->pv[o] + k; in->len[n] = m; in->iv[ln] = m; (void)lo; }} }}"
        )
    return out


def _needle_across_a_seam(a: int, b: int, et: str, la: int | None, lb: int | None) -> list[str]:
    """C: on a long input, one of the pair (the second, one time in four the first) a needle of 2 to 16 random
    elements, copied into the other across a seam: three times in four the highest power of two that fits
    (a multiple of every smaller one), else a random multiple of a random power of two from SC_SEAM up. Code
    that searches in pieces of 1 MiB and misses a match across their ends passed every haystack of 2^20."""
    return [
        f"    if (sc_long_for(i)) {{ sc_rng sr = {{ sc_mix(i ^ (0x5ea3ULL + {16 * a + b})) }}; int flip = sc_below(&sr, 4) == 0;"
        f" unsigned o = flip ? {b} : {a}, n = flip ? {a} : {b}, ln = flip ? {la} : {lb}; size_t L = in->len[o], m = 2 + sc_below(&sr, 15);"
        " if (m > in->len[n]) m = in->len[n];"
        " if (m >= 2 && L >= SC_SEAM + m) { size_t top = SC_SEAM; while (2 * top <= L - m + 1) top *= 2;"
        " size_t step = top, at; if (sc_below(&sr, 4) == 0) { unsigned j = 0; while ((SC_SEAM << (j + 1)) <= top) j++;"
        " step = SC_SEAM << sc_below(&sr, j + 1); }"
        " at = step * (1 + sc_below(&sr, (L - m + 1) / step)) - 1 - sc_below(&sr, m - 1);"
        f" {et} *nd = ({et} *)in->pv[n], *hay = ({et} *)in->pv[o];"
        f" for (size_t t = 0; t < m; t++) nd[t] = ({et})sc_next(&sr);"
        f" memcpy(hay + at, nd, m * sizeof({et})); in->len[n] = m; in->iv[ln] = m; }} }}"
    ]
