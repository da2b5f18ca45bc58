"""Turn a definition into a prototype, and take definitions out of a file.

Used to build a program whose copy of a function comes from another object
(the candidate assembly): the definition is replaced by its prototype, and
`static`/`inline` are dropped so the call resolves to an external symbol.
"""

from __future__ import annotations

import re

from ..model import CFunction
from .parse import find_function, parse_functions, parse_tree
from .positions import decode, encode

STRIP_WORDS = frozenset({"static", "inline", "__inline", "__inline__", "__forceinline"})
_WORD = re.compile(r"[A-Za-z_]\w*")


def _code_chars(text: str):
    """Yield (index, char, depth) for each character of C code outside comments and literals.

    depth counts open (, [ and { before the character.
    """
    i, n, depth = 0, len(text), 0
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        if ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in ")]}":
            depth = max(0, depth - 1)
        yield i, ch, depth
        if ch in "([{":
            depth += 1
        i += 1


def _header(fn: CFunction, source_bytes: bytes) -> str:
    """Source text from the start of the definition to the last code character before the body."""
    header = decode(source_bytes[fn.start_byte : fn.body_start_byte])
    last = -1
    for i, ch, _ in _code_chars(header):
        if not ch.isspace():
            last = i
    return header[: last + 1]


def _strip_specifiers(header: str) -> str:
    """Remove static/inline words that sit outside parentheses, comments and literals."""
    code = {i for i, _, depth in _code_chars(header) if depth == 0}
    out, pos = [], 0
    for m in _WORD.finditer(header):
        if m.group() in STRIP_WORDS and m.start() in code:
            out.append(header[pos : m.start()])
            pos = m.end()
            while pos < len(header) and header[pos] in " \t":
                pos += 1
    out.append(header[pos:])
    return "".join(out)


def declaration_of(fn: CFunction, source_bytes: bytes, *, make_extern: bool = False) -> str:
    """The definition's header as a prototype ending with ';'.

    e.g. `__attribute__((noinline)) int f(uint64_t x);`.  Trailing comments
    before the body are dropped; newlines inside the header are kept.  With
    make_extern, `static` and `inline` specifiers are removed.
    """
    header = _header(fn, source_bytes)
    if make_extern:
        header = _strip_specifiers(header)
    return header + ";"


def _locate(source_bytes: bytes, fn: CFunction) -> CFunction:
    """`fn` itself if its offsets still match the source, else the same-named definition."""
    if decode(source_bytes[fn.start_byte : fn.end_byte]) == fn.text:
        return fn
    again = find_function(parse_functions(source_bytes), fn.name)
    if again is None:
        raise ValueError(f"function {fn.name!r} is not defined in this source")
    return again


def _other_declarations(source_bytes: bytes, name: str) -> list[tuple[int, int]]:
    """Byte spans of top-level declarations (prototypes) of `name`."""
    spans = []
    root = parse_tree(source_bytes).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "declaration":
            decl = node.child_by_field_name("declarator")
            while decl is not None and decl.type in (
                "pointer_declarator",
                "parenthesized_declarator",
                "attributed_declarator",
            ):
                decl = decl.child_by_field_name("declarator") or (
                    decl.named_children[0] if decl.named_children else None
                )
            if decl is not None and decl.type == "function_declarator":
                ident = decl.child_by_field_name("declarator")
                if ident is not None and ident.type == "identifier" and decode(ident.text or b"") == name:
                    spans.append((node.start_byte, node.end_byte))
        elif node.type in (
            "translation_unit",
            "preproc_if",
            "preproc_ifdef",
            "preproc_else",
            "preproc_elif",
            "preproc_elifdef",
            "linkage_specification",
            "declaration_list",
        ):
            stack.extend(node.children)
    return spans


def remove_definition(source: str, fn: CFunction, *, make_extern: bool = True) -> str:
    """`source` with `fn`'s definition replaced by its prototype.

    Newlines of the removed body are kept so later lines keep their numbers.
    With make_extern, `static`/`inline` are stripped from the prototype and
    from other prototypes of the same function, so that the symbol is
    resolved from another object at link time.
    """
    data = encode(source)
    fn = _locate(data, fn)
    proto = declaration_of(fn, data, make_extern=make_extern)
    removed = decode(data[fn.start_byte : fn.end_byte])
    proto += "\n" * max(0, removed.count("\n") - proto.count("\n"))
    edits = [(fn.start_byte, fn.end_byte, proto)]
    if make_extern:
        for start, end in _other_declarations(data, fn.name):
            decl = decode(data[start:end])
            edits.append((start, end, _strip_specifiers(decl)))
    out = data
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + encode(new) + out[end:]
    return decode(out)


def apply_body_change(source: str, name: str, change_text: str) -> str:
    """The source with `name`'s body replaced by a synthesized one (SourceChange kind "body"): its
    `__attribute__` lines go before the definition, the braced rest replaces the body."""
    source_bytes = encode(source)
    fn = find_function(parse_functions(source), name)
    if fn is None:
        raise ValueError(f"no definition of {name} in the file")
    lines = change_text.splitlines()
    attrs = [ln for ln in lines if ln.startswith("__attribute__")]
    body = "\n".join(ln for ln in lines if not ln.startswith("__attribute__"))
    head = decode(source_bytes[: fn.start_byte])
    definition = decode(source_bytes[fn.start_byte : fn.body_start_byte])
    tail = decode(source_bytes[fn.end_byte :])
    return head + "".join(a + "\n" for a in attrs) + definition + body + tail
