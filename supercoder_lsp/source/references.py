"""Where a function's name is used in a project's sources: a call, its address taken, a macro that names it.

The project's own programs are run to record a function's calls; where no file of the project names the
function outside its own definition and its declarations, none of them can call it, and running them
records nothing (lz4's LZ4_compress_forceExtDict, there for a benchmark outside the build: 5 s of its
first result, the project built and lz4cli run for nothing). Conservative: every mention that is not a
declaration, a comment or a string counts, a macro's body included; a name built by token pasting is
not seen (its calls are then not recorded, as where a project has no programs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .parse import parse_tree

MAX_BYTES = 4 << 20  # a generated file larger than this is taken to name it, unread
NEWLINE = b"\n"
_IGNORED = frozenset({"comment", "string_content", "string_literal", "char_literal", "system_lib_string"})


def first_use(
    names: Iterable[str], files: Iterable[Path], own: Path | None = None, own_span: tuple[int, int] = (0, 0)
) -> str | None:
    """The first of `files` (as "file:line") that uses one of `names` other than to declare or define it,
    outside the bytes own_span of `own` (the function's definition), or None where none does."""
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names if n) + rb")\b")
    for f in files:
        try:
            if f.stat().st_size > MAX_BYTES:
                return str(f)
            data = f.read_bytes()
        except OSError:
            continue
        hits = [m.span() for m in pattern.finditer(data)]
        if own is not None and f.resolve() == own.resolve():
            hits = [(s, e) for s, e in hits if not (own_span[0] <= s and e <= own_span[1])]
        if not hits:
            continue
        root = parse_tree(data).root_node
        for s, e in hits:
            node = root.descendant_for_byte_range(s, e)
            if node is None or _declares(node):
                continue
            return f"{f}:{data.count(NEWLINE, 0, s) + 1}"
    return None


def _declares(node) -> bool:
    """Whether the name at `node` is no use: in a comment or a string, or the name a declarator declares
    (a prototype, the definition itself)."""
    at = node
    while at is not None:
        if at.type in _IGNORED:
            return True
        at = at.parent
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_declarator":
        parent = parent.parent
    return node.type == "identifier" and parent is not None and parent.type == "function_declarator"
