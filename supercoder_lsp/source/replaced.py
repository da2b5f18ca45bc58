"""Functions a file already carries as verified assembly (`supercoder replace`'s guarded block).

    #if <platform and CPU-feature guard>
    /* supercoder: <note>. The original C is kept below as the portable fallback. */
    /* supercoder-evidence: {"c": ..., "cc": ..., "flags": ..., "verifier": ..., ...} */
    <prototype>;
    __asm__(...);
    #else
    <the original definition, byte for byte>
    #endif

Their C stays under `#else` as the portable fallback; optimizing that copy again, or offering to
replace it a second time, would be wrong, so the language server leaves these functions alone. The
evidence line says what was verified (a fingerprint of the C under `#else`, the compiler, flags and
verifier), so that a later change to any of them is seen (optimize/staleness.py).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from .parse import parse_functions, parse_tree

MARKER = "The original C is kept below as the portable fallback."
EVIDENCE = "supercoder-evidence:"
_BLOCK = re.compile(r"/\* supercoder: [^\n]*?" + re.escape(MARKER) + r" \*/\n.*?__asm__\(\n(.*?)\n\);", re.S)
_GLOBL = re.compile(r'"\\t\.globl\\t([A-Za-z_]\w*)\\n"')
_HEAD = re.compile(
    r"^#if [^\n]*\n/\* supercoder: (?P<note>[^\n]*?)\. " + re.escape(MARKER) + r" \*/\n"
    r"(?:/\* " + re.escape(EVIDENCE) + r" (?P<evidence>[^\n]*) \*/\n)?"
    r"(?P<proto>.*?)\n__asm__\(\n(?P<asm>.*?)\n\);\n#else\n",
    re.S | re.M,
)
_COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|endif)\b", re.M)


def replaced_functions(text: str) -> set[str]:
    """Names defined by supercoder's __asm__ blocks in this source text."""
    return {name for m in _BLOCK.finditer(text) for name in _GLOBL.findall(m.group(1))}


@dataclass(frozen=True)
class Block:
    """One replaced function: where its block lies in the text (from `#if` to the end of its `#endif`)."""

    name: str
    start: int
    end: int
    original: str  # the C under #else, as it was before the replacement
    asm_literals: str  # the __asm__ statement's string literals, as written
    evidence: dict | None  # the evidence line, None where the block has none (or it does not parse)
    note: str


def blocks(text: str) -> list[Block]:
    """Every replaced function of `text`, in order."""
    out = []
    for m in _HEAD.finditer(text):
        names = _GLOBL.findall(m["asm"])
        close = _matching_endif(text, m.end())
        if not names or close is None:
            continue
        endif_at, end = close
        try:
            evidence = json.loads(m["evidence"]) if m["evidence"] else None
        except json.JSONDecodeError:
            evidence = None
        original = text[m.end() : endif_at].removesuffix("\n")
        out.append(Block(names[0], m.start(), end, original, m["asm"], evidence, m["note"]))
    return out


def _matching_endif(text: str, at: int) -> tuple[int, int] | None:
    """Where the `#endif` that closes a block whose `#else` ends at `at` starts, and where its line ends:
    conditionals inside the original C are skipped over."""
    depth = 0
    for m in _COND.finditer(text, at):
        if m[1] != "endif":
            depth += 1
        elif depth:
            depth -= 1
        else:
            eol = text.find("\n", m.end())
            return m.start(), len(text) if eol < 0 else eol
    return None


def revert(text: str, block: Block) -> str:
    """`text` with `block` back to its C, exactly as before the replacement."""
    return text[: block.start] + block.original + text[block.end :]


def c_fingerprint(c_text: str) -> str:
    """A hash of a C definition's tokens (tree-sitter's leaves, comments left out): a change of layout,
    spacing or comments keeps it, any change of a token does not."""
    tree = parse_tree(c_text.encode("utf-8", "surrogatepass"))
    tokens: list[str] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            continue
        if node.child_count == 0:
            tokens.append(node.text.decode("utf-8", "surrogatepass") if node.text is not None else "")
        else:
            stack.extend(reversed(node.children))
    return hashlib.sha256("\x00".join(tokens).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprints(text: str) -> dict[str, str]:
    """Each function definition's c_fingerprint, by name (the C a report verified, for `supercoder apply`)."""
    data = text.encode("utf-8", "surrogatepass")
    return {
        fn.name: c_fingerprint(data[fn.start_byte : fn.end_byte].decode("utf-8", "surrogatepass"))
        for fn in parse_functions(data)
    }


def asm_fingerprint(asm_literals: str) -> str:
    """A hash of the __asm__ statement's literals as written (an edit of the verified assembly shows)."""
    return hashlib.sha256(asm_literals.strip().encode()).hexdigest()[:16]


def asm_of_literals(literals: str) -> str:
    """The assembly an __asm__ statement's C string literals hold."""
    return "\n".join(bytes(x, "utf-8").decode("unicode_escape") for x in re.findall(r'"((?:[^"\\]|\\.)*)"', literals))


def evidence_line(evidence: dict) -> str:
    """The comment line that carries `evidence` in the block."""
    return f"/* {EVIDENCE} {json.dumps(evidence, sort_keys=True).replace('*/', '* /')} */"
