"""A run over a harness's inputs is split into one part per core (FunctionHarness._run_parts), the
same parts for the original and every candidate. Candidates built to be wrong, to crash or to break
the calling convention on one input of the last part only are caught there, on that input, as one
run over every input caught them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from support import FIXTURES, asm_fn, check_asm, make_harness

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core here: runs are not split")
    tmp = tmp_path_factory.mktemp("split")
    h, _ = make_harness(tmp, FIXTURES / "verify" / "popcount.c", "popcount", n_random=20_000)
    assert h.parts >= 2
    i = h.n_inputs - 7  # an input of the last part
    shown = subprocess.run(
        [str(h.base_exe), "show", str(i), str(h.mode)], capture_output=True, text=True, timeout=30
    ).stdout
    m = re.match(r"f\(x=(\d+)\)", shown)
    assert m, shown
    return h, tmp, i, int(m[1])


def _c_candidate(tmp: Path, name: str, body: str) -> Path:
    src = tmp / f"{name}.c"
    src.write_text(f"#include <time.h>\n__attribute__((noinline)) int popcount(unsigned long x) {{ {body} }}\n")
    cfg = BuildConfig("gcc", ("-O3",), "test", str(tmp))
    obj = tmp / f"{name}.o"
    build.assemble(cut_function(build.compile_to_asm(src, cfg, tmp / f"{name}.s"), "popcount").text, obj)
    return obj


def test_a_candidate_wrong_on_one_input_of_the_last_part_is_caught_on_it(split):
    h, tmp, i, x = split
    obj = _c_candidate(tmp, "wrong_late", f"return x == {x}UL ? 65 : __builtin_popcountl(x);")
    chk = h.check(obj, "wrong_late")
    assert (chk.ok, chk.reason, chk.inputs) == (False, "wrong-output", i), chk.detail
    assert f"popcount(x={x})" in chk.detail and "expected" in chk.detail and "got 65" in chk.detail


def test_a_candidate_that_crashes_on_one_input_of_the_last_part_is_a_crash_there(split):
    h, tmp, i, x = split
    obj = _c_candidate(tmp, "crash_late", f"if (x == {x}UL) *(volatile int *)0 = 1; return __builtin_popcountl(x);")
    chk = h.check(obj, "crash_late")
    assert (chk.ok, chk.reason, chk.inputs) == (False, "crash", i), chk.detail
    assert f"popcount(x={x})" in chk.detail


def test_a_candidate_that_breaks_the_calling_convention_on_one_late_input_is_found_there(split):
    h, tmp, i, x = split
    body = f"\tmovabsq ${x}, %rax\n\tcmpq %rax, %rdi\n\tjne 1f\n\tmovq $7, %rbx\n1:\n\tpopcntq %rdi, %rax\n\tret"
    chk = check_asm(h, tmp, asm_fn("popcount", body), "abi_late")
    assert (chk.ok, chk.reason, chk.inputs) == (False, "abi-violation", i), chk.detail
    assert "callee-saved" in chk.detail and f"popcount(x={x})" in chk.detail


def test_a_correct_candidate_passes_on_every_input_of_every_part(split):
    h, tmp, _, _ = split
    obj = _c_candidate(tmp, "right", "return __builtin_popcountl(x);")
    chk = h.check(obj, "right")
    assert chk.ok, chk.detail
    assert chk.inputs == h.checked == h.n_inputs - h.skipped


def test_a_candidate_that_loops_on_one_late_input_is_out_of_time_there(split):
    """The part it loops in is not run again whole: that input alone loops again (_late_hold)."""
    h, tmp, i, x = split
    obj = _c_candidate(
        tmp, "loop_late", f'if (x == {x}UL) for (;;) __asm__ volatile(""); return __builtin_popcountl(x);'
    )
    chk = h.check(obj, "loop_late")
    assert (chk.ok, chk.reason, chk.inputs) == (False, "timeout", i), chk.detail
    assert f"popcount(x={x})" in chk.detail and f"no result within {h.later_ms}-" in chk.detail


def test_a_candidate_slower_than_the_originals_limit_on_one_input_but_right_passes(split):
    """The original's inputs each had the short limit (20-40 ms); a candidate gets five times that on
    each input the original finished, so one that takes 50 ms there (or a busy machine) is not out of time."""
    h, tmp, _, x = split
    assert h.input_ms == 20 and h.later_ms == 100
    body = (
        f"if (x == {x}UL) {{ struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);"
        " do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec"
        " < 50000000L); } return __builtin_popcountl(x);"
    )
    obj = _c_candidate(tmp, "slow_late", body)
    chk = h.check(obj, "slow_late")
    assert chk.ok, chk.detail
