/* Linked into every program that runs candidate code: installs the program
 * seccomp filter before main() (and so before any candidate code) runs. */
#include "sc_sandbox.h"

static const char *const sc_program_settings[] = { "SC_SANDBOX_READ", "SC_SANDBOX_EXPLAIN", "SC_ALLOW_UNSANDBOXED", NULL };
__attribute__((constructor(101))) static void sc_program_sandbox(void) {
    sc_env_take(0, sc_program_settings); /* the sandbox's settings out of the program's environment (sc_env.h) */
    sc_sandbox_enter(SC_PROGRAM, -1);
}
