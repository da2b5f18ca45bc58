/* The fixed part of the timing driver.
 *
 * The generated part (measure/interleaved.py) defines, before including this file:
 *   sc_input, sc_setup(), sc_gen(i, in), SC_NEDGE   the inputs (harness/inputs_c.py)
 *   sc_t0, sc_t1, sc_t2                          baseline, baseline again (A/A control), candidate
 *   RET_T, PROTO_T                               their return type and parameter list
 *   SC_CALL(fn, in, acc)                         one call, its result folded into acc
 *   void sc_copy_input(const sc_input *, sc_input *)   a private copy of an input's buffers
 *   uint64_t sc_hash_buffers(const sc_input *T, int m)  hash of what the calls wrote
 *
 * The driver's state (the inputs of all three, the results, the batch size) lives
 * in page-aligned memory that is read-only while any of the three runs: a candidate
 * that reaches it through `label+N(%rip)` can neither change its inputs nor the
 * record of its results. Every round prints the three results; they are compared
 * outside this process.  The three copies sit at the same offset from a page
 * boundary; each process draws which loop and which copy of the inputs each
 * copy gets, so that identical code is timed identically on average.
 */
#ifndef SC_TIMING_H
#define SC_TIMING_H
#include <sys/resource.h>

#ifndef SC_M
#define SC_M 512 /* inputs per copy; fewer where each recorded call brings its memory along */
#endif

typedef RET_T (*sc_fn_t)(PROTO_T);
#define SC_PAD_MAX 64 /* inputs of padding before the first slot: a random layout per process */
typedef struct {
    sc_input buf[3 * SC_M + SC_PAD_MAX];
    const sc_input *slot[3]; /* the inputs the loop of each copy reads */
    sc_fn_t fn[3];           /* the copy each loop calls */
    uint64_t loop_results[3], results[3]; /* per loop, per copy */
    int m_used;
    int m_cap;                /* inputs in a pass: no two the same (sc_scrub's comment) */
    unsigned char *fence;     /* the stack fence (0: none yet) */
    int cpu_avx, cpu_avx512;  /* which registers the scrub clears */
    unsigned mxcsr0;          /* the SSE control word a pass starts with */
    int finding_dirty;        /* sc_find_dirty's pass: what the original wrote is seen before any restore */
#ifdef SC_FRESH
#define SC_CHUNK 4096
#define SC_DIRTY_MAX (1 << 16)
    size_t pad;                                     /* the inputs of padding before the first slot */
    const unsigned char *snap[3 * SC_M + SC_PAD_MAX]; /* each input's snapshot, by index in buf */
    uint32_t dirty_at[SC_M + 1];                    /* slot j's chunks: dirty[dirty_at[j] .. dirty_at[j + 1]) */
    uint32_t dirty[SC_DIRTY_MAX];                   /* buffer << 24 | chunk: what the original's call writes */
    unsigned char dirty_all[SC_M];                  /* more than the list holds: restore every buffer */
#endif
} sc_driver_state;

#define SC_PAGE 4096
static union {
    sc_driver_state s;
    char pages[(sizeof(sc_driver_state) + SC_PAGE - 1) / SC_PAGE * SC_PAGE];
} SU __attribute__((aligned(SC_PAGE)));

static void sc_protect(int ro) {
    if (mprotect(&SU, sizeof SU, ro ? PROT_READ : PROT_READ | PROT_WRITE)) _exit(SC_EXIT_PROTECT);
}

/* SC_FRESH (measure/interleaved.py: the program's recorded calls that bring its memory along): every call
 * starts from the state the program had and only the call is timed. Called over and over on what the last
 * call left, a stateful function (zlib's inflate_fast: strm->avail_in used up) would be timed on states the
 * program never had, or run past what was recorded. Before the timing, the original is called once on each
 * input: the 4 KiB chunks its call writes are what is restored before every call after (from a snapshot of
 * each copy's own bytes, its pointers already into that copy, read-only before any timed code runs), so a
 * call that writes a few bytes beside a 64 KiB region does not copy the region each time. The list of
 * chunks lives in the driver's read-only state. */
#ifdef SC_FRESH
/* SC_FRESH_PASS (a function that writes its buffers, generated inputs): the same restore, after each pass over
 * the inputs (each input once in a pass) instead of before each call, outside the time; a pass is timed whole.
 * Called over and over on what the last call left, an in-place rewrite fast only on text it had already
 * upper-cased was timed "2.44x faster" where it was 1.32x slower on text as drawn. */
#ifdef SC_FRESH_PASS
#define SC_FRESH_ON 0
#define SC_FRESH_PASS_ON 1
#else
#define SC_FRESH_ON 1
#define SC_FRESH_PASS_ON 0
#endif
/* SC_FRESH_ALL (InterleavedTimer, where the original's own copies did not agree called over and over on what
 * the last call left: cJSON's print_value grows its printbuffer's offset, lz4's LZ4F_decompress crashed on
 * its second call): every input is restored, not only the deep ones; the verifier saw each call on its
 * input as drawn, and the original finished it there */
#ifndef SC_FRESH_ALL
#define SC_FRESH_ALL 0
#endif
static void sc_restore(const sc_input *in) {
    size_t i = (size_t)(in - SU.s.buf), j = (i - SU.s.pad) % SC_M, at = 0, l;
    const unsigned char *s = SU.s.snap[i];
    if (!s) return;
    unsigned char *p[SC_NP + SC_NR]; size_t len[SC_NP + SC_NR], off[SC_NP + SC_NR];
    for (unsigned b = 0; b < SC_NP + in->nr; b++) { p[b] = sc_deep_buf(in, b, &l); len[b] = p[b] ? l : 0; off[b] = at; at += l; }
    if (SU.s.dirty_all[j]) {
        for (unsigned b = 0; b < SC_NP + in->nr; b++) if (len[b]) memcpy(p[b], s + off[b], len[b]);
        return;
    }
    for (uint32_t e = SU.s.dirty_at[j]; e < SU.s.dirty_at[j + 1]; e++) {
        unsigned b = SU.s.dirty[e] >> 24;
        size_t c = (size_t)(SU.s.dirty[e] & 0xffffff) * SC_CHUNK;
        if (b < SC_NP + in->nr && c < len[b]) memcpy(p[b] + c, s + off[b] + c, len[b] - c < SC_CHUNK ? len[b] - c : SC_CHUNK);
    }
}
static void sc_take_snaps(size_t pad) {
    size_t total = 0, l;
    SU.s.pad = pad;
    for (int i = 0; i < 3 * SC_M + SC_PAD_MAX; i++)
        if (SU.s.buf[i].deep || SC_FRESH_ALL) for (unsigned b = 0; b < SC_NP + SU.s.buf[i].nr; b++) { sc_deep_buf(&SU.s.buf[i], b, &l); total += l; }
    if (!total) return;
    unsigned char *area = mmap(0, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *at = area;
    if (area == MAP_FAILED) exit(70);
    for (int i = 0; i < 3 * SC_M + SC_PAD_MAX; i++) {
        if (!SU.s.buf[i].deep && !SC_FRESH_ALL) continue;
        SU.s.snap[i] = at;
        for (unsigned b = 0; b < SC_NP + SU.s.buf[i].nr; b++) {
            unsigned char *p = sc_deep_buf(&SU.s.buf[i], b, &l);
            if (p && l) memcpy(at, p, l);
            at += l;
        }
    }
    if (mprotect(area, total, PROT_READ)) _exit(SC_EXIT_PROTECT);
}
static uint64_t sc_batch(int f, long reps);
/* The original (copy 0) once on each of its inputs, from the recorded state: the chunks it wrote, then
 * restored. Every input's chunks are the same in the three copies (slot j holds the same call in each). */
static void sc_find_dirty(void) {
    SU.s.m_used = SC_M;
    SU.s.finding_dirty = 1;
    sc_batch(0, 1);
    SU.s.finding_dirty = 0;
    const sc_input *in0 = 0;
    for (int k = 0; k < 3; k++) if (SU.s.fn[k] == sc_t0) in0 = SU.s.slot[k];
    uint32_t n = 0;
    for (int j = 0; j < SC_M; j++) {
        SU.s.dirty_at[j] = n;
        const sc_input *in = &in0[j];
        const unsigned char *s = SU.s.snap[in - SU.s.buf];
        size_t l, at = 0;
        for (unsigned b = 0; s && b < SC_NP + in->nr; b++) {
            unsigned char *p = sc_deep_buf(in, b, &l);
            for (size_t c = 0; p && c < l; c += SC_CHUNK)
                if (memcmp(p + c, s + at + c, l - c < SC_CHUNK ? l - c : SC_CHUNK)) {
                    if (n < SC_DIRTY_MAX) SU.s.dirty[n++] = (uint32_t)b << 24 | (uint32_t)(c / SC_CHUNK);
                    else SU.s.dirty_all[j] = 1;
                }
            at += l;
        }
    }
    SU.s.dirty_at[SC_M] = n;
    for (int j = 0; j < SC_M; j++) sc_restore(&in0[j]);
    SU.s.m_used = 1;
}
#else
#define SC_FRESH_ON 0
#define SC_FRESH_PASS_ON 0
static inline void sc_restore(const sc_input *in) { (void)in; }
static inline void sc_take_snaps(size_t pad) { (void)pad; }
static inline void sc_find_dirty(void) {}
#endif

/* State a call keeps beyond its own frame cannot pay off (a cache 40-72 KiB below its stack pointer made a
 * candidate that is no faster on distinct inputs "2.2x faster"): the inputs of one pass over the batch are
 * distinct (SU.s.m_cap), and between passes every byte of stack below the loops' frames a call could have
 * touched is zeroed, and the registers a call may leave changed are cleared. How deep: the stack below the
 * original's deepest page on a pass over every input, with a margin (SC_FENCE_MARGIN), is made inaccessible
 * (PROT_NONE: a copy that reaches past it crashes, and is not timed); what lies above, to the loop's frame,
 * is zeroed after each pass, outside the time. */
#define SC_FENCE_MARGIN (4 * 4096)
static unsigned char *sc_stack_lo; /* the stack's usable bottom (used before any candidate code runs) */

/* Before the sandbox: the stack grown to near its limit and what setup left there dropped, so that after the
 * original's pass the pages resident below the loops are the ones its calls touched. */
__attribute__((noinline)) static void sc_stack_prepare(void) {
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)4095, top = 0;
    struct rlimit rl;
    size_t lim = 64u << 20; /* and where there is no limit: below that, the fence's mapping cannot grow */
    if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur < lim) lim = rl.rlim_cur;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "[stack]")) top = (uintptr_t)strtoull(strchr(line, '-') + 1, 0, 16);
    if (maps) fclose(maps);
    if (!top || lim < (1u << 20) || top - sp > lim / 2) return;
    unsigned char *lo = (unsigned char *)(top - lim + (128u << 10)); /* a little short of the limit */
    *(volatile unsigned char *)lo = 0; /* the stack mapping now reaches down to lo */
    if (madvise(lo, sp - 2 * 4096 - (uintptr_t)lo, MADV_DONTNEED)) return;
    sc_stack_lo = lo;
    sc_sandbox_fence(lo);
    SU.s.cpu_avx = __builtin_cpu_supports("avx");
    SU.s.cpu_avx512 = __builtin_cpu_supports("avx512f");
    __asm__ volatile("stmxcsr %0" : "=m"(SU.s.mxcsr0));
}

/* After the original's pass over every input: the fence below its deepest page, with the margin. */
static void sc_stack_fence(void) {
    if (!sc_stack_lo) return;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)4095;
    size_t pages = (sp - (uintptr_t)sc_stack_lo) / 4096;
    static unsigned char resident[(64u << 20) / 4096];
    if (pages > sizeof resident || mincore(sc_stack_lo, pages * 4096, resident)) return;
    size_t low = 0;
    while (low < pages && !(resident[low] & 1)) low++;
    uintptr_t fence = (uintptr_t)sc_stack_lo + low * 4096;
    fence = fence > (uintptr_t)sc_stack_lo + SC_FENCE_MARGIN ? fence - SC_FENCE_MARGIN : (uintptr_t)sc_stack_lo;
    if (fence > (uintptr_t)sc_stack_lo && mprotect(sc_stack_lo, fence - (uintptr_t)sc_stack_lo, PROT_NONE)) return;
    SU.s.fence = (unsigned char *)fence;
}

/* Between passes: the stack from the fence to just below the caller's frame zeroed (no call: nothing of this
 * function's own lies below its stack pointer), and the registers a call may leave changed cleared. */
static inline __attribute__((always_inline)) void sc_scrub(void) {
    unsigned char *fence = SU.s.fence;
    if (!fence) return;
    unsigned char *sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    size_t n = (size_t)(sp - 8 - fence);
    void *d = fence;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory");
    if (SU.s.cpu_avx512)
        __asm__ volatile(".irp r,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n\tvpxord %%zmm\\r, %%zmm\\r, %%zmm\\r\n\t.endr\n\t"
                         ".irp k,0,1,2,3,4,5,6,7\n\tkxorw %%k\\k, %%k\\k, %%k\\k\n\t.endr" ::: "memory");
    if (SU.s.cpu_avx)
        __asm__ volatile("vzeroall" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                         "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
    else
        __asm__ volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\tpxor %%xmm\\r, %%xmm\\r\n\t.endr"
                         ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
                         "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
    /* the x87/MMX registers zeroed (fninit alone only marks them empty: MMX moves still read them) */
    __asm__ volatile(".irp r,0,1,2,3,4,5,6,7\n\tpxor %%mm\\r, %%mm\\r\n\t.endr\n\temms" ::: "memory");
    __asm__ volatile("fninit\n\tldmxcsr %0\n\txor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\txor %%r9d, %%r9d\n\t"
                     "xor %%r10d, %%r10d\n\txor %%r11d, %%r11d"
                     :: "m"(SU.s.mxcsr0) : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
}

/* What a timed call prints (stdout, stderr) goes to a stream into memory, rewound each pass, in every copy
 * alike: the driver's own lines on stdout stay its own (a function that prints made them "malformed") */
static FILE *sc_sink, *sc_sink_saved[2];
static char sc_sink_buf[1 << 16];
static void sc_sink_init(void) {
    sc_sink = fmemopen(sc_sink_buf, sizeof sc_sink_buf, "w");
    if (sc_sink) setvbuf(sc_sink, NULL, _IONBF, 0);
}
static inline void sc_sink_on(void) {
    if (!sc_sink) return;
    rewind(sc_sink);
    sc_sink_saved[0] = stdout, sc_sink_saved[1] = stderr, stdout = stderr = sc_sink;
}
static inline void sc_sink_off(void) {
    if (sc_sink) stdout = sc_sink_saved[0], stderr = sc_sink_saved[1];
}

/* Three identical loops, one per copy. Which data slot and which loop a copy gets is
 * drawn anew in every process: the luck of a layout (cache and predictor aliasing
 * moved identical code by 30% here) falls on all three alike, and the A/A pair shows it. */
#define SC_BATCH(F, C)                                                                \
    __attribute__((noinline, aligned(64))) static uint64_t sc_batch##F##_##C(long reps) { \
        const sc_input *in0 = SU.s.slot[F];                                          \
        int m = SU.s.m_used;                                                          \
        uint64_t acc = 0;                                                             \
        sc_protect(1);                                                                \
        sc_heap_on = 1; /* what a call allocates is freed after it (sc_heap.h), in every copy alike */ \
        sc_io_begin(0); /* ... and a call that used files finds fresh ones (sc_files.h) */ \
        sc_sink_on();                                                                 \
        uint64_t calls_ns = 0;                                                        \
        for (long r = 0; r < reps; r++) {                                             \
            uint64_t p_ = sc_now_ns();                                                \
            for (int j = 0; j < m; j++) {                                             \
                const sc_input *in = &in0[j];                                         \
                if (SC_FRESH_ON) { /* each call from the recorded state, timed alone */ \
                    sc_restore(in);                                                   \
                    uint64_t a_ = sc_now_ns(); SC_CALL(sc_t##C, in, acc);                  \
                    calls_ns += sc_now_ns() - a_;                                     \
                } else SC_CALL(sc_t##C, in, acc);                                          \
                if (sc_nh) sc_heap_drop();                                            \
                if (sc_io_used) sc_io_begin((uint64_t)j + 1);                         \
            }                                                                         \
            if (!SC_FRESH_ON) calls_ns += sc_now_ns() - p_;                           \
            if (SC_FRESH_PASS_ON && !SU.s.finding_dirty) for (int j = 0; j < m; j++) sc_restore(&in0[j]); \
            sc_scrub(); /* outside the time: nothing a pass left reaches the next */  \
            sc_slack_wipe(); /* nor past a copy's end, in malloc's spare bytes */       \
            if (sc_sink) rewind(sc_sink);                                             \
        }                                                                             \
        uint64_t t0 = 0, t1 = calls_ns;                                               \
        sc_sink_off();                                                                \
        sc_heap_on = 0;                                                               \
        sc_io_on = 0;                                                                 \
        sc_protect(0);                                                                \
        SU.s.loop_results[F] = acc;                                                   \
        return t1 - t0;                                                               \
    }
/* Loop F calling copy C by its name: a direct call from compiled C, as in any program (an indirect call
 * through a table of copies told a candidate it was being timed) */
#define SC_BATCHES(F) SC_BATCH(F, 0) SC_BATCH(F, 1) SC_BATCH(F, 2)
SC_BATCHES(0)
SC_BATCHES(1)
SC_BATCHES(2)
static int sc_loop_of[3]; /* copy -> loop */
static uint64_t sc_batch(int f, long reps) {
    int k = sc_loop_of[f];
    static uint64_t (*const loop[3][3])(long) = {
        { sc_batch0_0, sc_batch0_1, sc_batch0_2 }, { sc_batch1_0, sc_batch1_1, sc_batch1_2 }, { sc_batch2_0, sc_batch2_1, sc_batch2_2 } };
    uint64_t t = loop[k][f](reps);
    SU.s.results[f] = SU.s.loop_results[k];
    return t;
}

static void sc_shuffle(int *a, sc_rng *r) {
    for (int s = 2; s > 0; s--) { int k = (int)sc_below(r, (uint64_t)s + 1), x = a[s]; a[s] = a[k]; a[k] = x; }
}

/* A system call while timed: getrandom answered as in the verifier's runs (sc_files.h), any other the end of
 * the run, as the filter's own kill was (sigaction is not allowed past the filter to restore the default) */
static void sc_timing_sigsys(int sig, siginfo_t *si, void *ctx) {
    (void)sig;
    if (sc_emulated_syscall(si, ctx)) return;
    static const char msg[] = "forbidden system call while timed\n";
    (void)!syscall(SYS_write, 2, msg, sizeof msg - 1);
    _exit(128 + SIGSYS);
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s ROUNDS BATCH_NS BUDGET_NS SEED\n", argv[0]); return 2; }
    sc_layout(argv); /* its code where the kernel draws it, its island where the verifier drew it (SC_ISLAND) */
    sc_env_take(1, NULL); /* its settings out of the environment, where a candidate could look (sc_env.h) */
    int rounds = atoi(argv[1]);
    uint64_t target = strtoull(argv[2], 0, 10), budget = strtoull(argv[3], 0, 10), seed = strtoull(argv[4], 0, 10);
    sc_setup();
    sc_rng lay = { sc_mix(seed ^ 0x1a7e5ULL) };
    int data_of[3] = {0, 1, 2}, loops[3] = {0, 1, 2};
    sc_shuffle(data_of, &lay);
    sc_shuffle(loops, &lay);
    size_t pad = (size_t)sc_below(&lay, SC_PAD_MAX + 1);
    sc_fn_t copies[3] = { sc_t0, sc_t1, sc_t2 };
    for (int f = 0; f < 3; f++) {
        sc_loop_of[f] = loops[f];
        SU.s.slot[loops[f]] = SU.s.buf + pad + (size_t)data_of[f] * SC_M;
        SU.s.fn[loops[f]] = copies[f];
    }
    sc_input tmp;
    SU.s.m_cap = SC_M;
    /* SC_SKIP (the verifier's): generated inputs the original ran out of time on, or never reached within its
     * budget, are passed over; the same indices as the verifier's (its inputs are drawn by index) */
    size_t nskip;
    unsigned char *skip = sc_load_skip(&nskip);
    uint64_t next = SC_NEDGE, ntaken = 0;
    static uint64_t rec_of[SC_M]; /* the recorded call each slot holds */
    static uint64_t taken[SC_M]; /* the generated inputs given to slots so far */
    static uint64_t slot_idx[SC_M]; /* the input each slot holds */
    for (int j = 0; j < SC_M; j++) {
        /* the program's recorded calls where there are any, else random inputs: typical calls, not edge cases */
        uint64_t idx;
        if (SC_NREC) {
            /* the verifier's recorded calls come after its own number of random inputs: the last of its list */
            uint64_t k = (uint64_t)j % SC_NREC, at = SC_NEDGE + SC_NRANDOM, v = nskip >= SC_NREC ? nskip - SC_NREC : 0;
            for (uint64_t t = 0; t + 1 < SC_NREC && v + k < nskip && skip[v + k]; t++) k = (k + 1) % SC_NREC;
            idx = at + k;
            rec_of[j] = k;
        }
        else {
            /* the next random input the original completed; where they run out (it fails on most of them:
             * zlib's inflate_table on 91%), those taken so far again, never one it failed on (one was timed
             * where they ran out, and the original crashed on it: "could not be timed") */
            while (next < SC_NEDGE + SC_NRANDOM && next < nskip && skip[next]) next++;
            if (next < SC_NEDGE + SC_NRANDOM) idx = taken[ntaken++] = next++;
            else if (ntaken) idx = taken[(uint64_t)j % ntaken];
            else {
                fprintf(stderr, "the original completed none of the first %llu random inputs, the ones timed\n",
                        (unsigned long long)SC_NRANDOM);
                return 2;
            }
        }
        sc_gen(idx, &tmp);
        for (int f = 0; f < 3; f++) sc_copy_input(&tmp, (sc_input *)&SU.s.slot[loops[f]][j]);
        slot_idx[j] = idx;
        for (int i = 0; i < j && SU.s.m_cap == SC_M; i++)
            if (slot_idx[i] == idx) SU.s.m_cap = j; /* a pass holds each input once: the first j */
    }
    free(skip);
    sc_take_snaps(pad);
    SU.s.m_used = 1;
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    sc_heap_reserve(); /* a function that mallocs a working buffer is timed too */
    sc_sink_init();
    sc_read_maps();
    sc_sandbox_protect(&SU, sizeof SU);
    sc_stack_prepare();
    struct sigaction sys;
    memset(&sys, 0, sizeof sys);
    sys.sa_sigaction = sc_timing_sigsys;
    sys.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSYS, &sys, NULL);
    sc_sandbox_enter(SC_STRICT, -1); /* no candidate instruction has run yet */
    sc_find_dirty();
    /* one pass of the original over every input of a pass, then the fence below what it touched; the other
     * two copies make the same pass (every copy makes the same calls, in the same order) */
    sc_protect(0);
    SU.s.m_used = SU.s.m_cap;
    sc_batch(0, 1);
    sc_stack_fence();
    sc_batch(1, 1);
    sc_batch(2, 1);
    sc_protect(0);
    SU.s.m_used = 1;
    /* Grow the batch from one call: first over more inputs, then by repeating them,
     * so that expensive calls never make a single batch run for long. All three copies
     * make the same calls in the same order: a function that accumulates into its
     * buffers (a struct's counters, a[i] += x) leaves all three alike. */
    long reps = 1;
    for (;;) {
        uint64_t t = sc_batch(0, reps);
        sc_batch(1, reps);
        sc_batch(2, reps);
        if (t >= target || reps > (1L << 30)) break;
        if (SU.s.m_used < SU.s.m_cap) { sc_protect(0); SU.s.m_used = 2 * SU.s.m_used < SU.s.m_cap ? 2 * SU.s.m_used : SU.s.m_cap; }
        else reps = t ? (long)(reps * (double)target / t) + 1 : reps * 16;
    }
    for (int w = 0; w < 3; w++) for (int f = 0; f < 3; f++) sc_batch(f, reps);
    /* and how many of the program's recorded calls its inputs hold (none where they are generated) */
    static unsigned char rec_seen[SC_NREC ? SC_NREC : 1];
    uint64_t n_rec = 0;
    for (int j = 0; SC_NREC && j < SC_M; j++) { n_rec += !rec_seen[rec_of[j]]; rec_seen[rec_of[j]] = 1; }
    printf("calls %ld %llu\n", reps * SU.s.m_used, (unsigned long long)n_rec);
    sc_rng order_rng = { sc_mix(seed ^ 0x0dde5ULL) };
    uint64_t start = sc_now_ns();
    for (int r = 0; r < rounds; r++) {
        if (r >= 4 && sc_now_ns() - start > budget) break; /* out of time: fewer rounds, wider intervals */
        uint64_t t[3];
        int ord[3] = {0, 1, 2};
        sc_shuffle(ord, &order_rng);
        for (int s = 0; s < 3; s++) { int f = ord[s]; t[f] = sc_batch(f, reps); }
        printf("%llu %llu %llu %llx %llx %llx\n", (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
               (unsigned long long)SU.s.results[0], (unsigned long long)SU.s.results[1], (unsigned long long)SU.s.results[2]);
    }
    printf("buffers %llx %llx %llx\n", (unsigned long long)sc_hash_buffers(SU.s.slot[loops[0]], SU.s.m_used),
           (unsigned long long)sc_hash_buffers(SU.s.slot[loops[1]], SU.s.m_used),
           (unsigned long long)sc_hash_buffers(SU.s.slot[loops[2]], SU.s.m_used));
    return 0;
}
#endif
