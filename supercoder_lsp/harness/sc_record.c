/* Snapshots of the file's writable globals (the program's .data and .bss of that
 * file, renamed sc_rdata / sc_rbss) at the 1st, 100th and 10,000th call of the
 * function, written to the descriptor named by SC_RECORD_FD: per snapshot a header
 * (magic, call number, data bytes, bss bytes), then the bytes. Each call's arguments go to
 * sc_record_args, when the recording program has one. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

extern char __start_sc_rdata[] __attribute__((weak)), __stop_sc_rdata[] __attribute__((weak));
extern char __start_sc_rbss[] __attribute__((weak)), __stop_sc_rbss[] __attribute__((weak));

static void put(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n) { ssize_t w = write(fd, c, n); if (w <= 0) return; c += w; n -= (size_t)w; }
}

/* defined by the generated argument recorder (harness/recorded.py), when the function has a harness plan */
void sc_record_args(const uint64_t *regs) __attribute__((weak));

void sc_record_state(const uint64_t *regs) {
    static uint64_t calls;
    if (sc_record_args) sc_record_args(regs);
    static int fd = -2;
    calls++;
    if (calls != 1 && calls != 100 && calls != 10000) return;
    if (fd == -2) { const char *s = getenv("SC_RECORD_FD"); fd = s ? atoi(s) : -1; }
    if (fd < 0) return;
    uint64_t nd = __start_sc_rdata && __stop_sc_rdata ? (uint64_t)(__stop_sc_rdata - __start_sc_rdata) : 0;
    uint64_t nb = __start_sc_rbss && __stop_sc_rbss ? (uint64_t)(__stop_sc_rbss - __start_sc_rbss) : 0;
    uint64_t head[4] = { 0x5C5A7E, calls, nd, nb };
    put(fd, head, sizeof head);
    put(fd, __start_sc_rdata, nd);
    put(fd, __start_sc_rbss, nb);
}
