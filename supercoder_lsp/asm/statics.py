"""File-static data that a cut function shares with the rest of its file."""

from __future__ import annotations

import re
from pathlib import Path

from .elfcheck import inspect_object


def shared_statics(file_asm: str, cut, obj: Path) -> list[str]:
    """Writable local data the cut carries that other code of the file also uses: a
    replacement in its own object would get its own copy of it. Const data is not shared state:
    a copy holds the same values for good (`.rodata`, and `.data.rel.ro`, where a const table
    with function pointers lives, such as zlib's configuration_table)."""
    if not cut.local_objects:
        return []
    syms = inspect_object(obj).locals
    out = []
    for name in cut.local_objects:
        info = syms.get(name)
        if info is None or not info.section.startswith((".data", ".bss", "COMMON")):
            continue
        if info.section.startswith(".data.rel.ro"):
            continue  # const data with addresses in it: read-only once relocated, so a copy is the same data
        pat = re.compile(rf"(?<![\w.$]){re.escape(name)}(?![\w$])")
        if len(pat.findall(file_asm)) > len(pat.findall(cut.text)):
            out.append(name)
    return out
