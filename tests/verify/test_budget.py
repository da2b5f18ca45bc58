"""A slow original (tens of microseconds a call) gets a verdict in seconds instead of holding its job for
minutes: the generated inputs it has not reached when its time budget runs out are not run, for it or for
any candidate, and every claim says on how many inputs it rests."""

from __future__ import annotations

import re

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.results import claim_basis

BUDGET = FIXTURES / "verify" / "budget"


def test_a_slow_original_is_checked_on_the_inputs_it_reaches_within_its_budget(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path,
        BUDGET / "slow.c",
        "slow_mix",
        BUDGET / "slow_same.c",
        BUDGET / "slow_wrong.c",
        n_random=100_000,
        baseline_seconds=1,
        proof_budget=0,
    )
    assert res.status == "done", res.detail
    m = re.search(r"([\d,]+) generated inputs not run: the -O3 original used its 1s budget", res.harness)
    assert m, res.harness
    not_run = int(m[1].replace(",", ""))
    assert 10_000 < not_run < 100_000, res.harness  # about 30 us an input: a few hundred ms reach thousands
    by = {c.label: c for c in res.candidates}
    same = by["slow_same"]
    assert same.reason in (None, "not-faster"), same.detail
    # the claim counts the inputs that ran, not the 100,000 asked for
    assert 0 < same.inputs_checked <= 100_000 + 1000 - not_run, claim_basis(same)
    # one input in 64 wrong: the inputs that did run catch it
    assert by["slow_wrong"].reason == "wrong-output", by["slow_wrong"].detail


def test_without_a_budget_left_out_nothing_is_said(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path, BUDGET / "slow.c", "slow_mix", BUDGET / "slow_same.c", n_random=2000, proof_budget=0
    )
    assert res.status == "done", res.detail
    assert "not run" not in res.harness, res.harness
    assert res.candidates[0].inputs_checked >= 2000, claim_basis(res.candidates[0])


def test_inputs_the_original_never_finishes_are_not_timed_either(tmp_path):
    """crc32_combine_op-style: a generated op whose low 32 bits are zero loops forever. The verifier
    skips those inputs; timing passes over the same ones, so the rewrite gets a speed verdict instead of
    'a timing run took over 54s'."""
    res = pipeline_on_rewrites(
        tmp_path, BUDGET / "hang.c", "mulmod", BUDGET / "hang_same.c", n_random=20_000, proof_budget=0, rounds=12
    )
    assert res.status == "done", res.detail
    assert "skipped: the -O3 original crashes or runs out of time on them" in res.harness, res.harness
    [same] = res.candidates
    assert same.timing is not None, same.detail
    assert same.reason in (None, "not-faster") and "could not be timed" not in same.detail, same.detail
