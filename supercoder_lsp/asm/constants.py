"""The constants a function compares with: where its inputs must land to get past its checks.

A struct whose `mode` must be GZ_READ (7247) or GZ_WRITE (31153) before zlib's gzbuffer does
anything is never drawn by random fields. The immediates of the -O3 original's comparisons
(`cmp $7247, %eax`) are a dictionary for the harness's struct fields, as fuzzers take theirs
from the comparison operands they trace (AFL's cmplog, libFuzzer's value profile): each value,
and one either side of it for an ordered comparison.
"""

from __future__ import annotations

import re

# cmp/sub with an immediate first operand (AT&T), e.g. `cmpl $7247, 24(%rdi)`, `subl $31153, %eax`
_COMPARE = re.compile(r"^\s*(?:cmp|sub)[bwlq]?\s+\$(-?(?:0x[0-9a-fA-F]+|\d+))\s*,", re.M)
SMALL = 16  # values this close to zero are drawn anyway (edge values, small fields)
MOST = 48


def compared_constants(asm: str) -> tuple[int, ...]:
    """Each immediate the code compares with (beyond the small values), then one below and one above
    each, as unsigned 64-bit words; at most MOST of them."""
    seen: list[int] = []
    for m in _COMPARE.finditer(asm):
        v = int(m.group(1), 0)
        if -SMALL <= v <= SMALL or v in seen:
            continue
        seen.append(v)
    out: list[int] = []
    for v in seen:
        for x in (v, v - 1, v + 1):
            w = x & (2**64 - 1)
            if w not in out:
                out.append(w)
    return tuple(out[:MOST])
