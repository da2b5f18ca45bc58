/* The heap blocks a call allocates (malloc, calloc, realloc: zlib's deflateInit_ builds its state
 * there), tracked by replacing the allocator's entry points in the harness executable (glibc calls
 * them too) with ones that note each block. While the function under test runs, blocks come from
 * guarded slots (below), else from glibc's own allocator.
 *
 * Used three ways:
 *   - after every call the blocks it left are freed (sc_heap_release), also when it crashed or ran
 *     out of time: a call that dies half-way through building its state leaks nothing, and every
 *     input starts from the same heap;
 *   - before that, the verify harness hashes them (sc_verify.h): the result of a function that
 *     builds a structure in the heap is the structure, a pointer to a block compared as (block,
 *     offset), never as an address;
 *   - new blocks are filled with one byte pattern, so bytes the function leaves unset are the same
 *     in every process.
 * Blocks from memalign/posix_memalign/aligned_alloc are not tracked: the heap the call leaves
 * changed then still shows (SC_ALLOCATED), as does a block it was given and freed. */
#ifndef SC_HEAP_H
#define SC_HEAP_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

#define SC_MAXHEAP 1024
#define SC_HEAP_FILL 0xA5
static volatile int sc_heap_on;      /* tracking: only while the function under test runs */
static void *sc_hb[SC_MAXHEAP];      /* its live blocks, in the order it allocated them */
static size_t sc_hn[SC_MAXHEAP];     /* and their sizes as asked */
static unsigned sc_nh;
static size_t sc_heap_bytes;         /* the sum of sc_hn: what the call holds now */
static int sc_heap_lost;             /* more live blocks than SC_MAXHEAP: not all can be compared or freed */

static void sc_heap_note(void *p, size_t n) {
    if (!p) return;
    if (sc_nh < SC_MAXHEAP) { sc_hb[sc_nh] = p; sc_hn[sc_nh++] = n; sc_heap_bytes += n; }
    else sc_heap_lost = 1;
}
static int sc_heap_forget(void *p) {
    for (unsigned i = sc_nh; i-- > 0;)
        if (sc_hb[i] == p) {
            sc_heap_bytes -= sc_hn[i];
            memmove(sc_hb + i, sc_hb + i + 1, (sc_nh - i - 1) * sizeof *sc_hb);
            memmove(sc_hn + i, sc_hn + i + 1, (sc_nh - i - 1) * sizeof *sc_hn);
            sc_nh--;
            return 1;
        }
    return 0;
}

/* What one call may hold from malloc at once: past it malloc returns NULL (ENOMEM), as it may anywhere,
 * instead of growing the heap past its reserve with a system call the sandbox forbids (zlib's
 * updatewindow allocates 1 << wbits bytes, wbits from a generated state). The same past SC_MAXHEAP
 * live blocks, however small: zlib's gz_write with a generated `want` of 0 calls gz_init, which
 * mallocs two empty blocks, in a loop until its time runs out. */
#define SC_HEAP_CALL_MAX ((size_t)16 << 20)
static int sc_heap_refuse(size_t n) {
    if (sc_nh < SC_MAXHEAP && n <= SC_HEAP_CALL_MAX && sc_heap_bytes + n <= SC_HEAP_CALL_MAX) return 0;
    errno = ENOMEM;
    return 1;
}

/* Memory the call was given that malloc never gave (a generated or recorded handle, as zlib's gzclose
 * frees its state): glibc would abort; freeing it is an effect of the call, noted and compared. */
#define SC_MAXFOREIGN 16
static uint64_t sc_arena_lo, sc_arena_hi; /* the heap's pages (sc_read_maps) */
static uint64_t sc_foreign[SC_MAXFOREIGN];
/* The timing driver's copies of its inputs (measure/interleaved.py: sc_copy_mem), from glibc's heap before
 * any call: freeing one of them is freeing memory malloc never gave the call, as in the verifier. */
static uint64_t sc_inputs_lo __attribute__((unused)), sc_inputs_hi __attribute__((unused));
static unsigned sc_nforeign;

/* Where a call's blocks come from: guarded slots, not glibc's heap. Each block ends against a PROT_NONE
 * page, so a write past it crashes that input (skipped, or a difference) instead of corrupting glibc's
 * heap and killing the harness: a generated state's sizes and lengths need not agree (zlib's gz_state
 * with a random `want` that gz_init mallocs and gz_write copies `size` bytes into; a window of
 * 1 << wbits bytes that it copies more into). Used by malloc, calloc and realloc while the function
 * under test runs, and by a generated handle's allocator pair (zlib's zalloc and zfree: opaque, items,
 * size). A large slot holds the most a call may allocate (SC_HEAP_CALL_MAX): only a block asked for
 * when all slots are taken comes from glibc (zlib's gz_write, with a generated `want` of 5.6 MB and
 * `size` past it, once wrote past a block from glibc, whose free() then aborted the harness). The
 * blocks are tracked and compared like any other. Slots are island pages, reserved, backed only where
 * written. */
#define SC_CB_SMALL 256                 /* slots of 256 KiB */
#define SC_CB_LARGE 8                   /* slots of SC_HEAP_CALL_MAX */
#define SC_CB_SLOTS (SC_CB_SMALL + SC_CB_LARGE)
static unsigned char *sc_cb_base[SC_CB_SLOTS];
static size_t sc_cb_cap[SC_CB_SLOTS];
static void *sc_cb_used[SC_CB_SLOTS]; /* the block a slot holds, or NULL */
static size_t sc_cb_size[SC_CB_SLOTS]; /* and its size as asked */
static const unsigned char *sc_cb_lo = (const unsigned char *)~(uintptr_t)0, *sc_cb_hi; /* around every slot */

static void sc_cb_init(void) { /* before the sandbox: mmap and mprotect */
    long pg = sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < SC_CB_SLOTS; i++) {
        size_t cap = i < SC_CB_SMALL ? (size_t)256 << 10 : SC_HEAP_CALL_MAX;
        unsigned char *m = sc_island_pages(cap); /* sc_rt.h: PROT_NONE past it */
        if (!m) {
            m = mmap(NULL, cap + (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED) return;
            mprotect(m + cap, (size_t)pg, PROT_NONE);
        }
        sc_cb_base[i] = m; sc_cb_cap[i] = cap;
        if (m < sc_cb_lo) sc_cb_lo = m;
        if (m + cap > sc_cb_hi) sc_cb_hi = m + cap;
    }
}
/* The slot holding p; a block of 0 bytes lies at its slot's very end (zlib's ZALLOC(strm, w_size, 2) with
 * w_size 0), which is not glibc's either. */
static int sc_cb_slot(const void *p) {
    if ((const unsigned char *)p < sc_cb_lo || (const unsigned char *)p > sc_cb_hi) return -1;
    for (unsigned i = 0; i < SC_CB_SLOTS; i++)
        if (p && sc_cb_base[i] && (const unsigned char *)p >= sc_cb_base[i] && (const unsigned char *)p <= sc_cb_base[i] + sc_cb_cap[i])
            return (int)i;
    return -1;
}
/* n bytes at the end of a free slot, filled with SC_HEAP_FILL (or zero), 16-aligned; NULL when none fits. */
static void *sc_slot_alloc(size_t n, int zero) {
    size_t r = (n + 15) & ~(size_t)15;
    for (unsigned i = 0; i < SC_CB_SLOTS; i++)
        if (sc_cb_base[i] && !sc_cb_used[i] && r <= sc_cb_cap[i]) {
            void *p = sc_cb_base[i] + sc_cb_cap[i] - r;
            memset(p, zero ? 0 : SC_HEAP_FILL, r);
            sc_cb_used[i] = p; sc_cb_size[i] = n;
            return p;
        }
    return NULL;
}
static void *__attribute__((unused)) sc_cb_alloc(void *opaque, unsigned items, unsigned size) {
    (void)opaque;
    size_t n = (size_t)items * size;
    void *p = sc_slot_alloc(n, 0);
    if (p && sc_heap_on) sc_heap_note(p, n);
    return p; /* NULL: too large, or every slot taken; an allocator may fail */
}
/* A block back to where it came from: its slot, or glibc. */
static void sc_block_free(void *p) {
    int i = sc_cb_slot(p);
    if (i >= 0) { if (sc_cb_used[i] == p) sc_cb_used[i] = NULL; return; }
    __libc_free(p);
}

void *malloc(size_t n) {
    if (!sc_heap_on) return __libc_malloc(n);
    if (sc_heap_refuse(n)) return NULL;
    void *p = sc_slot_alloc(n, 0);
    if (!p && (p = __libc_malloc(n))) memset(p, SC_HEAP_FILL, n);
    sc_heap_note(p, n);
    return p;
}
void *calloc(size_t a, size_t b) {
    if (!sc_heap_on) return __libc_calloc(a, b);
    if (b && a > SC_HEAP_CALL_MAX / b ? (errno = ENOMEM, 1) : sc_heap_refuse(a * b)) return NULL;
    void *p = sc_slot_alloc(a * b, 1);
    if (!p) p = __libc_calloc(a, b);
    sc_heap_note(p, a * b);
    return p;
}
void *realloc(void *q, size_t n) {
    if (!sc_heap_on) return __libc_realloc(q, n);
    size_t old = 0;
    int mine = !q, slot = sc_cb_slot(q);
    for (unsigned i = 0; q && i < sc_nh; i++) if (sc_hb[i] == q) { old = sc_hn[i]; mine = 1; }
    if (n > old && sc_heap_refuse(n - old)) return NULL;
    if (!q) return malloc(n);
    if (!n) { free(q); return NULL; }
    if (slot < 0 && !mine) return __libc_realloc(q, n); /* a block it was given: glibc's, untracked */
    /* its own block: moved to a new one (a slot when one fits), the bytes past the old size filled */
    size_t had = slot >= 0 ? sc_cb_size[slot] : old;
    void *p = sc_slot_alloc(n, 0);
    if (!p && (p = __libc_malloc(n))) memset(p, SC_HEAP_FILL, n);
    if (!p) return NULL;
    memcpy(p, q, had < n ? had : n);
    sc_heap_forget(q);
    sc_block_free(q);
    sc_heap_note(p, n);
    return p;
}
void free(void *p) {
    if (sc_heap_on && p && !sc_heap_forget(p) && sc_cb_slot(p) < 0) {
        uint64_t a = (uint64_t)(uintptr_t)p;
        if ((sc_arena_hi && (a < sc_arena_lo || a >= sc_arena_hi)) || (a >= sc_inputs_lo && a < sc_inputs_hi)) {
            if (sc_nforeign < SC_MAXFOREIGN) sc_foreign[sc_nforeign] = a;
            sc_nforeign++;
            return;
        }
    }
    sc_block_free(p);
}
static void __attribute__((unused)) sc_cb_free(void *opaque, void *p) { (void)opaque; free(p); }

/* Free every block the call left, the last first. */
static inline void sc_heap_drop(void) {
    while (sc_nh) sc_block_free(sc_hb[--sc_nh]);
    sc_heap_bytes = 0;
    for (unsigned i = 0; i < SC_CB_SLOTS; i++) sc_cb_used[i] = NULL;
    sc_heap_lost = 0;
}
/* ... and tracking off. */
static inline void sc_heap_release(void) {
    sc_heap_on = 0;
    sc_heap_drop();
}
static inline void sc_heap_begin(void) { sc_heap_release(); sc_nforeign = 0; sc_heap_on = 1; }

/* Which tracked block holds address w (one past its end counts), and where; -1 if none. */
static inline int sc_heap_find(uint64_t w, uint64_t *off) {
    for (unsigned b = 0; b < sc_nh; b++) {
        uint64_t a = (uint64_t)(uintptr_t)sc_hb[b];
        if (w >= a && w <= a + sc_hn[b]) { *off = w - a; return (int)b; }
    }
    return -1;
}
/* A pointer into a block as a value that is the same in every process: (block, offset). */
static inline uint64_t sc_heap_tag(unsigned b, uint64_t off) { return (0x5CA5ULL << 48) ^ ((uint64_t)b << 40) ^ off; }

/* The harness's functions (verify/statics_table.py's write_codemap: offset, end, name hash), read with the
 * mappings where the harness names its file (sc_codemap_path): a word that points into code is the function
 * it points into and where, the same in every build. */
extern char __executable_start[], _end[];
static const char *sc_codemap_path;
static uint64_t *sc_code, sc_ncode;
static void sc_read_codemap(void) {
    if (!sc_codemap_path) return;
    char path[4096];
    if (snprintf(path, sizeof path, "%s.codemap", sc_codemap_path) >= (int)sizeof path) return;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    uint64_t n = 0;
    if (fread(&n, 8, 1, f) == 1 && n && n < (1u << 24) && (sc_code = malloc(n * 24)) != NULL) {
        if (fread(sc_code, 24, n, f) == n) sc_ncode = n;
    }
    fclose(f);
}
static inline int sc_code_word(uint64_t w, uint64_t *tag) {
    uint64_t off = w - (uint64_t)(uintptr_t)__executable_start, lo = 0, hi = sc_ncode;
    while (lo < hi) { /* the last function starting at or below off */
        uint64_t mid = (lo + hi) / 2;
        if (sc_code[3 * mid] <= off) lo = mid + 1; else hi = mid;
    }
    if (!lo || off >= sc_code[3 * (lo - 1) + 1]) return 0;
    const uint64_t *e = sc_code + 3 * (lo - 1);
    *tag = (0x5CA8ULL << 48) ^ ((e[2] ^ (off - e[0]) * 0x9E3779B97F4A7C15ULL) & 0xffffffffffffULL);
    return 1;
}
/* The process's readable mappings, read once before the sandbox (sc_read_maps): what a word that is
 * not a pointer into the call's own memory points to. */
#define SC_MAXMAPS 512
static uint64_t sc_map_lo[SC_MAXMAPS], sc_map_hi[SC_MAXMAPS];
static unsigned sc_nmaps;
static uint64_t sc_maps_lo = ~0ULL, sc_maps_hi; /* below and above every mapping: most words of random bytes */

static void sc_read_maps(void) {
    sc_cb_init();
    sc_read_codemap();
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    if (!f) return;
    while (sc_nmaps < SC_MAXMAPS && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi; char perm[8];
        if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) == 3 && perm[0] == 'r') {
            sc_map_lo[sc_nmaps] = lo; sc_map_hi[sc_nmaps++] = hi;
            if (lo < sc_maps_lo) sc_maps_lo = lo;
            if (hi > sc_maps_hi) sc_maps_hi = hi;
            if (strstr(line, "[heap]")) { sc_arena_lo = lo; sc_arena_hi = hi; }
        }
    }
    fclose(f);
}
static inline int sc_map_of(uint64_t w) {
    for (unsigned m = 0; m < sc_nmaps; m++) if (w >= sc_map_lo[m] && w < sc_map_hi[m]) return (int)m;
    return -1;
}
static inline int sc_in_image(uint64_t w) {
    return w >= (uint64_t)(uintptr_t)__executable_start && w < (uint64_t)(uintptr_t)_end;
}

/* A word the call left that points nowhere in its own memory, as a value the same in every process:
 * a block it allocated as (block, offset); the program image (a static table such as zlib's
 * static_l_desc) by the 16 bytes it points to, pointers in them left out (the image lies elsewhere
 * in each build); anywhere else mapped (the stack, the library) as one value; a word that points
 * nowhere is itself. */
static inline uint64_t sc_mapped_word(uint64_t w) {
    /* below or above every mapping (a guarded slot's 0-byte block lies at its guard page: one page more) */
    if (sc_nmaps && (w < sc_maps_lo || w > sc_maps_hi + 4096)) return w;
    uint64_t off;
    int b = sc_heap_find(w, &off);
    if (b >= 0) return sc_heap_tag((unsigned)b, off);
    int m = sc_map_of(w);
    if (m < 0) return w;
    uint64_t code;
    if (sc_ncode && sc_in_image(w) && sc_code_word(w, &code)) return code;
    if (sc_in_image(w) && w + 16 <= sc_map_hi[m]) {
        uint64_t h = 0xcbf29ce484222325ULL;
        for (int i = 0; i < 16; i += 8) {
            uint64_t v; memcpy(&v, (const void *)(uintptr_t)(w + i), 8);
            if (sc_in_image(v)) v = 1;
            h ^= v; h *= 0x100000001b3ULL; h ^= h >> 29;
        }
        return (0x5CA6ULL << 48) ^ (h & 0xffffffffffffULL);
    }
    return 0x5CA7ULL << 48;
}
#endif
