"""In the editor (the pipeline's on_update), a verified candidate whose first timing passes already show it
faster beyond doubt is shown as a win before its timing ends, marked as such; the claim the run ends with is
made from every pass (measure/passes.py clear_win)."""

from __future__ import annotations

import re

from support import FIXTURES

from supercoder_lsp.model import ACCEPTED
from supercoder_lsp.optimize.pipeline import Options, Pipeline
from supercoder_lsp.results import headline

LSP = FIXTURES / "lsp"  # a 64-step loop and its SWAR rewrite: a win no machine's noise hides


def _run(on_update=None):
    opts = Options(
        proposers=("replay",),
        candidates_dir=LSP / "cands",
        functions=("popcount",),
        n_random=3000,
        use_cache=False,
        proof_budget=0,
    )
    [res] = Pipeline(opts, on_update=on_update).run(LSP / "popcount.c").functions
    return res


def test_a_clear_win_shows_before_its_timing_ends_and_the_claim_is_made_from_every_pass():
    updates: list = []
    res = _run(updates.append)
    [swar] = res.candidates
    assert swar.status == ACCEPTED, swar.detail
    shown = [u.best_result() for u in updates if u.best_result() is not None]
    assert shown and shown[0].timing is not None and shown[0].timing.interim, [headline(c) for c in shown]
    first = shown[0]
    # verified on every input before it shows; its figures say they are from part of the passes
    assert first.inputs_checked == swar.inputs_checked
    assert re.search(r"\(95% CI [0-9.]+-[0-9.]+, [2-4] of 5 timing passes so far\)", headline(first) or "")
    assert first.timing.significant and first.timing.speedup > 2
    assert swar.timing is not None and not swar.timing.interim and swar.timing.significant
    assert "so far" not in (headline(swar) or "")

    def rounds(c) -> int:
        return sum(len(a["candidate"]) for a in c.timing.samples["alignments"].values())

    assert rounds(first) < rounds(swar) == 4 * 100
    assert res.best == swar.label
