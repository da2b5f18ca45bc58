/* The verifier's settings, out of the candidate's sight.
 *
 * The verifier passes its settings to a harness, a timing driver or a contained program in the environment
 * (SC_ISLAND, SC_STACK, SC_SANDBOX_READ, ...). A candidate runs in the same process and may call getenv or
 * read environ: one that behaves only where SC_ISLAND is set would be right under every check and wrong in
 * every program. So each process takes them out of its environment as soon as it no longer needs to start
 * itself again (sc_env_take): kept in a table of its own, their strings in the environment zeroed; the
 * process reads them with sc_getenv. */
#ifndef SC_ENV_H
#define SC_ENV_H
#include <stdlib.h>
#include <string.h>

#define SC_ENV_MAX 32
static char *sc_env_kept[SC_ENV_MAX];
static unsigned sc_env_n;

/* Whether environment entry `e` is one of the verifier's: every SC_* and GLIBC_TUNABLES where `all` (a process
 * whose environment is the verifier's), else those named in `names` (a program's own environment). */
static inline int sc_env_ours(const char *e, int all, const char *const *names) {
    if (all) return !strncmp(e, "SC_", 3) || !strncmp(e, "GLIBC_TUNABLES=", 15);
    for (; names && *names; names++) {
        size_t n = strlen(*names);
        if (!strncmp(e, *names, n) && e[n] == '=') return 1;
    }
    return 0;
}
static void __attribute__((unused)) sc_env_take(int all, const char *const *names) {
    extern char **environ;
    if (!environ) return;
    char **w = environ;
    for (char **e = environ; *e; e++) {
        if (sc_env_ours(*e, all, names) && sc_env_n < SC_ENV_MAX) {
            char *copy = strdup(*e);
            if (!copy) { *w++ = *e; continue; }
            sc_env_kept[sc_env_n++] = copy;
            memset(*e, 0, strlen(*e));
        } else *w++ = *e;
    }
    *w = NULL;
}
/* A setting: from the table once taken, from the environment before */
static const char *__attribute__((unused)) sc_getenv(const char *name) {
    size_t n = strlen(name);
    for (unsigned k = 0; k < sc_env_n; k++)
        if (!strncmp(sc_env_kept[k], name, n) && sc_env_kept[k][n] == '=') return sc_env_kept[k] + n + 1;
    return getenv(name);
}
#endif
