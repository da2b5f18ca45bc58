"""The function's own writable statics, object by object, for the harness's comparison: two builds lay the
same variables out differently (-march=native aligns a table to 64 where -O3 aligned it to 32; another compiler
orders or names them otherwise), so the raw bytes of the section differ where every variable holds the same.
The table lists each variable of the harness's renamed sections (sc_fdata, sc_fbss) by its name as C wrote it,
and sc_verify.h hashes them in that order; bytes between them (alignment) are not compared. A build whose
objects carry no sizes (hand-written assembly without `.size`) gets no table and is compared byte for byte."""

from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from .. import build

SECTIONS = ("sc_fdata", "sc_fbss")  # harness_build.rename_symbol's names for the function's .data and .bss


def c_name(symbol: str, function: str) -> str:
    """A static's name as C wrote it: gcc names a function's static `x.0`, clang `function.x`."""
    name = re.sub(r"\.\d+$", "", symbol)
    for prefix in (f"{function}.", "sc_fn."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def objects(obj: Path, function: str) -> list[tuple[str, int, int, int]]:
    """(name as C wrote it, section 0 for .data or 1 for .bss, offset, bytes) of each sized variable, by name."""
    out: dict[tuple[int, int], tuple[str, int, int, int]] = {}
    with obj.open("rb") as f:
        elf = ELFFile(f)
        symtab = elf.get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            return []
        for s in symtab.iter_symbols():
            if s["st_info"]["type"] != "STT_OBJECT" or not s["st_size"] or not isinstance(s["st_shndx"], int):
                continue
            sec = elf.get_section(s["st_shndx"]).name
            if sec in SECTIONS:
                k = SECTIONS.index(sec)
                out.setdefault((k, s["st_value"]), (c_name(s.name, function), k, s["st_value"], s["st_size"]))
    return sorted(out.values())


def table_object(obj: Path, function: str, out: Path) -> Path | None:
    """An object defining sc_fobj (section, offset, bytes, where its name lies from sc_fobj: four 32-bit words
    per variable) and sc_fobj_n for `obj`'s variables,
    or None where it has none with a size (then the sections are compared whole)."""
    objs = objects(obj, function)
    if not objs:
        return None
    rows = "".join(f"\t.long {k}, {off}, {n}, .Lname{i} - sc_fobj\n" for i, (_, k, off, n) in enumerate(objs))
    names = "".join(f'.Lname{i}:\n\t.asciz "{name}"\n' for i, (name, _, _, _) in enumerate(objs))
    text = (
        "\t.section .rodata\n\t.globl sc_fobj_n\n\t.p2align 2\nsc_fobj_n:\n"
        f"\t.long {len(objs)}\n\t.globl sc_fobj\nsc_fobj:\n{rows}{names}"
    )
    build.assemble(text, out)
    return out


def write_codemap(exe: Path) -> None:
    """`exe`.codemap: each function of the linked harness (offset from the image's start, end, a hash of its
    name), by offset, which sc_heap.h reads before the sandbox: a pointer the call leaves into code (an
    object's method, the rest of the file's function) is compared as the function it points into and where,
    not as its address or bytes, which differ from build to build (a cold part placed first moves them)."""
    rows = []
    with exe.open("rb") as f:
        elf = ELFFile(f)
        symtab = elf.get_section_by_name(".symtab")
        if isinstance(symtab, SymbolTableSection):
            base = next((s["st_value"] for s in symtab.iter_symbols() if s.name == "__executable_start"), 0)
            for s in symtab.iter_symbols():
                if s["st_info"]["type"] == "STT_FUNC" and s["st_size"] and s["st_value"] >= base:
                    name = hashlib.blake2b(s.name.encode(), digest_size=8).digest()
                    lo = s["st_value"] - base
                    rows.append((lo, lo + s["st_size"], int.from_bytes(name, "little")))
    rows.sort()
    data = struct.pack("<Q", len(rows)) + b"".join(struct.pack("<QQQ", *r) for r in rows)
    tmp = Path(f"{exe}.codemap.tmp")
    tmp.write_bytes(data)
    tmp.replace(f"{exe}.codemap")
