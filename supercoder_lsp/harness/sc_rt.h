/* Runtime shared by the generated verification and timing harnesses:
 * a seeded PRNG, guarded buffers and the FNV hash of outputs. */
#ifndef SC_RT_H
#define SC_RT_H
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>
#include "sc_env.h"

static inline uint64_t sc_mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
typedef struct { uint64_t s; } sc_rng;
static inline uint64_t sc_next(sc_rng *r) { r->s += 0x9e3779b97f4a7c15ULL; return sc_mix(r->s); }
static inline size_t sc_max(size_t a, size_t b) { return a > b ? a : b; }
/* below n: the high word of draw * n (no division; a bias below n / 2^64) */
static inline uint64_t sc_below(sc_rng *r, uint64_t n) { return (uint64_t)(((unsigned __int128)sc_next(r) * n) >> 64); }
#include "sc_cdict.h"
/* The edges of UTF-8, for text (harness/inputs_c.py): the first and last code point of each length, those
 * beside the surrogates, a four-byte emoji (up to one word in two of a text: sc_edge_rate); and what a decoder
 * must refuse there (one in a text, one time in two, anywhere: valid text with one error is what a validator's
 * every branch sees): overlong forms, surrogates (CESU-8), past U+10FFFF, a lone continuation, a sequence cut
 * short. A validator wrong on one of them after a three- or four-byte character passed: random bytes fail at
 * once, words are valid, and where invalid ones were as common as valid ones the first ended the text's check. */
static const char *const sc_utf8_edges[] = {
    "\177", "\302\200", "\337\277", "\340\240\200", "\355\237\277", "\356\200\200", "\357\277\277",
    "\360\220\200\200", "\364\217\277\277", "\360\237\230\200", "\344\270\255", "\360\237\221\215",
};
static const char *const sc_utf8_bad[] = {
    "\300\200", "\301\277", "\340\200\200", "\340\237\277", "\355\240\200", "\355\277\277", "\355\240\275\355\270\200",
    "\360\200\200\200", "\360\217\277\277", "\364\220\200\200", "\365\200\200\200", "\377", "\200", "\277", "\346\227",
    "\360\237\230",
};
/* how many words in sixteen of a text are valid edges: none, one, four or eight */
static inline unsigned sc_edge_rate(sc_rng *r) { static const unsigned rate[4] = {0, 1, 4, 8}; return rate[sc_below(r, 4)]; }
/* word `wn` of a text of `words`: a valid edge `er` times in sixteen; the invalid one where wn is `bad_at` */
static inline const char *sc_text_word(sc_rng *r, const char *const *words, size_t nw, unsigned er, size_t wn,
                                       size_t bad_at) {
    if (wn == bad_at) return sc_utf8_bad[sc_below(r, sizeof sc_utf8_bad / sizeof *sc_utf8_bad)];
    /* the word before it, one time in two, a character of two to four bytes (an error right after one) */
    if (sc_below(r, 16) < er || (wn + 1 == bad_at && sc_below(r, 2)))
        return sc_utf8_edges[sc_below(r, sizeof sc_utf8_edges / sizeof *sc_utf8_edges)];
    return words[sc_below(r, nw)];
}
/* A decimal number near an edge programs parse at (2^8, 2^15, 2^16, 2^31, 2^32, 2^63, 2^64, a power of ten up
 * to 10^20, and 2^24, 2^34, 2^44, 2^53, 2^54, where a unit's 2^10, 2^20, 2^30 or 2^40 takes it past 2^63 or
 * 2^64), two below to two above it, one time in eight after a '-' and one in eight a '+', one in four after
 * leading zeros (as many as 40), one in four followed by a character that ends it (a unit letter among them:
 * "64K", "9007199254740992K"); written to `out` (96 bytes), its length returned. A parser wrong just past
 * 4294967295 passed: text was words, and a candidate's constants were written as raw bytes, never as digits;
 * a size parser wrong past 2^63 with a unit, or after 13 zeros, passed too */
static inline size_t sc_number_text(sc_rng *r, char *out) {
    static const char *const bases[] = {
        "256", "32768", "65536", "2147483648", "4294967296", "9223372036854775808", "18446744073709551616",
        "10", "100", "1000", "10000", "100000", "1000000", "10000000", "100000000", "1000000000", "10000000000",
        "1000000000000000000", "10000000000000000000", "100000000000000000000",
        "16777216", "17179869184", "17592186044416", "9007199254740992", "18014398509481984",
    };
    unsigned __int128 v = 0;
    for (const char *b = bases[sc_below(r, sizeof bases / sizeof *bases)]; *b; b++) v = v * 10 + (unsigned)(*b - '0');
    int d = (int)sc_below(r, 5) - 2;
    v = d < 0 ? v - (unsigned)-d : v + (unsigned)d;
    char dig[48];
    size_t n = 0, k = 0;
    do { dig[n++] = (char)('0' + (int)(v % 10)); v /= 10; } while (v);
    uint64_t sign = sc_below(r, 8);
    if (sign == 0) out[k++] = '-';
    else if (sign == 1) out[k++] = '+';
    if (sc_below(r, 4) == 0) for (uint64_t z = 1 + sc_below(r, sc_below(r, 2) ? 12 : 40); z--;) out[k++] = '0';
    while (n) out[k++] = dig[--n];
    if (sc_below(r, 4) == 0) out[k++] = " ,.x\nkKMGTbe%"[sc_below(r, 13)];
    out[k] = 0;
    return k;
}
/* where a text of `len` bytes gets its one invalid word: one time in two none (SIZE_MAX) */
static inline size_t sc_bad_at(sc_rng *r, size_t len) { return sc_below(r, 2) ? sc_below(r, 1 + len / 3) : (size_t)-1; }
/* A buffer of `n` bytes made of one record of `period` bytes repeated (an array of equal doubles or structs seen
 * as bytes): the record random, or one time in two the bytes of a double or float of a small number (mostly
 * zero bytes: 1.0 is 00 00 00 00 00 00 f0 3f) (harness/inputs_c.py) */
static inline void sc_period_fill(sc_rng *r, unsigned char *b, size_t n, size_t period) {
    if (!n || !period) return;
    if (sc_below(r, 2)) {
        double d = (double)(int64_t)(sc_below(r, 2001) - 1000) / (double)(1u << sc_below(r, 4));
        float f = (float)d;
        unsigned char rec[32] = {0};
        if (period >= 8) memcpy(rec, &d, 8); else if (period >= 4) memcpy(rec, &f, 4); else rec[0] = (unsigned char)d;
        for (size_t t = 0; t < period && t < n; t++) b[t] = rec[t % 32];
    }
    for (size_t t = period; t < n; t++) b[t] = b[t - period];
}

/* The bytes of a big generated buffer (a struct's, the data its pointers point into): a window of
 * SC_POOL_WORDS words drawn once (sc_pool_init), from a random word on; a draw per word cost most of a
 * harness run where an input is a 6 KB struct and two 64 KB buffers. Its fields are drawn after. */
#define SC_POOL_WORDS 32768
static uint64_t sc_pool[SC_POOL_WORDS] __attribute__((unused));
static void __attribute__((unused)) sc_pool_init(uint64_t seed) {
    sc_rng r = { seed };
    for (size_t t = 0; t < SC_POOL_WORDS; t++) sc_pool[t] = sc_next(&r);
}
static void __attribute__((unused)) sc_pool_fill(sc_rng *r, unsigned char *dst, size_t n) {
    size_t at = 8 * sc_below(r, SC_POOL_WORDS);
    while (n) {
        size_t k = n < sizeof sc_pool - at ? n : sizeof sc_pool - at;
        memcpy(dst, (unsigned char *)sc_pool + at, k);
        dst += k, n -= k, at = 0;
    }
}

/* A random integer of the given width: uniform bits, a random bit length,
 * a small value, or one near a power of two or a square, so that loops over bits and
 * digits see short and long runs alike. Returned sign-extended (signed) or
 * zero-extended (unsigned) to 64 bits. */
static inline uint64_t sc_rand_int(sc_rng *r, int bits, int is_signed) {
    uint64_t v, k = sc_below(r, 8);
    if (k < 3) v = sc_next(r);
    else if (k < 6) { int len = (int)sc_below(r, bits + 1); v = len ? (sc_next(r) >> (64 - len)) : 0; if (len && sc_below(r, 2)) v |= 1ULL << (len - 1); }
    else if (k < 7) v = sc_below(r, 256);
    else { /* near a power of two, or (one in two, from the same two draws) near a square: a root's edges */
        uint64_t a = sc_next(r), b = sc_below(r, 3);
        if (a & 1) { int half = (int)((a >> 1) % (uint64_t)((bits + 1) / 2 + 1)); uint64_t s = half ? (a >> 8) >> (56 - half) : 0; v = s * s + b - 1; }
        else v = (1ULL << (int)(((unsigned __int128)a * (uint64_t)bits) >> 64)) + b - 1;
    }
    if (bits < 64) v &= (1ULL << bits) - 1;
    if (is_signed) {
        uint64_t mask = bits < 64 ? (1ULL << bits) - 1 : ~0ULL;
        if (bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~mask;      /* sign-extend */
        if (sc_below(r, 3) == 0) {                                 /* small negatives too */
            v = (0 - v) & mask;
            if (bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~mask;
        }
    }
    return v;
}

/* An integer near one of its type's edges (the most, the least, the middle of an unsigned range), inward by
 * up to 2^15 on a log scale, from hash `h`: random draws of the full width almost never come within a
 * thousand of the most (a candidate wrong on (unsigned)-3..-1000 passed) */
static inline uint64_t sc_near_edge(uint64_t h, int bits, int is_signed) {
    uint64_t mask = bits < 64 ? (1ULL << bits) - 1 : ~0ULL, top = bits < 64 ? 1ULL << (bits - 1) : 1ULL << 63;
    uint64_t d = (h >> 16) & ((1ULL << ((h >> 4) & 15)) - 1), v;
    switch (h & 3) {
    case 0: v = (is_signed ? top - 1 : mask) - d; break;    /* the most */
    case 1: v = is_signed ? top + d : d; break;             /* the least */
    case 2: v = top - 1 - d; break;                         /* below the middle of the range */
    default: v = top + d; break;                            /* above it */
    }
    v &= mask;
    if (is_signed && bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~mask;
    return v;
}

static inline uint64_t sc_clamp(uint64_t v, int is_signed, uint64_t lo, uint64_t hi) {
    if (is_signed) {
        int64_t s = (int64_t)v, l = (int64_t)lo, h = (int64_t)hi;
        if (s >= l && s <= h) return v;
        uint64_t span = (uint64_t)(h - l) + 1;
        return (uint64_t)(l + (int64_t)(span ? (uint64_t)s % span : (uint64_t)s));
    }
    if (v >= lo && v <= hi) return v;
    uint64_t span = hi - lo + 1;
    return lo + (span ? v % span : v);
}

/* A field of `bytes` bytes (1, 2, 4 or 8) at p, read or written without a call to memcpy. */
static inline uint64_t sc_get(const unsigned char *p, unsigned bytes) {
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (bytes) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}
static inline void sc_put(unsigned char *p, uint64_t v, unsigned bytes) {
    uint8_t a = (uint8_t)v; uint16_t b = (uint16_t)v; uint32_t c = (uint32_t)v;
    switch (bytes) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

/* A struct's big array members (CType.arrays: inflate_state's codes[1444], deflate_state's heap[573])
 * drawn as one, one way per array and input: one in eight every element one by one, as a scalar field
 * is; else all the struct's random bytes, all zero, or (one in two) every element below 2^b, b from 0 to
 * 12 (indices into another array, counts). Drawing every element of every array one by one cost 70% of
 * a harness run where an input is an inflate_state (4,966 fields). */
enum { SC_RUN_ONE_BY_ONE, SC_RUN_RANDOM, SC_RUN_ZERO, SC_RUN_SMALL };
static void __attribute__((unused)) sc_runs_draw(sc_rng *r, unsigned char *how, unsigned char *b, size_t n) {
    for (size_t q = 0; q < n; q++) {
        uint64_t k = sc_below(r, 8);
        how[q] = k == 0 ? SC_RUN_ONE_BY_ONE : k < 3 ? SC_RUN_RANDOM : k < 4 ? SC_RUN_ZERO : SC_RUN_SMALL;
        b[q] = (unsigned char)sc_below(r, 13);
    }
}
/* 1 where the field at p (an element of an array drawn as one) was given its array's way */
static inline int sc_run_field(unsigned char *p, unsigned bytes, unsigned how, unsigned b) {
    if (how == SC_RUN_ONE_BY_ONE) return 0;
    if (how == SC_RUN_ZERO) sc_put(p, 0, bytes);
    else if (how == SC_RUN_SMALL) sc_put(p, sc_get(p, bytes) & ((1ULL << b) - 1), bytes);
    return 1;
}

/* One in seven a value of the few that programs make and random bits almost never are: zeros of either sign,
 * infinities, the NaN 0/0 and sqrt(-1) give (sign set) and others, denormals, the edges of the normal range,
 * halves (rounding ties) and the edges of 2^52 and 2^53 (where doubles stop holding fractions, integers) */
static const uint64_t sc_fp_specials[] = {
    0x0000000000000000ULL, 0x8000000000000000ULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
    0xfff8000000000000ULL, 0x7ff8000000000000ULL, 0x7ff0000000000001ULL, 0xfff4000000000123ULL,
    0x0000000000000001ULL, 0x800fffffffffffffULL, 0x0010000000000000ULL, 0x7fefffffffffffffULL,
    0xffefffffffffffffULL, 0x3fe0000000000000ULL, 0xbff8000000000000ULL, 0x4004000000000000ULL,
    0x4330000000000000ULL, 0x432fffffffffffffULL, 0x4340000000000000ULL, 0xc33fffffffffffffULL,
};
static inline double sc_rand_double(sc_rng *r) {
    uint64_t k = sc_below(r, 7), b;
    double d;
    switch (k) {
    case 6:
        b = sc_next(r);
        if (b & 1) { d = (double)((int64_t)(b >> 44) - (1 << 19)) + 0.5; return d; } /* a tie */
        b = sc_fp_specials[(b >> 1) % (sizeof sc_fp_specials / sizeof *sc_fp_specials)];
        memcpy(&d, &b, 8);
        return d;
    case 0: b = sc_next(r); memcpy(&d, &b, 8); return d; /* any bit pattern */
    case 1: return (double)(int64_t)sc_below(r, 2001) - 1000.0;
    case 2: return ((double)(sc_next(r) >> 11) / 9007199254740992.0) * 2.0 - 1.0;
    default: return ((double)(sc_next(r) >> 11) / 9007199254740992.0 - 0.5) * 2e6;
    }
}

/* Guarded buffers: a PROT_NONE page on each side of the data. A buffer is
 * placed against the page after it (reading one element past the end
 * crashes) or against the page before it (writing before the start crashes). */
typedef struct { unsigned char *base; size_t cap; int still; } sc_guard; /* still: stays on its side when
 * sides flip (while another buffer's length is probed, verify/probe.py, only that one moves) */
static int sc_flip_sides __attribute__((unused)); /* every buffer against its other guard (a self-check) */

/* Every guarded buffer (and the allocator's slots, sc_heap.h) lies on an island of address space with
 * SC_SEA bytes of PROT_NONE on either side, reserved, never backed: a pointer a generated field sends
 * far from its buffer (zlib's `window + strstart` with a random 32-bit strstart, times an element's
 * size) faults there, which is that input's crash, instead of landing in the C library's data and
 * killing the harness on one layout of memory and not on another. Buffers on the island are one
 * PROT_NONE page apart. */
#define SC_SEA ((size_t)64 << 30)
#define SC_ISLAND ((size_t)16 << 30)
/* Where the island lies: the same address in every process of one check (the original's run and every
 * candidate's), so that its buffers and slots lie at the same addresses in each. A word the call leaves is
 * compared by what it points to (sc_mapped_word, sc_heap.h): with the island at a place of the kernel's
 * choosing, a random 64-bit field that fell on a slot in one process and nowhere in the other made a
 * candidate "wrong" on one input in ~100,000 (zlib's send_tree). The verifier draws the address anew for
 * each process of its own and each function (SC_ISLAND, verify/layout.py) where a program's heap and its
 * mmap'd blocks lie, so that no fixed address tells a candidate it runs in the harness. Without SC_ISLAND
 * (the tests of the runtime itself), the old fixed place; where the address is taken in every fresh start
 * (sc_layout_again), a place below where programs load. */
#define SC_ISLAND_AT ((uintptr_t)0x200000000000ULL)
static unsigned char *sc_island_next, *sc_island_end;
static uintptr_t sc_island_lo, sc_island_hi; /* the island as reserved (sc_ro_protect's bounds) */
static inline unsigned char *sc_reserve_at(uintptr_t at, size_t bytes) { /* NULL where taken */
    if (!at) return NULL;
    void *m = mmap((void *)at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if ((uintptr_t)m != at) { munmap(m, bytes); return NULL; } /* a kernel that took it for a hint */
    return m;
}
static inline uintptr_t sc_env_address(const char *name) {
    const char *s = sc_getenv(name);
    return s ? (uintptr_t)strtoull(s, 0, 16) & ~(uintptr_t)4095 : 0;
}
/* Whether this process's layout is the kernel's fixed one (address randomization off: the last resort of
 * sc_layout_again) */
static inline int sc_layout_fixed(void) {
    int p = personality(0xffffffff);
    return p != -1 && (p & ADDR_NO_RANDOMIZE);
}
/* Every process of a check (the original's runs, each candidate's, the timing driver's) runs with address
 * randomization on, as a PIE program does: its code, its globals, its libraries and its own stack lie at
 * addresses the kernel draws anew in each run, so that a candidate that looks where its own code lies (or
 * at the bytes its return address points to, through their address) sees an ordinary program. Only the
 * island of buffers and the call stack lie where the verifier drew them (SC_ISLAND, SC_STACK), the same in
 * every process of one function's check. Where the kernel's draw took that place, the process starts
 * again with a fresh draw (sc_layout_again); after SC_LAYOUT_TRIES of them, with randomization off, where
 * the verifier's places are always free. */
#define SC_LAYOUT_TRIES 12
static char **sc_argv;
static int sc_layout_again(void) { /* returns only where it cannot start again */
    const char *s = sc_getenv("SC_LAYOUT_TRY");
    int n = s ? atoi(s) : 0;
    if (!sc_argv || n >= SC_LAYOUT_TRIES || sc_layout_fixed()) return 0;
    char b[16];
    snprintf(b, sizeof b, "%d", n + 1);
    setenv("SC_LAYOUT_TRY", b, 1);
    if (n + 1 == SC_LAYOUT_TRIES) {
        int p = personality(0xffffffff);
        if (p == -1 || personality((unsigned long)p | ADDR_NO_RANDOMIZE) == -1) return 0;
    }
    execv("/proc/self/exe", sc_argv);
    return 0;
}
static int sc_island_ready(void);
static void __attribute__((unused)) sc_layout(char **argv) {
    sc_argv = argv;
    sc_island_ready(); /* its place, or a fresh start, before anything else is done */
}

#define SC_HEAP_ROOM ((uintptr_t)1 << 32) /* the heap's room to grow, above the program break */
#define SC_FREE_LO ((uintptr_t)0x100000000000ULL) /* to 0x540000000000: below where PIE programs load */
#define SC_FREE_SPAN ((uintptr_t)0x440000000000ULL)
static int sc_island_ready(void) { /* reserved on first use; 0 where it could not be */
    if (!sc_island_end) {
        size_t all = 2 * SC_SEA + SC_ISLAND;
        uintptr_t at = sc_env_address("SC_ISLAND");
        /* not where this run's heap grows (the program break, randomized too) */
        uintptr_t brk_at = (uintptr_t)sbrk(0);
        int near_heap = at > SC_SEA && at - SC_SEA >= brk_at && at - SC_SEA - brk_at < SC_HEAP_ROOM;
        unsigned char *m = at > SC_SEA && !near_heap ? sc_reserve_at(at - SC_SEA, all) : NULL;
        if (!m && at) sc_layout_again();
        if (!m && at) m = sc_reserve_at(SC_FREE_LO + at % SC_FREE_SPAN / 4096 * 4096, all); /* none could be had */
        if (!m) {
            m = mmap((void *)SC_ISLAND_AT, all, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m == MAP_FAILED) m = NULL;
        }
        sc_island_next = sc_island_end = (unsigned char *)1; /* tried */
        if (m) { sc_island_next = m + SC_SEA; sc_island_end = sc_island_next + SC_ISLAND; }
        if (m) { sc_island_lo = (uintptr_t)sc_island_next; sc_island_hi = (uintptr_t)sc_island_end; }
    }
    return sc_island_next != (unsigned char *)1;
}
/* `bytes` (whole pages) of the island made read-write, one PROT_NONE page from what was taken before:
 * from its low end, or with `top` from its high end, where the sea lies right above them (64 GiB of
 * PROT_NONE). NULL if the island has no room, or none could be reserved. */
static inline unsigned char *sc_island_take(size_t bytes, int top) {
    long pg = sysconf(_SC_PAGESIZE);
    if (!sc_island_ready() || bytes + (size_t)pg > (size_t)(sc_island_end - sc_island_next)) return NULL;
    unsigned char *p = top ? sc_island_end - bytes : sc_island_next + pg;
    if (mprotect(p, bytes, PROT_READ | PROT_WRITE)) return NULL;
    if (top) sc_island_end = p - pg;
    else sc_island_next = p + bytes;
    return p;
}
static inline unsigned char *sc_island_pages(size_t bytes) { return sc_island_take(bytes, 0); }
/* Buffers behind const pointers are read-only while a call runs (on a sample of inputs: inputs_c.py's
 * sc_ro_begin): a candidate that writes into its const input and puts the bytes back crashes, as it would
 * on data in .rodata, instead of passing. Each region is a guard region of its own (whole pages); every
 * path out of the call (its return, a crash, a timeout) makes them writable again (sc_ro_end). */
#define SC_RO_MAX 8
/* Both run inside the call's window, where a timeout's siglongjmp may cut them off: a region is listed
 * before it is made read-only and unlisted only once writable again (volatile keeps that order). Cut off
 * between the two, the list had lost a region still read-only, and the next input's making crashed the
 * harness ("harness failure", about one baseline run in 40 where a single-stepped call ran out of time) */
static unsigned char *volatile sc_ro_at[SC_RO_MAX];
static volatile size_t sc_ro_len[SC_RO_MAX];
static volatile unsigned sc_ro_n;
static inline void sc_ro_protect(unsigned char *p, size_t n) {
    unsigned k = sc_ro_n;
    if (k < SC_RO_MAX && (uintptr_t)p >= sc_island_lo && (uintptr_t)p + n <= sc_island_hi) {
        sc_ro_at[k] = p;
        sc_ro_len[k] = n;
        sc_ro_n = k + 1;
        if (mprotect(p, n, PROT_READ)) sc_ro_n = k;
    }
}
static inline void sc_ro_end(void) {
    while (sc_ro_n) {
        unsigned k = sc_ro_n - 1;
        mprotect(sc_ro_at[k], sc_ro_len[k], PROT_READ | PROT_WRITE);
        sc_ro_n = k;
    }
}
/* The pages buffer `p` of `n` bytes lies on (one page where it is empty), in guard region `g`, read-only:
 * not the whole region, whose pages a long input left mapped (mprotect walks every one of them: 4,096 a
 * call for 16 MiB, most of a harness's time) */
static inline void sc_ro_span(const sc_guard *g, const void *p, size_t n) {
    static uintptr_t pg;
    if (!pg) pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(pg - 1), hi = ((uintptr_t)p + n + pg - 1) & ~(pg - 1);
    if (hi == lo) hi = lo + pg;
    if (lo < (uintptr_t)g->base) lo = (uintptr_t)g->base;
    if (hi > (uintptr_t)g->base + g->cap) hi = (uintptr_t)g->base + g->cap;
    if (hi > lo) sc_ro_protect((unsigned char *)lo, hi - lo);
}
/* The stack the checking trampoline (verify/tramp.S) calls the function on, its top; sc_verify.h sets it */
extern unsigned char *sc_stack_top;
#define SC_CALL_STACK ((size_t)8 << 20)
static inline void sc_guard_init(sc_guard *g, size_t bytes) {
    long pg = sysconf(_SC_PAGESIZE);
    size_t cap = (bytes + pg - 1) / pg * pg + pg;
    unsigned char *p = sc_island_pages(cap);
    if (!p) { /* no island (an address-space limit): a mapping of its own, a guard page on each side */
        unsigned char *m = mmap(NULL, cap + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) { perror("mmap"); exit(70); }
        mprotect(m, pg, PROT_NONE);
        mprotect(m + pg + cap, pg, PROT_NONE);
        p = m + pg;
    }
    g->base = p; g->cap = cap;
}
/* Long inputs (harness/inputs_c.py's sc_long_for): drawn by the checking harness only, which sets this; the
 * timing driver and the runtime's own tests time and run inputs of ordinary length */
static int sc_long_ok __attribute__((unused));
static int sc_nan_loose __attribute__((unused)); /* this input's NaNs may meet (inputs_c.py: sc_nans_meet) */
/* a NaN other than the one x86 makes (inputs_c.py: sc_nans_meet) */
static inline int sc_other_nan_d(double v) { uint64_t b; memcpy(&b, &v, 8); return v != v && b != 0xfff8000000000000ULL; }
static inline int sc_other_nan_f(float v) { uint32_t b; memcpy(&b, &v, 4); return v != v && b != 0xffc00000u; }
/* Loose inputs: one generated input in four (sc_gen draws sc_loose from its index; a recorded call keeps
 * its regions against their guards, as its alignment is the program's) has every buffer where a
 * malloc'd block would lie, touching neither guard page: a start aligned as the element size asks (16 to
 * 64 bytes), up to a page from the guard before
 * it, with bytes of its own on both sides. A candidate that looks whether a buffer starts or ends at a
 * page boundary (the harness's tell) is then run and compared on the inputs where none does. Those bytes
 * (up to SC_LOOSE_PAD past the end) are zeroed first, so that a read past the buffer reads the same in
 * every run. In the self-check (sc_flip_sides) the same input lies tight instead, every buffer against
 * the guard after it (sc_gen): an original that reads past a loose buffer crashes there, or reads other
 * bytes before it, and the input is left out as depending on where its buffers lie, as a tight one is
 * (lz4's LZ4_compress_forceExtDict read a match past its dictionary on 2,556 loose inputs that were kept;
 * the timing driver's copies, in glibc's heap, then crashed the original itself). Never while a length is
 * probed (SC_PROBE_LEN), where a read past the end must fault. Returns whether input `i` is loose. */
#define SC_LOOSE_PAD ((size_t)4096)
static uint64_t sc_loose; /* nonzero: this input's buffers lie loose; the next buffer's draw */
static inline int sc_loose_for(uint64_t i) {
    static int probing = -1;
    if (probing < 0) probing = sc_getenv("SC_PROBE_LEN") != NULL;
    uint64_t h = sc_mix(i ^ 0x100535ULL);
    int is = !probing && (h & 3) == 0;
    sc_loose = is && !sc_flip_sides ? h | 1 : 0;
    return is;
}
static inline unsigned char *sc_loose_place(sc_guard *g, size_t bytes, size_t align) {
    size_t room = g->cap - bytes, most = room - 2 * align; /* room: at least a page (sc_guard_init) */
    if (bytes > g->cap || room < 4 * align) return g->base + g->cap - bytes; /* never: against the guard */
    if (most > 4096 - 2 * align) most = 4096 - 2 * align; /* the start on no page boundary */
    sc_loose = sc_mix(sc_loose) | 1;
    size_t off = align + (size_t)(sc_loose % (most / align + 1)) * align;
    if (((uintptr_t)(g->base + off + bytes) & 4095) == 0) off = off > align ? off - align : off + align; /* nor its end */
    size_t after = g->cap - off - bytes;
    memset(g->base, 0, off);
    memset(g->base + off + bytes, 0, after < SC_LOOSE_PAD ? after : SC_LOOSE_PAD);
    /* the words glibc's malloc keeps beside a block: its chunk's size (with PREV_INUSE) before it, the
     * previous chunk's last bytes before that, and past the end (rounded as malloc rounds) the next
     * chunk's size: a candidate that looks for zeros or a page boundary beside its buffer (a harness's
     * tell) sees a malloc'd block. Drawn from the input: the same in every run. */
    size_t chunk = sc_max((bytes + 8 + 15) & ~(size_t)15, 32), next = chunk - 8 - bytes;
    uint64_t size_word = chunk | 1, prev = sc_mix(sc_loose), next_word = ((sc_loose >> 4) & 0x3ff0) | 0x21;
    if (off >= 16) { memcpy(g->base + off - 8, &size_word, 8); memcpy(g->base + off - 16, &prev, 8); }
    if (after >= next + 8) memcpy(g->base + off + bytes + next, &next_word, 8);
    return g->base + off;
}
static inline void *sc_guard_place(sc_guard *g, size_t bytes, int at_start) {
    if (sc_loose) {
        size_t align = bytes & (~bytes + 1);
        return sc_loose_place(g, bytes, align < 16 ? 16 : align > 64 || !align ? 64 : align);
    }
    if (g->still) at_start ^= sc_flip_sides;
    return at_start ? g->base : g->base + g->cap - bytes;
}
/* As sc_guard_place, but a buffer placed against the guard before it, one time in eight (`h`), `unit` (the
 * element's size, under 16) to 15 bytes after it, a multiple of `unit`: then neither end of the buffer need be
 * 16-byte aligned (a checksum over `packet + 1`), as a program's buffers are; placed against a guard, one end
 * always was, and a candidate wrong only where both ends are off a vector's alignment passed every input. Only
 * at the start: the run with its sides flipped (the self-check's) has the same input's end against its guard,
 * so a read past the end still crashes in one of the two runs */
static inline void *sc_guard_place_mis(sc_guard *g, size_t bytes, int at_start, size_t unit, uint64_t h) {
    unsigned char *p = sc_guard_place(g, bytes, at_start);
    if (sc_loose || !unit || unit >= 16 || (h & 7) || p != g->base) return p;
    size_t o = unit * (1 + (size_t)((h >> 3) % (16 / unit - 1)));
    return bytes + o + 64 > g->cap ? p : p + o;
}
/* A recorded region at the same offset modulo 64 as where the program had it (`orig`): its
 * alignment is the program's. Against the page before it, or as near the page after as that allows. */
static inline void *sc_guard_place_as(sc_guard *g, size_t bytes, uint64_t orig, int at_start) {
    size_t mis = (size_t)(orig & 63); /* never loose: sc_gen clears sc_loose before a recorded call */
    if (g->still) at_start ^= sc_flip_sides;
    if (at_start) return g->base + mis;
    size_t at = (g->cap - bytes) & ~(size_t)63;
    return g->base + (at + mis + bytes <= g->cap ? at + mis : at + mis - 64);
}

/* Where a candidate "leaves other memory" than the original, which byte: `show I MODE dump` prints each region
 * the comparison hashes (a header "@@ LABEL INDEX BYTES", then its bytes in hex, pointers as the tags the hash
 * takes), and verify/memory_diff.py finds the first that differs between the two. Off in every other run. */
static int sc_dumping;
static const char *sc_dump_label = "memory";
static void sc_dump(const char *label, unsigned idx, const void *p, size_t n) {
    if (!sc_dumping) return;
    const unsigned char *c = p;
    printf("\n@@ %s %u %zu\n", label, idx, n);
    for (size_t i = 0; i < n; i++) printf("%02x", c[i]);
}
/* FNV-1a over 8-byte words (then the tail bytes): any change to any byte changes it. */
static inline uint64_t sc_fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    size_t i = 0;
    if (__builtin_expect(sc_dumping, 0)) sc_dump(sc_dump_label, 0, p, n);
    for (; i + 8 <= n; i += 8) { uint64_t w; memcpy(&w, c + i, 8); h ^= w; h *= 0x100000001b3ULL; h ^= h >> 29; }
    for (; i < n; i++) { h ^= c[i]; h *= 0x100000001b3ULL; }
    return h;
}
/* The same over `n` floats of `size` 4 or 8 bytes, where two NaNs may meet in the call (`loose`) every
 * NaN as one: IEEE 754 does not say which NaN (sign and payload) an operation on two NaNs gives, so a compiler
 * that commutes `s + a * b` gives the other one, and four honest builds of a dot product "differed" from -O3 on
 * NaN bits alone. A NaN where the original has a number (or a number where it has a NaN) still differs. */
static inline uint64_t sc_fnv_fp(uint64_t h, const void *p, size_t n, size_t size, int loose) {
    if (!loose) return sc_fnv(h, p, n * size);
    const unsigned char *c = p;
    if (__builtin_expect(sc_dumping, 0)) printf("\n@@ %s 0 %zu\n", sc_dump_label, n * size);
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        if (size == 8) { double d; memcpy(&d, c + 8 * i, 8); if (d != d) d = __builtin_nan(""); memcpy(&w, &d, 8); }
        else { float f; memcpy(&f, c + 4 * i, 4); if (f != f) f = __builtin_nanf(""); uint32_t u; memcpy(&u, &f, 4); w = u; }
        if (__builtin_expect(sc_dumping, 0)) for (size_t t = 0; t < size; t++) printf("%02x", (unsigned)(w >> 8 * t) & 0xff);
        h ^= w; h *= 0x100000001b3ULL; h ^= h >> 29;
    }
    return h;
}

/* Fast random array contents: one bit length per array, then plain draws of it,
 * sign-extended for signed elements (the spread across arrays comes from the length). */
static inline uint64_t sc_rand_elem(sc_rng *r, int len, int bits, int is_signed) {
    uint64_t v = len ? sc_next(r) >> (64 - len) : 0;
    if (is_signed && bits < 64 && ((v >> (bits - 1)) & 1)) v |= ~((1ULL << bits) - 1);
    return v;
}

/* A double with arbitrary bits (junk for unused argument registers). */
static inline double sc_bits_double(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }

/* A length of up to `max` elements, most of them short: small (up to 80), or
 * spread over every size up to `max` on a logarithmic scale. */
static inline size_t sc_rand_len(sc_rng *r, size_t lo, size_t max) {
    if (max <= lo) return lo;
    if (sc_below(r, 3) == 0) { size_t top = max < lo + 80 ? max : lo + 80; return lo + sc_below(r, top - lo + 1); }
    int bits = 0; while (bits < 63 && (1ULL << bits) <= max - lo) bits++;
    int b = (int)sc_below(r, (uint64_t)bits + 1);
    size_t v = b ? (size_t)(sc_next(r) >> (64 - b)) : 0;
    return lo + (v > max - lo ? max - lo : v);
}

/* Allocation without system calls, for code that runs sandboxed: every allocation from the heap (no
 * mmap), never given back (no trim), and the heap grown by SC_HEAP_RESERVE and freed before the sandbox
 * (which also lets malloc set itself up, getrandom included). A function that mallocs and frees a
 * working buffer then runs in the function harness; one that needs more makes a system call and says so. */
#define SC_HEAP_RESERVE (64u << 20)
static inline void sc_heap_reserve(void) {
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    void *p = malloc(SC_HEAP_RESERVE);
    __asm__ volatile("" : : "r"(p) : "memory"); /* kept: gcc drops a malloc whose block is only freed */
    free(p);
}

/* Bytes the program holds from malloc (what a call leaves allocated shows as a change). */
static inline size_t sc_heap_held(void) { return mallinfo2().uordblks; }

static inline uint64_t sc_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* This thread's CPU time: a budget counted in it gives a check as many calls on a busy machine as on an idle
 * one (counted in wall time, a third of the CPU made a third of the calls, and a candidate that goes wrong
 * past the calls an idle machine makes passed) */
static inline uint64_t sc_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The skip list of SC_SKIP (verify/function_check.py): one byte per input, 1 where the -O3 original ran
 * out of time or was not run within its budget, 2 where it crashed (the verifier runs those with its short
 * limit); NULL (and *n 0) without one. Read before the sandbox. */
static inline unsigned char *sc_load_skip(size_t *n) {
    const char *path = sc_getenv("SC_SKIP");
    FILE *f = path ? fopen(path, "rb") : NULL;
    unsigned char *skip = NULL;
    *n = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long m = ftell(f);
        rewind(f);
        if (m > 0 && (skip = malloc((size_t)m)) != NULL) *n = fread(skip, 1, (size_t)m, f);
    }
    fclose(f);
    return skip;
}

/* async-signal-safe decimal print */
static inline void sc_write_u64(int fd, uint64_t v) {
    char b[24]; int i = 23; b[i] = 0;
    do { b[--i] = '0' + v % 10; v /= 10; } while (v);
    (void)!write(fd, b + i, 23 - i);
}
static inline void sc_write_s(int fd, const char *s) { (void)!write(fd, s, strlen(s)); }
#endif
