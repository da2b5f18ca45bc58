"""Screen what an assembled candidate object holds, not only what its text says.

The text screen (`screen.py`) reads the assembly as written; an attacker can
hide code from it (fill bytes such as `.skip 1, 0x0f`, alignment padding,
IFUNC resolvers, init arrays under any section name). This screen reads the
object that the assembler produced, with pyelftools and capstone:

- sections: only code (`.text*`), read-only data, and the writable data that
  the -O3 original also has (no more bytes of it); nothing the loader or the
  C runtime runs or reads at load or exit (INIT/FINI/PREINIT arrays by type or
  name, `.ctors`/`.dtors`, `.init`/`.fini`, `.interp`, ...), no TLS, nothing
  writable and executable;
- symbols: plain functions, objects and labels; no IFUNC, no TLS, no
  `GNU_UNIQUE`;
- relocations: the kinds a function needs (PC-relative references and calls,
  or kinds the original object uses), never ones that make the loader run or
  patch code (IRELATIVE, COPY, GLOB_DAT, JUMP_SLOT, RELATIVE, TLS), each inside
  an instruction's operand bytes, and pointing inside the symbol or section it
  names (a `label+N(%rip)` that reaches past the function's own data into the
  harness is refused);
- every byte of every executable section is decoded (fill and alignment bytes
  count as code) and screened like written instructions; bytes that do not
  decode are refused, and so is a direct jump into the middle of an
  instruction (code that only appears when jumped into, such as a `syscall`
  hidden in an immediate).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from .decode import decode_problems
from .elfcheck import RUN_AT_LOAD_NAMES, RUN_AT_LOAD_TYPES

__all__ = ["screen_object", "ObjectFacts", "object_facts"]

# The loader or the C runtime runs, reads or patches these at load or exit time.
_LOAD_TIME_NAMES = (
    *RUN_AT_LOAD_NAMES,
    # sections only the linker makes: in an object they would be merged into the program's own
    ".dynamic",
    ".got",
    ".plt",
    ".gnu.version",
    ".dynsym",
    ".dynstr",
    ".hash",
    ".gnu.hash",
    ".rela.dyn",
    ".rela.plt",
    ".gnu.warning",
    ".note.ABI-tag",
    ".gnu_debuglink",
    ".gnu.linkonce",
)
_LOAD_TIME_TYPES = RUN_AT_LOAD_TYPES | {
    "SHT_DYNAMIC",
    "SHT_DYNSYM",
    "SHT_HASH",
    "SHT_GNU_HASH",
    "SHT_GNU_verdef",
    "SHT_GNU_verneed",
    "SHT_GNU_versym",
}
_META_TYPES = {
    "SHT_NULL",
    "SHT_SYMTAB",
    "SHT_STRTAB",
    "SHT_RELA",
    "SHT_REL",
    "SHT_GROUP",
    "SHT_NOTE",
    "SHT_X86_64_UNWIND",
    "SHT_LLVM_ADDRSIG",
}
_OK_NAMES = (
    ".text",
    ".rodata",
    ".data",
    ".bss",
    ".tdata",
    ".tbss",
    ".note.GNU-stack",
    ".note.gnu.property",
    ".comment",
    ".eh_frame",
    ".gcc_except_table",
    ".lbss",
    ".ldata",
    ".lrodata",
    ".llvm_addrsig",
)
# Relocation kinds a function's code and read-only data need; others only when the original uses them too.
_PLAIN_RELOCS = {"R_X86_64_PC32", "R_X86_64_PLT32", "R_X86_64_GOTPCREL", "R_X86_64_GOTPCRELX", "R_X86_64_REX_GOTPCRELX"}
# the loader's own kinds: never in an object a compiler writes
_NEVER_RELOCS = {
    "R_X86_64_IRELATIVE",
    "R_X86_64_COPY",
    "R_X86_64_GLOB_DAT",
    "R_X86_64_JUMP_SLOT",
    "R_X86_64_RELATIVE",
    "R_X86_64_RELATIVE64",
}
# thread-local storage: only where the original uses it too
_TLS_RELOCS = {
    "R_X86_64_DTPMOD64",
    "R_X86_64_DTPOFF64",
    "R_X86_64_TPOFF64",
    "R_X86_64_TLSGD",
    "R_X86_64_TLSLD",
    "R_X86_64_DTPOFF32",
    "R_X86_64_GOTTPOFF",
    "R_X86_64_TPOFF32",
    "R_X86_64_GOTPC32_TLSDESC",
    "R_X86_64_TLSDESC_CALL",
    "R_X86_64_TLSDESC",
}
# an address stored in read-only data (a jump table in a PIE): the loader patches data, never code
_DATA_RELOCS = {"R_X86_64_64"}
_PC_RELATIVE = {
    "R_X86_64_PC32",
    "R_X86_64_PLT32",
    "R_X86_64_GOTPCREL",
    "R_X86_64_GOTPCRELX",
    "R_X86_64_REX_GOTPCRELX",
    "R_X86_64_PC64",
    "R_X86_64_PC16",
    "R_X86_64_PC8",
}


@dataclass
class ObjectFacts:
    """What one relocatable object holds, as the screen compares it."""

    writable: dict[str, int]  # writable section (or COMMON) -> bytes
    tls: bool
    reloc_types: set[str]
    reloc_targets: set[tuple[str, int]]  # (symbol, addend) of every relocation
    problems: list[str]
    # writable section -> (bytes of the objects its symbols name, how many, the most padding alignment may add
    # before each: the section's alignment up to a cache line, less one)
    objects: dict[str, tuple[int, int, int]] = field(default_factory=dict)


def _reloc_type(elf: ELFFile, rel) -> str:
    from elftools.elf.descriptions import describe_reloc_type

    return describe_reloc_type(rel["r_info_type"], elf)


def _section_kind(sec) -> str | None:
    """Why a section may not be in a candidate, or None when it may."""
    name, typ, flags = sec.name, sec["sh_type"], sec["sh_flags"]
    if typ in _LOAD_TIME_TYPES:
        return f"section {name} of type {typ} is run or read by the loader"
    if name.startswith(_LOAD_TIME_NAMES):
        return f"section {name} is run or read by the loader or the C runtime at load or exit"
    if flags & SH_FLAGS.SHF_EXECINSTR and flags & SH_FLAGS.SHF_WRITE:
        return f"section {name} is writable and executable"
    if flags & SH_FLAGS.SHF_EXECINSTR and not name.startswith(".text"):
        return f"executable section {name} outside .text"
    if typ in _META_TYPES or not flags & SH_FLAGS.SHF_ALLOC:
        return None
    if not name.startswith(_OK_NAMES):
        return f"section {name} is not code or data of a function"
    return None


def object_facts(path: str | Path) -> ObjectFacts:
    facts = ObjectFacts({}, False, set(), set(), [])
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        for sec in elf.iter_sections():
            why = _section_kind(sec)
            if why:
                facts.problems.append(why)
            if sec["sh_flags"] & SH_FLAGS.SHF_TLS:
                facts.tls = True
            if (
                sec["sh_flags"] & SH_FLAGS.SHF_WRITE
                and sec["sh_flags"] & SH_FLAGS.SHF_ALLOC
                and not sec.name.startswith(".data.rel.ro")
            ):  # read-only once relocated (RELRO)
                facts.writable[sec.name] = facts.writable.get(sec.name, 0) + sec["sh_size"]
        symtab = elf.get_section_by_name(".symtab")
        if isinstance(symtab, SymbolTableSection):
            for sym in symtab.iter_symbols():
                typ, bind = sym["st_info"]["type"], sym["st_info"]["bind"]
                if typ in ("STT_GNU_IFUNC", "STT_LOOS"):
                    facts.problems.append(f"symbol {sym.name} is an IFUNC: the loader runs its resolver before main")
                elif typ == "STT_TLS":
                    facts.tls = True
                if bind in ("STB_GNU_UNIQUE", "STB_LOOS"):
                    facts.problems.append(f"symbol {sym.name} is GNU_UNIQUE")
                if sym["st_shndx"] == "SHN_COMMON":
                    facts.writable["COMMON"] = facts.writable.get("COMMON", 0) + sym["st_size"]
                elif isinstance(sym["st_shndx"], int) and typ == "STT_OBJECT":
                    sec = elf.get_section(sym["st_shndx"])
                    if sec.name in facts.writable:
                        size, n, _ = facts.objects.get(sec.name, (0, 0, 0))
                        pad = min(max(sec["sh_addralign"], 1), 64) - 1
                        facts.objects[sec.name] = (size + sym["st_size"], n + 1, pad)
        for rsec in elf.iter_sections():
            if not isinstance(rsec, RelocationSection) or not isinstance(symtab, SymbolTableSection):
                continue
            for rel in rsec.iter_relocations():
                sym = symtab.get_symbol(rel["r_info_sym"])
                name = sym.name or (elf.get_section(sym["st_shndx"]).name if isinstance(sym["st_shndx"], int) else "")
                facts.reloc_types.add(_reloc_type(elf, rel))
                facts.reloc_targets.add((name, rel["r_addend"]))
    return facts


_WIDTH = {
    "R_X86_64_64": 8,
    "R_X86_64_PC64": 8,
    "R_X86_64_16": 2,
    "R_X86_64_PC16": 2,
    "R_X86_64_8": 1,
    "R_X86_64_PC8": 1,
}


def screen_object(
    path: str | Path, original: str | Path | ObjectFacts, *, extern_sizes: dict[str, int] | None = None
) -> list[str]:
    """Reasons the candidate object is unsafe (empty when it passes).

    `original` is the -O3 original's object, assembled from its cut the same
    way (or its object_facts, read once for all candidates); `extern_sizes` gives the sizes of outside data symbols (the file's
    globals) so that `sym+N` references can be bounded.
    """
    orig = original if isinstance(original, ObjectFacts) else object_facts(original)
    facts = object_facts(path)
    problems = [p for p in facts.problems if p not in orig.problems]
    problems += _state_problems(facts, orig)
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        relocs_by_sec: dict[int, list[tuple[int, int, str]]] = {}
        problems += _relocation_problems(elf, orig, dict(extern_sizes or {}), relocs_by_sec)
        for i, code_sec in enumerate(elf.iter_sections()):
            if code_sec["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and code_sec["sh_type"] != "SHT_NOBITS":
                problems += decode_problems(code_sec.data(), code_sec.name, relocs_by_sec.get(i, []))
    return problems


def _state_problems(facts: ObjectFacts, orig: ObjectFacts) -> list[str]:
    """Thread-local and writable state the original does not have (a cache that outlives a call)."""
    problems = []
    if facts.tls and not orig.tls:
        problems.append("uses thread-local storage, which the original function does not")
    for sec, size in sorted(facts.writable.items()):
        if size and not orig.writable.get(sec):
            problems.append(f"holds writable state ({sec}, {size} bytes) that the original function does not have")
        elif size > orig.writable.get(sec, 0) and not _padded_alike(sec, size, facts, orig):
            problems.append(
                f"holds more writable state in {sec} ({size} bytes) than the original ({orig.writable[sec]})"
            )
    return problems


def _padded_alike(sec: str, size: int, facts: ObjectFacts, orig: ObjectFacts) -> bool:
    """The same objects as the original's, laid out with more padding for a wider alignment (-march=native
    aligns a table to 64 where the original aligned it to 32): no object bytes more than the original's,
    and no more bytes outside objects than alignment can put before each (a cache line at most)."""
    mine, theirs = facts.objects.get(sec), orig.objects.get(sec)
    if mine is None or theirs is None or mine[0] > theirs[0]:
        return False
    return size - mine[0] <= mine[1] * mine[2]


def _kind_allowed(typ: str, orig: ObjectFacts, target) -> bool:
    """A relocation kind a function's code and data need, or one the original uses too."""
    if typ in _PLAIN_RELOCS or typ in orig.reloc_types:
        return True
    in_code = bool(target["sh_flags"] & SH_FLAGS.SHF_EXECINSTR)
    read_only = not target["sh_flags"] & SH_FLAGS.SHF_WRITE or target.name.startswith(".data.rel.ro")
    return typ in _DATA_RELOCS and not in_code and read_only  # an address in read-only data (a jump table)


def _relocation_problems(elf: ELFFile, orig: ObjectFacts, sizes: dict[str, int], relocs_by_sec: dict) -> list[str]:
    """Relocation kinds and where each one points; fills relocs_by_sec with those in code (for the decoder)."""
    problems: list[str] = []
    symtab = elf.get_section_by_name(".symtab")
    if not isinstance(symtab, SymbolTableSection):
        return problems
    for rsec in elf.iter_sections():
        if not isinstance(rsec, RelocationSection):
            continue
        target = elf.get_section(rsec["sh_info"])
        in_code = bool(target["sh_flags"] & SH_FLAGS.SHF_EXECINSTR)
        for rel in rsec.iter_relocations():
            typ = _reloc_type(elf, rel)
            sym = symtab.get_symbol(rel["r_info_sym"])
            shndx = sym["st_shndx"]
            label = sym.name or (elf.get_section(shndx).name if isinstance(shndx, int) else "?")
            where = f"{target.name}+{rel['r_offset']:#x}"
            if typ in _NEVER_RELOCS:
                problems.append(f"{where}: relocation {typ} against {label} makes the loader run or patch code")
                continue
            if typ in _TLS_RELOCS and typ not in orig.reloc_types:
                problems.append(
                    f"{where}: relocation {typ} against {label}: thread-local storage the original does not use"
                )
                continue
            if typ not in _TLS_RELOCS and not _kind_allowed(typ, orig, target):
                problems.append(f"{where}: relocation {typ} against {label}, a kind the original does not use")
                continue
            if typ not in _TLS_RELOCS and (label, rel["r_addend"]) not in orig.reloc_targets:
                if isinstance(shndx, int):
                    bound = (sym["st_value"], elf.get_section(shndx)["sh_size"])
                else:  # an outside symbol: its size where known, else only its start (calls, plain references)
                    bound = (0, sizes.get(label, 0))
                if not _inside(typ, in_code, rel["r_addend"], bound, target["sh_size"]):
                    problems.append(
                        f"{where}: refers to {label}{rel['r_addend']:+d}, outside {label} "
                        f"({bound[1]} bytes): it reaches memory that is not the function's"
                    )
            if in_code:
                relocs_by_sec.setdefault(rsec["sh_info"], []).append((rel["r_offset"], _WIDTH.get(typ, 4), typ))
    return problems


def _inside(typ: str, in_code: bool, addend: int, bound: tuple[int, int], table_size: int) -> bool:
    """Whether a relocation's target lies within [start, start + size] of what it names. In an
    instruction a %rip-relative field is relative to the instruction's end: 4 bytes past the
    field, or up to 8 when an immediate follows it; in data, a `label - table` entry is off by
    its own place in the table."""
    pc_insn = typ in _PC_RELATIVE and in_code
    lo = bound[0] + addend + (4 if pc_insn else 0)
    hi = lo + (4 if pc_insn else 0)
    if typ in _PC_RELATIVE and not in_code:
        lo, hi = lo - table_size, hi + table_size
    return not (hi < 0 or lo > bound[1])
