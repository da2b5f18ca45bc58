"""Inspect and vet a relocatable object assembled from a cut or a candidate.

`check_object` is the gate before linking a candidate into anything: the object
must define exactly the function as a global FUNC, define no other global
symbol (unless allowed), and must not contain writable+executable sections or
executable sections outside `.text*`, `.init` and `.fini`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

__all__ = ["ElfReport", "SectionInfo", "SymbolInfo", "inspect_object", "check_object", "loader_effects", "check_linked"]

_FLAG_LETTERS = (
    (SH_FLAGS.SHF_WRITE, "W"),
    (SH_FLAGS.SHF_ALLOC, "A"),
    (SH_FLAGS.SHF_EXECINSTR, "X"),
    (SH_FLAGS.SHF_MERGE, "M"),
    (SH_FLAGS.SHF_STRINGS, "S"),
    (SH_FLAGS.SHF_GROUP, "G"),
    (SH_FLAGS.SHF_TLS, "T"),
)


@dataclass(frozen=True)
class SectionInfo:
    name: str
    type: str  # "SHT_PROGBITS", "SHT_NOBITS", ...
    flags: int  # SHF_* bits
    size: int

    @property
    def flag_letters(self) -> str:
        """readelf-style letters: W A X M S G T."""
        return "".join(c for bit, c in _FLAG_LETTERS if self.flags & bit)

    @property
    def writable(self) -> bool:
        return bool(self.flags & SH_FLAGS.SHF_WRITE)

    @property
    def executable(self) -> bool:
        return bool(self.flags & SH_FLAGS.SHF_EXECINSTR)


@dataclass(frozen=True)
class SymbolInfo:
    name: str
    type: str  # "FUNC", "OBJECT", "NOTYPE", "TLS", "GNU_IFUNC", ...
    binding: str  # "GLOBAL", "WEAK", "LOCAL", "GNU_UNIQUE"
    section: str  # section name, "COMMON", or "" when undefined
    size: int
    value: int = 0  # in an object file: its offset in its section


@dataclass
class ElfReport:
    path: str
    globals: dict[str, SymbolInfo] = field(default_factory=dict)  # defined, GLOBAL/WEAK/UNIQUE
    locals: dict[str, SymbolInfo] = field(default_factory=dict)  # defined, LOCAL (no section/file symbols)
    undefined: list[str] = field(default_factory=list)
    sections: list[SectionInfo] = field(default_factory=list)


def inspect_object(path) -> ElfReport:
    """Read the symbols and sections of an ELF object with pyelftools."""
    report = ElfReport(str(path))
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        names = {}
        for i, sec in enumerate(elf.iter_sections()):
            names[i] = sec.name
            if i:  # skip the null section
                report.sections.append(SectionInfo(sec.name, sec["sh_type"], sec["sh_flags"], sec["sh_size"]))
        for sec in elf.iter_sections():
            if not isinstance(sec, SymbolTableSection):
                continue
            for sym in sec.iter_symbols():
                name = sym.name
                typ = sym["st_info"]["type"].replace("STT_", "")
                bind = sym["st_info"]["bind"].replace("STB_", "")
                shndx = sym["st_shndx"]
                if not name or typ in ("SECTION", "FILE"):
                    continue
                if shndx == "SHN_UNDEF":
                    if name not in report.undefined:
                        report.undefined.append(name)
                    continue
                where = (
                    "COMMON"
                    if shndx == "SHN_COMMON"
                    else ("ABS" if shndx == "SHN_ABS" else names.get(shndx, str(shndx)))
                )
                info = SymbolInfo(name, typ, bind, where, sym["st_size"], sym["st_value"])
                (report.locals if bind == "LOCAL" else report.globals)[name] = info
    return report


def check_object(path, function: str, *, allowed_globals: set[str] | None = None) -> list[str]:
    """Problems with an object meant to replace `function`; empty when it is fine."""
    r = inspect_object(path)
    problems = []
    sym = r.globals.get(function)
    if sym is None:
        where = f" (it is local: add `.globl {function}`)" if function in r.locals else ""
        problems.append(f"does not define `{function}` as a global function{where}")
    elif sym.type != "FUNC":
        problems.append(f"defines `{function}` as a global {sym.type}, not a FUNC (add `.type {function}, @function`)")
    allowed = set(allowed_globals or ()) | {function}
    extra = sorted(n for n in r.globals if n not in allowed)
    if extra:
        problems.append("defines unexpected global symbols: " + ", ".join(extra))
    for s in r.sections:
        if s.writable and s.executable:
            problems.append(f"section {s.name} is both writable and executable")
        elif s.executable and not (s.name.startswith(".text") or s.name in (".init", ".fini")):
            problems.append(f"executable section {s.name} outside .text*/.init/.fini")
    return problems


# What the loader or the C runtime runs, reads or patches at load or exit time, by name and by type
# (asm/objscreen.py refuses these in a candidate; loader_effects compares them between two links).
RUN_AT_LOAD_NAMES = (
    ".init",
    ".fini",
    ".preinit_array",
    ".init_array",
    ".fini_array",
    ".ctors",
    ".dtors",
    ".jcr",
    ".tm_clone_table",
    ".interp",
)
RUN_AT_LOAD_TYPES = frozenset({"SHT_INIT_ARRAY", "SHT_FINI_ARRAY", "SHT_PREINIT_ARRAY"})


def loader_effects(path) -> dict[str, object]:
    """What the loader and the C runtime run or patch in a linked executable before
    main and after exit: init/fini code and arrays, IFUNC relocations, TLS, the interpreter."""
    from elftools.elf.dynamic import DynamicSection
    from elftools.elf.relocation import RelocationSection

    eff: dict[str, Any] = {}
    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        for sec in elf.iter_sections():
            if sec.name.startswith((*RUN_AT_LOAD_NAMES, ".tdata", ".tbss")) or sec["sh_type"] in RUN_AT_LOAD_TYPES:
                eff[f"section {sec.name} size"] = sec["sh_size"]
            if isinstance(sec, RelocationSection):
                n = sum(1 for r in sec.iter_relocations() if r["r_info_type"] == 37)  # R_X86_64_IRELATIVE
                eff["IRELATIVE relocations"] = int(eff.get("IRELATIVE relocations", 0)) + n
            if isinstance(sec, DynamicSection):
                for tag in sec.iter_tags():
                    if tag.entry.d_tag in (
                        "DT_INIT",
                        "DT_FINI",
                        "DT_INIT_ARRAYSZ",
                        "DT_FINI_ARRAYSZ",
                        "DT_PREINIT_ARRAYSZ",
                        "DT_TEXTREL",
                    ):
                        eff[tag.entry.d_tag] = (
                            "present" if tag.entry.d_tag in ("DT_INIT", "DT_FINI", "DT_TEXTREL") else tag.entry.d_val
                        )
                    elif tag.entry.d_tag == "DT_NEEDED":
                        eff.setdefault("DT_NEEDED", []).append(tag.needed)  # type: ignore[attr-defined]  # type: ignore[union-attr]
        for seg in elf.iter_segments():
            if seg["p_type"] == "PT_TLS":
                eff["TLS segment"] = seg["p_memsz"]
            elif seg["p_type"] == "PT_INTERP":
                eff["interpreter"] = seg.get_interp_name()  # type: ignore[attr-defined]
    return eff


def check_linked(path, reference) -> list[str]:
    """Differences in load-time behaviour between an executable linked with a
    candidate and the same link with the -O3 original: anything the candidate's
    object adds that the loader or the C runtime would run before the sandbox is up."""
    got, want = loader_effects(path), loader_effects(reference)
    return [
        f"the linked program differs from the original's in {k}: {got.get(k)} instead of {want.get(k)} "
        "(code that would run at load time)"
        for k in sorted(set(got) | set(want))
        if got.get(k) != want.get(k)
    ]
