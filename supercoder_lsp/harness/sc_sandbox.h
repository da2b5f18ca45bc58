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
 *              process (SIGSYS).
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
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "sc_contract.h"

enum { SC_STRICT = 1, SC_PROGRAM = 2 };

/* SC_STRICT may also mprotect one region (the timing driver's state) to read-only
 * or read-write, nothing else: set before sc_sandbox_enter. */
static unsigned long sc_protect_addr, sc_protect_len;
static void sc_sandbox_protect(void *addr, unsigned long len) { sc_protect_addr = (unsigned long)addr; sc_protect_len = len; }

#define SC_LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define SC_LD_ARG(i) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[i]))
#define SC_ALLOW_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define SC_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

static int sc_sandbox_install(int kind, int record_fd) {
    const unsigned deny = kind == SC_STRICT ? SECCOMP_RET_TRAP : SECCOMP_RET_KILL_PROCESS;
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
        SC_RET(deny),
    };
    struct sock_filter f[sizeof head / sizeof *head + sizeof program / sizeof *program];
    size_t n = 0;
    memcpy(f, head, sizeof head);
    n += sizeof head / sizeof *head;
    if (kind == SC_STRICT) { memcpy(f + n, strict, sizeof strict); n += sizeof strict / sizeof *strict; }
    else { memcpy(f + n, program, sizeof program); n += sizeof program / sizeof *program; }
    struct sock_fprog prog = { (unsigned short)n, f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) return -1;
    return 0;
}

static void sc_sandbox_enter(int kind, int record_fd) {
    if (sc_sandbox_install(kind, record_fd) == 0) return;
    const char *ok = getenv("SC_ALLOW_UNSANDBOXED");
    if (ok && !strcmp(ok, "1")) return;
    static const char msg[] = "sandbox unavailable: seccomp filter could not be installed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(SC_EXIT_NO_SANDBOX);
}
#endif
