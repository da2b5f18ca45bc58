"""Lex and parse GNU as (x86-64, AT&T or Intel) text into statements.

Each statement remembers the section and the syntax mode in force where it
stood, so a subset of statements can be written back out in order with the
section switches recomputed (see cut.py).  Section and syntax directives are
therefore state, not statements; `.file`/`.ident`/`.loc`/`.addrsig` and
anything inside debug or note sections are dropped while parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

ATT = ".att_syntax prefix"

ALIGN_DIRECTIVES = frozenset({".align", ".p2align", ".balign", ".p2alignw", ".p2alignl", ".balignw", ".balignl"})
DATA_DIRECTIVES = frozenset(
    """.byte .short .word .hword .value .int .long .quad .octa .2byte .4byte .8byte
    .dc .dc.a .dc.b .dc.w .dc.l .dc.d .dc.s .dc.x .string .string8 .string16 .string32
    .string64 .asciz .ascii .zero .skip .space .fill .float .single .double .tfloat
    .uleb128 .sleb128 .base64 .incbin .reloc .nops""".split()
)
# Directives whose first operand names the symbol they are about; they travel
# with that symbol's definition.
KEYED_DIRECTIVES = frozenset(
    {".globl", ".global", ".local", ".weak", ".hidden", ".protected", ".internal", ".type", ".size"}
)
GLOBAL_DIRECTIVES = frozenset({".globl", ".global", ".weak"})
DEFINE_DIRECTIVES = frozenset({".comm", ".lcomm", ".set", ".equ", ".equiv"})
DROP_DIRECTIVES = frozenset(
    {".file", ".ident", ".loc", ".loc_mark_labels", ".addrsig", ".addrsig_sym", ".cfi_sections"}
)
_DROPPED_SECTIONS = (
    ".debug",
    ".note.GNU-stack",
    ".comment",
    ".llvm_addrsig",
    ".note.gnu.property",
    ".gnu.lto",
    ".llvm.",
)

_LABEL_RE = re.compile(r"^\s*([A-Za-z_.$][\w.$]*|\d+)\s*:(?!:)")
_ASSIGN_RE = re.compile(r"^\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*(.*)$")
IDENT_RE = re.compile(r"(?<![\w.%@])[A-Za-z_.][\w.$]*")
DOT_RE = re.compile(r"(?<![\w.$])\.(?![\w.$])")

_INTEL_WORDS = frozenset(
    "byte word dword qword tbyte oword xmmword ymmword zmmword fword ptr offset flat short near far"
    " rip eip st bcst".split()
)
_REG_RE = re.compile(
    r"^(r\d+[dwb]?|[re]?(ax|bx|cx|dx|si|di|sp|bp|ip)|[abcd][lh]|sil|dil|spl|bpl|[xyz]?mm\d+|k[0-7]"
    r"|st\(?\d?\)?|cr\d+|dr\d+|[c-gs]s)$",
    re.I,
)


def code_segments(text: str):
    """Yield (kind, piece) with kind in {"code", "string", "comment"}; pieces join back to text.

    `#` starts a comment (x86 GNU as), `/* */` is a block comment; "strings" and
    'c character constants are never treated as code.
    """
    i, n, start = 0, len(text), 0
    while i < n:
        c = text[i]
        if c == '"':
            if i > start:
                yield "code", text[start:i]
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            yield "string", text[i:j]
            i = start = j
        elif c == "'":
            j = min(i + (3 if i + 1 < n and text[i + 1] == "\\" else 2), n)
            i = j  # stays inside the code piece
        elif c == "#" or text.startswith("/*", i):
            if i > start:
                yield "code", text[start:i]
            if c == "#":
                j = text.find("\n", i)
                j = n if j < 0 else j
            else:
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
            yield "comment", text[i:j]
            i = start = j
        else:
            i += 1
    if start < n:
        yield "code", text[start:]


def _raw_statements(text: str):
    """Split comment-free text into statements on newlines and `;` outside strings."""
    buf: list[str] = []
    for kind, piece in code_segments(text):
        if kind == "comment":
            buf.append("\n" * piece.count("\n") or " ")
            continue
        if kind == "string":
            buf.append(piece)
            continue
        parts = re.split(r"[\n;]", piece)
        for k, part in enumerate(parts):
            if k:
                yield "".join(buf).strip()
                buf = []
            buf.append(part)
    yield "".join(buf).strip()


def split_args(args: str) -> list[str]:
    """Split operands on commas that are outside strings and parentheses."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote = 0, False
    for i, c in enumerate(args):
        if c == '"' and (i == 0 or args[i - 1] != "\\"):
            quote = not quote
        elif not quote and c in "([{":
            depth += 1
        elif not quote and c in ")]}":
            depth -= 1
        elif not quote and c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    out.append("".join(cur).strip())
    return out


@dataclass
class Stmt:
    index: int
    kind: str  # "label" | "directive" | "insn"
    op: str  # label name, directive name (lower case, with dot) or mnemonic
    args: str
    text: str
    section: str  # name of the section in force
    syntax: str  # ATT or the `.intel_syntax ...` directive in force

    @property
    def intel(self) -> bool:
        return self.syntax.startswith(".intel")

    @property
    def key(self) -> str | None:
        """The symbol a keyed or defining directive is about."""
        if self.kind == "directive" and (self.op in KEYED_DIRECTIVES or self.op in DEFINE_DIRECTIVES):
            return split_args(self.args)[0].strip('"') if self.args else None
        return None

    def needs_section(self) -> bool:
        """Whether this statement must be written inside its own section."""
        if self.kind != "directive":
            return True
        if self.op in KEYED_DIRECTIVES or self.op in DEFINE_DIRECTIVES:
            return bool(DOT_RE.search(self.args))
        return True

    def refs(self) -> list[str]:
        """Symbols this statement references (not the ones it is keyed to or defines)."""
        if self.kind == "label" or self.op in KEYED_DIRECTIVES:
            return []
        args = self.args
        if self.op in (".comm", ".lcomm"):
            return []
        if self.op in (".set", ".equ", ".equiv"):
            args = ",".join(split_args(args)[1:])
        elif self.op.startswith(".cfi_") and self.op not in (".cfi_personality", ".cfi_lsda"):
            return []
        elif self.op in ALIGN_DIRECTIVES:
            return []
        code = "".join(p for k, p in code_segments(args) if k == "code")
        out = []
        for m in IDENT_RE.finditer(code):
            tok = m.group(0)
            if tok == "." or re.match(r"\.\d", tok):
                continue
            if self.intel and (tok.lower() in _INTEL_WORDS or _REG_RE.match(tok)):
                continue
            if tok not in out:
                out.append(tok)
        return out


@dataclass
class Parsed:
    stmts: list[Stmt]
    section_directives: dict[str, str] = field(default_factory=dict)  # name -> directive


def _section_name(args: str) -> str:
    first = split_args(args)[0] if args else ""
    return first.split()[0].strip('"') if first.strip() else ""


def _dropped(section: str) -> bool:
    return section.startswith(_DROPPED_SECTIONS)


def parse(text: str) -> Parsed:
    """Parse assembly text (CRLF tolerated) into statements."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    stmts: list[Stmt] = []
    directives: dict[str, str] = {".text": ".text"}
    current, previous, stack = ".text", ".text", []
    syntax = ATT

    def switch(name: str, directive: str):
        nonlocal current, previous
        if name != current:
            previous, current = current, name
        known = directives.get(name)
        if known is None or ("," in directive and "," not in known):
            directives[name] = directive

    for raw in _raw_statements(text):
        while raw:
            m = _LABEL_RE.match(raw)
            if not m:
                break
            if not _dropped(current):
                stmts.append(Stmt(len(stmts), "label", m.group(1), "", m.group(1) + ":", current, syntax))
            raw = raw[m.end() :].strip()
        if not raw:
            continue
        m = _ASSIGN_RE.match(raw)
        if m:  # `x = expr` is `.set x, expr`
            raw = f".set\t{m.group(1)}, {m.group(2)}"
        parts = raw.split(None, 1)
        op, args = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if op.startswith("."):
            low = op.lower()
            if low in (".text", ".data", ".bss"):
                switch(low, raw)
                continue
            if low in (".section", ".pushsection"):
                name = _section_name(args)
                if low == ".pushsection":
                    stack.append(current)
                switch(name, f".section\t{args}")
                continue
            if low == ".popsection":
                if stack:
                    name = stack.pop()
                    switch(name, directives.get(name, ".text"))
                continue
            if low == ".previous":
                switch(previous, directives.get(previous, ".text"))
                continue
            if low == ".intel_syntax":
                syntax = raw
                continue
            if low == ".att_syntax":
                syntax = ATT
                continue
            if low in DROP_DIRECTIVES or _dropped(current):
                continue
            stmts.append(Stmt(len(stmts), "directive", low, args, raw, current, syntax))
        elif not _dropped(current):
            stmts.append(Stmt(len(stmts), "insn", op.lower(), args, raw, current, syntax))
    return Parsed(stmts, directives)
