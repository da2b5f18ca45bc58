"""Byte offsets <-> LSP positions.

tree-sitter reports byte offsets into the UTF-8 encoded text; LSP wants a
0-based line and a column counted in UTF-16 code units.  `LineIndex` does the
conversion from the encoded bytes themselves, so it never trusts tree-sitter's
byte-based columns.  Lines are split on "\\n" only (a "\\r\\n" line ends up with
the "\\r" as its last character, which never matters for positions inside it).
"""

from __future__ import annotations

from bisect import bisect_right

from ..model import Position, Range

ENCODING_ERRORS = "surrogatepass"  # lets lone surrogates in a str round-trip


def encode(text: str | bytes) -> bytes:
    """The UTF-8 bytes that all byte offsets in this package refer to."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    return text.encode("utf-8", ENCODING_ERRORS)


def decode(data: bytes) -> str:
    """Decode bytes produced by `encode` (or arbitrary bytes, lossily)."""
    try:
        return data.decode("utf-8", ENCODING_ERRORS)
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")


def utf16_len(s: str) -> int:
    """Number of UTF-16 code units needed for `s`."""
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


class LineIndex:
    """Maps byte offsets of one encoded document to LSP positions."""

    def __init__(self, data: bytes):
        self.data = data
        self.line_starts = [0]
        i = data.find(b"\n")
        while i != -1:
            self.line_starts.append(i + 1)
            i = data.find(b"\n", i + 1)

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.data)))
        line = bisect_right(self.line_starts, offset) - 1
        start = self.line_starts[line]
        return Position(line, utf16_len(decode(self.data[start:offset])))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))
