"""The symbol table of a parsed `.s`: where each symbol is defined, typed, declared
global; which function owns a statement; what block of data a label heads. The cut
(cut.py) follows references through it."""

from __future__ import annotations

import bisect

from .parse import (
    ALIGN_DIRECTIVES,
    DATA_DIRECTIVES,
    GLOBAL_DIRECTIVES,
    KEYED_DIRECTIVES,
    Parsed,
    Stmt,
    split_args,
)

FUNC_TYPES = ("@function", "%function", "stt_func", '"function"')


class SymbolIndex:
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
                self.types[key] = "function" if t in FUNC_TYPES else t.lstrip("@%").strip('"')
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
        depth = sum(cfi_delta(stmts[j]) for j in range(start, end + 1))
        while depth > 0 and end + 1 < len(stmts):
            end += 1
            depth += cfi_delta(stmts[end])
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


def cfi_balanced(stmts: list[Stmt]) -> bool:
    depth = 0
    for s in stmts:
        depth += cfi_delta(s)
        if depth not in (0, 1):
            return False
    return depth == 0


def cfi_delta(s: Stmt) -> int:
    if s.kind != "directive":
        return 0
    return {".cfi_startproc": 1, ".cfi_endproc": -1}.get(s.op, 0)
