"""Verify stage: the function harness, program tests and contained runs.

VERIFIER_VERSION names what the checks check. It is part of every cache key, so a
verdict reached by a weaker verifier is never served again: bump it with every
change to what is checked (screens, harness inputs, ABI checks, comparisons, timing).
"""

# 1: up to 0.1.0. 2: object screen, load-time checks, per-input crash skip, globals, long and negative lengths,
#    aliasing, bit-exact floats, caller-frame/x87/YMM checks, protected timing driver, checked whole-program runs.
VERIFIER_VERSION = 2
