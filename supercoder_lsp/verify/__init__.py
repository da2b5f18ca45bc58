"""Verify stage: the function harness, program tests and contained runs.

VERIFIER_VERSION names what the checks check. It is part of every cache key, so a
verdict reached by a weaker verifier is never served again: bump it with every
change to what is checked (screens, harness inputs, ABI checks, comparisons, timing).
"""

# 1: up to 0.1.0. 2: object screen, load-time checks, per-input crash skip, globals, long and negative lengths,
#    aliasing, bit-exact floats, caller-frame/x87/YMM checks, protected timing driver, checked whole-program runs.
#    3: signatures from the compiler (DWARF), struct pointers with generated fields, the baseline's self-check
#    (buffers against the other guard), output-writing functions refused.
#    4: the program's recorded calls replayed as inputs; gcov line coverage of the inputs (`under-tested`).
#    5: recorded struct calls bring the memory their pointers reach, relocated; pointers compared as (buffer, offset).
#    8: generated inputs the original reads past are left out where the program's recorded calls run whole;
#    recorded calls keep up to 1 MiB each; pointer results; pointers to pointers; where the generated inputs
#    break the original's own harness, the program's calls are checked alone; a handle's private state generated.
#    10: a struct's data pointers point into a generated buffer, compared as (buffer, offset); arguments on the
#    stack; a length passed by pointer is its buffer's capacity; a handle generated as the struct beginning with it.
#    11: allocator slots, the island of address space, field relations, the project's other files linked.
#    12: a reference to another file fails the link (not address 0); the file's own const structs pointed at;
#    one buffer moves while it is probed; timing passes over inputs the original crashed on.
#    13: draws below n by multiplication, not division; big buffers' bytes from a pool drawn once (other inputs).
#    14: a field compared with a constant in a register after its load gets it too; narrowed struct fields
#    (signed ones non-negative, enums among their compared values); a guessed length retried as a C string.
#    15: a struct's big array members drawn as one per input (random, zero, small, or one by one).
#    16: the project's own programs' calls first for a handle to a private state (z_stream);
#    a refusal the first 2,000 inputs show comes from them.
#    17: where only the program's recorded calls run, the generated inputs are not made (what a recorded call's
#    buffers hold past its recorded bytes is no longer the last generated input's).
#    18: free() passes over the timing driver's copies of the inputs as memory malloc never gave: a call that
#    frees memory its input points to (zlib's gz_comp) is timed, where it was "could not be timed".
#    19: a probe's runs pass over the inputs the original fails on with the most elements; a refusal that
#    2,000 random inputs from the start of a part of the whole run show, weighted with the first ones, comes
#    from them.
#    20: each struct a parameter owns is drawn in a C block of its own (two of one type declared the same locals).
#    21: a probe's first run has a budget (the inputs it did not reach are passed over as failed) and cuts short
#    an input that loops; the baseline's run with the long limit stops at the 2nd input out of time where none
#    it finished took the short limit.
#    22: a probed length on which no input finished on both sides of the guard is not one it stays inside.
#    23: where the original's own copies cannot be timed called over and over on what the last call left, every
#    call starts from its input as drawn (its buffers restored); the recording builds without warnings.
#    24: a union of storage and one struct is generated as the struct; a struct with more leaves than a table of
#    fields holds has its big arrays of scalars as random bytes.
#    25: a tick nested on another of the harness's handlers writes no junk (it crashed the harness, without
#    AVX-512); a probe's input that ran out of time on one side of the guard only counts as failed.
#    26: the buffers and the call stack lie at addresses drawn per process and function where a program's
#    heap, mmap'd blocks and stacks lie (verify/layout.py); one input in four has its buffers loose, touching no
#    guard page.
#    27: in the self-check a loose input lies tight, against the guard after it: an original that reads past a
#    loose buffer leaves the input out, as a tight one does; the timing driver lays out memory as the verifier does.
#    30: whole-program timing: the -O3 program contained as the candidate's (a workload's named files readable),
#    every timed run's exit status and output checked, a speedup beyond the function's share refused; CPU
#    features from the decoded bytes (`rep bsr` is LZCNT); timing: each input once a pass, the stack below
#    the loop fenced below the original's deepest page and zeroed between passes, registers cleared; const
#    buffers read-only during the call (one input in four); program tests also run as the plain program.
#    31: the bytes beside output buffers watched on single-stepped short inputs (a stale write-back is seen);
#    popf is forbidden (the trap flag is the verifier's).
#    32: every harness and timing process runs with address randomization on (code where the kernel draws it);
#    only the island and the call stack lie at the verifier's drawn addresses; one random input in 12,500 has
#    its arrays up to 2^20 elements long; one input in two is called by a direct call from a compiled C caller
#    that checks what it kept across the call; the timing driver calls each copy directly; inputs with sorted
#    arrays, words, keys from the data, integers near their edges, overlaps of 4-64, non-default SSE modes; a
#    neighbour of the input run first on a sample.
#    33: one input in four is called from the harness's own compiled C on its own stack, with no trampoline
#    anywhere (the plain caller checks the convention after the return); some of those inputs have their
#    buffers in the caller's stack frame or in the executable's .bss; a loose buffer has malloc's chunk words
#    around it; the first random input is called 1,000,000 times in a row before its recorded call; the
#    rest of the executable's last page (past .bss) holds drawn bytes during each call (a write there is a
#    finding); one long input in two is a power of two long; sorted arrays also decrease.
#    34: the neighbour run first one to three times; the repeated input's calls, half of them, on a neighbour
#    (a memo answers its recorded call stale); the ticks junk 16 KiB below the red zone; outputs of up to 8 KiB
#    watched single-stepped on a sample; long inputs allowed up to half a second; one random input in 64 up to
#    four times the usual most; byte arrays of text (and wide text); a lane of records clustered or counting
#    up; sparse arrays; overlaps past 64 elements; integers near a square; where generated inputs are left out
#    (a private state's data), the harness with its buffers probed is taken where it leaves out fewer; one
#    float in seven a special value (signed zeros, infinities, the default NaN and others, denormals, ties,
#    2^52 edges); C strings of words one in three of path and name pieces; words in UTF-8 too; a lane also a
#    smooth signal; two read-only arrays also one memory or overlapping; pushf forbidden (the trap flag).
#    35-36: a candidate's own constants get their own inputs; NaNs compare as one where two may meet; records,
#    UTF-8 edges, one read-only array inside another.
#    37: the repeated input's calls are budgeted in CPU time, not wall time (a busy machine made fewer).
#    38: long inputs up to 2^22 elements (32 MiB), one in 6,250; the second one in the top half of that; the
#    odd ones of byte arrays text crossed at every 4,096 elements by a character of two to four bytes; a
#    needle copied into its haystack across a power of two. A flipped (priming) copy of an input called from
#    the harness's C goes through the trampoline; AC, NT, DF and TF cleared after every call. An array with a
#    length is NULL on one in four of its empty inputs; one buffer in eight 1-15 bytes off its guard (neither
#    end 16-byte aligned); byte buffers one in sixteen a decimal number near an edge; the long inputs whose k
#    is 2 mod 4 all the most their type holds, integers near their most; the constants pass also draws from
#    the original's constants the candidate's code lacks.
#    39: buffers of two types overlap where C lets them (one of them bytes: an in-place decoder), one input in
#    eight; a finding on overlapping buffers says so, and that `restrict` is the way to rule it out; overlaps
#    drawn one pair at a time; the SSE exception flags a call leaves are compared (invalid, divide-by-zero,
#    overflow raised; flags set before the call kept); one loose input in eight in a block of the harness's malloc
#    heap, each input's calls in one chunk; the timing driver zeroes malloc's spare bytes past its copies; what a
#    call prints on stdout and stderr is captured per call and compared (a function that prints was refused).
#    40: (the flags, the heap block, the printing above, then) one primed input in two runs warm: its call
#    finds the globals as the neighbour's calls left them (a table built on first use); one float array in
#    sixteen of +0, -0 and one number of one sign.
#    41: every primed input runs warm (was one in two); the function's own statics are compared variable by
#    variable by name (verify/statics_table.py), not as the section's raw bytes (a table aligned wider by
#    -march=native was wrong-output); random numbers from the system (getrandom, arc4random) given per input
#    alike to both builds; pointers a call leaves into the program (a method, a const table) compared as the
#    function or place they point to (a wrong method passed; every build of a parser that gives its objects
#    methods differed from -O3 by the address alone).
VERIFIER_VERSION = 41

# What verification does not establish, said next to every claim (the CLI's notes, the JSON report).
LIMITS = (
    "verified by testing, not proof (unless the claim says proven): an input the generator never draws can "
    "still differ. Besides random values, one random input in eight has its integer arrays sorted (up or "
    "down), one in eight a lane of every 1, 2 or 4 elements clustered, counting up or a smooth signal, one in "
    "eight one record of 2 to 32 bytes repeated, its C strings and byte or 16-bit arrays made of words, some in "
    "UTF-8 of two to four bytes, one word in sixteen an edge of UTF-8 (overlong, surrogate, past U+10FFFF, cut "
    "short) (C strings one in three of the pieces of paths and names) (byte arrays one in two wide, a zero "
    "after each character), one in eight of two read-only arrays with lengths of their own one inside the "
    "other, and an "
    "integer argument equal to one of its array's elements, one in sixteen an integer near an edge of its "
    "type, and some integers lie near a power of two or a square, one float in seven a special value (a "
    "signed zero, an infinity, the NaN 0/0 gives and others, a denormal, a tie, an edge of 2^52), one float "
    "array in sixteen made of +0, -0 and one number of one sign (zeros tied as its largest or smallest); one in "
    "eight has its integer arrays sparse "
    "(zero but for one element in 2 to 4,096); a candidate whose code holds constants the original's does "
    "not (immediates, read-only words) is run on 2,048 more inputs drawn from them (arguments, lengths, "
    "elements, a constant's bytes in a byte buffer), so one wrong on a value it names (seed == 5381) is seen; "
    "one wrong on a value it computes (a hash of its input equal to a constant) is not; where the float "
    "inputs hold a NaN other than x86's own, a NaN result equals any NaN (which of two NaNs an operation gives "
    "is not IEEE 754's to say), so a wrong NaN sign or payload there is not seen; other shapes of a "
    "program's data (a struct graph, a particular text) are met only in its recorded calls",
    "buffers lie on the verifier's island, and on some inputs called from the harness's own C in the caller's "
    "stack frame or in the executable's .bss; a loose buffer has malloc's chunk words around it, and one loose input "
    "in eight lies in a block of the harness's own malloc heap (near its code, laid out as malloc's chunks, "
    "each input's calls in the same chunk, so a memo kept in the spare bytes past a buffer answers a changed "
    "buffer stale). A candidate that tells a check from a real call by other means (the harness's own "
    "code and data, which it can read in memory) can still be right there and wrong in a program: only the "
    "program tests' plain run, on the calls they make, sees that",
    "memory no object owns: a write into the rest of the executable's last page (past .bss) is a finding; "
    "one elsewhere (below the stack, in a library's data, in the harness's own) is seen only where it changes "
    "a result",
    "concurrent calls are not checked: two threads in the function at once, or a signal handler that calls it "
    "while it runs (a rewrite that sets its ready flag before it fills the table it guards passes)",
    "the C library's own state is neither varied nor compared: every check runs in the C locale (a rewrite "
    "that upper-cases ASCII only is right there and wrong under a program's setlocale), and state libc keeps "
    "for the next call (strtok's position, rand's seed) is not seen; errno is compared (drawn before the call), "
    "and random numbers from the system (getrandom, arc4random) are drawn per input, the same for both builds",
    "inputs longer than the -O3 original finishes within its time limit are not checked: a rewrite of a "
    "quadratic original wrong only past the lengths it finishes (a 32-bit total past 92,682 elements) passes",
    "state kept from call to call: on one input in sixteen the function runs first one to three times on a "
    "neighbour of the input (one bit of its buffers flipped), so a memo keyed on part of its input is stale "
    "there, and the call after them finds the globals as those calls left them (warm: a table built on "
    "first use); every other call starts from the globals' first state; in a candidate's runs the first random input is called up to 1,000,000 times in a row (fewer "
    "where they take over a second of its CPU time, as many on a busy machine) right before its recorded call, from the same frame, the second half of "
    "them on a neighbour (eight bits flipped), so a count of calls is seen up to there and a memo that waits "
    "for its n-th call answers stale; one wrong only after more calls is not",
    "one input in eight runs in a non-default SSE mode (a rounding mode, or flush-to-zero with "
    "denormals-are-zero); the x87 control word is always the default. The SSE exception flags a call leaves are "
    "compared: invalid, divide-by-zero and overflow raised (what a program traps on), and any flag set before the "
    "call (one input in four) cleared; a spurious underflow or inexact is not seen, nor the x87 status word",
    "what a call prints through stdio to stdout or stderr is compared input by input, up to 64 KiB a call; output "
    "to a descriptor by number (dprintf, writev, pwrite) is not, and such a function gets no function harness",
    "where the -O3 original runs out of time or fails on most generated inputs, its integer inputs are narrowed "
    "(the claim says 'with len in [0, 4095]'): a candidate is not checked outside that range",
    "writes below the red zone are caught only when a signal lands while the data is live (the harness's "
    "ticks, every 200 microseconds, junk 16 KiB below it); data kept deeper is not",
    "the timed loop itself is not ABI-checked: a candidate could read the stack and registers of the timing driver",
    "unwind information is not checked (a candidate may describe its frame with gcc's .cfi_escape expressions): "
    "a wrong description is seen only where the program unwinds through the function (a C++ exception, "
    "pthread_cancel, a backtrace)",
    "pointer-valued globals keep their initial values",
    "a struct parameter's pointer fields are NULL in generated inputs; the program's recorded calls bring the "
    "memory they reach (64 KiB a region, 1 MiB a call, depth 2), compared as (buffer, offset); a pointer the "
    "function stores in a struct field is compared where it points into a block the call allocated or into "
    "the program (a function by name, a table by its bytes); one to other memory outside its buffers is not",
    "where the program's recorded calls run whole, generated inputs on which the -O3 original reads past its "
    "buffers are left out (counted in the report): a candidate is checked there only on the calls the program makes "
    "and the generated inputs the original stays inside",
    "where the -O3 original breaks its own harness on generated inputs (writes into its caller's frame at a "
    "random index) and the program's calls were recorded, only those calls are checked (the report says so)",
    "a generated struct's private state (behind a pointer that points back) has its own pointer fields NULL "
    "and its function pointers uncallable: paths that use them are checked only on the program's recorded calls",
    "a returned pointer outside the arguments' buffers is compared by what it points to when the call returns (a "
    "string to its NUL, else one element): a copy of a constant counts as the constant",
    "a recorded pointer argument is replayed inside another argument's copy where the program passed it into "
    "that argument's memory; into a region its struct's pointers reach, it gets a buffer of its own",
    "the buffers and the call stack lie where a program's would, at addresses no candidate can know, and one "
    "input in four has buffers that touch no guard page; every process of a check runs with address "
    "randomization on (its code where the kernel draws it, anew in each run, as a PIE program's); one input "
    "in two calls the candidate through the checking trampoline's indirect call, the others by a direct call "
    "from one of two compiled C callers that check, in their own code after the return, what they kept in "
    "callee-saved registers and in their frame: one in eight with the trampoline below them, one in four "
    "called from the harness's own C on its own stack, nothing else between main and the candidate (they "
    "then also check the direction flag, MXCSR, the x87 state and the words of the frame above); the timing "
    "driver calls each copy by a direct call from its compiled loop. The callers' shapes are drawn per "
    "harness but few; the program tests and workload run once as the plain program; the verifier's "
    "settings are taken out of the environment before a candidate runs, but the harness's own name (argv[0], "
    "its executable in a folder of the tool's) can still be read",
    "buffers behind const pointers are read-only during the call on one input in four; a store beside an "
    "output buffer or struct (64 bytes either side) that writes back the bytes it read is seen on a sample of short "
    "generated inputs run single-stepped (48 a run, at most 256 bytes of buffers, and 8 of one input in 256 "
    "with up to 8 KiB), else only where the end lies against a guard page",
    "generated arrays hold at most 4,096 elements (C strings 1,024) but on one random input in 64 up to four "
    "times that, and on one random input in 6,250 (16 of 100,000), where an array sized by a length parameter or "
    "a C string gets up to 4,194,304 (or what the length's type holds, or 32 MiB): one such input the longest, "
    "one a random length in the top half of that, the others one in each octave past 4,096 (4,097-8,192, ...), "
    "one in two the octave's top (a power of two); the report says the longest the original finished. Long "
    "texts have a character of two to four bytes across every multiple of 4,096 bytes, and a needle lies across "
    "a power of two in its haystack; other data is not made to cross a piece's end, a candidate wrong only past "
    "4,194,304 elements (a length truncated to 32 bits) is not seen. An array with no length parameter and a "
    "struct are never long, and a slow original may finish none. An array is NULL only where it has no "
    "elements (one such input in four). Two buffers with lengths overlap where C lets them (neither "
    "`restrict`; one element type, or one of them bytes, which alias anything): one input in eight, the same "
    "memory or a few elements apart; buffers of two other types (an int array and a float array), a C string "
    "inside another buffer and one object behind a pointer (`size_t *out`) inside a buffer never",
    "whole-program timing runs the -O3 program and the candidate's under one sandbox, where a workload may read "
    "the files it names and open nothing else; only runs that end with the -O3 program's exit status and output "
    "count; a program speedup beyond what the function's share of the instructions allows (callgrind, taking "
    "twice that share of the time) is refused as a measurement error, so a function that mostly waits could be "
    "refused a real win",
    "the timing driver lays out memory as the verifier does (its island where the verifier drew it), but the "
    "timed inputs' copies lie in its heap, near its code: a candidate that behaves otherwise where its buffers "
    "lie near its code is timed on a path the checks did not run (its results are still compared there)",
    "timing repeats its inputs pass after pass, each input once a pass; between passes the stack below the "
    "loop is zeroed down to a fence 16 KiB below the original's deepest page (a copy that goes deeper crashes "
    "and is not timed) and the registers are cleared, and the spare bytes of malloc's rounding past each copy zeroed; state kept in heap memory it freed (where the original "
    "allocates, so the candidate may too), or in identical inputs a program repeats, could still pay off",
)
