"""The bytes decide, not the text: a prefix that turns one instruction into another (`rep bsr` is LZCNT
on CPUs that have it, BSR on others) is claimed with the CPU feature it needs, refused on a CPU without
it, and its replacement is guarded by that feature."""

from __future__ import annotations

import pytest
from support import FIXTURES, run_json

from supercoder_lsp.asm.features import cpu_flags
from supercoder_lsp.optimize.replace import guard

FIX = FIXTURES / "verify" / "encodings"
REP_BSR = (FIX / "cands" / "leading_zeros" / "rep-bsr.s").read_text()


def _run() -> dict:
    data = run_json(
        str(FIX / "clz.c"),
        "-f",
        "leading_zeros",
        "--candidates",
        str(FIX / "cands"),
        "--inputs",
        "5000",
        "--proof-budget",
        "0",
    )
    [c] = data["functions"][0]["candidates"]
    return c


@pytest.mark.skipif("abm" not in cpu_flags(), reason="this CPU has no LZCNT: the candidate is BSR here")
def test_rep_bsr_is_claimed_as_lzcnt_and_needs_the_feature():
    c = _run()
    assert c["reason"] != "unsupported-cpu", c["detail"]
    assert c["cpu_features"] == ["abm"] and "lzcnt" in c["features"], c


def test_rep_bsr_is_refused_on_a_cpu_without_lzcnt(monkeypatch):
    monkeypatch.setenv("SUPERCODER_CPU_FLAGS", " ".join(sorted(cpu_flags() - {"abm"})))
    c = _run()
    assert c["reason"] == "unsupported-cpu" and "abm" in c["detail"], c


def test_the_replacement_guard_names_the_decoded_instructions_feature():
    assert "defined(__LZCNT__)" in guard(REP_BSR)


def test_a_feature_without_a_compiler_macro_keeps_the_c():
    """The guard fails closed: a flag it has no macro for is a macro no compiler defines."""
    asm = "\t.text\n\t.globl f\nf:\n\tgf2p8affineqb $0, %xmm1, %xmm0\n\tret\n"
    assert "defined(__GFNI__)" in guard(asm)
    from supercoder_lsp.optimize import replace

    saved = replace.ISA_MACROS.pop("gfni")
    try:
        assert "__SUPERCODER_NO_MACRO_FOR_GFNI__" in guard(asm)
    finally:
        replace.ISA_MACROS["gfni"] = saved
