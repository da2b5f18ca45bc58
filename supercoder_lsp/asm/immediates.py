"""The constants a compiled function's code holds: where a candidate could hide the one input it is wrong on.

A candidate that is right everywhere but on `seed == 5381` (djb2's well-known start) or `n == 1337` is
wrong on one input in 2^32, and random inputs never draw it. It cannot test for the value without
holding it: an immediate (`cmp $5381, %esi`, `xor $0x1505, %eax`, `movabs $...`) or a word of its
read-only data (a vector compare's pattern). As fuzzers take their dictionary from a program's
comparison operands (AFL++'s autodictionary, libFuzzer's -use_value_profile), the verifier draws inputs
from these values (verify/function_check.py: the candidate's-constants pass). Values this small are
among every harness's edge values and are left out.
"""

from __future__ import annotations

from pathlib import Path

import capstone
from capstone import x86
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

SMALL = 16  # |v| up to this: drawn as edge values anyway
MOST = 64  # at most this many values (the harness keeps SC_CDICT_MAX)
DATA_WORDS = 32  # of them at most this many words of read-only data, after the immediates
_FIRST = ("cmp", "sub", "add", "xor", "test", "and", "or")  # an immediate that is compared with, first


def _wide(v: int) -> bool:
    w = v & (2**64 - 1)
    return SMALL < w < 2**64 - SMALL


def object_constants(path: str | Path) -> tuple[int, ...]:
    """The immediates of the object's code (of compares and arithmetic first, then the rest: a value
    moved into a register and compared there), then 4- and 8-byte words of its read-only data; each as
    an unsigned 64-bit word, past the small ones, without repeats; at most MOST."""
    first: list[int] = []
    rest: list[int] = []
    data: list[int] = []
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    md.detail = True
    md.skipdata = True
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        for sec in elf.iter_sections():
            flags = sec["sh_flags"]
            if sec["sh_type"] != "SHT_PROGBITS" or not flags & SH_FLAGS.SHF_ALLOC:
                continue
            body = sec.data()
            if flags & SH_FLAGS.SHF_EXECINSTR:
                for insn in md.disasm(body, 0):
                    if insn.id == 0 or insn.group(capstone.CS_GRP_JUMP) or insn.group(capstone.CS_GRP_CALL):
                        continue  # skipped data; a branch's target
                    into = first if insn.mnemonic.startswith(_FIRST) else rest
                    for op in insn.operands:
                        if op.type == x86.X86_OP_IMM and _wide(op.imm):
                            into.append(op.imm & (2**64 - 1))
            elif sec.name.startswith(".rodata"):
                for width in (8, 4):
                    for off in range(0, len(body) - width + 1, width):
                        v = int.from_bytes(body[off : off + width], "little")
                        if _wide(v) and len(data) < 4 * DATA_WORDS:
                            data.append(v)
    out: list[int] = []
    for v in first + rest + data[:DATA_WORDS]:
        if v not in out:
            out.append(v)
    return tuple(out[:MOST])
