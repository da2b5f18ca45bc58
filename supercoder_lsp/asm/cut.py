"""Cut one function, and everything it drags along, out of a compiler's `.s`.

The cut is self-contained GNU as text: assembled alone (`gcc -c cut.s`) it
gives an object that defines the function as a global FUNC with the same code
and data.  What travels with the function:

* its body, from the alignment/`.globl`/`.type` preamble through
  `.size name, ...` (and, for clang, the `.cfi_endproc` that follows it),
  including what the body puts in other sections on the way: gcc's jump tables
  (`.section .rodata` in the middle of the body), the `name.cold` part in
  `.text.unlikely` with its own `.size`;
* every local symbol the kept statements reference, followed transitively to a
  fixed point: `.L` labels (jump tables, `.LC0` constants, clang's `.LCPI`,
  `.L.str`, `.Lswitch.table`), function-static and file-static data
  (`counter.0`, `CSWTCH.12`, `.local`/`.comm`), `.set` aliases
  (`f.localalias`, `.set .LC1,.LC0`) and local functions (`f.constprop.0`,
  `f.part.0`, static helpers, reported in `local_calls`);
* for data, the label's whole block: the alignment before it, the label, every
  data directive after it up to the next label, section switch or other
  directive, and the `.type`/`.size`/`.local` lines naming it.

Global symbols other than the function (libc, global variables and global
functions of the same file) are not carried: they are `external_refs`, to be
resolved at link time.

Statements are written out in their original order with the section switches
recomputed, so section changes inside a body stay correct.  CFI: `.cfi_*`
directives are kept; they only occur inside the kept bodies, whose
`.cfi_startproc`/`.cfi_endproc` pairs are kept whole (a candidate whose pairs do
not balance has all its `.cfi_*` lines removed instead).  `.file`, `.ident`,
`.loc`, `.addrsig` and debug/note sections are dropped, and the cut ends with
its own `.section .note.GNU-stack,"",@progbits` so that linking it does not
ask for an executable stack.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from .parse import ATT, IDENT_RE, Parsed, Stmt, code_segments, parse
from .symbols import SymbolIndex, cfi_balanced

__all__ = [
    "AsmFunction",
    "FunctionMissing",
    "cut_function",
    "list_functions",
    "normalize_candidate",
    "rename_local_labels",
    "rename_symbols",
]

_CLONE_HINT = "constprop, isra, part, cold, clone, specialized, localalias"


@dataclass
class AsmFunction:
    name: str
    text: str  # self-contained GNU as text defining `name` as a global function
    local_calls: list[str]  # local functions it calls or jumps to; carried in `text`
    external_refs: list[str]  # symbols it references that `text` does not define
    sections: list[str]  # sections the cut uses, in order of first use
    has_cold: bool
    # local data objects carried along (function statics, file statics, CSWTCH
    # tables).  A writable one is a copy: if other code of the original file
    # uses it too, the two copies diverge.
    local_objects: list[str] = field(default_factory=list)


class FunctionMissing(Exception):
    """The function has no symbol of its own in the assembly.

    kind is "inlined" (the name does not occur at all: gcc inlined it into its
    callers, or the C does not define it -- the caller knows which),
    "clone-only" (only `name.constprop.0`/`name.isra.0`/`name.part.0`... exist)
    or "absent" (the name occurs but is not defined here as a function).
    """

    def __init__(self, name: str, kind: str, message: str, clones: list[str] | None = None):
        super().__init__(message)
        self.name, self.kind, self.clones = name, kind, clones or []


# --- public API ------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _indexed(asm: str) -> SymbolIndex:
    """Parse once per text: callers often cut several functions from one file."""
    return SymbolIndex(parse(asm))


def list_functions(asm: str) -> list[str]:
    """Symbols typed @function, in the order of their `.type` directives."""
    idx = _indexed(asm)
    return [n for n in idx.type_order if idx.is_function(n)]


def _missing(idx: SymbolIndex, name: str) -> FunctionMissing:
    clones = [n for n in idx.defs if n.startswith(name + ".") and idx.is_function(n)]
    if clones:
        return FunctionMissing(
            name,
            "clone-only",
            f"the assembly has only clones of `{name}` ({', '.join(clones)}), no `{name}` itself: "
            f"the compiler specialized every call site ({_CLONE_HINT}), so there is no `{name}` symbol "
            f"to replace. Mark it __attribute__((noinline, noclone)) or optimize the clone's caller.",
            clones,
        )
    mentioned = any(name in s.refs() or s.key == name for s in idx.p.stmts)
    if name in idx.defs:
        what = idx.types.get(name) or "label"
        return FunctionMissing(name, "absent", f"`{name}` is defined in the assembly as {what}, not as a function.")
    if mentioned:
        return FunctionMissing(
            name,
            "absent",
            f"`{name}` is referenced but not defined in this assembly (it is defined in another translation unit).",
        )
    return FunctionMissing(
        name,
        "inlined",
        f"`{name}` does not occur in the assembly. If the C file defines it, gcc -O3 inlined `{name}` into "
        f"its callers; there is no symbol to replace. Mark it __attribute__((noinline)) or optimize the caller.",
    )


def cut_function(asm: str, name: str) -> AsmFunction:
    """Cut `name` and everything it drags along out of a whole `.s` file."""
    return _cut(_indexed(asm), name, lenient=False)


def normalize_candidate(text: str, name: str) -> AsmFunction:
    """Turn a candidate (whole .s, or just the function) into a self-contained cut.

    Accepts CRLF, tabs, `#` and `/* */` comments, Intel syntax (restored to
    `.att_syntax prefix` at the end), a missing section (`.text` is assumed),
    missing `.globl`/`.type`/`.size` lines.  Raises ValueError when `name:` is
    never defined.
    """
    idx = _indexed(text)
    if name not in idx.defs or idx.p.stmts[idx.defs[name]].kind != "label":
        raise ValueError(
            f"the candidate never defines `{name}:` (no label `{name}:` in {len(text)} characters of assembly)"
        )
    try:
        return _cut(idx, name, lenient=True)
    except FunctionMissing as e:
        raise ValueError(str(e)) from e


class _Reach:
    """Every statement the function needs: its body, then what the kept statements reference,
    followed to a fixed point; local functions, local data and external symbols on the way."""

    def __init__(self, idx: SymbolIndex):
        self.idx, self.stmts = idx, idx.p.stmts
        self.kept: set[int] = set()
        self.work: list[int] = []
        self.done: set[str] = set()
        self.local_calls: list[str] = []
        self.local_objects: list[str] = []
        self.external: list[str] = []

    def keep(self, indices) -> None:
        for i in indices:
            if i not in self.kept:
                self.kept.add(i)
                self.work.append(i)

    def keep_symbol(self, sym: str) -> None:
        self.keep(self.idx.keyed.get(sym, []))

    def resolve(self, ref: str) -> None:
        idx = self.idx
        if ref in self.done:
            return
        self.done.add(ref)
        if ref not in idx.defs or idx.is_global(ref):
            if ref != "_GLOBAL_OFFSET_TABLE_":
                self.external.append(ref)
            return
        di = idx.defs[ref]
        s = self.stmts[di]
        if di in self.kept:
            return
        if s.kind != "label":  # .comm / .lcomm / .set
            self.keep([di])
            self.keep_symbol(ref)
            if s.op in (".comm", ".lcomm"):
                self.local_objects.append(ref)
            return
        owner = idx.owner(di)
        if owner is not None and not idx.is_global(owner):
            a, b, _ = idx.function_range(owner)
            self.keep(range(a, b + 1))
            if owner not in self.local_calls:
                self.local_calls.append(owner)
        elif idx.is_function(ref):
            a, b, _ = idx.function_range(ref)
            self.keep(range(a, b + 1))
            self.local_calls.append(ref)
        else:
            self.keep(idx.data_unit(di))
            if not ref.startswith(".L"):
                self.local_objects.append(ref)

    def run(self, name: str, start: int, end: int) -> list[int]:
        self.done.add(name)
        self.keep(range(start, end + 1))
        self.keep_symbol(name)
        while self.work:
            s = self.stmts[self.work.pop()]
            if s.kind == "label":
                self.keep_symbol(s.op)
                self.done.add(s.op)
            for ref in s.refs():  # follow references to a fixed point
                self.resolve(ref)
        return sorted(self.kept)


def _own_body(idx: SymbolIndex, name: str) -> tuple[int, int, int, bool]:
    """(label index, start, end, has .size) of `name`, or FunctionMissing."""
    stmts = idx.p.stmts
    if name not in idx.defs or stmts[idx.defs[name]].kind != "label":
        raise _missing(idx, name)
    if name in idx.types and not idx.is_function(name):
        raise _missing(idx, name)
    li = idx.defs[name]
    owner = idx.owner(li)
    if owner not in (None, name):
        raise FunctionMissing(
            name,
            "absent",
            f"`{name}` is a part of `{owner}` (emitted inside its body, e.g. "
            f"its .cold section); cut `{owner}` instead.",
        )
    start, end, has_size = idx.function_range(name)
    return li, start, end, has_size


def _declarations(idx: SymbolIndex, name: str, li: int, order: list[int], start: int, end: int, has_size: bool):
    """The lines the cut adds so that it defines `name` as a global function of its size: (sort key, Stmt)
    pairs, and notes for the user."""
    stmts = idx.p.stmts
    sec, syntax = stmts[li].section, stmts[li].syntax
    extra: list[tuple[tuple[int, int], Stmt]] = []
    notes = []
    if not idx.is_global(name):
        g = _synthetic(".globl", name, sec, syntax)
        if name in idx.types:  # compiler output: the C function was static
            g.text += "\t# static in the original; made global in the cut"
            notes.append(f"`{name}` is static (local) in the original; the cut makes it global.")
        extra.append(((li, -2), g))
    if name not in idx.types:
        extra.append(((li, -1), _synthetic(".type", f"{name}, @function", sec, syntax)))
    if not has_size:
        last = max(i for i in order if start <= i <= end and stmts[i].section == sec)
        extra.append(((last, 1), _synthetic(".size", f"{name}, .-{name}", sec, syntax)))
    return extra, notes


def _sections(kept: list[Stmt]) -> list[str]:
    sections: list[str] = []
    for s in kept:
        if s.needs_section() and s.section not in sections:
            sections.append(s.section)
        elif s.op in (".comm", ".lcomm") and ".bss" not in sections:
            sections.append(".bss")
    return sections


def _cut(idx: SymbolIndex, name: str, *, lenient: bool) -> AsmFunction:
    stmts = idx.p.stmts
    li, start, end, has_size = _own_body(idx, name)
    reach = _Reach(idx)
    order = reach.run(name, start, end)
    if lenient and not cfi_balanced([stmts[i] for i in order]):
        order = [i for i in order if not stmts[i].op.startswith(".cfi_")]
    extra, notes = _declarations(idx, name, li, order, start, end, has_size)

    # report names in the order the kept text first mentions them
    mentioned = [r for i in order for r in stmts[i].refs()]

    def first_mentioned(names: list[str]) -> list[str]:
        return sorted(names, key=lambda n: _first(mentioned, n))

    kept = [s for _, s in sorted([((i, 0), stmts[i]) for i in order] + extra, key=lambda t: t[0])]
    has_cold = any(s.kind == "label" and re.search(r"\.cold(\.\d+)?$", s.op) for s in kept)
    return AsmFunction(
        name,
        _emit(idx.p, kept, name, notes),
        first_mentioned(reach.local_calls),
        first_mentioned(reach.external),
        _sections(kept),
        has_cold,
        first_mentioned(reach.local_objects),
    )


def _first(seq: list[str], name: str) -> int:
    return seq.index(name) if name in seq else len(seq)


def _synthetic(op: str, args: str, section: str, syntax: str) -> Stmt:
    return Stmt(-1, "directive", op, args, f"{op}\t{args}", section, syntax)


def _emit(p: Parsed, stmts: list[Stmt], name: str, notes: list[str]) -> str:
    out = [f"# supercoder_lsp: `{name}` cut with everything it references"]
    out += [f"# {n}" for n in notes]
    section, syntax = None, ATT
    for s in stmts:
        if s.needs_section() and s.section != section:
            section = s.section
            out.append("\t" + p.section_directives.get(section, f".section\t{section}"))
        if s.syntax != syntax:
            syntax = s.syntax
            out.append("\t" + syntax)
        out.append(s.text if s.kind == "label" else "\t" + s.text)
    if syntax != ATT:
        out.append("\t" + ATT)
    out.append('\t.section\t.note.GNU-stack,"",@progbits')
    return "\n".join(out) + "\n"


# --- renaming ----------------------------------------------------------------


def rename_symbols(text: str, mapping: dict[str, str]) -> str:
    """Rename whole symbol tokens in code (never inside strings or comments)."""
    if not mapping:
        return text

    def sub(m: re.Match) -> str:
        return mapping.get(m.group(0), m.group(0))

    return "".join(IDENT_RE.sub(sub, piece) if kind == "code" else piece for kind, piece in code_segments(text))


def rename_local_labels(text: str, prefix: str) -> str:
    """Rename every `.L*` label: `.L25` -> `.L{prefix}25`, `.LC0` -> `.L{prefix}C0`.

    Two cuts renamed with different prefixes can be assembled in one file.
    Strings and comments are left alone.
    """
    if not re.fullmatch(r"[\w.$]*", prefix):
        raise ValueError(f"label prefix {prefix!r} must be made of letters, digits, _ . $")

    def sub(m: re.Match) -> str:
        tok = m.group(0)
        return ".L" + prefix + tok[2:] if tok.startswith(".L") else tok

    return "".join(IDENT_RE.sub(sub, piece) if kind == "code" else piece for kind, piece in code_segments(text))
