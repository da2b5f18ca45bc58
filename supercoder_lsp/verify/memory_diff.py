"""Which byte a candidate leaves other than the original: the harness's `show I MODE dump` prints every region
its comparison hashes (sc_rt.h's sc_dump: a buffer, a region of a recorded call, a block the call allocated,
the globals), and the first one that differs is named, with its element or symbol and both values. A result
that only says "what it leaves in memory differs" cannot be checked by hand."""

from __future__ import annotations

import errno
import struct
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from ..harness.plan import Plan

SECTIONS = {  # sc_verify.h's labels of the globals it hashes -> their ELF sections
    "globals(.data)": "sc_gdata",
    "globals(.bss)": "sc_gbss",
    "file-statics(.data)": "sc_fdata",
    "file-statics(.bss)": "sc_fbss",
}


def parse_dump(stdout: str) -> list[tuple[str, int, bytes]]:
    """The regions of one `show ... dump` run, in the order hashed: (label, index, bytes)."""
    out = []
    parts = stdout.split("\n@@ ")
    for part in parts[1:]:
        head, _, rest = part.partition("\n")
        fields = head.split()
        if len(fields) != 3:
            continue
        label, idx, n = fields[0], int(fields[1]), int(fields[2])
        hexed = rest.split("\n", 1)[0].strip()[: 2 * n]
        try:
            out.append((label, idx, bytes.fromhex(hexed)))
        except ValueError:
            out.append((label, idx, b""))
    return out


def first_difference(
    plan: Plan, exe: Path, base: list[tuple[str, int, bytes]], got: list[tuple[str, int, bytes]]
) -> str:
    """Words on the first region and byte where `got` (the candidate's) differs from `base` (the original's)."""
    for (label, idx, a), (label2, idx2, b) in zip(base, got):
        if (label, idx) != (label2, idx2):
            break
        if a == b:
            continue
        if label == "printed":  # what the call printed to stdout and stderr (sc_verify.h's sc_out_begin)
            k = next((t for t in range(min(len(a), len(b))) if a[t] != b[t]), min(len(a), len(b)))
            return (
                f"what it prints differs from byte {k:,} on: the original {_text(a[k : k + 40])}, "
                f"this {_text(b[k : k + 40])}"
            )
        if label == "errno" and len(a) == len(b) == 4:
            ea, eb = (int.from_bytes(x, "little", signed=True) for x in (a, b))
            return f"the original leaves errno {_errno(ea)} after the call, this {_errno(eb)}"
        if label == "fp-flags":
            return fp_flags_words(int.from_bytes(a, "big"), int.from_bytes(b, "big"))
        where = _region_name(plan, label, idx)
        if len(a) != len(b):
            return f"{where} holds {len(a):,} bytes after the original's call, {len(b):,} after this one's"
        k = next(t for t in range(len(a)) if a[t] != b[t])
        p = _param(plan, label, idx)
        if p is not None and p.role == "array" and not p.record and p.elem is not None and p.element.bits >= 8:
            size = p.element.bits // 8
            at = k - k % size
            if at + size <= len(a):
                va, vb = (_element(p, x[at : at + size]) for x in (a, b))
                return f"first at {p.name}[{at // size:,}]: the original leaves {va}, this {vb}"
        return f"first at {_at(plan, exe, label, idx, k)}: the original leaves {_bytes(a, k)}, this {_bytes(b, k)}"
    if len(base) != len(got):
        extra = [f"{lab} {i}" for lab, i, _ in (got[len(base) :] or base[len(got) :])][:3]
        more = "this one" if len(got) > len(base) else "the original"
        return f"{more} leaves more regions to compare ({', '.join(extra)}): a block allocated, or a buffer more"
    return ""


def _errno(v: int) -> str:
    name = errno.errorcode.get(v)
    return f"{v} ({name})" if name else str(v)


FP_FLAGS = (
    (0x01, "FE_INVALID"),
    (0x04, "FE_DIVBYZERO"),
    (0x08, "FE_OVERFLOW"),
    (0x10, "FE_UNDERFLOW"),
    (0x20, "FE_INEXACT"),
)


def fp_flags_words(orig: int, cand: int) -> str:
    """The floating-point exception flags two calls left (sc_plain.h's sc_fp_flags), in C's names: those raised
    that a program traps on (feenableexcept), and those set before the call that it cleared."""

    def names(v: int) -> str:
        return ", ".join(n for bit, n in FP_FLAGS if v & bit) or "none"

    extra, missing = cand & ~orig & 0xFF, orig & ~cand & 0xFF
    if extra:
        return (
            f"the floating-point exception flags differ: it raises {names(extra)}, which the original does not "
            "(a program that traps on them with feenableexcept stops there)"
        )
    if missing:
        return (
            f"the floating-point exception flags differ: it leaves {names(missing)} unset, which the original "
            "raises (a program that tests them with fetestexcept misses them)"
        )
    return (
        f"the floating-point exception flags differ: it clears {names(cand >> 8)} that were set before the call, "
        f"where the original clears {names(orig >> 8)} (a program that tests them with fetestexcept misses them)"
    )


def _param(plan: Plan, label: str, idx: int):
    """The parameter whose buffer a region is, if it is one."""
    name = plan.params[idx].name if label == "buffer" and idx < len(plan.params) else label
    return next((q for q in plan.params if q.name == name), None)


def _element(p, raw: bytes) -> str:
    """One element of an array parameter, as C would print it."""
    e = p.element
    if e.role == "float" and len(raw) in (4, 8):
        return repr(struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0])
    return str(int.from_bytes(raw, "little", signed=e.signed))


def _region_name(plan: Plan, label: str, idx: int) -> str:
    np = len(plan.params)
    if label == "buffer":  # a recorded (deep) call's buffer: a parameter's, or a region its pointers reach
        return f"'{plan.params[idx].name}'" if idx < np else f"region {idx - np + 1} its pointers reach"
    if label == "heap-block":
        return f"block {idx + 1} that the call allocated"
    if label in SECTIONS:
        return f"the {label.replace('(', ' (')}"
    return f"'{label}'"


def _at(plan: Plan, exe: Path, label: str, idx: int, k: int) -> str:
    """Where byte k of a region lies: an element of a parameter, or a symbol of the globals."""
    p = _param(plan, label, idx)
    if p is not None and p.role == "cstring":
        return f"{p.name}[{k:,}]"
    if p is not None and p.record:
        return f"byte {k:,} of *{p.name} (a {p.record})"
    if label in SECTIONS:
        sym = _symbol_at(exe, SECTIONS[label], k)
        if sym:
            return sym
    return f"byte {k:,} of {_region_name(plan, label, idx)}"


def _symbol_at(exe: Path, section: str, k: int) -> str:
    """The global at byte k of the harness's section (the file's own variables), as `name+offset`."""
    try:
        with exe.open("rb") as f:
            elf = ELFFile(f)
            sec = elf.get_section_by_name(section)
            symtab = elf.get_section_by_name(".symtab")
            if sec is None or not isinstance(symtab, SymbolTableSection):
                return ""
            addr = sec["sh_addr"] + k
            for s in symtab.iter_symbols():
                v, n = s["st_value"], s["st_size"]
                if s["st_info"]["type"] == "STT_OBJECT" and v <= addr < v + max(n, 1) and s.name:
                    return f"{s.name}" + (f"+{addr - v}" if addr != v else "")
    except (OSError, ELFError):
        return ""
    return ""


def _text(b: bytes) -> str:
    """Printed bytes as a C string literal would show them ("(nothing)" where none)."""
    if not b:
        return "prints nothing more"
    shown = "".join(chr(c) if 32 <= c < 127 and c not in (34, 92) else f"\\x{c:02x}" for c in b)
    return f'prints "{shown}"'


def _bytes(b: bytes, k: int) -> str:
    """The byte at k in hex, with the 8-byte word around it where there is one."""
    w = b[k - k % 8 : k - k % 8 + 8]
    return f"0x{b[k]:02x}" + (f" (word {w.hex(' ')})" if len(w) == 8 else "")
