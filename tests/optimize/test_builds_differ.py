"""Where every compiler build of the original's own C is wrong-output on one input, the function's summary
says the input is at fault (a harness that gives an input the C leaves undefined), not the compilers."""

from __future__ import annotations

from supercoder_lsp.model import CandidateResult
from supercoder_lsp.results import builds_all_differ

INPUT = "read(tok={1, 2, 3} (3 elements), n=3)"


def build(origin: str, reason: str = "wrong-output", detail: str = "") -> CandidateResult:
    detail = (
        detail or f"{INPUT}: returns 0 as the original does, but what it leaves in memory differs (first at tok[2])"
    )
    return CandidateResult(origin.split(":")[1].replace(" ", "_"), origin, "rejected", reason, detail, "")


def test_every_build_wrong_on_one_input_blames_the_input():
    said = builds_all_differ([build("compilers:gcc -O2"), build("compilers:clang -O3"), build("compilers:gcc -O1")])
    assert said is not None and INPUT in said and "gcc -O2, clang -O3, gcc -O1" in said
    assert "--test-command auto" in said


def test_builds_that_pass_or_differ_elsewhere_blame_nothing():
    other = f"{INPUT.replace('n=3', 'n=4')}: expected 1, got 2"
    assert builds_all_differ([build("compilers:gcc -O2"), build("compilers:clang -O3", detail=other)]) is None
    assert builds_all_differ([build("compilers:gcc -O2"), build("compilers:clang -O3", "not-faster")]) is None
    assert builds_all_differ([build("compilers:gcc -O2"), build("replay:dir/a.s")]) is None  # one build alone
