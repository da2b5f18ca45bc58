"""How long is a buffer that has no length parameter? As long as the -O3 original touches.

`void sha1_block(uint32_t state[5], const unsigned char block[64])` reaches the compiler
as two bare pointers. Each such array is given a fixed length, found by running the -O3
original on buffers that end (or start) at a PROT_NONE page: the smallest length on which
every result is the same wherever the buffer lies is what it reads or writes.
Each length is tried with the buffer against the guard page after it and then against the one
before it: where the original stays inside, every result is the same both times. Candidates
then get buffers of that length between guard pages, so one that touches more than the
original crashes instead of passing.
"""

from __future__ import annotations

import copy
from pathlib import Path

from ..harness.plan import PROBE_MAX, Plan
from .function_check import FunctionHarness

PROBE_RANDOM = 600  # random inputs per probe, besides the edge values


def probe_sizes(
    plan: Plan,
    name: str,
    base_obj: Path,
    workdir: Path,
    support: tuple[Path, ...] = (),
    seed: int = 0x5C0DE,
    link_flags: tuple[str, ...] = (),
) -> Plan:
    """`plan` with every array that has no length parameter given the length the original touches,
    or an unsupported plan that says why. Raises BuildError when a probe does not link."""
    out = copy.deepcopy(plan)
    for k, p in enumerate(out.params):
        if not p.probe:
            continue
        h = FunctionHarness(
            workdir / str(k), name, out, n_random=PROBE_RANDOM, seed=seed, support_objs=support, link_flags=link_flags
        )
        exe = h.build_original(base_obj)  # built once: each run sets the length (SC_PROBE_LEN)
        hi = _smallest_inside(h, exe, k, p.probe_from, p.max_len)
        if isinstance(hi, str):
            return Plan(
                False,
                f"pointer parameter '{p.name}' has no length parameter, and the -O3 original {hi}; give its "
                f"length (--bound {name}.{p.name}=N:N) or program tests with --tests DIR",
                [],
                out.ret,
            )
        p.lo = p.hi = p.max_len = hi
        # a struct the original reads no further than its own size stays that struct (its data pointers
        # generated): trees.c's compress_block(s, ltree, dtree) reads past ltree, not past s
        p.probe, p.probed = False, not (p.record and hi == p.probe_from)
    return out


def _smallest_inside(h: FunctionHarness, exe: Path, k: int, least: int = 1, most: int = PROBE_MAX) -> int | str:
    """The fewest elements of parameter k, from `least` to `most`, within which the original stays on
    every input, or why there is no such length."""

    def inside(n: int) -> tuple[bool, int, int]:
        return h.stays_inside(exe, {"SC_PROBE_LEN": f"{k}:{n}"})

    ok, ran, failed = inside(most)
    if not ok:
        return f"touches memory outside {most} elements there"
    if failed >= ran:
        return f"fails on every input even with {most} elements there"
    if least < most and inside(least)[0]:  # a struct read no further than its own size: one run, not a search
        return least
    lo, hi = least, most  # hi: the original stays inside hi elements
    while True:
        while lo < hi:
            mid = (lo + hi) // 2
            if inside(mid)[0]:
                hi = mid
            else:
                lo = mid + 1
        # one element less must not do: a comparison that came out different by chance (seen, rarely, in a
        # full test run on a busy machine; cause not found) sends the search too high, and this finds it
        if hi <= least or not inside(hi - 1)[0]:
            return hi
        lo, hi = least, hi - 1
