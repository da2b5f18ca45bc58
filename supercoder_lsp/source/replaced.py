"""Functions a file already carries as verified assembly (`supercoder replace`'s guarded block).

Their C stays under `#else` as the portable fallback; optimizing that copy again, or offering to
replace it a second time, would be wrong, so the language server leaves these functions alone.
"""

from __future__ import annotations

import re

MARKER = "The original C is kept below as the portable fallback."
_BLOCK = re.compile(r"/\* supercoder: [^\n]*?" + re.escape(MARKER) + r" \*/\n.*?__asm__\(\n(.*?)\n\);", re.S)
_GLOBL = re.compile(r'"\\t\.globl\\t([A-Za-z_]\w*)\\n"')


def replaced_functions(text: str) -> set[str]:
    """Names defined by supercoder's __asm__ blocks in this source text."""
    return {name for m in _BLOCK.finditer(text) for name in _GLOBL.findall(m.group(1))}
