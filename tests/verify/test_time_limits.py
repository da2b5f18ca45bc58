"""Each input of the -O3 original first gets the short limit (20-40 ms); where most inputs need more, the
long one (1-2 s) instead, and every input is compared; runs after the original's first give each input
it finished five times its limit."""

from __future__ import annotations

from support import FIXTURES, make_harness

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.verify.function_check import INPUT_MS

SLOW = FIXTURES / "verify" / "budget" / "slow_clock.c"


def _candidate(tmp, name: str, ret: str):
    src = tmp / f"{name}.c"
    src.write_text(SLOW.read_text().replace("return x * 3u + 1u;", f"return {ret};"))
    obj = tmp / f"{name}.o"
    cfg = BuildConfig("gcc", ("-O3",), "test", str(tmp))
    build.assemble(cut_function(build.compile_to_asm(src, cfg, tmp / f"{name}.s"), "clock_mix").text, obj)
    return obj


def test_a_function_slower_than_the_short_limit_on_every_input_gets_the_long_one(tmp_path):
    h, _ = make_harness(tmp_path, SLOW, "clock_mix", n_random=24)
    assert h.input_ms == INPUT_MS and h.later_ms == INPUT_MS
    assert h.skipped == 0 and h.n_inputs >= 24, h.describe_inputs()
    assert "runs out of time" not in h.describe_inputs()
    wrong = h.check(_candidate(tmp_path, "wrong", "x & 1 ? x * 3u + 2u : x * 3u + 1u"), "wrong")
    assert (wrong.ok, wrong.reason) == (False, "wrong-output"), wrong.detail
    right = h.check(_candidate(tmp_path, "right", "x + x + x + 1u"), "right")
    assert right.ok and right.inputs == h.n_inputs, right.detail
