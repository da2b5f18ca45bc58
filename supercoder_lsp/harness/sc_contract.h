/* The contract between the generated harnesses and the Python that reads them:
 * exit codes, record status bits and the calling-convention findings. Named here
 * once; harness/contract.py reads this file, so both sides use the same names. */
#ifndef SC_CONTRACT_H
#define SC_CONTRACT_H

/* exit codes */
#define SC_EXIT_OK 0
#define SC_EXIT_USAGE 2
#define SC_EXIT_ABI 3          /* a calling-convention finding: a trailer record says which */
#define SC_EXIT_CRASH 4        /* the harness itself failed outside a call */
#define SC_EXIT_SYSCALL 6      /* a forbidden system call: a trailer record says which */
#define SC_EXIT_SLOW 7         /* (MODE bit 16) inputs ran out of time (most with the short limit, 4 with the long one,
                                * 2 where none it finished took the short limit): stopped early */
#define SC_EXIT_ALLOCATES 8    /* (MODE bit 16) a call of the original left memory allocated: stopped there */
#define SC_EXIT_NO_SANDBOX 71  /* the seccomp filter could not be installed */
#define SC_EXIT_PROTECT 73     /* the timing driver could not protect its own state */
#define SC_EXIT_THUNK_ABI 86   /* the checking thunk in a program under test saw a calling-convention finding */

/* the short limit per input, in ms: the original's first run gives each input this (to twice this) */
#define SC_SHORT_MS 20

/* the status word of a record (the low byte: a signal number) */
#define SC_CRASHED 0x100ULL
#define SC_TIMED_OUT 0x200ULL
#define SC_TRAILER_ABI 0x400ULL      /* trailer: words 1, 2 = input, finding */
#define SC_TRAILER_SYSCALL 0x800ULL  /* trailer: words 1, 2 = input, system call number */
#define SC_DIRTY_UPPER 0x10000ULL
#define SC_ALLOCATED 0x20000ULL      /* the call left the memory held from malloc changed (allocated, or freed what it was given) */
#define SC_HEAP_LEFT 0x80000ULL      /* the call left blocks it allocated (compared, then freed: sc_heap.h) */
#define SC_ABI_BROKEN 0x100000ULL    /* (MODE bit 32, the original's runs) it broke the calling convention on this input
                                      * (zlib's inflate_table writes over its own frame on lens[] > 15): outside its
                                      * domain, a crash that candidates are never run on */
#define SC_STORED_AROUND 0x200000ULL /* (a watched input: sc_verify.h) a store beside a buffer, past its end or before its
                                      * start, even of the bytes that were there */
#define SC_FP_FLAGS_SHIFT 32         /* bits 32-45: the floating-point exception flags the call left (sc_plain.h's sc_fp_flags),
                                     * compared after every result: a difference there alone is named last */
#define SC_NOT_RUN 0x40000ULL        /* (SC_BUDGET_MS) a generated input past the baseline's time budget: not run */

/* calling-convention findings, in the order of their codes */
#define SC_ABI_FINDINGS(X) \
    X(RETURN, "return address (did not return through the caller)") \
    X(RBX, "callee-saved %rbx not preserved") \
    X(RBP, "callee-saved %rbp not preserved") \
    X(R12, "callee-saved %r12 not preserved") \
    X(R13, "callee-saved %r13 not preserved") \
    X(R14, "callee-saved %r14 not preserved") \
    X(R15, "callee-saved %r15 not preserved") \
    X(RSP, "%rsp not restored") \
    X(DF, "direction flag left set") \
    X(MXCSR, "MXCSR changed") \
    X(X87CW, "x87 control word changed") \
    X(X87STACK, "x87 register stack not empty on return (MMX without emms?)") \
    X(FRAME, "caller's frame written (above its return address)") \
    X(CALLER, "a value its C caller kept across the call (in a callee-saved register or its frame) changed") \
    X(PAST_DATA, "wrote past the end of the program's data (the rest of its last page, after .bss), memory no object owns")

#define SC_ABI_ENUM(name, text) SC_ABI_##name,
enum { SC_ABI_NONE = -1, SC_ABI_FINDINGS(SC_ABI_ENUM) SC_ABI_COUNT };
#undef SC_ABI_ENUM
#endif
