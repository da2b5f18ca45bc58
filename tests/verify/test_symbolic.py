"""The symbolic proof: a 64-bit scalar candidate proven equal to the original on all 2^64 inputs
(angr + z3), and one wrong on a single input that 100,000 random inputs never draw, refuted
with that input, confirmed by running both. A Kernighan loop is proven by induction over one
step of it; a wrong candidate, or an original loop that may not end, is never proven."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig, CType, Param, Signature
from supercoder_lsp.pipeline import Options, Pipeline
from supercoder_lsp.verify import proof

pytest.importorskip("angr", reason="the symbolic proof needs the prove extra (make setup installs it)")

SYM = FIXTURES / "verify" / "symbolic"


def _run(tmp: Path, variant: str, budget: float = 90, fn: str = "ones64"):
    cands = tmp / "cands" / fn
    cands.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3", "-mpopcnt"), "test", str(SYM))
    asm = build.compile_to_asm(SYM / f"{variant}.c", cfg, tmp / f"{variant}.s")
    (cands / f"{variant}.s").write_text(cut_function(asm, fn).text)
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp / "cands",
        functions=(fn,),
        n_random=20_000,
        rounds=6,
        use_cache=False,
        proof_budget=budget,
    )
    [res] = Pipeline(opts).run(SYM / f"{fn}.c").functions
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


def test_a_kernighan_loop_is_proven_by_induction_over_one_step(tmp_path):
    res, c = _run(tmp_path, "weight_popcnt", budget=60, fn="weight")
    assert c.status == "accepted", (c.reason, c.detail)
    assert c.proof and c.proof.startswith("proven equal on all 2^64 inputs (symbolic: angr + z3, by induction"), c.proof
    assert "invariant" in c.proof and res.best == c.label


def test_a_candidate_wrong_on_one_input_is_never_proven_by_induction(tmp_path):
    res, c = _run(tmp_path, "weight_but_one", budget=20, fn="weight")
    # random inputs do not draw 2^63 + 1, and neither proof gets through: the claim stays "tested"
    assert c.proof is None or "refuted" in (c.detail or ""), c.proof
    if c.status == "accepted":
        assert "not proven" in c.detail, c.detail


def _objects(tmp: Path, original: str, candidate: str) -> tuple[Path, Path]:
    objs = []
    for name, flags in ((original, ("-O3",)), (candidate, ("-O3", "-mpopcnt"))):
        cfg = BuildConfig("gcc", flags, "test", str(SYM))
        build.compile_object(SYM / f"{name}.c", cfg, tmp / f"{name}.o")
        objs.append(tmp / f"{name}.o")
    return objs[0], objs[1]


def test_an_original_loop_that_may_not_end_is_not_proven_equal(tmp_path):
    orig, cand = _objects(tmp_path, "weight_forever", "weight_popcnt")
    sig = Signature(CType("unsigned", "int", 32), (Param("w", CType("uint64_t", "int", 64)),))
    p = proof.symbolic("weight", sig, orig, cand, tmp_path / "proof", budget=8)
    assert p.status != "proven", p.detail


def test_a_rewrite_wrong_on_one_rare_input_is_refuted_once_another_is_proven_by_induction(tmp_path):
    # two rewrites of the Kernighan loop: the faster one is wrong on one input in 2^64; neither proof
    # gets it through, but the right one is proven by induction, and the wrong one is compared with it
    cands = tmp_path / "cands" / "weight"
    cands.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3", "-mpopcnt"), "test", str(SYM))
    for variant in ("weight_popcnt", "weight_but_one"):
        asm = build.compile_to_asm(SYM / f"{variant}.c", cfg, tmp_path / f"{variant}.s")
        (cands / f"{variant}.s").write_text(cut_function(asm, "weight").text)
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp_path / "cands",
        functions=("weight",),
        n_random=20_000,
        rounds=6,
        use_cache=False,
        proof_budget=30,
    )
    [res] = Pipeline(opts).run(SYM / "weight.c").functions
    by = {c.label.split("/")[-1].removesuffix(".s"): c for c in res.candidates}
    wrong, right = by["weight_but_one"], by["weight_popcnt"]
    assert wrong.reason == "wrong-output", (wrong.status, wrong.detail)
    assert "weight(w=11330818912967255637): expected 33, got 34 (found by the symbolic proof" in wrong.detail
    assert right.proof and "by induction" in right.proof
    assert res.best == right.label
