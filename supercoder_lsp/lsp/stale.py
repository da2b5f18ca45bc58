"""Replaced functions in the editor: a block whose assembly no longer stands for the C under its #else
(optimize/staleness.py) gets a Warning on its `#if` line, with the code actions *Re-verify* (the
supercoder.reverify command) and *Revert to C* (the block back to its C, as before the replacement)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from .. import build
from ..optimize.staleness import BlockState, examine
from ..source.replaced import MARKER, Block
from .present import SOURCE, text_hash

_seen: dict[str, tuple[str, list[BlockState]]] = {}  # uri -> (the text's hash, its blocks' states)


def states(uri: str, path: Path, text: str) -> list[BlockState]:
    """The replaced functions of the document and whether each stands (once per text: a compiler's
    --version and the project's flags, no build)."""
    if MARKER not in text:
        return []
    h = text_hash(text)
    got = _seen.get(uri)
    if got is None or got[0] != h:
        got = (h, examine(text, build.resolve(path)))
        _seen[uri] = got
    return got[1]


def _position(text: str, at: int) -> types.Position:
    line_start = text.rfind("\n", 0, at) + 1
    return types.Position(text.count("\n", 0, at), len(text[line_start:at].encode("utf-16-le")) // 2)


def block_range(text: str, b: Block) -> types.Range:
    """From the block's `#if` to the end of its `#endif` line."""
    return types.Range(_position(text, b.start), _position(text, b.end))


def _if_line(text: str, b: Block) -> types.Range:
    eol = text.find("\n", b.start)
    return types.Range(_position(text, b.start), _position(text, len(text) if eol < 0 else eol))


def diagnostics(uri: str, path: Path, text: str) -> list[types.Diagnostic]:
    out = []
    for st in states(uri, path, text):
        if st.status != "stale":
            continue
        message = (
            f"supercoder: the assembly of {st.block.name} no longer matches the C below it: "
            f"{'; '.join(st.reasons)}. Re-verify it, or revert to the C."
        )
        out.append(
            types.Diagnostic(
                range=_if_line(text, st.block),
                message=message,
                source=SOURCE,
                severity=types.DiagnosticSeverity.Warning,
                code="stale-replacement",
                data={"function": st.block.name},
            )
        )
    return out


def code_actions(uri: str, version: int | None, path: Path, text: str, rng: types.Range) -> list[types.CodeAction]:
    """Inside a stale replaced function's block: Re-verify, Revert to C (one that stands gets no action, as
    its C fallback gets none)."""
    out = []
    for st in states(uri, path, text):
        r = block_range(text, st.block)
        if st.status != "stale" or not (r.start.line <= rng.start.line <= r.end.line):
            continue
        name = st.block.name
        out.append(
            types.CodeAction(
                title=f"Re-verify {name}'s assembly against the C below",
                kind=types.CodeActionKind.QuickFix,
                command=types.Command(title=f"Re-verify {name}", command="supercoder.reverify", arguments=[uri, name]),
            )
        )
        edit = types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                    edits=[types.TextEdit(range=r, new_text=st.block.original)],
                )
            ]
        )
        out.append(
            types.CodeAction(
                title=f"Revert {name} to C",
                kind=types.CodeActionKind.QuickFix,
                edit=edit,
                is_preferred=True,
            )
        )
    return out
