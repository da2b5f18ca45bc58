/* Linked into every program that runs candidate code: installs the program
 * seccomp filter before main() (and so before any candidate code) runs. */
#include "sc_sandbox.h"

__attribute__((constructor(101))) static void sc_program_sandbox(void) { sc_sandbox_enter(SC_PROGRAM, -1); }
