/* The candidate's constants (asm/immediates.py): its code's immediates and read-only words, given in
 * SC_CAND_DICT as hexadecimal words separated by commas. Where they are given, every generated input past
 * the edge ones takes some of its values from them (harness/inputs_c.py): a candidate wrong on one value
 * alone (seed == 5381) holds that value, and random draws never meet it. Included by sc_rt.h. */
#ifndef SC_CDICT_H
#define SC_CDICT_H
#define SC_CDICT_MAX 64
static uint64_t sc_cdict[SC_CDICT_MAX];
static unsigned sc_ncdict;

static void __attribute__((unused)) sc_cdict_load(void) {
    const char *s = sc_getenv("SC_CAND_DICT");
    while (s && *s && sc_ncdict < SC_CDICT_MAX) {
        char *e;
        uint64_t v = strtoull(s, &e, 16);
        if (e == s) break;
        sc_cdict[sc_ncdict++] = v;
        s = *e == ',' ? e + 1 : e;
    }
}

/* one of the constants, or one below or above it (an ordered comparison's edge), or its negation */
static uint64_t __attribute__((unused)) sc_cdict_draw(sc_rng *r) {
    uint64_t v = sc_cdict[sc_below(r, sc_ncdict)], d = sc_below(r, 8);
    return d == 1 ? v - 1 : d == 2 ? v + 1 : d == 3 ? (uint64_t)-v : v;
}

/* a double from a constant: its bits as a double, or (its low word) as a float's, or its value */
static double __attribute__((unused)) sc_cdict_double(sc_rng *r, int is_float) {
    uint64_t v = sc_cdict_draw(r);
    uint64_t how = sc_below(r, 3);
    if (how == 0) return (double)(int64_t)v;
    if (is_float || how == 1) { uint32_t w = (uint32_t)v; float f; memcpy(&f, &w, 4); return (double)f; }
    double d; memcpy(&d, &v, 8); return d;
}

/* the constant's bytes, its low `width` of them (the fewest that hold it, or a draw), written at `at` of
 * a byte buffer of `len` bytes; in a C string (`cstr`) a zero byte ends the write */
static void __attribute__((unused)) sc_cdict_bytes(sc_rng *r, unsigned char *buf, size_t len, int cstr) {
    uint64_t v = sc_cdict_draw(r);
    size_t width = 1;
    while (width < 8 && (v >> (8 * width))) width++;
    if (sc_below(r, 4) == 0) width = (size_t)1 << sc_below(r, 4);
    if (!len) return;
    size_t at = sc_below(r, len), big = sc_below(r, 4) == 0; /* big endian, one time in four */
    for (size_t t = 0; t < width && at + t < len; t++) {
        unsigned char b = (unsigned char)(v >> (8 * (big ? width - 1 - t : t)));
        if (cstr && !b) break;
        buf[at + t] = b;
    }
}
#endif
