"""The symbolic proof: a 64-bit scalar candidate proven equal to the original on all 2^64 inputs
(angr + z3), and one wrong on a single input that 100,000 random inputs never draw, refuted
with that input, confirmed by running both."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.pipeline import Options, Pipeline

pytest.importorskip("angr", reason="the symbolic proof needs the prove extra (make setup installs it)")

SYM = FIXTURES / "verify" / "symbolic"


def _run(tmp: Path, variant: str, budget: float = 90):
    cands = tmp / "cands" / "ones64"
    cands.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3", "-mpopcnt"), "test", str(SYM))
    asm = build.compile_to_asm(SYM / f"{variant}.c", cfg, tmp / f"{variant}.s")
    (cands / f"{variant}.s").write_text(cut_function(asm, "ones64").text)
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp / "cands",
        functions=("ones64",),
        n_random=20_000,
        rounds=6,
        use_cache=False,
        proof_budget=budget,
    )
    [res] = Pipeline(opts).run(SYM / "ones64.c").functions
    [c] = res.candidates
    return res, c


def test_a_64_bit_candidate_is_proven_equal_on_every_input(tmp_path):
    res, c = _run(tmp_path, "ones64_popcnt")
    assert c.status == "accepted", (c.reason, c.detail)
    assert c.proof and c.proof.startswith("proven equal on all 2^64 inputs (symbolic: angr + z3"), c.proof
    assert res.best == c.label


def test_a_candidate_wrong_on_one_input_in_2_64_is_refuted_with_that_input(tmp_path):
    res, c = _run(tmp_path, "ones64_but_one")
    assert c.reason == "wrong-output", (c.reason, c.detail)
    # 0x204143f04feeefff: 36 bits set, the candidate says 37
    assert "ones64(x=2324213582112157695): expected 36, got 37 (found by the symbolic proof" in c.detail, c.detail
    assert res.best is None


def test_a_proof_that_does_not_fit_its_budget_leaves_the_claim_tested(tmp_path):
    res, c = _run(tmp_path, "ones64_popcnt", budget=1)
    assert c.status == "accepted" and c.proof is None
    assert "not proven: the symbolic proof ran out of its 1s (--proof-budget)" in c.detail, c.detail
