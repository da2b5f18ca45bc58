/* The fixed part of the verification harness.
 *
 * The generated part (verify/harness_c.py) defines, before including this file:
 *   sc_input, sc_setup(), sc_gen(i, in)       the inputs (harness/inputs_c.py)
 *   sc_cur                                   the index of the input being run
 *   uint64_t sc_call(sc_input *in)           one call through the ABI trampoline; the result's bits
 *   uint64_t sc_hash_outputs(sc_input *in)   hash of what the call wrote through its pointers
 *   void sc_show(sc_input *in, const char *)  print an input (for reports)
 *   void sc_show_ret(uint64_t bits)           print a result
 *   SC_WRITES_BUFFERS                         1 when the function may write through a pointer
 *
 * `run N RECORD_FD MODE` writes one record per input to RECORD_FD (never to
 * stdout, which belongs to the function under test): three 64-bit words,
 *   status   0, or SC_CRASHED|signal, or SC_TIMED_OUT; SC_DIRTY_UPPER is or-ed in
 *            when the call left the upper YMM state dirty
 *   result   the bits of the return value (floats bit for bit)
 *   outputs  hash of the buffers the function may write and of every writable global
 * An input on which the call crashes or runs out of time is recorded and the run goes
 * on (sigsetjmp/siglongjmp under the filter): the comparison, made outside this
 * process, skips the inputs where the -O3 original itself fails.  A broken calling
 * convention or a forbidden system call ends the run with a trailer record that
 * says which (sc_contract.h), SC_EXIT_ABI or SC_EXIT_SYSCALL, and a line on stderr.
 * MODE bit 4: every buffer against the guard on its other side (the baseline's self-check).
 * MODE bit 8: no seccomp filter, so the original built with --coverage can write its counts
 * when it exits (verify/coverage.py); never given to a harness that holds a candidate.
 * MODE bit 1: start every other input from randomized global state; bit 2: every third
 * input from a recorded state of the program (SC_NSNAP, sc_snaps: verify/program_state.py).
 */
#ifndef SC_VERIFY_H
#define SC_VERIFY_H
#include <setjmp.h>
#include <sys/personality.h>
#include <ucontext.h>
#include <sys/time.h>
#include <cpuid.h>
#include <link.h>

#include "sc_contract.h"
#include "sc_ticks.h"

extern void sc_tramp(void);
extern uint64_t sc_sent[6], sc_after[6], sc_junk[3], sc_rsp_before, sc_rsp_after, sc_flags_after, sc_nonce, sc_done;
extern uint64_t sc_canary_hits, sc_upper_dirty, sc_nstack;
extern uint32_t sc_state[4];
extern uint16_t sc_fenv[16];
extern unsigned char sc_has_avx, sc_has_xinuse;
extern void *sc_target;
extern char sc_fn[];

/* writable data of the file (sc_g*) and of the function's own statics (sc_f*): behaviour too */
extern char __start_sc_gdata[] __attribute__((weak)), __stop_sc_gdata[] __attribute__((weak));
extern char __start_sc_gbss[] __attribute__((weak)), __stop_sc_gbss[] __attribute__((weak));
extern char __start_sc_fdata[] __attribute__((weak)), __stop_sc_fdata[] __attribute__((weak));
extern char __start_sc_fbss[] __attribute__((weak)), __stop_sc_fbss[] __attribute__((weak));
/* the function's own statics one by one (verify/statics_table.py), where its build names them with sizes */
extern const uint32_t sc_fobj_n __attribute__((weak)), sc_fobj[] __attribute__((weak));

static volatile int sc_in_call;
static int sc_dump_asked; /* `show I MODE dump`: print what the comparison hashes (sc_rt.h's sc_dump) */
/* What a call prints through stdio (stdout and stderr, in the order printed) is its output: stdout and stderr
 * point at a stream into memory during the call, and the bytes are compared with its results (a function with
 * a verbose mode, bzip2's sorts with `verb`, is verified, not refused). Past SC_OUT_MAX bytes, not seen. */
#define SC_OUT_MAX (64u << 10)
static char sc_out_buf[SC_OUT_MAX];
static FILE *sc_out_mem, *sc_out_saved[2];
static size_t sc_out_len;
static void sc_out_init(void) { /* before the sandbox: fmemopen allocates */
    sc_out_mem = fmemopen(sc_out_buf, SC_OUT_MAX, "w");
    if (sc_out_mem) setvbuf(sc_out_mem, NULL, _IONBF, 0);
}
static inline void sc_out_begin(void) {
    sc_out_len = 0;
    if (!sc_out_mem) return;
    rewind(sc_out_mem);
    sc_out_saved[0] = stdout, sc_out_saved[1] = stderr;
    stdout = stderr = sc_out_mem;
}
static inline void sc_out_end(void) {
    if (!sc_out_mem || !sc_out_saved[0]) return;
    fflush(sc_out_mem);
    long n = ftell(sc_out_mem);
    sc_out_len = n <= 0 ? 0 : (size_t)n < SC_OUT_MAX ? (size_t)n : SC_OUT_MAX;
    stdout = sc_out_saved[0], stderr = sc_out_saved[1], sc_out_saved[0] = NULL;
}

/* The bytes around each output buffer, watched while the call runs single-stepped (on a sample of short
 * generated inputs: harness_c.py's sc_watch_regions): after every instruction the trap handler checks that
 * they still hold the value it wrote last, then writes a new one. A store past a buffer's end, or before
 * its start, that writes back the bytes it read earlier (a full-width read-modify-write of the last block:
 * lost updates beside another thread) leaves a stale value there and is seen, even where no guard page is
 * near. The record's status says so (SC_STORED_AROUND). */
#define SC_WATCH_MAX 16
static unsigned char *sc_watch_lo[SC_WATCH_MAX];
static size_t sc_watch_len[SC_WATCH_MAX];
static unsigned sc_watch_n;
static volatile int sc_watching, sc_watch_bad;
static volatile unsigned char sc_watch_val;
/* Steps a watched call runs single-stepped; more on one input in 256 with buffers of up to
 * SC_WATCH_BIG_BYTES (harness_c.py's sc_watch_regions), which the original's runs allow SC_LONG_LOOKS */
#define SC_WATCH_STEPS 2000 /* then the call runs on unwatched: a long one stays within its time limit */
#define SC_WATCH_STEPS_BIG 40000
#define SC_WATCH_BIG_BYTES 8192
#define SC_WATCH_BIG_MOST 8
static unsigned sc_watch_most = SC_WATCH_STEPS;
static inline int sc_watch_big_for(uint64_t i) { return (sc_mix(i ^ 0x57e9ULL) & 255) == 0; }
static void __attribute__((unused)) sc_watch_add(unsigned char *p, size_t n) {
    if (n && sc_watch_n < SC_WATCH_MAX) { sc_watch_lo[sc_watch_n] = p; sc_watch_len[sc_watch_n++] = n; }
}
static uint64_t sc_watch_rng = 0x9e3779b97f4a7c15ULL;
/* Each step: the bytes still hold the last value written, or something stored a stale copy; then, at a
 * random half of the steps (two reads in a row cannot tell the watch from a quiet neighbour), a new value. */
static void sc_watch_step(int always) {
    unsigned char v = sc_watch_val;
    for (unsigned r = 0; r < sc_watch_n; r++)
        for (size_t i = 0; i < sc_watch_len[r]; i++)
            if (sc_watch_lo[r][i] != v) sc_watch_bad = 1;
    sc_watch_rng = sc_watch_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    if (!always && !(sc_watch_rng >> 63)) return;
    v = (unsigned char)(v + 0x3b + 2 * (unsigned char)(sc_watch_rng >> 40));
    for (unsigned r = 0; r < sc_watch_n; r++) memset(sc_watch_lo[r], v, sc_watch_len[r]);
    sc_watch_val = v;
}
static sigjmp_buf sc_jmp;
static unsigned sc_input_ms = 1000; /* an input runs out of time after one to two of these (SC_INPUT_MS) */
static int sc_mode;
static uint64_t sc_timeouts; /* inputs of this run that ran out of time */
static unsigned char *sc_skip; /* SC_SKIP: one byte per input, 1 where the -O3 original ran out of time (not
                                * run), 2 where it crashed (run with the short limit: sc_on_alarm) */
static size_t sc_nskip;
static int sc_only_recorded; /* SC_ONLY_RECORDED: the generated inputs break the original's harness */

/* Inputs on which the original ran out of time are not compared: not run again either, each would cost
 * the time limit again. Their record is the original's (timed out, no result). Read before the sandbox. */
static void sc_read_skip(void) {
    sc_only_recorded = sc_getenv("SC_ONLY_RECORDED") != NULL;
    sc_skip = sc_load_skip(&sc_nskip);
}
static char *sc_gdata_init, *sc_gbss_init, *sc_fdata_init, *sc_fbss_init;

static size_t sc_span(char *a, char *b) { return a && b && b > a ? (size_t)(b - a) : 0; }

static char *sc_snapshot(char *a, char *b) {
    size_t n = sc_span(a, b);
    char *c = n ? malloc(n) : NULL;
    if (c) memcpy(c, a, n);
    return c;
}

static void sc_restore(char *a, char *b, const char *init) {
    size_t n = sc_span(a, b);
    if (n && init) memcpy(a, init, n);
}

static void sc_randomize(char *a, char *b, sc_rng *r) {
    size_t n = sc_span(a, b);
    for (size_t i = 0; i < n; i++) a[i] = (char)sc_next(r);
}

/* Every input starts from a state of the globals of its own: the program's initial
 * values; or (MODE bit 2, every third input) one the program really had when it
 * called the function (recorded, SC_NSNAP of them); or (MODE bit 1, every other
 * remaining input) random contents of the file's globals. */
static void sc_globals_for(uint64_t i) {
    sc_restore(__start_sc_gdata, __stop_sc_gdata, sc_gdata_init);
    sc_restore(__start_sc_gbss, __stop_sc_gbss, sc_gbss_init);
    sc_restore(__start_sc_fdata, __stop_sc_fdata, sc_fdata_init);
    sc_restore(__start_sc_fbss, __stop_sc_fbss, sc_fbss_init);
    if ((sc_mode & 2) && SC_NSNAP && i % 3 == 2) {
        unsigned k = (unsigned)((i / 3) % (SC_NSNAP ? SC_NSNAP : 1));
        for (unsigned e = 0; e < sc_snap_len[k]; e++) {
            const sc_snap_entry *en = &sc_snaps[k][e];
            char *a = en->sec == 0 ? __start_sc_gdata : __start_sc_gbss, *b = en->sec == 0 ? __stop_sc_gdata : __stop_sc_gbss;
            if (a && (size_t)en->off + en->len <= sc_span(a, b)) memcpy(a + en->off, en->bytes, en->len);
        }
        return;
    }
    if ((sc_mode & 1) && (i & 1)) {
        sc_rng r = { sc_mix(0x61b7a1ULL ^ (i * 0x9e3779b97f4a7c15ULL)) };
        sc_randomize(__start_sc_gdata, __stop_sc_gdata, &r);
        sc_randomize(__start_sc_gbss, __stop_sc_gbss, &r);
    }
}

static uint64_t sc_hash_globals(uint64_t h) {
    sc_dump_label = "globals(.data)";
    h = sc_fnv(h, __start_sc_gdata, sc_span(__start_sc_gdata, __stop_sc_gdata));
    sc_dump_label = "globals(.bss)";
    h = sc_fnv(h, __start_sc_gbss, sc_span(__start_sc_gbss, __stop_sc_gbss));
    if (&sc_fobj_n && sc_fobj_n) { /* verify/statics_table.py: variable by variable, by name */
        for (uint32_t k = 0; k < sc_fobj_n; k++) {
            const uint32_t *e = sc_fobj + 4 * k;
            char *a = e[0] ? __start_sc_fbss : __start_sc_fdata, *b = e[0] ? __stop_sc_fbss : __stop_sc_fdata;
            if (!a || (size_t)e[1] + e[2] > sc_span(a, b)) continue;
            sc_dump_label = (const char *)sc_fobj + e[3];
            h = sc_fnv(h, a + e[1], e[2]);
        }
        return h;
    }
    sc_dump_label = "file-statics(.data)";
    h = sc_fnv(h, __start_sc_fdata, sc_span(__start_sc_fdata, __stop_sc_fdata));
    sc_dump_label = "file-statics(.bss)";
    h = sc_fnv(h, __start_sc_fbss, sc_span(__start_sc_fbss, __stop_sc_fbss));
    return h;
}

static uint64_t sc_recbuf[3 * 1024];
static unsigned sc_nrec;
static int sc_record_fd = -1;
static void sc_flush_records(void) {
    const char *p = (const char *)sc_recbuf;
    size_t left = sc_nrec * sizeof(uint64_t);
    while (left) { ssize_t w = write(sc_record_fd, p, left); if (w <= 0) _exit(SC_EXIT_CRASH); p += w; left -= (size_t)w; }
    sc_nrec = 0;
}

/* The last record of a run that ended on a finding (async-signal-safe). */
static void sc_trailer(uint64_t kind, uint64_t a, uint64_t b) {
    if (sc_record_fd < 0) return;
    sc_flush_records();
    uint64_t t[3] = { kind, a, b };
    sc_recbuf[0] = t[0]; sc_recbuf[1] = t[1]; sc_recbuf[2] = t[2]; sc_nrec = 3;
    sc_flush_records();
}

static void sc_on_signal(int sig) {
    if (sc_in_call) {
        sc_in_call = 0;
        siglongjmp(sc_jmp, sig);
    }
    sc_write_s(2, "harness failure at input ");
    sc_write_u64(2, sc_cur);
    sc_write_s(2, " signal ");
    sc_write_u64(2, (uint64_t)sig);
    sc_write_s(2, "\n");
    _exit(SC_EXIT_CRASH);
}

/* A system call of glibc's way to abort() on a fatal error it found ("free(): invalid pointer", a
 * failed assert): the page __libc_message maps for its message, SIGABRT unblocked and raised. Trapped,
 * it was never made: the input's result is the SIGABRT crash it was on its way to, as any crash is (an
 * input the original crashes on is outside its domain; a candidate that crashes where the original
 * does not is rejected). Any other system call stays a finding. */
static int sc_abort_path(const siginfo_t *si, const void *ctx) {
    const greg_t *g = ((const ucontext_t *)ctx)->uc_mcontext.gregs;
    switch (si->si_syscall) {
    case SYS_mmap:
        return g[REG_RDI] == 0 && (uint64_t)g[REG_RSI] <= 65536 && g[REG_RDX] == (PROT_READ | PROT_WRITE)
            && g[REG_R10] == (MAP_PRIVATE | MAP_ANONYMOUS) && (int)g[REG_R8] == -1; /* an int: -1 in 32 bits */
    case SYS_rt_sigprocmask: case SYS_gettid: case SYS_getpid: return 1;
    case SYS_tgkill: return g[REG_RDX] == SIGABRT;
    default: return 0;
    }
}

static void sc_on_sigsys(int sig, siginfo_t *si, void *ctx) {
    (void)sig;
    if (sc_in_call && sc_emulated_syscall(si, ctx)) return; /* getrandom, answered as sc_files.h's */
    if (sc_in_call && sc_abort_path(si, ctx)) {
        sc_in_call = 0;
        siglongjmp(sc_jmp, SIGABRT);
    }
    /* the record and the line below to the real descriptors: within a call that does file I/O, write() is
     * sc_files.h's, and both went into the call's files (the run ended "which, the run did not say") */
    sc_io_on = 0;
    sc_trailer(SC_TRAILER_SYSCALL, sc_cur, (uint64_t)si->si_syscall);
    sc_write_s(2, "forbidden system call ");
    sc_write_u64(2, (uint64_t)si->si_syscall);
    sc_write_s(2, " at input ");
    sc_write_u64(2, sc_cur);
    sc_write_s(2, "\n");
    _exit(SC_EXIT_SYSCALL);
}

/* Before each call: fresh sentinels for the callee-saved registers, junk in the
 * call-clobbered ones, a fresh nonce for the return path and the canaries. */
static uint64_t *sc_gap_lo, *sc_gap_hi; /* the call stack above its top, to its page's end (sc_call_stack_init) */
/* The rest of the executable's last writable page, past its .bss (_end): mapped, owned by no object, kept
 * from call to call where nothing scrubs it (a memo kept there passed every check). It holds drawn bytes
 * during each call; a change is SC_ABI_PAST_DATA. */
extern const ElfW(Ehdr) __ehdr_start; /* the executable's own ELF header, mapped (the linker defines it) */
static void sc_past_data(unsigned char **lo, unsigned char **hi) {
    static uintptr_t end;
    if (!end) { /* where its writable segment ends in memory (the file's data, renamed sections and all; not
                 * _end, which the sections the harness adds past .bss lie after) */
        const unsigned char *base = (const unsigned char *)&__ehdr_start;
        const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + __ehdr_start.e_phoff);
        for (unsigned k = 0; k < __ehdr_start.e_phnum; k++)
            if (ph[k].p_type == PT_LOAD && (ph[k].p_flags & PF_W) && (uintptr_t)base + ph[k].p_vaddr + ph[k].p_memsz > end)
                end = (uintptr_t)base + ph[k].p_vaddr + ph[k].p_memsz;
    }
    *lo = (unsigned char *)((end + 7) & ~(uintptr_t)7);
    *hi = (unsigned char *)((end + 4095) & ~(uintptr_t)4095);
}
static int sc_past_data_hit(void) {
    unsigned char *lo, *hi;
    sc_past_data(&lo, &hi);
    for (uint64_t *w = (uint64_t *)lo; (unsigned char *)(w + 1) <= hi; w++) if (*w != ~sc_nonce) return 1;
    return 0;
}
static void sc_arm(void) {
    sc_rng jr = { sc_mix(sc_cur ^ 0xabcdef12345ULL) };
    for (int k = 0; k < 6; k++) sc_sent[k] = sc_next(&jr);
    for (int k = 0; k < 3; k++) sc_junk[k] = sc_next(&jr);
    sc_nonce = sc_next(&jr) | 1;
    sc_done = 0;
    sc_target = sc_fn;
    sc_nstack = SC_NSTACK; /* words of arguments passed on the stack, for the trampoline to copy */
    for (uint64_t *w = sc_gap_lo; w < sc_gap_hi; w++) *w = sc_nonce;
    unsigned char *lo, *hi;
    sc_past_data(&lo, &hi);
    for (uint64_t *w = (uint64_t *)lo; (unsigned char *)(w + 1) <= hi; w++) *w = ~sc_nonce;
}
/* A write into the stack's gap (above the trampoline's canaries, below the PROT_NONE past the stack's
 * page) is one above the callee's frame, as a canary's: a word there changed */
static int sc_gap_hit(void) {
    for (const uint64_t *w = sc_gap_lo; w < sc_gap_hi; w++) if (*w != sc_nonce) return 1;
    return 0;
}

/* Junk for the upper half of a 32-bit (or narrower) argument register: varied bits, sometimes zero. */
static uint64_t sc_upper_junk(uint64_t k) {
    sc_rng jr = { sc_mix(sc_cur * 0x2545f4914f6cdd1dULL + k) };
    uint64_t v = sc_next(&jr);
    return (v & 7) == 0 ? 0 : v >> 32;
}

#define SC_ABI_TEXT(name, text) text,
static const char *const sc_abi_text[] = { SC_ABI_FINDINGS(SC_ABI_TEXT) };
#undef SC_ABI_TEXT
static int sc_abi(void) {
    if (sc_past_data_hit()) return SC_ABI_PAST_DATA;
    if (sc_plain_native) return sc_plain_bad ? SC_ABI_CALLER : SC_ABI_NONE; /* no trampoline: sc_plain.h */
    if (sc_done != sc_nonce) return SC_ABI_RETURN;
    for (int k = 0; k < 6; k++) if (sc_after[k] != sc_sent[k]) return SC_ABI_RBX + k;
    if (sc_rsp_after != sc_rsp_before) return SC_ABI_RSP;
    if (sc_flags_after & 0x400) return SC_ABI_DF;
    if ((sc_state[2] & ~0x3fU) != (sc_state[0] & ~0x3fU)) return SC_ABI_MXCSR; /* control bits; the status flags are not preserved */
    if ((sc_state[3] & 0xffff) != (sc_state[1] & 0xffff)) return SC_ABI_X87CW;
    if (sc_fenv[4] != 0xffff) return SC_ABI_X87STACK;
    if (sc_canary_hits || sc_gap_hit()) return SC_ABI_FRAME;
    if (sc_plain_bad) return SC_ABI_CALLER;
    return SC_ABI_NONE;
}

static void sc_detect_cpu(void) {
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) && (c & (1u << 28))) { /* OSXSAVE, AVX */
        sc_has_avx = 1;
        if (__get_cpuid_count(0xd, 1, &a, &b, &c, &d) && (a & (1u << 2))) sc_has_xinuse = 1;
    }
}

/* The stack the trampoline calls the function on: 8 MiB with a GiB of PROT_NONE above and below it, its
 * top at SC_STACK (the verifier draws it where a program's stacks lie, verify/layout.py: a candidate that
 * looks at its stack pointer sees no harness). A write above the callee's frame and its trampoline's 144
 * bytes faults there (zlib's inflate_table counts lens[] of 56797 into a local array of 16): that input's
 * crash, the same wherever the buffers lie, with the harness's own frames out of reach. Without SC_STACK,
 * or where it is taken, the island's last 8 MiB, against the 64 GiB of PROT_NONE past it. */
#define SC_STACK_SEA ((size_t)1 << 30)
static void sc_call_stack_init(void) {
    const char *at = sc_getenv("SC_STACK"); /* 16-byte aligned, anywhere in its page: no fixed low bits either */
    uintptr_t top = at ? (uintptr_t)strtoull(at, 0, 16) & ~(uintptr_t)15 : 0, page = (top + 4095) & ~(uintptr_t)4095;
    /* not where this process's own stack grows (1 GiB below where it is now, past any stack limit it has) */
    uintptr_t own = (uintptr_t)__builtin_frame_address(0), span = SC_CALL_STACK + 2 * SC_STACK_SEA;
    int near_own = page && page + SC_STACK_SEA > own - ((uintptr_t)1 << 30) && page - SC_CALL_STACK - SC_STACK_SEA < own;
    unsigned char *m = page > SC_CALL_STACK + SC_STACK_SEA && !near_own ? sc_reserve_at(page - SC_CALL_STACK - SC_STACK_SEA, span) : NULL;
    if (!m && page) sc_layout_again(); /* taken by this run's draw of the libraries or the stack */
    if (m && mprotect(m + SC_STACK_SEA, SC_CALL_STACK, PROT_READ | PROT_WRITE) == 0) {
        sc_stack_top = (unsigned char *)top; /* what lies above it, up to the PROT_NONE, is checked (sc_gap_hit) */
        sc_gap_lo = (uint64_t *)top; sc_gap_hi = (uint64_t *)page;
        return;
    }
    unsigned char *p = sc_island_take(SC_CALL_STACK, 1);
    if (p) sc_stack_top = p + SC_CALL_STACK; /* else the harness's own stack, as before */
}

/* SIGTRAP: a single step while the bytes around the buffers are watched; anything else a crash. */
static unsigned sc_watch_steps;
static void sc_on_trap(int sig, siginfo_t *si, void *ctx) {
    if (sc_watching && si->si_code == TRAP_TRACE) {
        sc_watch_step(0);
        if (++sc_watch_steps >= sc_watch_most) {
            sc_watching = 0;
            ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] &= ~0x100LL; /* the trap flag off as it returns */
        }
        return;
    }
    sc_on_signal(sig);
}

static void sc_install_handlers(void) {
    sc_altstack_init();
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_handler = sc_on_signal; sa.sa_flags = SA_ONSTACK | SA_NODEFER; /* NODEFER: no sigprocmask after siglongjmp */
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (unsigned s = 0; s < sizeof sigs / sizeof *sigs; s++) sigaction(sigs[s], &sa, NULL);
    sa.sa_handler = NULL; sa.sa_sigaction = sc_on_trap; sa.sa_flags = SA_ONSTACK | SA_SIGINFO | SA_NODEFER;
    sigaction(SIGTRAP, &sa, NULL);
    sa.sa_handler = NULL; sa.sa_sigaction = sc_on_sigsys; sa.sa_flags = SA_ONSTACK | SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSYS, &sa, NULL);
}

/* A watchdog instead of a timer per input (two system calls an input cost more than
 * the calls themselves): every SC_INPUT_MS it looks whether the input being run has
 * changed; an input still running at the (allowed + 1)th look has run out of time.
 * Allowed: one look, or SC_LATER_TICKS in the runs after the original's first, on
 * every input the original finished (a run beside another must not call out of time
 * an input that is not); where the original crashed, one (its result is not compared,
 * and a call that loops there instead costs the short limit only). */
static volatile uint64_t sc_watch_seen = ~0ULL;
static volatile unsigned sc_watch_looks;
static unsigned sc_later_ticks = 1, sc_allowed = 1;
/* SC_INPUT_FLOOR_MS (the original's first runs): an input runs out of time after
 * 50 times the slowest input this process returned from so far (a crash is no result to compare, and
 * one that first copies megabytes takes ms: deflate_fast's would allow every input 20), at least the floor
 * and at most SC_INPUT_MS, a look every ms. Inputs that loop for ever cost a few ms each instead of
 * 20-40 where the function's other inputs take microseconds (zlib's deflate_fast on generated states:
 * one in sixty loops, 25 of its 40 s); a function with slower inputs keeps the whole short limit. With the
 * long limit the floor is 200 ms: lz4's LZ4F_decompress loops on most generated states, 1-2 s each. */
static unsigned sc_floor_looks, sc_max_looks;
#define SC_LONG_LOOKS 500u /* ms, a long input's limit in the original's first runs */
static uint64_t sc_slowest_ns;
static unsigned sc_first_allowed(void) {
    uint64_t looks = (50 * sc_slowest_ns + 999999) / 1000000;
    return looks < sc_floor_looks ? sc_floor_looks : looks > sc_max_looks ? sc_max_looks : (unsigned)looks;
}
static void sc_on_alarm(int sig) {
    if (sc_in_call && sc_watch_seen == sc_cur) {
        if (++sc_watch_looks < sc_allowed) return;
        sc_in_call = 0;
        sc_watch_seen = ~0ULL;
        siglongjmp(sc_jmp, sig);
    }
    sc_watch_seen = sc_in_call ? sc_cur : ~0ULL;
    sc_watch_looks = 0;
}

static void sc_start_watchdog(void) {
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_handler = sc_on_alarm; sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESTART;
    sigaction(SIGVTALRM, &sa, NULL);
    const char *ms = sc_getenv("SC_INPUT_MS");
    if (ms && atoi(ms) > 0) sc_input_ms = (unsigned)atoi(ms);
    const char *later = sc_getenv("SC_LATER_TICKS");
    if (later && atoi(later) > 0) sc_later_ticks = (unsigned)atoi(later);
    const char *floor = sc_getenv("SC_INPUT_FLOOR_MS");
    unsigned every_ms = sc_input_ms;
    if (floor && atoi(floor) >= 2 && (unsigned)atoi(floor) < sc_input_ms) {
        sc_floor_looks = (unsigned)atoi(floor);
        every_ms = 1; /* a look every ms: an input runs out of time after its allowed looks (sc_first_allowed) */
        sc_max_looks = sc_input_ms;
    }
    struct timeval every = { every_ms / 1000, (every_ms % 1000) * 1000 };
    struct itimerval t = { every, every };
    /* the process's own CPU time, not the wall clock: on a busy machine a call that waits for a core is not
     * out of time (an input of 20 ns was "no result within 100-120 ms" beside two other jobs); a call can
     * only compute, the sandbox lets it wait for nothing */
    setitimer(ITIMER_VIRTUAL, &t, NULL);
}

/* What the call left in the heap (sc_heap.h): each block it allocated and did not free, in the order
 * it allocated them, its size and bytes; a word in it that points into the call's buffers as (buffer,
 * offset), into a block as (block, offset), elsewhere as sc_mapped_word says. */
static uint64_t sc_word_tag(const sc_input *in, uint64_t w) {
    for (unsigned j = 0; j < SC_NP + in->nr; j++) {
        uint64_t a = j < SC_NP ? (uint64_t)(uintptr_t)sc_g[j].base : (uint64_t)(uintptr_t)sc_rg[j - SC_NP].base;
        size_t cap = j < SC_NP ? sc_g[j].cap : sc_rg[j - SC_NP].cap;
        uint64_t at = j < SC_NP ? (uint64_t)(uintptr_t)in->pv[j] : (uint64_t)(uintptr_t)in->rp[j - SC_NP];
        if (a && at && w >= a && w <= a + cap) return (0x5CA1ULL << 48) ^ ((uint64_t)j << 40) ^ ((w - at) & 0xffffffffffULL);
    }
    return sc_mapped_word(w);
}
static uint64_t sc_hash_heap(uint64_t h, const sc_input *in) {
    for (unsigned b = 0; b < sc_nh; b++) {
        const unsigned char *p = sc_hb[b];
        size_t n = sc_hn[b], o = 0;
        h ^= 0x5CA5ULL ^ n; h *= 0x100000001b3ULL;
        if (sc_dumping) printf("\n@@ heap-block %u %zu\n", b, n);
        for (; o + 8 <= n; o += 8) {
            uint64_t w; memcpy(&w, p + o, 8);
            w = sc_word_tag(in, w);
            if (sc_dumping) for (int t = 0; t < 8; t++) printf("%02x", (unsigned)(w >> 8 * t) & 0xff);
            h ^= w; h *= 0x100000001b3ULL; h ^= h >> 29;
        }
        for (; o < n; o++) { h ^= p[o]; h *= 0x100000001b3ULL; if (sc_dumping) printf("%02x", p[o]); }
    }
    for (unsigned f = 0; f < sc_nforeign; f++) { /* what it freed that it was given: which, in order */
        h ^= 0xF4EEULL ^ (f < SC_MAXFOREIGN ? sc_word_tag(in, sc_foreign[f]) : 0);
        h *= 0x100000001b3ULL; h ^= h >> 29;
    }
    return h;
}

/* The flags a call may have left that no signal clears: one that jumped into the middle of an instruction
 * (tally.c's spread counts into its own return address and returns into the bytes of a displacement in
 * sc_tramp, 0x9d: popfq of a canary) may have set AC and NT. The kernel clears TF, DF and RF for a handler,
 * not AC: the harness then ran with alignment checks on, its next misaligned access (sc_gen's; glibc's
 * strlen in sc_on_signal) a SIGBUS, again and again on the alternate stack until the kernel killed it
 * (-11 and no message: "the -O3 baseline itself fails in the harness (-11)"). After every call, whatever
 * way it ended: AC, NT, DF and TF off. */
static inline __attribute__((always_inline)) void sc_flags_sane(void) {
    __asm__ volatile("pushfq\n\tandq $~0x44500, (%%rsp)\n\tpopfq" ::: "memory", "cc");
}
/* One call, contained: the status word of the record. */
/* State kept from one call for the next (a memo below the stack pointer, keyed on a few of its input's
 * bytes): on one input in sixteen, the function runs first one to three times on the input with one bit of
 * its buffers flipped (sc_perturb), its results left unused, then on the input itself, as a program calls it
 * again on a buffer it changed in between. The original's runs and the candidate's alike: a stale result
 * differs (a memo used from its third call on, after two, passed). */
static int sc_priming;
static inline __attribute__((always_inline)) void sc_repeat(sc_input *in);
static void sc_repeat_end(sc_input *in);
static volatile int sc_neighbour_on; /* a crash or timeout now is sc_repeat's neighbour's: sc_one goes on */
static uint64_t sc_one(sc_input *in, uint64_t *ret, uint64_t *outputs) {
    int sig, warm = 0;
    if (!sc_priming && !in->deep && (sc_mix(sc_cur ^ 0x9213ULL) & 15) == 0) {
        sc_priming = 1;
        /* A flipped bit can send the input outside the function's domain, where no run has probed it
         * (tally.c's spread: a length of 1039 counts 2 KB above its frame): never called on the harness's
         * own stack, where such a write lands in main's frame and breaks the harness after the last input
         * ("harness failure at input N", on the draws of caller shapes that put main's return address
         * there); through the trampoline, its stack ends in a guard and a crash is the priming call's. */
        int forced = sc_force_tramp;
        if (sc_is_native(sc_cur)) sc_force_tramp = 1;
        uint64_t r_, o_;
        uint64_t times = 1 + (sc_mix(sc_cur ^ 0x9214ULL) % 3);
        if (sc_perturb(in, 0)) {
            for (uint64_t t = 0; t < times; t++) {
                (void)sc_one(in, &r_, &o_);
                if (t + 1 < times && SC_WRITES_BUFFERS) { sc_gen(sc_cur, in); (void)sc_perturb(in, 0); }
            }
            sc_gen(sc_cur, in);
            /* Warm: the call finds the globals as the neighbour's calls left them, as a program's second
             * call does (a table built on first use, its flag set): reset before every call, a rewrite wrong
             * only once its statics were warm passed every check. Every input of these (cold, the other
             * fifteen in sixteen), not one in two: wrong only where warm and its buffer in a caller's frame
             * (a conjunction: one input in several hundred) passed 20,000 inputs at one in two */
            warm = 1;
        }
        sc_force_tramp = forced;
        sc_priming = 0;
    }
    if (!warm) sc_globals_for(sc_cur);
    sc_arm();
    size_t held = sc_heap_held();
    sc_heap_begin();
    sc_io_begin(sc_cur);
    sc_in_call = 1;
    sc_watch_n = 0;
    int watch = sc_watch_regions(in) > 0;
    if ((sig = sigsetjmp(sc_jmp, 0)) != 0) {
        sc_watching = 0; /* the handler ran with the trap flag clear: so does this */
        sc_ticks_quiet = 0; /* (a crash in sc_repeat's calls) */
        sc_ro_end(); /* its const buffers writable again (a write into one is this crash) */
        sc_out_end(); /* the harness's own stdout and stderr back */
        sc_unmove_abandoned();
        __asm__ volatile("fninit\n\tcld" ::: "memory");
        sc_flags_sane();
        uint32_t mx = 0x1f80; __asm__ volatile("ldmxcsr %0" :: "m"(mx));
        sc_io_on = 0;
        sc_heap_release(); /* what it allocated before it died */
        if (sc_neighbour_on) { /* on sc_repeat's neighbour, maybe outside the domain: its recorded call next */
            sc_neighbour_on = 0;
            sc_in_call = 1;
            sc_repeat_end(in);
            goto recorded;
        }
        *ret = 0; *outputs = 0;
        return sig == SIGVTALRM ? SC_TIMED_OUT : SC_CRASHED | (uint64_t)sig;
    }
    /* a candidate's runs only: a result that does not change from call to call is the original's own single
     * call's (the function's globals start each call as they were), and its runs keep their time */
    if (sc_cur == SC_REPEATED && !sc_priming && !watch && !in->deep && !(sc_mode & (32 | 8 | 4))) sc_repeat(in);
recorded:
    if (watch) {
        sc_watch_bad = 0;
        sc_watch_steps = 0;
        sc_watch_val = 0x5a;
        for (unsigned r = 0; r < sc_watch_n; r++) memset(sc_watch_lo[r], 0x5a, sc_watch_len[r]);
        sc_watching = 1;
        __asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc"); /* trap flag on */
    }
    sc_out_begin();
    /* errno is a result too (a parser that reports ERANGE there, a call that must leave it alone): it starts
     * drawn, 0 on one input in two, and is compared after the call, read before the harness's own calls */
    errno = (sc_mix(sc_cur ^ 0xe770ULL) & 1) ? 0 : (int)(1 + sc_mix(sc_cur ^ 0xe771ULL) % 133);
    *ret = sc_call(in);
    int err_after = errno;
    sc_out_end();
    if (watch) {
        __asm__ volatile("pushfq\n\tandq $-257, (%%rsp)\n\tpopfq" ::: "memory", "cc");
        sc_watching = 0;
        sc_watch_step(1); /* the last instruction's stores too */
    }
    sc_flags_sane();
    sc_in_call = 0;
    sc_heap_on = 0;
    sc_io_on = 0;
    int lost = sc_heap_lost, left = sc_nh > 0;
    sc_dumping = sc_dump_asked;
    *outputs = sc_hash_globals(sc_hash_heap(sc_hash_outputs(in), in));
    sc_dump_label = "printed";
    if (sc_out_len) *outputs = sc_fnv(*outputs ^ 0x9e1ULL, sc_out_buf, sc_out_len);
    else if (sc_dumping) printf("\n@@ printed 0 0\n");
    if (sc_dumping) printf("\n@@ fp-flags 0 4\n%08x", sc_fp_flags);
    sc_dump_label = "errno";
    *outputs = sc_fnv(*outputs ^ 0xe770ULL, &err_after, sizeof err_after);
    sc_dumping = 0;
    if (sc_io_used) *outputs = sc_mix(*outputs ^ sc_io_result()); /* what it did to files (sc_files.h) */
    sc_heap_release();
    /* what is held now differs only where the call freed memory it was given, or allocated where the
     * blocks are not tracked */
    int allocated = sc_heap_held() != held || lost;
    return (sc_upper_dirty ? SC_DIRTY_UPPER : 0) | (allocated ? SC_ALLOCATED : 0) | (left ? SC_HEAP_LEFT : 0) |
           (watch && sc_watch_bad ? SC_STORED_AROUND : 0) | ((uint64_t)sc_fp_flags << SC_FP_FLAGS_SHIFT);
}

/* State kept from call to call, in memory the function does not own (a count below the stack, where a
 * program's own frames come and go): one input, the first random one (SC_REPEATED), is called again and
 * again before its recorded call (SC_REPEAT_MAX times, or as many as SC_REPEAT_MOST_MS of its CPU time allows), from the
 * same plain C caller on the harness's own stack (sc_plain.h), its buffers made anew before each call that
 * may write them. In a candidate's runs only (the original's recorded call is its single call's result): a
 * candidate that goes wrong after many calls then differs on its recorded call, and one that crashes in
 * between has that crash as the input's result. Not where the call printed or used files (it would again). */
#define SC_REPEAT_MAX 1000000ULL
#define SC_REPEAT_MOST_MS 1000
/* Called by sc_one inside its call's window, right before the recorded call and from the same frame, so that
 * the calls lie at the same depth of the stack: a crash or a timeout here is the input's. */
/* Its calls, `most` of them or up to `until` (ns of CPU time, sc_cpu_ns); the input made anew before each call that may write it,
 * and where `flips`, that many bits of it flipped (sc_perturb). Returns 0 where the call printed or used
 * files (it would again: what it printed is left unsaid, its recorded call says it). */
static inline __attribute__((always_inline)) int sc_repeat_calls(sc_input *in, uint64_t most, uint64_t until, unsigned flips) {
    static uint64_t r;
    static char *wrote_at;
    wrote_at = stdout->_IO_write_ptr;
    for (r = 0; r < most; r++) {
        if ((r & 255) == 0 && sc_cpu_ns() > until) break;
        if (r && SC_WRITES_BUFFERS) sc_gen(sc_cur, in);
        if (!r || SC_WRITES_BUFFERS) for (unsigned f = 0; f < flips; f++) (void)sc_perturb(in, 1 + f);
        sc_globals_for(sc_cur);
        sc_heap_begin();
        sc_io_begin(sc_cur);
        sc_watch_seen = ~0ULL; /* each call its own time limit (sc_on_alarm) */
        sc_out_begin();
        (void)sc_call(in);
        sc_out_end();
        sc_io_on = 0;
        sc_heap_release();
        if (sc_out_len) return 0; /* it printed: it would again (its recorded call says what) */
        if (stdout->_IO_write_ptr != wrote_at) {
            if (stdout->_IO_write_ptr > wrote_at) stdout->_IO_write_ptr = wrote_at;
            return 0;
        }
        if (sc_io_used) return 0;
    }
    return 1;
}
/* Then, as many times in the other half, on a neighbour of it (a few bits of its buffers flipped): a memo
 * kept from call to call and keyed on less than the whole input (its address, its length, its first and
 * last bytes) answers the recorded call with the neighbour's result, whatever count it waits for. The
 * neighbour may lie outside the function's domain: a crash or timeout there ends those calls unsaid. */
#define SC_REPEAT_FLIPS 8
/* After them: the input made anew and its call's window set up again, for its recorded call */
static void sc_repeat_end(sc_input *in) {
    sc_ticks_quiet = 0;
    sc_gen(sc_cur, in);
    sc_globals_for(sc_cur);
    sc_arm();
    sc_heap_begin();
    sc_io_begin(sc_cur);
}
/* Inlined into sc_one, with no setjmp of its own (a function that calls setjmp is never inlined): every call
 * lies at the depth of the recorded call (called one frame deeper, a count kept 16 KiB below the stack was
 * another count there, and the call-counting candidate passed) */
static inline __attribute__((always_inline)) void sc_repeat(sc_input *in) {
    static uint64_t half;
    half = sc_cpu_ns() + SC_REPEAT_MOST_MS * 500000ULL;
    sc_ticks_quiet = 1;
    if (sc_repeat_calls(in, SC_REPEAT_MAX / 2, half, 0)) {
        sc_neighbour_on = 1;
        (void)sc_repeat_calls(in, SC_REPEAT_MAX / 2, half + SC_REPEAT_MOST_MS * 500000ULL, SC_REPEAT_FLIPS);
        sc_neighbour_on = 0;
    }
    sc_repeat_end(in);
}

int main(int argc, char **argv) {
    sc_layout(argv);
    sc_codemap_path = argv[0]; /* its functions by name (sc_heap.h), read with the mappings */
    sc_long_ok = 1; /* its few long inputs (inputs_c.py) */
    sc_install_handlers();
    sc_call_stack_init();
    sc_env_take(1, NULL); /* its settings out of the environment, where a candidate could look (sc_env.h) */
    sc_detect_cpu();
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf); /* no allocation once sandboxed */
    sc_out_init();
    sc_setup();
    sc_gdata_init = sc_snapshot(__start_sc_gdata, __stop_sc_gdata);
    sc_gbss_init = sc_snapshot(__start_sc_gbss, __stop_sc_gbss);
    sc_fdata_init = sc_snapshot(__start_sc_fdata, __stop_sc_fdata);
    sc_fbss_init = sc_snapshot(__start_sc_fbss, __stop_sc_fbss);
    sc_input in_s, *in = &in_s;
    if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "dump"))) && !strcmp(argv[1], "show")) {
        sc_dump_asked = argc == 5;
        sc_cur = strtoull(argv[2], 0, 10);
        sc_mode = atoi(argv[3]);
        sc_gen(sc_cur, in);
        sc_show(in, "f");
        fflush(stdout);
        sc_start_watchdog();
        sc_heap_reserve();
        sc_heapzone_init();
        sc_read_maps();
        sc_sandbox_protect_range(sc_island_lo, sc_island_hi);
        sc_sandbox_enter(SC_STRICT, -1);
        uint64_t ret, outputs, st = sc_one(in, &ret, &outputs);
        fflush(stdout);
        if (st & (SC_CRASHED | SC_TIMED_OUT)) {
            printf(st & SC_TIMED_OUT ? "(no result: timed out)\n" : "(no result: crashed with signal %d)\n", (int)(st & 0xff));
            fflush(stdout);
            return 0;
        }
        sc_show_ret(ret);
        if (SC_WRITES_BUFFERS) sc_show(in, "after: f");
        fflush(stdout);
        return 0;
    }
    if (argc != 5 || strcmp(argv[1], "run")) {
        fprintf(stderr, "usage: %s run N RECORD_FD MODE | show I MODE [dump]\n", argv[0]);
        return SC_EXIT_USAGE;
    }
    uint64_t n = strtoull(argv[2], 0, 10);
    sc_record_fd = atoi(argv[3]);
    sc_mode = atoi(argv[4]);
    sc_flip_sides = (sc_mode & 4) != 0;
    if (n > SC_NINPUTS) n = SC_NINPUTS;
    sc_read_skip();
    sc_heap_reserve();
    sc_heapzone_init();
    sc_read_maps();
    sc_start_ticks();
    sc_start_watchdog();
    sc_sandbox_protect_range(sc_island_lo, sc_island_hi);
    if (!(sc_mode & 8)) sc_sandbox_enter(SC_STRICT, sc_record_fd); /* bit 8: the user's own -O3 code, for coverage */
    /* SC_BUDGET_MS (the baseline's first run): generated inputs not reached by then are not run (SC_NOT_RUN)
     * and the run goes on with the program's recorded calls: a slow original is checked on fewer inputs,
     * and the report says how many, instead of holding its job for minutes */
    const char *budget = sc_getenv("SC_BUDGET_MS");
    /* static, not in this frame: an original that writes past its own frame must not move them. The edge
     * inputs get half the budget, the random ones the rest: a function of three 64-bit parameters has
     * 25,000 edge combinations, which alone would use it all */
    static uint64_t deadline, edge_deadline;
    static int past_budget;
    uint64_t ms = budget && atoll(budget) > 0 ? (uint64_t)atoll(budget) : 0, t0 = sc_now_ns();
    deadline = ms ? t0 + ms * 1000000ULL : 0;
    edge_deadline = ms ? t0 + ms * 500000ULL : 0;
    /* SC_FROM: start at this input (the records are of inputs SC_FROM..N-1): a run split over cores */
    const char *from_env = sc_getenv("SC_FROM");
    static uint64_t from;
    from = from_env ? strtoull(from_env, 0, 10) : 0;
    for (sc_cur = from; sc_cur < n; sc_cur++) {
        uint64_t *rec = sc_recbuf + sc_nrec;
        int generated = sc_cur < SC_NEDGE + SC_NRANDOM;
        if (deadline && generated && !past_budget && sc_now_ns() > deadline) past_budget = 1;
        int past_edges = deadline && sc_cur < SC_NEDGE && !past_budget && sc_now_ns() > edge_deadline;
        if ((past_budget || past_edges) && generated) {
            rec[0] = SC_NOT_RUN; rec[1] = 0; rec[2] = 0;
            sc_nrec += 3;
            if (sc_nrec == sizeof sc_recbuf / sizeof *sc_recbuf) sc_flush_records();
            continue;
        }
        /* an input that is not run is not even made: where only the program's recorded calls run, a run
         * of inflate_fast's 11 calls took 0.7 s making its 100,378 generated states; a probe's run over
         * the few hundred inputs its first run reached took lz4hc's LZ4HC_compress_optimal 2.8 s making
         * all 25,600 of its 256 KiB states. What an input leaves in its buffers' slots is no other input's
         * (each is made whole; an original that reads past its buffers is left out by the self-check) */
        unsigned char mark = sc_cur < sc_nskip ? sc_skip[sc_cur] : 0;
        int skipped = mark == 1 || (sc_only_recorded && generated);
        if (!skipped) sc_gen(sc_cur, in);
        sc_allowed = sc_floor_looks ? sc_first_allowed() : mark == 2 ? 1 : sc_later_ticks;
        /* a long input (up to 256 times the usual most) is allowed as much longer, to half a second in the
         * original's first runs and five times that after: at 50 times the slowest ordinary input, the -O3
         * original ran out of time on its 2^20-element array, and that length went unchecked. So is an input
         * that may be watched single-stepped for longer (sc_watch_big_for) */
        if ((sc_long_for(sc_cur) || sc_watch_big_for(sc_cur)) && !skipped && mark != 2)
            sc_allowed = sc_floor_looks ? SC_LONG_LOOKS : sc_later_ticks * (SC_LONG_LOOKS / sc_input_ms + 1);
        char *wrote_at = stdout->_IO_write_ptr;
        int probed = 0;
        /* A call from the harness's own C (sc_plain.h) has the harness's frames above it: where the -O3
         * original crashed, every run calls through the trampoline alone, whose stack keeps them out of reach;
         * and the original's own runs first call each such input so, and keep that record where it crashed or
         * broke the convention (a write above its frame: outside its domain, as on any other path) */
        sc_force_tramp = mark == 2;
        if ((sc_mode & (32 | 4)) && !skipped && sc_is_native(sc_cur)) { /* its first runs and its self-check */
            sc_force_tramp = 1;
            rec[0] = sc_one(in, &rec[1], &rec[2]);
            int pa = (rec[0] & (SC_CRASHED | SC_TIMED_OUT)) ? SC_ABI_NONE : sc_abi();
            sc_force_tramp = 0;
            if (pa != SC_ABI_NONE) { rec[0] = SC_CRASHED | SC_ABI_BROKEN; rec[1] = (uint64_t)pa; rec[2] = 0; }
            /* and where the call printed or used files (a call again would again): this record too */
            probed = (rec[0] & (SC_CRASHED | SC_TIMED_OUT)) != 0 || stdout->_IO_write_ptr != wrote_at || sc_io_used;
            if (!probed) sc_gen(sc_cur, in);
        }
        if (skipped) { rec[0] = SC_TIMED_OUT; rec[1] = 0; rec[2] = 0; }
        else if (probed) { /* its record stands */ }
        else if (sc_floor_looks) {
            uint64_t t0 = sc_now_ns();
            rec[0] = sc_one(in, &rec[1], &rec[2]);
            uint64_t took = sc_now_ns() - t0;
            /* (not the repeated input's: its calls again and again are not one call's time) */
            if (!(rec[0] & (SC_TIMED_OUT | SC_CRASHED)) && took > sc_slowest_ns && sc_cur != SC_REPEATED) sc_slowest_ns = took;
        } else rec[0] = sc_one(in, &rec[1], &rec[2]);
        sc_force_tramp = 0;
        int printed = stdout->_IO_write_ptr != wrote_at || sc_io_used; /* a call again would print again */
        int abi = (rec[0] & (SC_CRASHED | SC_TIMED_OUT)) ? SC_ABI_NONE : sc_abi();
        /* a finding on a call from a plain C caller: the same input again, through the trampoline alone, to name
         * the register or slot. The -O3 original's own runs do so on every such input: a write above its frame
         * into a slot its plain caller does not check is outside its domain too (the trampoline's canaries see
         * it), so that no such input is timed, where the write would land in the timing loop's frame. */
        if ((abi != SC_ABI_NONE || ((sc_mode & 32) && !printed)) && sc_plain_used) {
            uint64_t again[3];
            sc_force_tramp = 1;
            sc_gen(sc_cur, in);
            again[0] = sc_one(in, &again[1], &again[2]);
            sc_force_tramp = 0;
            int named = (again[0] & (SC_CRASHED | SC_TIMED_OUT)) ? SC_ABI_NONE : sc_abi();
            if (named != SC_ABI_NONE) abi = named;
        }
        if (abi != SC_ABI_NONE && (sc_mode & 32)) { /* the original's own: outside its domain */
            rec[0] = SC_CRASHED | SC_ABI_BROKEN; rec[1] = (uint64_t)abi; rec[2] = 0;
        } else if (abi != SC_ABI_NONE) {
            sc_trailer(SC_TRAILER_ABI, sc_cur, (uint64_t)abi);
            fflush(stdout);
            sc_write_s(2, "abi-violation at input ");
            sc_write_u64(2, sc_cur);
            sc_write_s(2, ": ");
            sc_write_s(2, sc_abi_text[abi]);
            sc_write_s(2, "\n");
            return SC_EXIT_ABI;
        }
        sc_nrec += 3;
        if (sc_nrec == sizeof sc_recbuf / sizeof *sc_recbuf) sc_flush_records();
        /* bit 16 (the baseline's first runs): stop early where inputs run out of time. With the short
         * limit, once they are most inputs (the caller runs again with the long one); with the long limit,
         * at the 4th such input (each costs a second or two): those lie outside the function's domain (a
         * negative length it loops on), and the caller tries narrower inputs; at the 2nd where no input it
         * finished took the short limit (SC_SHORT_MS), which then did not cut short a slow function but
         * ones that loop (lz4's LZ4F_decompress on generated states: 8 s a run, twice, before narrower
         * inputs). Counted from SC_FROM: a part of a split run stops as a whole run from its first input
         * would */
        if ((sc_mode & 16) && (rec[0] & SC_ALLOCATED)) { /* its result lives in memory it allocated */
            sc_flush_records();
            return SC_EXIT_ALLOCATES;
        }
        if ((rec[0] & SC_TIMED_OUT) && !skipped) sc_timeouts++;
        if ((sc_mode & 16) && ((sc_input_ms >= 1000 && (sc_timeouts >= 4 || (sc_timeouts >= 2 && sc_slowest_ns < SC_SHORT_MS * 1000000ULL))) ||
                               (sc_timeouts >= 8 && sc_timeouts * 4 > sc_cur - from + 1))) {
            sc_flush_records();
            return SC_EXIT_SLOW;
        }
    }
    sc_flush_records();
    fflush(stdout);
    return 0;
}
#endif
