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

import bisect
import functools
import re
from dataclasses import dataclass, field

from .parse import (
    ALIGN_DIRECTIVES,
    ATT,
    DATA_DIRECTIVES,
    GLOBAL_DIRECTIVES,
    IDENT_RE,
    KEYED_DIRECTIVES,
    Parsed,
    Stmt,
    code_segments,
    parse,
    split_args,
)

__all__ = [
    "AsmFunction",
    "FunctionMissing",
    "cut_function",
    "list_functions",
    "normalize_candidate",
    "rename_local_labels",
    "rename_symbols",
]

_FUNC_TYPES = ("@function", "%function", "stt_func", '"function"')
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


# --- symbol table -------------------------------------------------------------


class _Index:
    """Where each symbol of a parsed file is defined, typed, declared global."""

    def __init__(self, p: Parsed):
        self.p = p
        self.defs: dict[str, int] = {}  # label / .comm / .set -> statement index
        self.keyed: dict[str, list[int]] = {}
        self.globals: set[str] = set()
        self.locals: set[str] = set()
        self.types: dict[str, str] = {}
        self.type_order: list[str] = []
        for s in p.stmts:
            if s.kind == "label":
                self.defs.setdefault(s.op, s.index)
                continue
            key = s.key
            if key is None:
                continue
            if s.op in (".comm", ".lcomm", ".set", ".equ", ".equiv"):
                self.defs.setdefault(key, s.index)
                if s.op == ".lcomm":
                    self.locals.add(key)
                continue
            self.keyed.setdefault(key, []).append(s.index)
            if s.op in GLOBAL_DIRECTIVES:
                for a in split_args(s.args):
                    self.globals.add(a.strip('"'))
            elif s.op == ".local":
                self.locals.add(key)
            elif s.op == ".type":
                args = split_args(s.args)
                t = args[1].strip().lower() if len(args) > 1 else ""
                self.types[key] = "function" if t in _FUNC_TYPES else t.lstrip("@%").strip('"')
                if key not in self.type_order:
                    self.type_order.append(key)
        self._ranges: dict[str, tuple[int, int, bool]] = {}
        self._tops: list[tuple[int, int, str]] | None = None

    def is_global(self, name: str) -> bool:
        if name in self.locals:
            return False
        if name in self.globals:
            return True
        s = self.p.stmts[self.defs[name]] if name in self.defs else None
        return bool(s and s.op == ".comm")  # `.comm` without `.local` is a global common

    def is_function(self, name: str) -> bool:
        return self.types.get(name) == "function"

    # -- function ranges --

    def preamble_start(self, i: int, name: str) -> int:
        """Walk back from label i over alignment and directives keyed to `name`."""
        stmts, sec = self.p.stmts, self.p.stmts[i].section
        while i > 0:
            s = stmts[i - 1]
            if s.kind == "directive" and (
                (s.op in ALIGN_DIRECTIVES and s.section == sec) or (s.key == name and s.op in KEYED_DIRECTIVES)
            ):
                i -= 1
            else:
                break
        return i

    def function_range(self, name: str) -> tuple[int, int, bool]:
        """(first, last, has_size) statement indices of a function's body."""
        if name in self._ranges:
            return self._ranges[name]
        stmts, li = self.p.stmts, self.defs[name]
        start = self.preamble_start(li, name)
        end, has_size = None, False
        for k in self.keyed.get(name, []):
            if k > li and stmts[k].op == ".size":
                end, has_size = k, True
                break
        if end is None:  # no .size: up to the next function's preamble, or the end
            end = len(stmts) - 1
            for j in range(li + 1, len(stmts)):
                s = stmts[j]
                if (
                    s.kind == "label"
                    and not s.op.startswith(".L")
                    and not s.op.startswith(name + ".cold")
                    and (self.is_function(s.op) or s.op in self.globals)
                ):
                    end = self.preamble_start(j, s.op) - 1
                    break
        depth = sum(_cfi_delta(stmts[j]) for j in range(start, end + 1))
        while depth > 0 and end + 1 < len(stmts):
            end += 1
            depth += _cfi_delta(stmts[end])
        self._ranges[name] = (start, end, has_size)
        return self._ranges[name]

    def owner(self, i: int) -> str | None:
        """The function whose body holds statement i, if any."""
        if self._tops is None:
            tops: list[tuple[int, int, str]] = []
            funcs = sorted(
                (self.defs[n], n)
                for n in self.types
                if self.is_function(n) and n in self.defs and self.p.stmts[self.defs[n]].kind == "label"
            )
            for li, n in funcs:
                if tops and tops[-1][0] <= li <= tops[-1][1]:
                    continue  # e.g. f.cold inside f's body
                a, b, _ = self.function_range(n)
                tops.append((a, b, n))
            self._tops = tops
        k = bisect.bisect_right([t[0] for t in self._tops], i) - 1
        if k >= 0 and self._tops[k][0] <= i <= self._tops[k][1]:
            return self._tops[k][2]
        return None

    def data_unit(self, li: int) -> list[int]:
        """Alignment + label + data directives (+ keyed lines) of a data label."""
        stmts, name = self.p.stmts, self.p.stmts[li].op
        sec = stmts[li].section
        out = list(range(self.preamble_start(li, name), li + 1))
        seen_data = False
        for j in range(li + 1, len(stmts)):
            s = stmts[j]
            if s.needs_section() and s.section != sec:
                break
            if s.kind == "label" and not seen_data:
                out.append(j)
            elif s.kind == "directive" and s.op in DATA_DIRECTIVES:
                out.append(j)
                seen_data = True
            elif s.kind == "directive" and s.key == name and s.op in KEYED_DIRECTIVES:
                out.append(j)
            else:
                break
        return out


def _cfi_balanced(stmts: list[Stmt]) -> bool:
    depth = 0
    for s in stmts:
        depth += _cfi_delta(s)
        if depth not in (0, 1):
            return False
    return depth == 0


def _cfi_delta(s: Stmt) -> int:
    if s.kind != "directive":
        return 0
    return {".cfi_startproc": 1, ".cfi_endproc": -1}.get(s.op, 0)


# --- public API ------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _indexed(asm: str) -> _Index:
    """Parse once per text: callers often cut several functions from one file."""
    return _Index(parse(asm))


def list_functions(asm: str) -> list[str]:
    """Symbols typed @function, in the order of their `.type` directives."""
    idx = _indexed(asm)
    return [n for n in idx.type_order if idx.is_function(n)]


def _missing(idx: _Index, name: str) -> FunctionMissing:
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


def _cut(idx: _Index, name: str, *, lenient: bool) -> AsmFunction:
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

    kept: set[int] = set()
    work: list[int] = []
    done: set[str] = {name}
    local_calls: list[str] = []
    local_objects: list[str] = []
    external: list[str] = []

    def keep(indices):
        for i in indices:
            if i not in kept:
                kept.add(i)
                work.append(i)

    def keep_symbol(sym: str):
        keep(idx.keyed.get(sym, []))

    def resolve(ref: str):
        if ref in done:
            return
        done.add(ref)
        if ref not in idx.defs:
            if ref != "_GLOBAL_OFFSET_TABLE_":
                external.append(ref)
            return
        if idx.is_global(ref):
            external.append(ref)
            return
        di = idx.defs[ref]
        s = stmts[di]
        if di in kept:
            return
        if s.kind != "label":  # .comm / .lcomm / .set
            keep([di])
            keep_symbol(ref)
            if s.op in (".comm", ".lcomm"):
                local_objects.append(ref)
            return
        owner = idx.owner(di)
        if owner is not None and not idx.is_global(owner):
            a, b, _ = idx.function_range(owner)
            keep(range(a, b + 1))
            if owner not in local_calls:
                local_calls.append(owner)
        elif idx.is_function(ref):
            a, b, _ = idx.function_range(ref)
            keep(range(a, b + 1))
            local_calls.append(ref)
        else:
            keep(idx.data_unit(di))
            if not ref.startswith(".L"):
                local_objects.append(ref)

    keep(range(start, end + 1))
    keep_symbol(name)
    while work:
        s = stmts[work.pop()]
        if s.kind == "label":
            keep_symbol(s.op)
            done.add(s.op)
        for ref in s.refs():  # follow references to a fixed point
            resolve(ref)

    order = sorted(kept)
    if lenient and not _cfi_balanced([stmts[i] for i in order]):
        order = [i for i in order if not stmts[i].op.startswith(".cfi_")]

    # synthetic lines: (sort key, Stmt, comment)
    sec = stmts[li].section
    extra: list[tuple[tuple[int, int], Stmt]] = []
    notes = []
    if not idx.is_global(name):
        g = _synthetic(".globl", name, sec, stmts[li].syntax)
        if name in idx.types:  # compiler output: the C function was static
            g.text += "\t# static in the original; made global in the cut"
            notes.append(f"`{name}` is static (local) in the original; the cut makes it global.")
        extra.append(((li, -2), g))
    if name not in idx.types:
        extra.append(((li, -1), _synthetic(".type", f"{name}, @function", sec, stmts[li].syntax)))
    if not has_size:
        last = max(i for i in order if start <= i <= end and stmts[i].section == sec)
        extra.append(((last, 1), _synthetic(".size", f"{name}, .-{name}", sec, stmts[li].syntax)))

    # report names in the order the kept text first mentions them
    mentioned = [r for i in order for r in stmts[i].refs()]
    local_calls = sorted(local_calls, key=lambda n: _first(mentioned, n))
    local_objects = sorted(local_objects, key=lambda n: _first(mentioned, n))
    external = sorted(external, key=lambda n: _first(mentioned, n))
    items = sorted([((i, 0), stmts[i]) for i in order] + extra, key=lambda t: t[0])
    text = _emit(idx.p, [s for _, s in items], name, notes)
    kept_stmts = [s for _, s in items]
    sections = []
    for s in kept_stmts:
        if s.needs_section() and s.section not in sections:
            sections.append(s.section)
        elif s.op in (".comm", ".lcomm") and ".bss" not in sections:
            sections.append(".bss")
    has_cold = any(s.kind == "label" and re.search(r"\.cold(\.\d+)?$", s.op) for s in kept_stmts)
    return AsmFunction(name, text, local_calls, external, sections, has_cold, local_objects)


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
