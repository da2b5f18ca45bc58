"""Functions that return pointers (zlib's zError, a search that returns where it stopped): the
result is compared as NULL, as a place in the caller's buffer, or by the string or data it
points to, never as an address (the two processes lay memory out differently)."""

from __future__ import annotations

import re
from pathlib import Path

from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.optimize.pipeline import Options, Pipeline

RET = FIXTURES / "verify" / "returns"
VARIANTS = ("returns_switch", "returns_wrong", "returns_attacks")


def _run(tmp: Path) -> dict:
    """name -> (result, {label: candidate}) for both functions, each rewritten three ways."""
    cfg = BuildConfig("gcc", ("-O3",), "test", str(RET))
    for v in VARIANTS:
        asm = build.compile_to_asm(RET / f"{v}.c", cfg, tmp / f"{v}.s")
        for fn in ("error_message", "find_byte"):
            (tmp / "cands" / fn).mkdir(parents=True, exist_ok=True)
            (tmp / "cands" / fn / f"{v}.s").write_text(cut_function(asm, fn).text)
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp / "cands",
        functions=("error_message", "find_byte"),
        n_random=3000,
        rounds=6,
        use_cache=False,
    )
    return {r.name: (r, {c.label: c for c in r.candidates}) for r in Pipeline(opts).run(RET / "returns.c").functions}


def test_returned_pointers_are_compared_by_where_they_point_and_what_they_hold(tmp_path):
    got = _run(tmp_path)
    msg, msg_c = got["error_message"]
    assert msg.status == "done", msg.harness
    # a switch returns other pointers to equal strings: the same result
    assert msg_c["returns_switch"].reason in (None, "not-faster"), msg_c["returns_switch"].detail
    # one message differs by a letter: caught, and the message shows both strings
    wrong = msg_c["returns_wrong"]
    assert wrong.reason == "wrong-output", wrong.detail
    assert 'expected a pointer to "incompatible version", got a pointer to "incompatible versions"' in wrong.detail
    # a static buffer the next call overwrites is never the same result as a string constant
    assert msg_c["returns_attacks"].reason in ("unsafe", "wrong-output"), msg_c["returns_attacks"].detail

    find, find_c = got["find_byte"]
    assert find_c["returns_switch"].reason in (None, "not-faster"), find_c["returns_switch"].detail
    # one byte too far past the 300th: where it points in the caller's buffer is compared
    off = find_c["returns_wrong"]
    m = re.search(r"expected a pointer (\d+) bytes into 'buf', got a pointer (\d+) bytes into 'buf'", off.detail)
    assert off.reason == "wrong-output" and m, off.detail
    assert int(m[1]) > 300 and int(m[2]) == int(m[1]) + 1
    # a pointer into a dead local copy holds the right byte after the call, but is not in the buffer
    dead = find_c["returns_attacks"]
    assert dead.reason == "wrong-output" and "a pointer into the stack" in dead.detail, dead.detail
