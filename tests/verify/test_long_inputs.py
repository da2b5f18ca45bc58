"""A few generated inputs are far past the 4,096 elements of the others: a candidate wrong only on long
arrays is wrong there, and the report says how long the longest one was."""

from __future__ import annotations

from support import FIXTURES, make_harness, run_json

from supercoder_lsp.harness.plan import LONG_LEN, LONG_STRIDE, long_inputs

FIX = FIXTURES / "verify" / "long"


def test_sixteen_bit_lane_sums_that_overflow_past_4096_bytes_are_wrong():
    """32 lanes of 16-bit sums are right on every array of up to 4,096 bytes (128 a lane, at most 32,640)
    and wrong past about 8,200: it was accepted while no generated array was longer than 4,096."""
    data = run_json(
        str(FIX / "sum.c"), "-f", "sum_bytes", "--candidates", str(FIX / "cands"),
        "--inputs", str(2 * LONG_STRIDE),
    )  # fmt: skip
    fn = data["functions"][0]
    [c] = fn["candidates"]
    assert c["status"] == "rejected" and c["reason"] == "wrong-output", c
    assert "n=" in c["detail"], c
    assert f"{LONG_LEN:,} on one random input in {LONG_STRIDE:,}" in fn["harness"], fn["harness"]
    assert f"the longest array {LONG_LEN:,} elements" in fn["harness"], fn["harness"]


def test_a_quadratic_original_says_its_long_inputs_did_not_finish(tmp_path):
    """Where the -O3 original itself runs out of time on the long inputs, they are skipped, counted, and
    the report does not claim their length."""
    src = tmp_path / "pairs.c"
    src.write_text(
        "#include <stddef.h>\nlong pairs(const int *a, size_t n) {\n    long c = 0;\n"
        "    for (size_t i = 0; i < n; i++)\n        for (size_t j = i + 1; j < n; j++) c += a[i] < a[j];\n"
        "    return c;\n}\n"
    )
    # no candidates (an empty replay): the harness says it, and no candidate runs the quadratic inputs again
    data = run_json(
        str(src), "-f", "pairs", "-p", "replay", "--candidates", str(tmp_path), "--inputs", str(2 * LONG_STRIDE)
    )
    harness = data["functions"][0]["harness"]
    assert "skipped: the -O3 original crashes or runs out of time" in harness, harness
    assert f"the longest array {LONG_LEN:,}" not in harness, harness


def test_the_reported_long_lengths_are_the_ones_the_harness_draws(tmp_path):
    """plan.long_inputs (what the report says) mirrors the C that draws the long inputs: each long input's
    length, shown by the harness itself, is the one the plan expects; one in two is a power of two."""
    h, _ = make_harness(tmp_path, FIXTURES / "verify" / "attacks" / "sum_ints.c", "sum_ints", n_random=8 * LONG_STRIDE)
    want = long_inputs(h.plan, h.n_edge, h.n_random)
    assert len(want) == 8
    for i, n in want.items():
        shown, _ = h._show(h.base_exe, i)
        assert f"({n} elements)" in shown or f"n={n}" in shown, (i, n, shown[-80:])
    assert any(n & (n - 1) == 0 for n in list(want.values())[1:]), want
