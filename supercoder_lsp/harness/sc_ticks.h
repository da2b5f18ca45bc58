/* The harness's alternate signal stack, and its ticks: interrupts while the function runs, every 200
 * microseconds, as a real program's signal handlers would. The memory below the interrupted code's red
 * zone is fair game for them, so the tick (on the alternate stack) fills 16 KiB of it with junk: a
 * candidate that keeps data below its red zone loses it and gives itself away.
 *
 * A tick that interrupts another of the harness's handlers (the watchdog's SIGVTALRM, a crash's SIGSEGV)
 * leaves that one's memory alone: both are on the alternate stack, the kernel puts the tick's own frame
 * right below the red zone there, and junk over it returns from the tick to junk. Two signals pending at
 * once are delivered so, nested, and a busy machine makes that common (the process runs again after the
 * watchdog's and the tick's timers both fired): a crash on an input the function never crashed on,
 * on one run and not the other, where the saved registers are smaller than the junk (no AVX-512). */
#ifndef SC_TICKS_H
#define SC_TICKS_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* REG_RSP */
#endif
#include <signal.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

static unsigned char sc_altstack[1 << 16];
/* The bytes below the red zone each tick fills, with junk that changes from tick to tick: a program's
 * handler on the same stack takes as much (a value kept 3 KiB down passed 2 KiB of junk) */
#define SC_TICK_JUNK 16384u
/* Set while one input is called again and again (sc_verify.h's sc_repeat): there junk would wipe the very
 * state (a count, a memo kept below the stack) whose effect on the recorded call those calls look for (a
 * count 16 KiB down, wiped by ticks, never reached its 100,000th call) */
static volatile int sc_ticks_quiet;

static void sc_altstack_init(void) {
    stack_t ss = { .ss_sp = sc_altstack, .ss_size = sizeof sc_altstack };
    sigaltstack(&ss, NULL);
}

static void sc_on_tick(int sig, siginfo_t *si, void *ctx) {
    (void)sig; (void)si;
    unsigned char *sp = (unsigned char *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RSP];
    if (sp >= sc_altstack && sp <= sc_altstack + sizeof sc_altstack) return; /* another handler */
    if (sc_ticks_quiet) return;
    static unsigned n;
    volatile unsigned char *below = sp - 128 - SC_TICK_JUNK;
    n++;
    for (unsigned i = 0; i < SC_TICK_JUNK; i++) below[i] = (unsigned char)(i * 131u + 7u + n);
}

static void sc_tick_handler(void) {
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = sc_on_tick; sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
}

static void sc_start_ticks(void) {
    sc_tick_handler();
    struct sigevent ev; memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL; ev.sigev_signo = SIGPROF;
    timer_t t;
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0) {
        struct itimerspec its = { {0, 200000}, {0, 200000} }; /* every 200 us */
        timer_settime(t, 0, &its, NULL);
    }
}
#endif
