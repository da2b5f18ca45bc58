/* Containment for processes that run candidate code: no_new_privs plus a
 * seccomp filter, installed before the first candidate instruction runs.
 *
 *   SC_STRICT  (function harness, timing harness): write to stdout/stderr
 *              and to the harness's record descriptor, exit, signal return,
 *              the clock and the interval timer. Nothing else: a forbidden
 *              call traps to a SIGSYS handler that reports its number.
 *   SC_PROGRAM (a whole program under test): the I/O and memory calls a C
 *              program makes on stdin/stdout/stderr; nothing that opens
 *              files, sockets or processes. A forbidden call kills the
 *              process (SIGSYS). Where SC_SANDBOX_READ names files (one
 *              path a line: a workload's input files), a Landlock ruleset
 *              lets the program open those, and only those, read-only
 *              (open/openat without write access, creation or truncation;
 *              reads from any descriptor); without Landlock nothing opens.
 *              SC_SANDBOX_EXPLAIN=1 (set by the tool for the -O3 program
 *              only) writes "sandbox: forbidden system call N" to stderr
 *              before the process dies of SIGSYS, so a refusal can say which.
 *
 * If the filter cannot be installed the process exits with code 71, unless
 * SC_ALLOW_UNSANDBOXED=1 is set in its environment (the user opted in).
 */
#ifndef SC_SANDBOX_H
#define SC_SANDBOX_H
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "sc_contract.h"
#include "sc_env.h"

enum { SC_STRICT = 1, SC_PROGRAM = 2 };

/* what older headers (Debian 12's) lack: the kernel's numbers */
#ifndef O_PATH
#define O_PATH 010000000
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define SC_LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)

/* SC_STRICT may also mprotect one region (the timing driver's state) to read-only
 * or read-write, nothing else: set before sc_sandbox_enter. */
static unsigned long sc_protect_addr, sc_protect_len;
static void sc_sandbox_protect(void *addr, unsigned long len) { sc_protect_addr = (unsigned long)addr; sc_protect_len = len; }
/* ... and (the timing driver's stack fence, sc_timing.h) mprotect(fence base, any length, PROT_NONE) and mincore */
static unsigned long sc_fence_addr;
static void sc_sandbox_fence(void *base) { sc_fence_addr = (unsigned long)base; }
/* ... and (the function harness's const buffers, sc_rt.h) mprotect(inside [lo, hi), any length, PROT_READ or
 * PROT_READ|PROT_WRITE), by 4 GiB (the filter compares the address's upper half) */
static unsigned long sc_range_lo, sc_range_hi;
static void sc_sandbox_protect_range(unsigned long lo, unsigned long hi) { sc_range_lo = lo; sc_range_hi = hi; }

#define SC_LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define SC_LD_ARG(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define SC_ALLOW_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define SC_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

/* SC_PROGRAM: the files SC_SANDBOX_READ names may be opened read-only, nothing else (Landlock); 1 where
 * that holds, 0 where nothing was asked or this kernel cannot (then opens stay forbidden). */
static int sc_sandbox_read_only_files(void) {
    const char *list = sc_getenv("SC_SANDBOX_READ");
    if (!list || !*list) return 0;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return 0;
    struct landlock_ruleset_attr attr = { .handled_access_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1 };
    if (abi >= 2) attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) attr.handled_access_fs |= SC_LANDLOCK_ACCESS_FS_TRUNCATE;
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0) return 0;
    char path[4096];
    for (const char *p = list; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && n < sizeof path) {
            memcpy(path, p, n);
            path[n] = 0;
            int fd = open(path, O_PATH | O_CLOEXEC);
            if (fd >= 0) {
                struct landlock_path_beneath_attr rule = { LANDLOCK_ACCESS_FS_READ_FILE, fd };
                (void)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
                close(fd);
            }
        }
        p += n + (e != NULL);
    }
    int ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    close(rs);
    return ok;
}

/* SC_SANDBOX_EXPLAIN: a forbidden call names itself on stderr, then the process dies of SIGSYS as it would. */
static void sc_sandbox_explain(int sig, siginfo_t *info, void *uc) {
    (void)uc;
    char msg[64] = "sandbox: forbidden system call ";
    size_t n = strlen(msg);
    char digits[12];
    int k = 0;
    unsigned v = (unsigned)info->si_syscall;
    do digits[k++] = (char)('0' + v % 10); while ((v /= 10) && k < 11);
    while (k) msg[n++] = digits[--k];
    msg[n++] = '\n';
    (void)!write(2, msg, n);
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig); /* the handler is reset and not deferred: dies here */
}

static int sc_sandbox_install(int kind, int record_fd) {
    unsigned deny = kind == SC_STRICT ? SECCOMP_RET_TRAP : SECCOMP_RET_KILL_PROCESS;
    const int files = kind == SC_PROGRAM && sc_sandbox_read_only_files();
    const char *explain = kind == SC_PROGRAM ? sc_getenv("SC_SANDBOX_EXPLAIN") : NULL;
    if (explain && !strcmp(explain, "1")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = sc_sandbox_explain;
        sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
        if (sigaction(SIGSYS, &sa, NULL) == 0) deny = SECCOMP_RET_TRAP;
    }
    const unsigned no_write = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
    struct sock_filter head[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        SC_RET(SECCOMP_RET_KILL_PROCESS),
        SC_LD_NR,
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1), /* x32 ABI */
        SC_RET(SECCOMP_RET_KILL_PROCESS),
        /* write/writev only to fd 1, 2 and the record descriptor */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_writev, 0, 6),
        SC_LD_ARG(0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 2, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)record_fd, 1, 0),
        SC_RET(deny),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_LD_NR,
    };
    struct sock_filter strict[] = {
        /* mprotect(the fence's base, any length, PROT_NONE): nothing but the stack below the fence */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 7),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sc_fence_addr, 0, 5),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(sc_fence_addr >> 32), 0, 3),
        SC_LD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_NONE, 0, 1),
        SC_RET(sc_fence_addr ? SECCOMP_RET_ALLOW : deny),
        SC_LD_NR,
        SC_ALLOW_NR(SYS_mincore), /* which pages of the stack a call touched (sc_timing.h) */
        /* mprotect(an address in the island's 4 GiB spans, any length, PROT_READ or PROT_READ|PROT_WRITE) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sc_range_hi ? SYS_mprotect : 0xffffffffu, 0, 8), /* unset: on */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (unsigned)(sc_range_lo >> 32), 0, 5),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (unsigned)((sc_range_hi - 1) >> 32), 4, 0),
        SC_LD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ | PROT_WRITE, 0, 1),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_LD_NR,
        /* mprotect(the protected region, its length, PROT_READ or PROT_READ|PROT_WRITE) only */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 11),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sc_protect_addr, 0, 8),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(sc_protect_addr >> 32), 0, 6),
        SC_LD_ARG(1),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)sc_protect_len, 0, 4),
        SC_LD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ | PROT_WRITE, 0, 1),
        SC_RET(sc_protect_addr ? SECCOMP_RET_ALLOW : deny),
        SC_RET(deny),
        SC_LD_NR,
        SC_ALLOW_NR(SYS_exit), SC_ALLOW_NR(SYS_exit_group), SC_ALLOW_NR(SYS_rt_sigreturn),
        SC_ALLOW_NR(SYS_clock_gettime), SC_ALLOW_NR(SYS_gettimeofday), SC_ALLOW_NR(SYS_setitimer),
        SC_RET(deny),
    };
    struct sock_filter opens[] = {
        /* (with read-only files) reads from any descriptor: stdio and the files opened */
        SC_ALLOW_NR(SYS_read), SC_ALLOW_NR(SYS_readv), SC_ALLOW_NR(SYS_pread64),
        /* openat/open without write access, creation or truncation; Landlock decides which paths */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 4),
        SC_LD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, no_write, 1, 0),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_RET(deny),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 0, 4),
        SC_LD_ARG(1),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, no_write, 1, 0),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_RET(deny),
        SC_LD_NR,
    };
    struct sock_filter program[] = {
        /* read/readv only from fd 0 */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_readv, 0, 4),
        SC_LD_ARG(0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_RET(deny),
        /* mmap/mprotect never executable */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 0, 4),
        SC_LD_ARG(2),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
        SC_RET(deny),
        SC_RET(SECCOMP_RET_ALLOW),
        /* kill/tgkill of this very process (raise, abort): the signal is the program's verdict */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tgkill, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 0, 4),
        SC_LD_ARG(0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)getpid(), 0, 1),
        SC_RET(SECCOMP_RET_ALLOW),
        SC_RET(deny),
        /* isatty() on stdio: answer "not a terminal" */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 1),
        SC_RET(SECCOMP_RET_ERRNO | ENOTTY),
        SC_ALLOW_NR(SYS_exit), SC_ALLOW_NR(SYS_exit_group), SC_ALLOW_NR(SYS_rt_sigreturn),
        SC_ALLOW_NR(SYS_brk), SC_ALLOW_NR(SYS_munmap), SC_ALLOW_NR(SYS_mremap), SC_ALLOW_NR(SYS_madvise),
        SC_ALLOW_NR(SYS_fstat), SC_ALLOW_NR(SYS_newfstatat), SC_ALLOW_NR(SYS_lseek), SC_ALLOW_NR(SYS_close),
        SC_ALLOW_NR(SYS_clock_gettime), SC_ALLOW_NR(SYS_gettimeofday), SC_ALLOW_NR(SYS_getrandom),
        SC_ALLOW_NR(SYS_futex), SC_ALLOW_NR(SYS_rt_sigprocmask), SC_ALLOW_NR(SYS_rt_sigaction),
        SC_ALLOW_NR(SYS_sigaltstack), SC_ALLOW_NR(SYS_nanosleep), SC_ALLOW_NR(SYS_clock_nanosleep),
        SC_ALLOW_NR(SYS_sched_yield), SC_ALLOW_NR(SYS_getpid), SC_ALLOW_NR(SYS_gettid),
        SC_ALLOW_NR(SYS_dup), /* perror() writes through a copy of stderr */
        SC_RET(deny),
    };
    struct sock_filter f[(sizeof head + sizeof strict + sizeof opens + sizeof program) / sizeof *head];
    size_t n = 0;
    memcpy(f, head, sizeof head);
    n += sizeof head / sizeof *head;
    if (kind == SC_STRICT) { memcpy(f + n, strict, sizeof strict); n += sizeof strict / sizeof *strict; }
    else {
        if (files) { memcpy(f + n, opens, sizeof opens); n += sizeof opens / sizeof *opens; }
        memcpy(f + n, program, sizeof program);
        n += sizeof program / sizeof *program;
    }
    struct sock_fprog prog = { (unsigned short)n, f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) return -1;
    return 0;
}

static void sc_sandbox_enter(int kind, int record_fd) {
    if (sc_sandbox_install(kind, record_fd) == 0) return;
    const char *ok = sc_getenv("SC_ALLOW_UNSANDBOXED");
    if (ok && !strcmp(ok, "1")) return;
    static const char msg[] = "sandbox unavailable: seccomp filter could not be installed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(SC_EXIT_NO_SANDBOX);
}
#endif
