"""Whether a replaced function's assembly still stands for its C (`supercoder check`, the editor's warning).

A block's evidence line (source/replaced.py) records what was verified. Against the file as it is now:
the C under `#else` (its tokens' fingerprint), the assembly as written, the compiler and flags the file
builds with, and the verifier's version. Any change makes the block stale: the assembly goes on running on
every x86-64 build while nothing checked it against the C it replaces. Re-verification (`--verify`, `--fix`)
rebuilds the file and checks the function against its C under `#else`, as `supercoder replace` did.
"""

from __future__ import annotations

import dataclasses
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .. import tools
from ..model import BuildConfig, ReplacementCheck
from ..source import parse_functions
from ..source.replaced import (
    EVIDENCE,
    Block,
    asm_fingerprint,
    asm_of_literals,
    blocks,
    c_fingerprint,
    evidence_line,
    revert,
)
from ..verify import VERIFIER_VERSION
from . import replace


@dataclass
class BlockState:
    block: Block
    status: str  # "ok", "stale" (changed since verified), "wrong" (re-verification fails), "verified" (again)
    reasons: list[str]
    detail: str = ""  # what re-verification said


def stale_reasons(block: Block, cfg: BuildConfig, cc: str) -> list[str]:
    """What changed since `block` was verified (none: it stands), `cc` the compiler's --version line now."""
    ev = block.evidence
    if ev is None:
        return ["it records no evidence (replaced by an older supercoder, or the line was removed)"]
    out = []
    if ev.get("c") != c_fingerprint(block.original):
        out.append("the C under #else changed since the assembly was verified against it")
    if ev.get("asm") != asm_fingerprint(block.asm_literals):
        out.append("the assembly was edited since it was verified")
    flags = " ".join(cfg.flags)
    if ev.get("flags") != flags:
        out.append(f"the flags changed ('{ev.get('flags')}', now '{flags}' from {cfg.source})")
    if ev.get("cc") != cc:
        out.append(f"the compiler changed ('{ev.get('cc')}', now '{cc}')")
    if ev.get("verifier") != VERIFIER_VERSION:
        out.append(
            f"it was verified by verifier {ev.get('verifier')}; this one is {VERIFIER_VERSION}, which checks more"
        )
    return out


def examine(text: str, cfg: BuildConfig) -> list[BlockState]:
    """Each replaced function of `text`: ok, or stale with the reasons (no build, no run)."""
    cc = tools.version(cfg.compiler)
    out = []
    for b in blocks(text):
        why = stale_reasons(b, cfg, cc)
        out.append(BlockState(b, "stale" if why else "ok", why))
    return out


def reverify(path: Path, text: str, block: Block, cfg: BuildConfig, n_random: int) -> ReplacementCheck:
    """The file as it is, rebuilt and its function checked against the C under `#else` (the original being
    the file with the block reverted), as `supercoder replace` checks an edit."""
    original = revert(text, block)
    fn = next((f for f in parse_functions(original) if f.name == block.name), None)
    if fn is None:
        return ReplacementCheck(False, False, f"the C under #else does not define {block.name}")
    here = dataclasses.replace(cfg, flags=(*cfg.flags, f"-iquote{path.resolve().parent}"))
    with tempfile.TemporaryDirectory(prefix="supercoder-check-") as work:
        orig = Path(work) / "original" / path.name
        orig.parent.mkdir()
        orig.write_text(original)
        return replace.check(orig, fn, text, here, Path(work) / "check", n_random=n_random)


def refreshed(text: str, block: Block, cfg: BuildConfig, res: ReplacementCheck) -> str:
    """`text` with `block`'s evidence line written anew from a passing re-verification."""
    proof = replace.evidence(
        block.original,
        asm_of_literals(block.asm_literals),
        cfg,
        replace.claim_of(res),
        f"tested on {res.inputs:,} inputs",
    )
    proof["asm"] = asm_fingerprint(block.asm_literals)
    head = text[block.start : block.end]
    line = evidence_line(proof)
    if EVIDENCE in head.split("#else\n", 1)[0]:
        head = re.sub(r"/\* " + re.escape(EVIDENCE) + r" [^\n]* \*/", lambda _: line, head, count=1)
    else:
        first, rest = head.split(" */\n", 1)
        head = f"{first} */\n{line}\n{rest}"
    return text[: block.start] + head + text[block.end :]
