"""Generated structs: their fields (from the original's comparisons, narrowed, related), a private
state behind a handle and its data pointers (harness/plan.py's OwnedPlan), and the C that fills them."""

from __future__ import annotations

from dataclasses import dataclass, field

from .contract import STATIC_ALIAS
from .inputs_edges import _u64
from .plan import OWNED_DATA, TRAP, OwnedPlan, ParamPlan, Plan

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
        if (sc_dumping) printf("\n@@ buffer %u %zu\n", b, len); /* sc_rt.h's sc_dump, words as tagged */
        for (; o < first && o < len; o++) { h ^= p[o]; h *= 0x100000001b3ULL; if (sc_dumping) printf("%02x", p[o]); }
        uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3}; /* four chains, not one: a multiply's latency per word */
        for (size_t q = 0; o + 8 <= len; o += 8, q++) {
            uint64_t w, off; memcpy(&w, p + o, 8);
            int j = w < lo || w > hi ? -1 : sc_deep_find(in, at, w, &off);
            w = j >= 0 ? (0x5CA1ULL << 48) ^ ((uint64_t)j << 40) ^ off : sc_mapped_word(w);
            if (sc_dumping) for (int t = 0; t < 8; t++) printf("%02x", (unsigned)(w >> 8 * t) & 0xff);
            uint64_t *l = &lane[q & 3]; *l ^= w; *l *= 0x100000001b3ULL; *l ^= *l >> 29;
        }
        for (int q = 0; q < 4; q++) { h ^= lane[q]; h *= 0x100000001b3ULL; h ^= h >> 29; }
        for (; o < len; o++) { h ^= p[o]; h *= 0x100000001b3ULL; if (sc_dumping) printf("%02x", p[o]); }
    }
    return h;
}
"""


def pointer_fields(plan: Plan) -> list[str]:
    """For each struct parameter with pointer fields, `sc_nullptrs<k>(p)`: set them to NULL. Inputs get NULL
    there. Before comparing, `sc_tagptrs<k>(p)`: a field pointing into a block the call allocated is which
    block and where, one into the program (a function: an object's method; a const table) that place
    (sc_heap.h's sc_mapped_word), any other NULL: addresses differ between processes, so what a function
    writes through its pointers is compared, and which of the program's functions it leaves (a wrong method
    passed 100,000 inputs), never other pointer values themselves."""
    out = []
    for k, p in enumerate(plan.params):
        if p.null_offsets:
            out.append(f"static const uint32_t sc_ptr{k}[] = {{{', '.join(map(str, p.null_offsets))}}};")
            out.append(  # a field the call pointed at a block it allocated keeps which block, and where
                f"static void sc_nullptrs{k}(void *p) {{ for (size_t t = 0; t < sizeof sc_ptr{k} / sizeof sc_ptr{k}[0]; t++)"
                f" {{ uint64_t w, off; memcpy(&w, (char *)p + sc_ptr{k}[t], 8); int b = sc_heap_find(w, &off);"
                f" w = b < 0 ? 0 : sc_heap_tag((unsigned)b, off); memcpy((char *)p + sc_ptr{k}[t], &w, 8); }} }}"
            )
            out.append(  # before comparing: one into the program (a method, a const table) is that place too
                f"static void sc_tagptrs{k}(void *p) {{ for (size_t t = 0; t < sizeof sc_ptr{k} / sizeof sc_ptr{k}[0]; t++)"
                f" {{ uint64_t w, off; memcpy(&w, (char *)p + sc_ptr{k}[t], 8); int b = sc_heap_find(w, &off);"
                f" w = b >= 0 ? sc_heap_tag((unsigned)b, off) : sc_in_image(w) ? sc_mapped_word(w) : 0;"
                f" memcpy((char *)p + sc_ptr{k}[t], &w, 8); }} }}"
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
                " w = hb >= 0 ? sc_heap_tag((unsigned)hb, off) : sc_in_image(w) ? sc_mapped_word(w) : 0;"
                " memcpy(f, &w, 8); } }"
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
