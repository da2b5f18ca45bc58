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
from .function_check import FLOOR_MS, FunctionHarness
from .records import forbidden_syscall

PROBE_RANDOM = 600  # random inputs per probe, besides the edge values
# the probe's first run, with the most elements there, has this many ms of the original's time for its
# generated inputs; those it did not reach are passed over by the later runs as the ones it failed on
PROBE_BUDGET_MS = 600


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
    probed = [k for k, p in enumerate(out.params) if p.probe]
    if not probed:
        return out
    # one harness for them, built once: each run sets the length of the buffer it moves, and of those
    # probed since the build (SC_PROBE_LEN); a build per buffer cost inflate_table's bits and work 0.5 s.
    # Built again after a struct the original reads no further than its own size: that struct then has its
    # data pointers generated (trees.c's compress_block(s, ltree, dtree) reads past ltree, not past s)
    h: FunctionHarness | None = None
    exe: Path | None = None
    since: dict[int, int] = {}
    prior: Path | None = None  # the skip list of the last first run in this harness (_smallest_inside)
    for k in probed:
        if h is None or exe is None:
            h = FunctionHarness(
                workdir / str(k),
                name,
                copy.deepcopy(out),
                n_random=PROBE_RANDOM,
                seed=seed,
                support_objs=support,
                link_flags=link_flags,
            )
            exe, since, prior = h.build_original(base_obj), {}, None
        p = out.params[k]
        hi = _smallest_inside(h, exe, k, p.probe_from, p.max_len, since, prior)
        prior = _skip_list(h, k)  # written by its first run
        if isinstance(hi, str) and hi.startswith("makes a system call"):
            return Plan(False, f"the -O3 original {hi}; give program tests with --tests DIR", [], out.ret)
        if isinstance(hi, str):
            return Plan(
                False,
                f"pointer parameter '{p.name}' has no length parameter, and the -O3 original {hi}; give its "
                f"length (--bound {name}.{p.name}=N:N) or program tests with --tests DIR",
                [],
                out.ret,
            )
        p.lo = p.hi = p.max_len = since[k] = hi
        p.probe, p.probed = False, not (p.record and hi == p.probe_from)
        if not p.probed:
            exe = None
    return out


def _smallest_inside(
    h: FunctionHarness,
    exe: Path,
    k: int,
    least: int = 1,
    most: int = PROBE_MAX,
    since: dict[int, int] | None = None,
    prior: Path | None = None,
) -> int | str:
    """The fewest elements of parameter k, from `least` to `most`, within which the original stays on
    every input (the buffers probed since the harness was built of the lengths `since`), or why there is
    no such length. `prior`: the skip list of an earlier buffer's first run in the same harness."""
    fixed = "".join(f",{j}:{n}" for j, n in (since or {}).items())

    # the inputs it fails on with the most elements, alike on both sides, are not run again: they say
    # nothing about the length (the harness it is probed for skips an input the original crashes on, and
    # a candidate's buffers of the probed length lie between guard pages whatever the probe ran)
    skip = _skip_list(h, k)

    def inside(n: int) -> tuple[bool, int, int]:
        return h.stays_inside(exe, {"SC_PROBE_LEN": f"{k}:{n}{fixed}", "SC_SKIP": str(skip)})

    # and an input that loops runs out of time after 50 times the slowest one that returned (at least
    # FLOOR_MS), not the whole short limit: lz4's LZ4F_decompress loops on 912 of its 1,329 generated
    # states, and its first run took 109 s (20-120 ms each); then 0.6 s, the rest not run. Where it then
    # fails on every input, they may all be slower than the floor: again with the whole short limit.
    # A later buffer's first run passes over what an earlier buffer's first run in the same harness
    # (`prior`) did not reach or failed on: those inputs looped there, and a run that tries them again
    # cost LZ4F_decompress 0.6 s for each of its four buffers, not 0.02. A length found too small so costs
    # inputs, never a wrong verdict: candidates get buffers of it between guard pages, and an input the
    # original then reads past crashes or moves, and is left out
    first = {"SC_PROBE_LEN": f"{k}:{most}{fixed}", "SC_BUDGET_MS": str(PROBE_BUDGET_MS)}
    if prior is not None:
        first["SC_SKIP"] = str(prior)
    ok, ran, failed = h.stays_inside(exe, {**first, "SC_INPUT_FLOOR_MS": str(FLOOR_MS)}, skip)
    if failed >= ran:  # every input failed (or none finished, so none was compared: not ok)
        ok, ran, failed = h.stays_inside(exe, first, skip)
    if failed >= ran:
        syscall = forbidden_syscall(h.probe_run) if h.probe_run is not None else None
        if syscall:  # not a question of length: json-c's lh_char_hash seeds itself with getrandom
            return syscall.removeprefix("the -O3 original ")
        return f"fails on every input even with {most} elements there"
    if not ok:
        return f"touches memory outside {most} elements there"
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


def _skip_list(h: FunctionHarness, k: int) -> Path:
    """Where the first run of parameter k's probe lists the inputs it failed on (FunctionHarness.stays_inside)."""
    return h.dir / f"probe-skip{k}.bin"
