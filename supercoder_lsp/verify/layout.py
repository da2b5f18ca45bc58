"""Where a check's harness processes (and the timing driver's) put the function's buffers and the stack it
is called on.

Every process of one function's check (the -O3 original's runs and every candidate's) must lay out its
memory alike: a word the call leaves is compared by what it points to, and a buffer's address decides
what a pointer field points to. The harness therefore asks for its island of buffers and its call stack
at addresses given here (SC_ISLAND, SC_STACK; harness/sc_rt.h and sc_verify.h reserve them).

Those addresses must not tell a candidate that it runs in the harness: one that behaves only where its
pointers look like the harness's passes every check and is wrong in the program. So they are drawn
anew in each process of ours, for each function, from a secret salt, and where a Linux x86-64 program's
own memory lies: its heap after a PIE executable (0x55..., 0x56...) or its mmap'd blocks (0x7e...,
0x7f...), and the stack where thread and main stacks lie (0x7ff...), anywhere in a page. What a
candidate can still read from its surroundings is said in verify.LIMITS.
"""

from __future__ import annotations

import hashlib
import secrets

_SALT = secrets.token_bytes(16)  # once per process: no candidate can know where its buffers will lie

PAGE = 4096
# where the island's buffers start (its 16 GiB, with 64 GiB of PROT_NONE on either side; sc_rt.h). The
# harness runs with address randomization on, as a PIE program: where its executable, heap, libraries or own
# stack took the drawn place, it starts again with a fresh draw of the kernel's (sc_layout_again)
ISLAND_RANGES = (
    (0x5580_0000_0000, 0x5640_0000_0000),  # a PIE program's heap
    (0x7E00_0000_0000, 0x7FD0_0000_0000),  # its mmap'd blocks and libraries
)
STACK_RANGE = (0x7FF0_0000_0000, 0x7FFE_0000_0000)  # its stacks (1 GiB of PROT_NONE either side: sc_verify.h)


def _draw(name: str, what: str, lo: int, hi: int, step: int) -> int:
    h = hashlib.blake2b(f"{what}\0{name}".encode(), key=_SALT, digest_size=8).digest()
    return lo + int.from_bytes(h, "little") % ((hi - lo) // step) * step


def layout_env(name: str) -> dict[str, str]:
    """The environment that places function `name`'s harness: the same for every process this one
    starts for it, unknown outside it."""
    k = _draw(name, "range", 0, len(ISLAND_RANGES), 1)
    lo, hi = ISLAND_RANGES[k]
    island = _draw(name, "island", lo, hi, PAGE)
    stack = _draw(name, "stack", *STACK_RANGE, 16)
    return {"SC_ISLAND": f"{island:x}", "SC_STACK": f"{stack:x}"}


def caller_draw(name: str) -> int:
    """A number drawn for function `name`'s harness, unknown outside this process: the shape and constants of
    its plain C callers (verify/harness_c.py), so that no fixed bytes follow their call of the function."""
    return _draw(name, "callers", 0, 1 << 62, 1)
