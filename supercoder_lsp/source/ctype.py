"""C types reduced to `CType` (kind, width, signedness, pointee).

Types are first built as a small tree (`Base`, `Ptr`, `Arr`, `Fn`) -- either
from tree-sitter declarators (see parse.py) or from text (`ctype_from_text`) --
and then reduced with `to_ctype`.  The target ABI is x86-64 Linux/glibc
(LP64): long and pointers are 64 bits, plain char is signed, int_fastN_t is
64 bits for N >= 16.

Rules:
* const/volatile/restrict are ignored for classification.  The `text` of a
  top-level type drops its own qualifiers (`const int x` -> "int"), but keeps
  those of what it points to (`const char *const *` stays as written).
* A pointer is kind "pointer" only when everything it (eventually) points to is
  a known scalar or void: `char **` is a pointer, `struct s *` is "other".
* Arrays of arrays and function pointers are "other"; `long double` is
  "other"; unknown typedefs, structs, unions and enums are "other".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import CType

QUALIFIERS = frozenset(
    {
        "const",
        "volatile",
        "restrict",
        "__restrict",
        "__restrict__",
        "__const",
        "__const__",
        "__volatile",
        "__volatile__",
        "_Atomic",
        "__extension__",
        # storage classes and function specifiers carry no type information
        "static",
        "extern",
        "register",
        "auto",
        "inline",
        "__inline",
        "__inline__",
        "_Thread_local",
        "__thread",
        "thread_local",
        "_Noreturn",
        "noreturn",
    }
)
CONST_WORDS = frozenset({"const", "__const", "__const__"})

_NAMED = {
    "size_t": (64, False),
    "ssize_t": (64, True),
    "ptrdiff_t": (64, True),
    "intptr_t": (64, True),
    "uintptr_t": (64, False),
    "intmax_t": (64, True),
    "uintmax_t": (64, False),
    "wchar_t": (32, True),
    "off_t": (64, True),
}
_STDINT = re.compile(r"(?:__)?(u?)int(_least|_fast)?(8|16|32|64)_t")
_INT_WORDS = frozenset({"signed", "unsigned", "char", "short", "int", "long", "double", "float"})


# --- the type tree ------------------------------------------------------------


@dataclass(frozen=True)
class Base:
    words: tuple[str, ...]  # specifier words without qualifiers, e.g. ("unsigned", "long")
    const: bool = False
    opaque: str = ""  # text of a struct/union/enum/unparsable specifier; classifies as "other"


@dataclass(frozen=True)
class Ptr:
    sub: TypeTree
    const: bool = False  # the pointer itself is const (`* const`)


@dataclass(frozen=True)
class Arr:
    sub: TypeTree
    size: str = ""


@dataclass(frozen=True)
class Fn:
    sub: TypeTree  # the return type
    params: str = "()"


TypeTree = Base | Ptr | Arr | Fn


def classify_words(words: tuple[str, ...]) -> tuple[str, int, bool] | None:
    """(kind, bits, signed) for the words of a base type, or None if unknown."""
    if len(words) == 1:
        w = words[0]
        if w == "void":
            return ("void", 0, False)
        if w in ("_Bool", "bool"):
            return ("bool", 8, False)
        if w == "float":
            return ("float", 32, True)
        if w == "double":
            return ("float", 64, True)
        if w in _NAMED:
            bits, signed = _NAMED[w]
            return ("int", bits, signed)
        m = _STDINT.fullmatch(w)
        if m:
            bits = int(m.group(3))
            if m.group(2) == "_fast" and bits >= 16:
                bits = 64
            return ("int", bits, not m.group(1))
    if not words or any(w not in _INT_WORDS for w in words):
        return None
    n = {w: words.count(w) for w in _INT_WORDS}
    if n["signed"] and n["unsigned"] or any(n[w] > 1 for w in ("signed", "unsigned", "char", "short", "int")):
        return None
    if n["float"] or n["double"]:
        return None  # long double, "unsigned double", ...: not a scalar we handle
    signed = not n["unsigned"]
    if n["char"]:
        return ("int", 8, signed) if not (n["short"] or n["int"] or n["long"]) else None
    if n["short"]:
        return ("int", 16, signed) if not n["long"] else None
    if n["long"] > 2:
        return None
    return ("int", 64 if n["long"] else 32, signed)


def _has_compound(t: TypeTree) -> bool:
    while not isinstance(t, Base):
        if isinstance(t, (Arr, Fn)):
            return True
        t = t.sub
    return False


def _is_const(t: TypeTree) -> bool:
    return bool(getattr(t, "const", False))


def render(t: TypeTree, inner: str = "", top: bool = True) -> str:
    """C spelling of a type tree (an abstract declarator around `inner`)."""
    if isinstance(t, Base):
        base = t.opaque or " ".join(t.words)
        if t.const and not top:
            base = "const " + base
        return f"{base} {inner}" if inner else base
    if isinstance(t, Ptr):
        star = "*const" if t.const and not top else "*"
        new = star + ((" " if star.endswith("const") else "") + inner if inner else "")
        if isinstance(t.sub, (Arr, Fn)):
            new = f"({new})"
        return render(t.sub, new, top=False)
    if isinstance(t, Arr):
        return render(t.sub, f"{inner}[{t.size}]", top=False)
    return render(t.sub, f"{inner}{t.params}", top=False)


def to_ctype(t: TypeTree, top: bool = True) -> CType:
    """Reduce a type tree to a CType (see the module docstring for the rules)."""
    text = render(t, top=top)
    if isinstance(t, Base):
        cls = None if t.opaque else classify_words(t.words)
        if cls is None:
            return CType(text=text, kind="other")
        kind, bits, signed = cls
        return CType(text=text, kind=kind, bits=bits, signed=signed)
    if isinstance(t, Ptr) and not _has_compound(t):
        pointee = to_ctype(t.sub, top=False)
        if pointee.kind != "other":
            return CType(text=text, kind="pointer", bits=64, pointee=pointee, const=_is_const(t.sub))
    return CType(text=text, kind="other")


def decay(t: TypeTree) -> TypeTree:
    """Parameter adjustment: `T a[]` is `T *a`, a function parameter is a function pointer."""
    if isinstance(t, Arr):
        return Ptr(t.sub)
    if isinstance(t, Fn):
        return Ptr(t)
    return t


# --- from text ------------------------------------------------------------------

_TOKEN = re.compile(r"\*|[A-Za-z_]\w*|\S")


def tree_from_text(text: str) -> TypeTree | None:
    """Parse `[qualifiers] base-words {* [qualifiers]}`; None for anything fancier."""
    tokens = _TOKEN.findall(text)
    if not tokens or any(not (tok == "*" or tok[0].isalpha() or tok[0] == "_") for tok in tokens):
        return None
    segments: list[list[str]] = [[]]
    for tok in tokens:
        if tok == "*":
            segments.append([])
        else:
            segments[-1].append(tok)
    head = segments[0]
    words = tuple(w for w in head if w not in QUALIFIERS)
    if not words:
        return None
    if words[0] in ("struct", "union", "enum"):
        t: TypeTree = Base((), any(w in CONST_WORDS for w in head), opaque=" ".join(words))
    else:
        t = Base(words, any(w in CONST_WORDS for w in head))
    for seg in segments[1:]:
        if any(w not in QUALIFIERS for w in seg):
            return None  # a name after the stars: not a bare type
        t = Ptr(t, any(w in CONST_WORDS for w in seg))
    return t


def ctype_from_text(text: str) -> CType:
    """Classify a C type written as text, e.g. "const unsigned char *" or "int_fast16_t".

    Types with brackets or parentheses (arrays, function pointers) are "other".
    """
    t = tree_from_text(text)
    if t is None:
        return CType(text=" ".join(text.split()), kind="other")
    return to_ctype(t)
