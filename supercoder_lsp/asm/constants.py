"""The constants a function compares with: where its inputs must land to get past its checks.

A struct whose `mode` must be GZ_READ (7247) or GZ_WRITE (31153) before zlib's gzbuffer does
anything is never drawn by random fields. The immediates of the -O3 original's comparisons
(`cmp $7247, %eax`) are a dictionary for the harness's struct fields, as fuzzers take theirs
from the comparison operands they trace (AFL's cmplog, libFuzzer's value profile): each value,
and one either side of it for an ordered comparison. Where the comparison is with a word in
memory at a fixed offset from a register (`cmpl $42, 8(%rax)`: deflate_state's status), the
constants are also kept per offset (compared_fields): a struct field at that offset gets them far
more often, small ones included (zlib's `wrap != 2`).
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


# the same with a memory operand at a constant offset from one register: `cmpl $42, 8(%rax)`
_FIELD_COMPARE = re.compile(
    r"^\s*(?:cmp|sub)[bwlq]?\s+\$(-?(?:0x[0-9a-fA-F]+|\d+))\s*,\s*(-?(?:0x[0-9a-fA-F]+|\d+))?\(%(\w+)\)", re.M
)
MOST_PER_FIELD = 12


# a constant put in a register (`movabsq $8589935258, %rax`), then compared with memory (`cmpq %rax, (%rdi)`:
# gcc compares two adjacent int fields, status == 666 and wrap == 2, as one 64-bit word)
_LOAD = re.compile(r"^\s*mov(?:abs)?[lq]?\s+\$(-?(?:0x[0-9a-fA-F]+|\d+))\s*,\s*%(\w+)\s*$")
_REG_COMPARE = re.compile(r"^\s*cmp([bwlq]?)\s+%(\w+)\s*,\s*(-?(?:0x[0-9a-fA-F]+|\d+))?\(%(\w+)\)")


# a range check of a field (zlib's inflateStateCheck: mode < HEAD || mode > SYNC): the field loaded into a
# register, less a constant (`leal -16180(%rsi), %ecx` or `subl $16180, %esi`), compared unsigned with
# the range's width (`cmpl $31, %ecx`)
_FIELD_LOAD = re.compile(r"^\s*mov(?:[sz]\w*|[bwlq])?\s+(-?(?:0x[0-9a-fA-F]+|\d+))?\(%(\w+)\)\s*,\s*%(\w+)\s*$")
_LEA_BIAS = re.compile(r"^\s*lea[lq]?\s+(-?(?:0x[0-9a-fA-F]+|\d+))\(%(\w+)\)\s*,\s*%(\w+)\s*$")
_SUB_BIAS = re.compile(r"^\s*sub[lq]?\s+\$(-?(?:0x[0-9a-fA-F]+|\d+))\s*,\s*%(\w+)\s*$")
_RANGE_COMPARE = re.compile(r"^\s*cmp[lq]?\s+\$(0x[0-9a-fA-F]+|\d+)\s*,\s*%(\w+)\s*$")


_EQUALITY = re.compile(r"\s*(?:j|set|cmov)n?[ez]\b")  # what follows a comparison for equality
_JOIN = re.compile(r"^\s*(?:[.\w]+:|call\b)")  # a label, a call
_WRITES = re.compile(r"^\s*(?!cmp|test|j|push|bt\b)\w+\s.*%(\w+)\s*$")  # an instruction writing its last register


def _reg(name: str) -> str:
    """A register's 64-bit name: %esi and %rsi, %r8d and %r8 are one register."""
    if re.fullmatch(r"r\d+[dwb]?", name):
        return name.rstrip("dwb")
    if len(name) == 3 and name[0] in "er":
        return "r" + name[1:]
    return "r" + name if len(name) == 2 else name


def compared_fields(asm: str, exact: bool = False) -> dict[int, tuple[int, ...]]:
    """Byte offset -> the constants compared with the word at that offset from a register (not %rip:
    a global), each with one below and one above, small ones included; at most MOST_PER_FIELD each.
    `exact`: a field's states where it is an enum, the values it is compared with for equality (a `je`
    or `jne` next: a switch) and each value of a range it is checked to lie in (zlib's inflate mode).
    A 64-bit word compared at once gives its high half to the field 4 bytes on."""
    out: dict[int, list[int]] = {}

    def add(off: int, v: int) -> None:
        if off < 0:
            return
        vals = out.setdefault(off, [])
        for x in (v,) if exact else (v, v - 1, v + 1):
            w = x & (2**64 - 1)
            if w not in vals and len(vals) < MOST_PER_FIELD:
                vals.append(w)

    for m in _FIELD_COMPARE.finditer(asm):
        if m.group(3) != "rip" and (not exact or _EQUALITY.match(asm, m.end() + 1)):
            add(int(m.group(2) or "0", 0), int(m.group(1), 0))
    loaded: dict[str, int] = {}
    field_in: dict[str, int] = {}  # register -> the offset of the field it was loaded from
    biased: dict[str, tuple[int, int]] = {}  # register -> (field offset, C) for field - C
    lines = asm.splitlines()
    for i, line in enumerate(lines):
        ld, cmp = _LOAD.match(line), _REG_COMPARE.match(line)
        fl, lea, sub, rng = (r.match(line) for r in (_FIELD_LOAD, _LEA_BIAS, _SUB_BIAS, _RANGE_COMPARE))
        if fl and fl.group(2) != "rip":
            field_in[_reg(fl.group(3))] = int(fl.group(1) or "0", 0)
            biased.pop(_reg(fl.group(3)), None)
        elif lea and _reg(lea.group(2)) in field_in:
            biased[_reg(lea.group(3))] = (field_in[_reg(lea.group(2))], -int(lea.group(1), 0))
            field_in.pop(_reg(lea.group(3)), None)
        elif sub and _reg(sub.group(2)) in field_in:
            biased[_reg(sub.group(2))] = (field_in[_reg(sub.group(2))], int(sub.group(1), 0))
            field_in.pop(_reg(sub.group(2)), None)
        elif rng and _reg(rng.group(2)) in biased:  # a range check: C <= field <= C + K
            off, c = biased[_reg(rng.group(2))]
            k = int(rng.group(1), 0)
            for v in range(c, c + k + 1) if exact else (c, c + k):  # exact: each state of the range
                add(off, v)
        elif rng and _reg(rng.group(2)) in field_in:  # the field itself (a switch: zlib's gz_fetch on `how`)
            if not exact or (i + 1 < len(lines) and _EQUALITY.match(lines[i + 1])):
                add(field_in[_reg(rng.group(2))], int(rng.group(1), 0))
        elif _JOIN.match(line):  # another path comes in, or a call returns: what registers hold is not known
            field_in.clear()
            biased.clear()
        elif (w := _WRITES.match(line)) is not None:
            field_in.pop(_reg(w.group(1)), None)
            biased.pop(_reg(w.group(1)), None)
        if ld:
            loaded[ld.group(2)] = int(ld.group(1), 0)
        elif cmp and cmp.group(2) in loaded and cmp.group(4) != "rip" and not exact:
            off, v = int(cmp.group(3) or "0", 0), loaded[cmp.group(2)] & (2**64 - 1)
            add(off, v)
            if cmp.group(1) == "q" or cmp.group(2).startswith("r"):
                add(off + 4, v >> 32)
    # exact: a field only ever compared with 0 is a count or a flag, not an enum
    return {off: tuple(v) for off, v in sorted(out.items()) if not exact or any(v)}
