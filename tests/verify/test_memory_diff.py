"""A candidate that returns what the original does but leaves other memory: the finding names the first
element or global that differs and both values (verify/memory_diff.py), not only that memory differs."""

from __future__ import annotations

import pytest
from support import FIXTURES, check_asm, make_harness

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig

MD = FIXTURES / "verify" / "memdiff"


@pytest.mark.parametrize(
    "original, wrong, name, says",
    [
        (
            FIXTURES / "verify/attacks/inc_copy.c",
            MD / "inc_far.c",
            "inc_copy",
            "first at dst[20]: the original leaves ",
        ),
        (MD / "hist.c", MD / "hist_wrong.c", "bump", "first at count_hist+36: the original leaves 0x"),
    ],
)
def test_the_first_byte_a_candidate_leaves_otherwise_is_named(tmp_path, original, wrong, name, says):
    h, _ = make_harness(tmp_path, original, name, n_random=3000)
    cfg = BuildConfig("gcc", ("-O3",), "test", str(wrong.parent))
    asm = cut_function(build.compile_to_asm(wrong, cfg, tmp_path / "wrong.s"), name).text
    chk = check_asm(h, tmp_path, asm, "wrong")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "what it leaves in memory differs" in chk.detail and says in chk.detail, chk.detail
    before, after = chk.detail.split(says)[1].split(", this ")
    assert before.split()[0] != after.split()[0]  # the two values shown differ
