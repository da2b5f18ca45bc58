"""The harness's ticks (sc_ticks.h) write junk below the red zone of the code they interrupt, and never
over another of its handlers' frames on the alternate stack: a tick nested on the watchdog's SIGALRM
(both pending at once, as on a busy machine) returned to junk, a crash on an input the function never
crashed on, where the saved registers are smaller than 2 KB (CPUs without AVX-512)."""

from __future__ import annotations

import subprocess

from supercoder_lsp.harness import include_dir

NESTED = r"""
#include "sc_ticks.h"
#include <stdio.h>
static volatile int alarms;
static void on_alarm(int s) { (void)s; alarms++; }
/* where the 2 KB of junk begin (the tick's pattern), from lo up to hi, or -1 */
static long junk_at(const unsigned char *lo, const unsigned char *hi) {
    unsigned char pat[16];
    for (unsigned i = 0; i < 16; i++) pat[i] = (unsigned char)(i * 131u + 7u);
    for (const unsigned char *p = lo; p + 16 <= hi; p++)
        if (!memcmp(p, pat, 16)) return p - lo;
    return -1;
}
/* a tick that interrupts code on this stack writes below it */
__attribute__((noinline)) static long tick_here(void) {
    unsigned char *sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    raise(SIGPROF);
    return junk_at(sp - 8192, sp);
}
int main(void) {
    sc_altstack_init();
    sc_tick_handler();
    struct sigaction sa; memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; sa.sa_flags = SA_ONSTACK | SA_NODEFER | SA_RESTART; /* as the watchdog's */
    sigaction(SIGALRM, &sa, NULL);
    sigset_t both; sigemptyset(&both); sigaddset(&both, SIGALRM); sigaddset(&both, SIGPROF);
    for (int k = 0; k < 200; k++) { /* both pending at once: the tick nests on the SIGALRM handler */
        sigprocmask(SIG_BLOCK, &both, NULL);
        raise(SIGALRM); raise(SIGPROF);
        sigprocmask(SIG_UNBLOCK, &both, NULL);
    }
    printf("%d %ld %ld\n", alarms, junk_at(sc_altstack, sc_altstack + sizeof sc_altstack), tick_here());
    return 0;
}
"""


def test_a_tick_nested_on_another_handler_leaves_its_frame_alone(tmp_path):
    src, exe = tmp_path / "nested.c", tmp_path / "nested"
    src.write_text(NESTED)
    subprocess.run(["gcc", "-O1", "-I", str(include_dir()), src, "-o", exe], check=True)
    r = subprocess.run([exe], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"the harness's handlers crashed when a tick nested on SIGALRM: {r.returncode}"
    alarms, in_altstack, below_caller = map(int, r.stdout.split())
    assert alarms == 200
    assert in_altstack == -1, "a nested tick wrote junk over the SIGALRM handler's frame on the alternate stack"
    assert below_caller >= 0, "a tick that interrupts the function no longer writes junk below its red zone"
