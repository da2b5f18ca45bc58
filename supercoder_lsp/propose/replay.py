"""Replay proposer: candidates from files.

`--candidates DIR` holds DIR/<function>/*.s: each file the replacement
assembly for that function (from .globl/.type to .size), or a whole
translation unit's .s as the SuperCoder model emits it, from which the
function is taken out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from ..asm.cut import normalize_candidate
from ..model import Candidate
from .base import ProposalRequest


class ReplayProposer:
    name = "replay"
    refinable = False
    note: str | None = None

    def __init__(self, directory: str | Path):
        self.dir = Path(directory)
        if not self.dir.is_dir():
            raise FileNotFoundError(
                f"candidates directory '{self.dir}' does not exist; it must hold <function>/<label>.s files"
            )

    def files(self, function: str) -> list[Path]:
        d = self.dir / function
        return sorted(d.glob("*.s")) if d.is_dir() else []

    def settings(self) -> dict:
        h = hashlib.sha256()
        for f in sorted(self.dir.rglob("*.s")):
            h.update(str(f.relative_to(self.dir)).encode())
            h.update(f.read_bytes())
        return {"name": self.name, "dir": str(self.dir.resolve()), "content": h.hexdigest()}

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        name = request.function.name
        for f in self.files(name)[:n]:
            text = f.read_text(errors="replace")
            origin = f"replay:{f}"
            try:
                cut = normalize_candidate(text, name)
            except ValueError as e:
                yield Candidate(name, text, origin, f.stem, problem=str(e))
                continue
            yield Candidate(name, cut.text, origin, f.stem)
