"""Generated arrays and strings: their lengths (the long ones among them), their elements (edges,
random values, the shapes real data has: prose, UTF-8, periodic records, a candidate's constants)."""

from __future__ import annotations

from .inputs_edges import _elem_gen, _u64
from .inputs_records import _own_data, _owned, _record_fields
from .plan import LONG_STRIDE, SEAM, ParamPlan, Plan


def _long(p: ParamPlan) -> int:
    """How long the long inputs make array `p` (plan.LONG_LEN), 0 where it has none."""
    ok = (p.role == "array" and p.length_param is not None or p.role == "cstring") and not p.probe and not p.record
    return p.long_len if ok and p.long_len > p.max_len else 0


def _long_inputs() -> list[str]:
    """C: which random inputs are long ones, and how long: the first of them plan.LONG_LEN (or the most the
    length's type holds), the second a random length in the top half of that, the k-th next one a random
    length in the k-th octave past the usual most (4,097 to 8,192, then to 16,384, ...), so that no range of
    lengths past it goes unchecked, and from the first octave again past the longest; the odd ones of byte and 16-bit arrays are text (sc_long_text). Only the
    checking harness draws them (sc_long_ok): the timing driver times the inputs of ordinary length."""
    return [
        f"#define SC_LONG_STRIDE {LONG_STRIDE}ULL",
        f"#define SC_SEAM {SEAM}ULL",
        "static inline int __attribute__((unused)) sc_long_for(uint64_t i) {",
        "    return sc_long_ok && i >= SC_NEDGE && i - SC_NEDGE < SC_NRANDOM && (i - SC_NEDGE) % SC_LONG_STRIDE == SC_LONG_STRIDE - 1;",
        "}",
        "static inline int __attribute__((unused)) sc_long_text(uint64_t i) {",
        "    return sc_long_for(i) && ((i - SC_NEDGE) / SC_LONG_STRIDE & 1);",
        "}",
        "/* the long inputs whose k is 2 mod 4: every integer element the most its type holds, every integer",
        "   argument near its type's most (a checksum's sums that overflow only over a long run of 0xff bytes) */",
        "static inline int __attribute__((unused)) sc_long_extreme(uint64_t i) {",
        "    return sc_long_for(i) && ((i - SC_NEDGE) / SC_LONG_STRIDE & 3) == 2;",
        "}",
        "static inline size_t __attribute__((unused)) sc_long_len(uint64_t i, size_t lo, size_t most) {",
        "    uint64_t k = (i - SC_NEDGE) / SC_LONG_STRIDE, h = sc_mix(i ^ 0x10b6ULL);",
        "    if (k == 0) return most;",
        "    if (k == 1) return most - most / 2 + (size_t)(h % (most / 2 + 1));",
        "    /* the octaves again from the first past the longest (one in two the octave's top: a power of two, as",
        "       buffers are) */",
        "    unsigned o = 0; while (o < 40 && (lo << (o + 1)) < most) o++;",
        "    size_t base = lo << (k - 2) % (o + 1), n = (h >> 40) & 1 ? 2 * base : base + 1 + (size_t)(h % base);",
        "    return n > most ? most : n;",
        "}",
        "/* a long text's seams: across every multiple of SC_SEAM elements, a character of two to four bytes, the",
        "   whole characters around it left whole (a text valid before stays valid); and a character the text's end",
        "   cut short made whole (an 'a') */",
        'static const char *const sc_seam_chars[] = { "\\303\\251", "\\346\\227\\245", "\\360\\237\\230\\200" };',
        "#define SC_SEAMS(a, L, sr) do { for (size_t b_ = SC_SEAM; b_ + 4 < (L); b_ += SC_SEAM) { size_t s_ = b_ - 3, e_ = b_ + 3;"
        " while (s_ && ((a)[s_] & 0xc0) == 0x80) s_--; while (e_ < (L) && ((a)[e_] & 0xc0) == 0x80) e_++;"
        " for (size_t t_ = s_; t_ < e_; t_++) (a)[t_] = 'a'; const char *c_ = sc_seam_chars[sc_below(sr, 3)];"
        " size_t n_ = strlen(c_), at_ = b_ - 1 - sc_below(sr, n_ - 1); for (size_t j_ = 0; j_ < n_; j_++)"
        " (a)[at_ + j_] = (unsigned char)c_[j_]; }"
        " size_t l_ = (L); while (l_ && ((a)[l_ - 1] & 0xc0) == 0x80 && (L) - l_ < 3) l_--;"
        " if (l_ && (a)[l_ - 1] >= 0xc0) for (size_t t_ = l_ - 1; t_ < (L); t_++) (a)[t_] = 'a'; } while (0)",
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
    out += _longer(k, p) + _number_drawn(k, p)
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
        out.append(
            f"    {et} *a{k} = sc_guard_place_mis(&sc_g[{k}], L{k} * sizeof({et}), at_start, {'0' if p.record else f'sizeof({et})'},"
            f" sc_mix(i ^ (0xa119ULL + {k})));"
        )
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
                out.append(_array_text(k, p))
        out += _extreme(k, p) + _candidate_elements(k, p) + _zero_ties(k, p)
        out += _record_fields(k, p, bool(plan.constants), plan)
        if p.null_offsets:
            out.append(f"    sc_nullptrs{k}(a{k});")
        for i, (off, inst) in enumerate(p.statics):
            pick = f"sc_below(&r, {len(inst)})" if len(inst) > 1 else "0"
            out.append(
                f"    if (pat{k} == 2) {{ const void *w = sc_st{k}_{i}[{pick}]; memcpy((unsigned char *)a{k} + {off}, &w, 8); }}"
            )
        out += _own_data(plan, k, p) + _owned(plan, k, p) + _number_written(k, p)
    else:
        out.append(
            f"    unsigned char *a{k} = sc_guard_place_mis(&sc_g[{k}], L{k} + 1, at_start, 1, sc_mix(i ^ (0xa119ULL + {k})));"
        )
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
            f"    if (!edge && ({_long_text(p)}pat{k} == 2 && (sc_mix(i ^ (0x7e47ULL + {k})) & 7) == 0)) {{"
            f" {_prose_words(k)}"
            f' static const char *const sc_tokens{k}[] = {{ "/", "/usr", "/lib/", "src", "x86_64", "-", "_", ".",'
            f' "..", ".c", ".so.6", "=", ":", "0", "42", "://", "a", "Z", "%20", "\\\\" }};'
            f" sc_rng sr = {{ sc_mix(i ^ (0x7e4bULL + {k})) }}; size_t t = 0; int tok = sc_below(&sr, 3) == 0;"
            f" unsigned er = sc_edge_rate(&sr); size_t wn = 0, bad = sc_bad_at(&sr, L{k});{_all_valid(p)}"
            f" while (t < L{k}) {{ const char *w = tok ? sc_tokens{k}[sc_below(&sr, sizeof sc_tokens{k} / sizeof *sc_tokens{k})]"
            f" : sc_text_word(&sr, sc_words{k}, sizeof sc_words{k} / sizeof *sc_words{k}, er, wn++, bad);"
            f" while (*w && t < L{k}) a{k}[t++] = (unsigned char)*w++; }}{_seams(k, p)} }}"
        )
        out.append(f"    if (dict) for (int m = 1 + (int)sc_below(&dr, 2); m--;) sc_cdict_bytes(&dr, a{k}, L{k}, 1);")
        out += _number_written(k, p)
        out.append(f"    a{k}[L{k}] = 0;")
    out += _null_when_empty(k, p)
    out.append(f"    in->pv[{k}] = a{k}; in->len[{k}] = L{k};")
    return out


def _zero_ties(k: int, p: ParamPlan) -> list[str]:
    """C: one random input in sixteen, a float array's elements drawn from three values: +0, -0 and one number,
    all of one sign (negative one time in two), so that the two zeros tie as its largest (or smallest) element.
    Signed zeros were drawn one element at a time, and a maximum that took the last of a -0/+0 tie where the
    original takes the first passed 50,000 inputs. Drawn apart from `r`."""
    if p.record or p.element.role != "float":
        return []
    et = p.element.ctype
    return [
        f"    if (!edge && pat{k} == 2 && L{k} > 1 && (sc_mix(i ^ (0x2e70ULL + {k})) & 15) == 0) {{"
        f" sc_rng zr = {{ sc_mix(i ^ (0x2e71ULL + {k})) }}; {et} v = ({et})(1 + sc_below(&zr, 1000)) / 8;"
        f" if (sc_below(&zr, 2)) v = -v; {et} pool[3] = {{ ({et})0.0, -({et})0.0, v }};"
        f" for (size_t t = 0; t < L{k}; t++) a{k}[t] = pool[sc_below(&zr, 3)]; }}"
    ]


def _longer(k: int, p: ParamPlan) -> list[str]:
    """C: besides the long inputs, one random input in 64 a length past the usual most, up to four times it
    (a candidate wrong only where n % 4096 lies in 32..63 passed the one long input in each octave); and the
    long inputs' lengths (sc_long_len)."""
    if not _long(p):
        return []
    return [
        f"    if (sc_long_ok && !edge && (sc_mix(i ^ (0x10b7ULL + {k})) & 63) == 0)"
        f" L{k} = {p.max_len + 1} + (size_t)(sc_mix(i ^ (0x10b8ULL + {k})) % {min(3 * p.max_len, _long(p) - p.max_len)});",
        f"    if (sc_long_for(i)) L{k} = sc_long_len(i, {p.max_len}, {_long(p)});",
    ]


def _texty(p: ParamPlan) -> bool:
    """A C string, or an array of bytes that is not a struct's."""
    return p.role == "cstring" or (
        p.role == "array" and not p.record and p.element.role == "int" and p.element.bits == 8
    )


def _number_drawn(k: int, p: ParamPlan) -> list[str]:
    """C: one random input in sixteen, a byte buffer or C string is a decimal number near an edge (sc_rt.h's
    sc_number_text), its length the number's where the bounds allow; drawn apart from `r`."""
    if not _texty(p):
        return []
    return [
        f"    char num{k}[96]; size_t nl{k} = 0; if (!edge && !sc_long_for(i) && (sc_mix(i ^ (0xdec1ULL + {k})) & 15) == 0) {{"
        f" sc_rng nr = {{ sc_mix(i ^ (0xdec2ULL + {k})) }}; nl{k} = sc_number_text(&nr, num{k});"
        f" if (nl{k} >= {p.lo or 0} && nl{k} <= {p.max_len}) L{k} = nl{k}; }}"
    ]


def _number_written(k: int, p: ParamPlan) -> list[str]:
    """C: the number drawn (_number_drawn) at the buffer's start, over what was generated there."""
    return [f"    if (nl{k}) memcpy(a{k}, num{k}, nl{k} < L{k} ? nl{k} : L{k});"] if _texty(p) else []


def _null_when_empty(k: int, p: ParamPlan) -> list[str]:
    """C: one random input in four whose array has no elements, NULL for it (a program's `f(NULL, 0)`, zlib's
    `adler32(0, Z_NULL, 0)`: a candidate that answers NULL apart passed, no array was ever NULL)."""
    if p.role != "array" or p.record or p.length_param is None:
        return []
    return [f"    if (!edge && L{k} == 0 && (sc_mix(i ^ (0x4e11ULL + {k})) & 3) == 0) a{k} = NULL;"]


def _array_text(k: int, p: ParamPlan) -> str:
    """C: one random input in eight, words of a text, as a program's bytes are (prose in a byte buffer, a UTF-16
    string; as C strings get them), one in two of the 8-bit ones wide: each character followed by a zero byte;
    and the odd long inputs, their seams crossed by characters of two to four bytes (a validator that works in
    pieces of 1 MiB passed every text of up to 2^20 bytes)."""
    et = p.element.ctype
    return (
        f"    if (!edge && ({_long_text(p)}pat{k} == 2 && (sc_mix(i ^ (0x7e47ULL + {k})) & 7) == 0)) {{"
        f" {_prose_words(k)}"
        f" sc_rng sr = {{ sc_mix(i ^ (0x7e4bULL + {k})) }}; size_t t = 0; int wide = {int(p.element.bits == 8)} && sc_below(&sr, 2);"
        f" unsigned er = sc_edge_rate(&sr); size_t wn = 0, bad = sc_bad_at(&sr, L{k});{_all_valid(p)}"
        f" while (t < L{k}) {{ const char *w = sc_text_word(&sr, sc_words{k}, sizeof sc_words{k} / sizeof *sc_words{k}, er, wn++, bad);"
        f" while (*w && t < L{k}) {{ a{k}[t++] = ({et})*w++; if (wide && t < L{k}) a{k}[t++] = 0; }} }}"
        f"{_seams(k, p)} }}"
    )


def _extreme(k: int, p: ParamPlan) -> list[str]:
    """C: on a long input whose k is 2 mod 4 (sc_long_extreme), an integer array all the most its type holds."""
    if not _long(p) or p.record or p.element.role != "int":
        return []
    e = p.element
    most = f"({e.ctype})~0ULL" if not e.signed else f"({e.ctype})((1ULL << {e.bits - 1}) - 1)"
    return [f"    if (sc_long_extreme(i)) for (size_t t = 0; t < L{k}; t++) a{k}[t] = {most};"]


def _long_text(p: ParamPlan) -> str:
    """C: the start of the condition for a text, where the array has long inputs: the odd ones are text."""
    return "sc_long_text(i) || " if _long(p) else ""


def _seams(k: int, p: ParamPlan) -> str:
    """C: a long input's text crossed at every seam by a character of two to four bytes (SC_SEAMS)."""
    return f" if (sc_long_for(i)) SC_SEAMS(a{k}, L{k}, &sr);" if _long(p) else ""


def _all_valid(p: ParamPlan) -> str:
    """C: a long text whose k is 1 mod 4 is UTF-8 with no invalid word, never wide (a validator then reads to
    its end, across every seam)."""
    if not _long(p):
        return ""
    wide = " wide = 0;" if p.role == "array" else ""
    return f" if (sc_long_for(i) && ((i - SC_NEDGE) / SC_LONG_STRIDE & 3) == 1) {{ bad = (size_t)-1;{wide} }}"


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
