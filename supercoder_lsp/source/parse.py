"""Find C function definitions with tree-sitter-c.

`parse_functions(text)` returns one `CFunction` per function_definition node,
wherever it sits (top level, inside #if/#ifdef/#else blocks, inside ERROR
nodes of a half-typed file).  It never raises on bad input.

Offsets: `start_byte`, `end_byte` and `body_start_byte` index the UTF-8
encoding of the text, i.e. `text.encode("utf-8", "surrogatepass")` (or the
bytes themselves when bytes are passed).  `range`/`name_range` are LSP
positions: 0-based lines and UTF-16 code-unit columns.
"""

from __future__ import annotations

import re
from functools import lru_cache

import tree_sitter
import tree_sitter_c

from ..model import CFunction, Param, Signature
from . import ctype as ct
from .positions import LineIndex, decode, encode

LOOPS = frozenset({"for_statement", "while_statement", "do_statement"})
INLINE_WORDS = frozenset({"inline", "__inline", "__inline__", "__forceinline"})


class Unsupported(Exception):
    """A declarator this module does not understand (signature becomes None)."""


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_c.language()))


def parse_tree(data: bytes) -> tree_sitter.Tree:
    """Parse encoded C source with tree-sitter-c."""
    return _parser().parse(data)


# --- declarators ------------------------------------------------------------------


def _unwrap(node):
    """Skip parentheses and attributes around a declarator."""
    while node is not None and node.type in (
        "parenthesized_declarator",
        "abstract_parenthesized_declarator",
        "attributed_declarator",
    ):
        inner = [
            c for c in node.named_children if c.type not in ("attribute_specifier", "attribute_declaration", "comment")
        ]
        node = inner[0] if inner else None
    return node


def _qualifier_const(node) -> bool:
    return any(c.type == "type_qualifier" and c.text.decode(errors="replace") in ct.CONST_WORDS for c in node.children)


def _base(decl_node) -> ct.Base:
    """The specifier part of a function_definition or parameter_declaration."""
    tnode = decl_node.child_by_field_name("type")
    if tnode is None or tnode.has_error:
        raise Unsupported("no type specifier")
    const = _qualifier_const(decl_node)
    text = " ".join(decode(tnode.text).split())
    if tnode.type in ("primitive_type", "sized_type_specifier", "type_identifier"):
        return ct.Base(tuple(text.split()), const)
    return ct.Base((), const, opaque=text)


def walk_declarator(node, t: ct.TypeTree, *, stop_at_function: bool = False):
    """Apply a declarator (outside in) to the type `t`.

    Returns (type, name_node).  With stop_at_function, stops at the
    function_declarator that names the function being defined and returns
    (return type, that function_declarator).
    """
    while node is not None:
        kind = node.type
        if kind == "identifier":
            return t, node
        if kind in ("pointer_declarator", "abstract_pointer_declarator"):
            t = ct.Ptr(t, _qualifier_const(node))
        elif kind in ("array_declarator", "abstract_array_declarator"):
            size = node.child_by_field_name("size")
            t = ct.Arr(t, decode(size.text) if size is not None else "")
        elif kind in ("function_declarator", "abstract_function_declarator"):
            inner = _unwrap(node.child_by_field_name("declarator"))
            if stop_at_function and inner is not None and inner.type == "identifier":
                return t, node
            params = node.child_by_field_name("parameters")
            t = ct.Fn(t, " ".join(decode(params.text).split()) if params is not None else "()")
        elif kind in ("parenthesized_declarator", "abstract_parenthesized_declarator", "attributed_declarator"):
            node = _unwrap(node)
            continue
        else:
            raise Unsupported(f"declarator {kind}")
        node = node.child_by_field_name("declarator")
    if stop_at_function:
        raise Unsupported("no function declarator")
    return t, None


def _find_function_declarator(declarator):
    """Tolerant search for the function_declarator naming the function."""
    try:
        return walk_declarator(declarator, ct.Base(("int",)), stop_at_function=True)[1]
    except Unsupported:
        pass
    stack = [declarator]
    while stack:
        n = stack.pop()
        if n.type == "function_declarator":
            inner = _unwrap(n.child_by_field_name("declarator"))
            if inner is not None and inner.type == "identifier":
                return n
        stack.extend(reversed(n.named_children))
    return None


def _param_list(params) -> tuple[tuple[Param, ...], bool]:
    out: list[Param] = []
    variadic = False
    decls = [c for c in params.named_children if c.type != "comment"]
    for c in decls:
        if c.type == "variadic_parameter":
            variadic = True
            continue
        if c.type != "parameter_declaration" or c.has_error:
            raise Unsupported(f"parameter {c.type}")
        base = _base(c)
        t, name = walk_declarator(c.child_by_field_name("declarator"), base)
        if len(decls) == 1 and t == ct.Base(("void",)) and name is None:
            return (), False  # f(void)
        out.append(Param(decode(name.text) if name is not None else "", ct.to_ctype(ct.decay(t))))
    return tuple(out), variadic


def _signature(fn_node, fdecl) -> Signature | None:
    try:
        if _broken_header(fn_node, also=("declaration",)):
            return None  # a broken header or K&R parameter declarations
        ret_t, _ = walk_declarator(fn_node.child_by_field_name("declarator"), _base(fn_node), stop_at_function=True)
        params = fdecl.child_by_field_name("parameters")
        if params is None:
            return None
        plist, variadic = _param_list(params)
        return Signature(ret=ct.to_ctype(ret_t), params=plist, variadic=variadic)
    except (Unsupported, RecursionError, ValueError):
        return None


# --- bodies ----------------------------------------------------------------------


def loop_stats(body) -> tuple[int, int]:
    """(deepest loop nesting, calls inside loops) of a body; nested definitions are skipped."""
    depth_max = calls = 0
    stack = [(body, 0)]
    while stack:
        node, depth = stack.pop()
        kind = node.type
        if kind == "function_definition":
            continue
        if kind in LOOPS:
            depth += 1
            depth_max = max(depth_max, depth)
        elif kind == "call_expression" and depth:
            calls += 1
        stack.extend((c, depth) for c in node.children)
    return depth_max, calls


def _function(node, data: bytes, lines: LineIndex, base: int = 0) -> CFunction | None:
    """A CFunction for a function_definition node parsed from data[base:]."""
    body = node.child_by_field_name("body")
    declarator = node.child_by_field_name("declarator")
    if body is None or declarator is None:
        return None
    fdecl = _find_function_declarator(declarator)
    if fdecl is None:
        return None
    name_node = _unwrap(fdecl.child_by_field_name("declarator"))
    if name_node is None:  # a header tree-sitter could not name (xxhash.c's `static U32\nXXH_read32`): skipped
        return None
    # `XXH_PUBLIC_API XXH_errorcode XXH32_update (`: the recovery reads the macro as the type, the typedef as
    # the name, and puts the name in an error of its own before the parameters
    err = next((c for c in fdecl.children if c.type == "ERROR"), None)
    if name_node.type == "identifier" and err is not None and [c.type for c in err.children] == ["identifier"]:
        name_node = err.children[0]
    words = {decode(c.text) for c in node.children if c.type == "storage_class_specifier"}
    depth, calls = loop_stats(body)
    start, end = base + node.start_byte, base + node.end_byte
    return CFunction(
        name=decode(name_node.text),
        range=lines.range(start, end),
        name_range=lines.range(base + name_node.start_byte, base + name_node.end_byte),
        signature=_signature(node, fdecl),
        text=decode(data[start:end]),
        start_byte=start,
        end_byte=end,
        body_start_byte=base + body.start_byte,
        has_loops=depth > 0,
        loop_depth=depth,
        calls_in_loops=calls,
        is_static="static" in words,
        is_inline=bool(words & INLINE_WORDS),
    )


def _broken_header(node, also: tuple[str, ...] = ()) -> bool:
    """Whether anything before the body of a function_definition is an error (or of a type in `also`)."""
    body = node.child_by_field_name("body")
    for c in node.children:
        if body is not None and c.start_byte >= body.start_byte:
            return False
        if c.type == "ERROR" or c.is_missing or c.has_error or c.type in also:
            return True
    return False


def function_nodes(root) -> tuple[list, list[tuple[int, int, bool]]]:
    """Every function_definition node under `root` in source order, and the suspect spans.

    Suspect spans are (start, end, is_function): ERROR nodes outside function
    bodies, and definitions whose header has errors -- places where tree-sitter's
    error recovery may have swallowed or mangled definitions of a half-typed file.
    """
    found, suspects = [], []
    stack = [(root, False)]  # (node, inside a function body or an ERROR already noted)
    while stack:
        node, inside = stack.pop()
        if node.type == "function_definition":
            found.append(node)
            if _broken_header(node) and not inside:
                suspects.append((node.start_byte, node.end_byte, True))
            inside = True
        elif node.type == "ERROR" and not inside:
            suspects.append((node.start_byte, node.end_byte, False))
            inside = True
        stack.extend((c, inside) for c in node.children)
    found.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return found, suspects


_RESTART = re.compile(rb"\n(?=[A-Za-z_])")
MAX_RECOVERY_DEPTH = 8


def _scan(data: bytes, start: int, end: int, lines: LineIndex, depth: int, cache: dict) -> list[CFunction]:
    """Definitions in data[start:end]; broken regions are re-parsed from their next
    line that starts with an identifier in column 0 (where top-level code usually begins).

    `cache` maps (start, end) spans already converted to their CFunction (or None).
    """
    frag = data[start:end]
    nodes, suspects = function_nodes(parse_tree(frag).root_node)
    fns: list[CFunction] = []
    for node in nodes:
        key = (start + node.start_byte, start + node.end_byte)
        if key not in cache:
            try:
                cache[key] = _function(node, data, lines, start)
            except Exception:  # noqa: BLE001 - one odd node must not hide the others
                cache[key] = None
        if cache[key] is not None:
            fns.append(cache[key])
    if depth >= MAX_RECOVERY_DEPTH:
        return fns
    drop: set[tuple[int, int]] = set()
    for s, e, is_fn in suspects:
        after = s + 1
        whole = None if is_fn else _whole_definition(data, start + s, start + e, lines)
        if whole is not None:  # a definition whose body tree-sitter cannot parse (zlib's inflate)
            fns.append(whole)
            after = whole.end_byte - start
        m = _RESTART.search(frag, after, e)
        if m is None:
            continue
        recovered = _scan(data, start + m.end(), start + e, lines, depth + 1, cache)
        if recovered and is_fn:
            drop.add((start + s, start + e))  # its "body" belongs to a definition further down
        fns.extend(recovered)
    unique: dict[tuple[int, int, str], CFunction] = {}
    for fn in fns:
        if (fn.start_byte, fn.end_byte) not in drop:
            unique.setdefault((fn.start_byte, fn.end_byte, fn.name), fn)
    return sorted(unique.values(), key=lambda f: (f.start_byte, -f.end_byte))


_HEADER_END = re.compile(rb"\)\s*\{")
_LOOP_WORD = re.compile(rb"\b(for|while|do)\b")
_BRACE = {ord("{"): 1, ord("}"): -1}


def _skip_literal(data: bytes, i: int, end: int) -> int:
    """The offset past the comment, string or character literal at data[i], or i when there is none."""
    two = data[i : i + 2]
    if two == b"/*":
        j = data.find(b"*/", i + 2, end)
        return end if j < 0 else j + 2
    if two == b"//":
        j = data.find(b"\n", i, end)
        return end if j < 0 else j
    if data[i] in b"\"'":
        q, j = data[i], i + 1
        while j < end and data[j] != q and data[j] != ord("\n"):
            j += 2 if data[j] == ord("\\") else 1
        return j + 1
    return i


def _body_end(data: bytes, i: int, end: int) -> int | None:
    """The offset past the `}` that closes the `{` at data[i], counting braces outside comments and
    literals, and in the first branch of each #if only (an #else may open what its #if opened too)."""
    depth, skip, bol = 0, [], True
    while i < end:
        c = data[i]
        if bol and c == ord("#"):
            line_end = data.find(b"\n", i, end)
            line_end = end if line_end < 0 else line_end
            word = data[i + 1 : line_end].strip().split(b" ", 1)[0].split(b"(", 1)[0]
            if word.startswith(b"if"):
                skip.append(False)
            elif word in (b"else", b"elif") and skip:
                skip[-1] = True
            elif word == b"endif" and skip:
                skip.pop()
            i = line_end
            continue
        bol = c == ord("\n") or (bol and c in b" \t")
        j = _skip_literal(data, i, end)
        if j != i:
            i = j
            continue
        if c in _BRACE and not any(skip):
            depth += _BRACE[c]
            if depth == 0:
                return i + 1
        i += 1
    return None


def _whole_definition(data: bytes, start: int, end: int, lines: LineIndex) -> CFunction | None:
    """A definition at data[start:] that tree-sitter's error recovery swallowed because its body does
    not parse (an `if (` split across #if/#else, as zlib's inflate has): its header parsed alone, its
    end found by matching braces. Loop statistics from the words in its body."""
    m = _HEADER_END.search(data, start, end)
    if m is None or b";" in data[start : m.start()] or b"}" in data[start : m.start()]:
        return None
    brace = m.end() - 1
    body_end = _body_end(data, brace, len(data))
    if body_end is None:
        return None
    header = data[start:brace] + b"{}"
    nodes, _ = function_nodes(parse_tree(header).root_node)
    if len(nodes) != 1:  # a macro before the name (ZEXPORT) breaks the header as it does elsewhere
        return None
    fn = _function(nodes[0], header, LineIndex(header))
    if fn is None:
        return None
    name_at = start + nodes[0].child_by_field_name("declarator").start_byte
    name_at = data.find(encode(fn.name), name_at, brace)
    loops = len(_LOOP_WORD.findall(data, brace, body_end))
    return CFunction(
        name=fn.name,
        range=lines.range(start, body_end),
        name_range=lines.range(name_at, name_at + len(encode(fn.name))),
        signature=fn.signature,
        text=decode(data[start:body_end]),
        start_byte=start,
        end_byte=body_end,
        body_start_byte=brace,
        has_loops=loops > 0,
        loop_depth=min(loops, 1),
        calls_in_loops=0,
        is_static=fn.is_static,
        is_inline=fn.is_inline,
    )


def parse_functions(text: str | bytes) -> list[CFunction]:
    """All function definitions in C source `text`, in source order.

    Accepts str (offsets refer to its UTF-8 encoding) or bytes.  Never raises
    on malformed input: definitions that cannot be named are skipped, a
    definition whose declarator is not understood gets signature=None, and in a
    half-typed file definitions swallowed by tree-sitter's error recovery are
    looked for again (see `_scan`).
    """
    try:
        data = encode(text)
    except (TypeError, AttributeError):
        return []
    try:
        return _scan(data, 0, len(data), LineIndex(data), 0, {})
    except Exception:  # noqa: BLE001 - tree-sitter or recursion trouble must not break callers
        return []


def find_function(functions: list[CFunction], name: str) -> CFunction | None:
    """The first function called `name`, or None."""
    return next((f for f in functions if f.name == name), None)


def function_at(functions: list[CFunction], line: int, character: int) -> CFunction | None:
    """The function definition around a position (0-based, as LSP counts): from the first
    line of its header (attributes and return type included) to its closing brace."""
    for f in functions:
        r = f.range
        if (r.start.line, r.start.character) <= (line, character) <= (r.end.line, r.end.character):
            return f
    return None


def preprocessor_conditions(text: str | bytes, fn: CFunction) -> list[str]:
    """The `#if`/`#ifdef` lines around a definition, outermost first (`#else` branches named as such):
    why a build may not compile it."""
    data = encode(text)
    node = parse_tree(data).root_node.descendant_for_byte_range(fn.start_byte, fn.start_byte)
    out: list[str] = []
    while node is not None:
        if node.type in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"):
            head = data[node.start_byte : node.end_byte].split(b"\n", 1)[0].decode(errors="replace").strip()
            if node.type == "preproc_else" and node.parent is not None:
                parent_head = data[node.parent.start_byte : node.parent.end_byte].split(b"\n", 1)[0]
                head = f"the #else of {parent_head.decode(errors='replace').strip()}"
            out.append(head)
        node = node.parent
    return out[::-1]
