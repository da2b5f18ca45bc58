"""ABI checks for a candidate inside the program under test.

A candidate without a function harness is judged by program tests; they check
its outputs, not its manners. Here the candidate object is linked behind a
checking thunk (harness/sc_thunk.S) that stands for the function on every call
the program makes (callee-saved registers, %rsp, MXCSR, x87 control word,
direction flag), and its calls to library functions go through stubs that check
the stack alignment. Program tests also run with glibc's checking allocator, so
a write past the end of a heap buffer aborts the program when it is freed.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from .. import build
from ..harness.contract import EXIT_THUNK_ABI

ABI_MARK = "supercoder: abi-violation: "
# glibc's checking allocator; its reports go to stderr (not /dev/tty, which the sandbox would refuse)
CHECKING_ALLOCATOR = {
    "LD_PRELOAD": "libc_malloc_debug.so.0",
    "GLIBC_TUNABLES": "glibc.malloc.check=3",
    "LIBC_FATAL_STDERR_": "1",
}


def called_externals(obj: Path, function: str) -> list[str]:
    """Outside functions the object calls (PLT32 relocations against undefined symbols)."""
    out: set[str] = set()
    with open(obj, "rb") as fh:
        elf = ELFFile(fh)
        symtab = elf.get_section_by_name(".symtab")
        if not isinstance(symtab, SymbolTableSection):
            return []
        for sec in elf.iter_sections():
            if not isinstance(sec, RelocationSection):
                continue
            for rel in sec.iter_relocations():
                if rel["r_info_type"] != 4:  # R_X86_64_PLT32
                    continue
                sym = symtab.get_symbol(rel["r_info_sym"])
                if sym["st_shndx"] == "SHN_UNDEF" and sym.name and sym.name != function:
                    out.add(sym.name)
    return sorted(out)


def _stub(sym: str) -> str:
    return (
        f"\t.globl\tsc_chk_{sym}\n\t.hidden\tsc_chk_{sym}\n\t.type\tsc_chk_{sym}, @function\nsc_chk_{sym}:\n\tleaq\t8(%rsp), %r11\n\ttestq\t$15, %r11\n"
        f"\tjne\t.Lsc_align\n\tjmp\t{sym}@PLT\n\t.size\tsc_chk_{sym}, .-sc_chk_{sym}\n"
    )


def checked_objects(cand_obj: Path, function: str, workdir: Path) -> list[Path]:
    """The candidate renamed behind the checking thunk, and the thunk: link both in its place."""
    workdir.mkdir(parents=True, exist_ok=True)
    impl = workdir / f"{cand_obj.stem}.checked.o"
    shutil.copyfile(cand_obj, impl)
    calls = called_externals(cand_obj, function)
    build.objcopy(
        impl, f"--redefine-sym={function}=sc_impl_{function}", *[f"--redefine-sym={s}=sc_chk_{s}" for s in calls]
    )
    template = (resources.files("supercoder_lsp.harness") / "sc_thunk.S").read_text()
    thunk = workdir / f"{cand_obj.stem}.thunk.o"
    text = template.replace("@FN@", function).replace("@EXIT@", str(EXIT_THUNK_ABI))
    build.assemble(text.replace("@STUBS@", "".join(_stub(s) for s in calls)), thunk)
    return [impl, thunk]
