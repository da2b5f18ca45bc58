/* The calling context of the verification harness's plain C callers (verify/harness_c.py's _plain_callers).
 *
 * A candidate must not be able to tell a check from a call in a program. Most calls reach it through the
 * checking trampoline (verify/tramp.S), whose bytes are fixed; some through a plain C caller that the
 * trampoline calls; and one call in four (sc_plain_native) with no trampoline anywhere: the harness's own
 * compiled C calls the plain caller on the process's own stack, main's, as any program's code does. There,
 * the plain caller checks what the trampoline would, after the return, in its own code (sc_plain_leave):
 * the direction flag, MXCSR's control bits, the x87 control word and stack, the upper YMM state; and the
 * caller's frame above it holds drawn words it checks too (sc_plain_pad). A finding on such a call is named
 * by the same input again through the trampoline (sc_verify.h).
 *
 * On such a call an input whose buffers lie loose (sc_rt.h's sc_loose_for) may also lie where a program's
 * buffers do (sc_move): in the caller's stack frame, a few hundred bytes above the function's stack
 * pointer, or in the executable's .bss, beside its code; each buffer with the bytes around it, at its
 * offset modulo 64, and put back after the call. A candidate that is right only where its buffers lie far
 * from its stack and its code (the island, the harness's tell) is then run and compared where they do not.
 */
#ifndef SC_PLAIN_H
#define SC_PLAIN_H
#include <stdint.h>
#include <string.h>

extern uint64_t sc_upper_dirty;
extern unsigned char sc_has_avx, sc_has_xinuse;

static int sc_plain_bad;    /* the plain caller saw what it kept, or a state the convention keeps, change */
static int sc_force_tramp;  /* every call through the trampoline alone: to name a finding */
static int sc_plain_used;   /* whether the last call came from a plain C caller */
static int sc_plain_native; /* ... and from the harness's own C on its own stack, no trampoline */
static unsigned sc_watch_n; /* sc_verify.h: the bytes around buffers watched for this call (none move then) */
static uint32_t sc_plain_mx;
static uint16_t sc_plain_cw;
static uint32_t sc_plain_mx_after; /* MXCSR right after a plain call, before it is repaired: its flags */
/* The floating-point exception flags a call leaves (sc_call): those it raised of invalid, divide-by-zero and
 * overflow (the ones a program traps on with feenableexcept), and in bits 8-13 those set before the call that
 * it cleared (a candidate that restores MXCSR at its end drops what it raised and what it found) */
static uint32_t sc_fp_flags;

/* In a plain caller, right before its call: the state the call must leave as it found it */
static inline __attribute__((always_inline)) void sc_plain_enter(void) {
    if (!sc_plain_native) return;
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(sc_plain_mx), "=m"(sc_plain_cw));
    if (sc_has_avx) __asm__ volatile("vzeroupper" ::: "memory");
}
/* ... and right after it: the checks the trampoline makes, where there is none; the state repaired */
static inline __attribute__((always_inline)) void sc_plain_leave(void) {
    if (!sc_plain_native) return;
    /* static, not in the caller's frame: no slot of its own above the function's return address changes */
    static uint64_t fl;
    static uint32_t mx;
    static uint16_t cw, env[14];
    __asm__ volatile("pushfq\n\tpopq %0\n\tcld" : "=r"(fl) :: "memory");
    __asm__ volatile("stmxcsr %0\n\tfnstcw %1\n\tfnstenv %2\n\tfninit" : "=m"(mx), "=m"(cw), "=m"(env) :: "memory");
    sc_plain_mx_after = mx;
    __asm__ volatile("ldmxcsr %0\n\tfldcw %1" :: "m"(sc_plain_mx), "m"(sc_plain_cw));
    if ((fl & 0x400) || ((mx ^ sc_plain_mx) & ~0x3fU) || cw != sc_plain_cw || env[4] != 0xffff) sc_plain_bad = 1;
    sc_upper_dirty = 0;
    if (sc_has_xinuse) {
        static uint32_t a, d;
        __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(1));
        sc_upper_dirty = a & 4;
        if (a & 4) __asm__ volatile("vzeroupper" ::: "memory");
    }
}

/* Drawn words in the frame right above a native plain caller's (its caller's locals, as the function sees
 * them): a write there is SC_ABI_CALLER, as one into the trampoline's canaries is SC_ABI_FRAME */
static inline void sc_plain_pad_fill(volatile uint64_t *pad, unsigned n, uint64_t s) {
    for (unsigned k = 0; k < n; k++) pad[k] = sc_mix(s + k);
}
static inline void sc_plain_pad_check(volatile uint64_t *pad, unsigned n, uint64_t s) {
    for (unsigned k = 0; k < n; k++) if (pad[k] != sc_mix(s + k)) sc_plain_bad = 1;
}

/* Moved buffers: each with SC_MOVE_BEFORE bytes before it and SC_MOVE_AFTER after (as far as its guard
 * region has them), at its address modulo 64 */
#define SC_MOVE_BEFORE 64
#define SC_MOVE_AFTER 256
#define SC_MOVE_MAX 8
#define SC_NEAR_BYTES ((size_t)256 << 10)
static unsigned char sc_near[SC_NEAR_BYTES] __attribute__((aligned(4096))); /* .bss, beside the code */
/* A block of the process's malloc heap (brk, past the .bss by the kernel's random gap), allocated before the
 * sandbox: buffers moved there lie where a program's malloc'd buffers lie, with the chunk words copied from
 * around their loose place (a candidate that keeps a memo in malloc's spare bytes, only where its buffer
 * looks like a heap block near its code, ran that path only in timing and was right in every check) */
static unsigned char *sc_heapzone;
static inline void sc_heapzone_init(void) {
    sc_heapzone = malloc(SC_NEAR_BYTES);
    __asm__ volatile("" : : "r"(sc_heapzone) : "memory");
}
static unsigned sc_moved_n;
static unsigned char *sc_moved_from[SC_MOVE_MAX], *sc_moved_to[SC_MOVE_MAX];
static void **sc_moved_slot[SC_MOVE_MAX]; /* the input's pointer each moved buffer was given */
static size_t sc_moved_len[SC_MOVE_MAX];

/* The room `n` buffers of these sizes take moved */
static inline size_t sc_move_room(const size_t *bytes, unsigned n) {
    size_t r = 0;
    for (unsigned k = 0; k < n; k++) r += bytes[k] + SC_MOVE_BEFORE + SC_MOVE_AFTER + 128;
    return r;
}
/* Buffer k (at *pv[k], `bytes[k]` long, in the region [lo[k], hi[k])) copied into `area` with what lies
 * around it; *pv[k] made to point at the copy. `draw` spaces them. */
static inline void sc_move(unsigned char *area, size_t room, void **pv[], const size_t *bytes,
                           unsigned char *const *lo, unsigned char *const *hi, unsigned n, uint64_t draw) {
    size_t at = 0;
    sc_moved_n = 0;
    for (unsigned k = 0; k < n && k < SC_MOVE_MAX; k++) {
        unsigned char *p = *pv[k];
        unsigned char *from = p - SC_MOVE_BEFORE < lo[k] || p < lo[k] + SC_MOVE_BEFORE ? lo[k] : p - SC_MOVE_BEFORE;
        unsigned char *to_end = (size_t)(hi[k] - p) < bytes[k] + SC_MOVE_AFTER ? hi[k] : p + bytes[k] + SC_MOVE_AFTER;
        size_t len = (size_t)(to_end - from);
        draw = sc_mix(draw);
        at += (draw & 3) * 16; /* a gap of 0-48 bytes */
        size_t dst = (at + 63) & ~(size_t)63;
        dst += (size_t)((uintptr_t)from & 63); /* the same address modulo 64 */
        if (dst + len > room) break;
        memcpy(area + dst, from, len);
        sc_moved_from[sc_moved_n] = from;
        sc_moved_to[sc_moved_n] = area + dst;
        sc_moved_slot[sc_moved_n] = pv[k];
        sc_moved_len[sc_moved_n++] = len;
        *pv[k] = area + dst + (p - from);
        at = dst + len;
    }
}
/* Buffer k copied into a chunk of the heap block, laid out as glibc's malloc lays out consecutive chunks
 * (a size word with its in-use bit before each, 16-byte aligned, the spare bytes of its rounding after it),
 * at a place drawn from the input's index: the calls of one input (a neighbour's, then its own) find the
 * same chunk with what the last call left in its spare bytes, as a program's calls on a buffer it reuses
 * do. Only the buffers' own bytes are copied in and back. */
static inline void sc_move_heap(void **pv[], const size_t *bytes, unsigned n, uint64_t draw) {
    size_t at = 64 * (size_t)(draw >> 58);
    sc_moved_n = 0;
    for (unsigned k = 0; k < n && k < SC_MOVE_MAX; k++) {
        size_t chunk = (bytes[k] + 8 + 15) & ~(size_t)15;
        if (chunk < 32) chunk = 32;
        if (at + chunk + 64 > SC_NEAR_BYTES) break;
        unsigned char *user = sc_heapzone + at + 16;
        uint64_t size_word = chunk | 1;
        memcpy(user - 8, &size_word, 8);
        memcpy(user, *pv[k], bytes[k]);
        sc_moved_from[sc_moved_n] = *pv[k];
        sc_moved_to[sc_moved_n] = user;
        sc_moved_slot[sc_moved_n] = pv[k];
        sc_moved_len[sc_moved_n++] = bytes[k];
        *pv[k] = user;
        at += chunk;
    }
    uint64_t top = ((SC_NEAR_BYTES - at - 16) & ~(size_t)15) | 1; /* the top chunk after them */
    if (at + 16 <= SC_NEAR_BYTES) memcpy(sc_heapzone + at + 8, &top, 8);
}
/* After the call: each moved buffer, and what lies around it, back where it was */
static inline void sc_move_back(void **pv[], unsigned n) {
    if (!n) return; /* nothing moved here: what sc_move_heap moved stays noted for its caller */
    for (unsigned k = 0; k < sc_moved_n && k < n; k++) {
        memcpy(sc_moved_from[k], sc_moved_to[k], sc_moved_len[k]);
        *pv[k] = sc_moved_from[k] + ((unsigned char *)*pv[k] - sc_moved_to[k]);
    }
    sc_moved_n = 0;
}
/* A call that crashed or ran out of time: its input's pointers back where its buffers were (not the
 * bytes: the call has no result to compare), before anything reads the input again */
static inline void sc_unmove_abandoned(void) {
    for (unsigned k = 0; k < sc_moved_n; k++)
        *sc_moved_slot[k] = sc_moved_from[k] + ((unsigned char *)*sc_moved_slot[k] - sc_moved_to[k]);
    sc_moved_n = 0;
}
/* A pointer the call returned, into a moved copy: where it points in the buffer put back */
static inline uint64_t sc_moved_ptr(uint64_t w) {
    for (unsigned k = 0; k < sc_moved_n; k++)
        if (w >= (uintptr_t)sc_moved_to[k] && w <= (uintptr_t)sc_moved_to[k] + sc_moved_len[k])
            return (uintptr_t)sc_moved_from[k] + (w - (uintptr_t)sc_moved_to[k]);
    return w;
}
#endif
