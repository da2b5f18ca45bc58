"""The whole chain for one candidate (judge.py), through the real command: checks that
only a program, not the function harness, can make."""

from __future__ import annotations

from support import FIXTURES, by_label, run_json

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig

FIX = FIXTURES / "verify"
NOHARNESS = FIX / "noharness"


def test_without_a_function_harness_the_program_checks_abi_heap_and_the_timed_input(tmp_path):
    """Right on every program test, yet each of these is wrong in a way a user would pay for."""
    bench = tmp_path / "bench.in"
    bench.write_text(" ".join(str(1000 + i * 7919 % 100_000) for i in range(100_000)))
    data = run_json(
        str(NOHARNESS / "acc.c"),
        "-f",
        "add",
        "--candidates",
        str(NOHARNESS / "cands"),
        "--tests",
        str(NOHARNESS / "tests"),
        "--bench-input",
        str(bench),
        "-n",
        "10",
    )
    [fn] = data["functions"]
    assert "pointer" in fn["harness"] or "struct" in fn["harness"]  # no function harness for it
    got = by_label(fn)
    assert got["good"]["reason"] in (None, "not-faster"), got["good"]["detail"]
    assert got["clobber-rbx"]["reason"] == "abi-violation" and "%rbx" in got["clobber-rbx"]["detail"]
    assert got["misaligned-memset"]["reason"] == "abi-violation" and "misaligned" in got["misaligned-memset"]["detail"]
    assert got["heap-overrun"]["reason"] == "crash", got["heap-overrun"]["detail"]
    assert got["wrong-on-big"]["reason"] == "wrong-output" and "bench input" in got["wrong-on-big"]["detail"]


def test_the_original_itself_is_a_duplicate_not_a_slowdown(tmp_path):
    """Identical code is never timed, so it can never read as '0.82x'."""
    src = FIX / "popcount.c"
    cands = tmp_path / "cands" / "popcount"
    cands.mkdir(parents=True)
    cut = cut_function(
        build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "t", str(FIX)), tmp_path / "b.s"), "popcount"
    )
    (cands / "same.s").write_text(cut.text)
    data = run_json(str(src), "-f", "popcount", "--candidates", str(tmp_path / "cands"), "--inputs", "1000")
    [c] = data["functions"][0]["candidates"]
    assert c["reason"] == "duplicate" and "-O3 original" in c["detail"]
    assert c["speedup"] is None


def test_a_significant_speedup_on_untypical_inputs_decides_nothing_alone(tmp_path):
    """With a timing caveat (pointer fields NULL), a clear function-level win is not a claim: without the
    program's own timing it is not-faster and says what to give; with it, the program's timing decides."""
    import pytest

    from supercoder_lsp.model import CandidateResult, Timing
    from supercoder_lsp.optimize.judge import Judge, Rejected

    def timing(x: float, method: str) -> Timing:
        return Timing(method, x, (x - 0.05, x + 0.05), (0.99, 1.01), x > 1.1, [], {}, f"{x:.2f}x faster")

    judge = Judge(None, None, "", set(), None, None, None, tmp_path, timing_caveat="the pointer fields of s are NULL")  # type: ignore[arg-type]
    r = CandidateResult("c", "x", "rejected", None, "", "", timing=timing(3.0, "interleaved"))
    with pytest.raises(Rejected) as e:
        judge._decide(r)
    assert e.value.reason == "not-faster" and "--bench-input or --workload" in str(e.value)
    r = CandidateResult(
        "c", "x", "rejected", None, "", "", timing=timing(3.0, "interleaved"), program_timing=timing(1.3, "hyperfine")
    )
    judge._decide(r)
    assert r.status == "accepted" and r.timing is None and r.program_timing.speedup == 1.3


def test_a_candidate_that_looks_where_its_code_lies_fails_the_function_harness():
    """Right where its code lies at the PIE base of a process with randomization off, or behind the checking
    thunk's bytes, 3x + 1 elsewhere: it passed every check when the harness turned randomization off. Every
    process of a check now runs with its code where the kernel draws it, as a PIE program does."""
    c = _only_candidate(FIX / "context", "triple.c", "triple")
    assert c["reason"] == "wrong-output" and "plain program" not in c["detail"], c
    assert c["detail"].startswith("triple(x="), c


def test_a_candidate_that_knows_its_callers_bytes_fails_the_function_harness():
    """Right only after the checking trampoline's or the program-test thunk's bytes at its return address: one
    input in two is called from a plain compiled C caller, by a direct call, and there it is wrong."""
    c = _only_candidate(FIX / "context" / "caller", "triple.c", "triple")
    assert c["reason"] == "wrong-output" and c["detail"].startswith("triple(x="), c


def test_a_candidate_that_breaks_the_convention_only_after_a_direct_call_is_seen():
    """Each keeps the calling convention where it is called through an indirect call (the trampoline) and
    breaks it after a direct call: one zeroes callee-saved %rbx, one its caller's frame. With no program
    tests, both passed every check (only not faster); the plain C callers check what they kept, in their
    own compiled code (or, called from the harness's own C with no trampoline below, the zeroed frame crashes
    that caller, as it would a program's)."""
    folder = FIX / "context" / "direct"
    data = run_json(
        str(folder / "triple.c"), "-f", "triple", "--candidates", str(folder / "cands"), "--inputs", "5000",
    )  # fmt: skip
    cands = data["functions"][0]["candidates"]
    assert len(cands) == 2
    by = {c["label"]: c for c in cands}
    assert by["clobbers-when-called-directly"]["reason"] == "abi-violation", by
    assert by["writes-callers-frame-when-called-directly"]["reason"] in ("abi-violation", "crash"), by


def test_a_candidate_that_knows_the_tools_program_names_is_rejected():
    """Right only where argv[0] names the tool's builds (prog-<label>), found by scanning up its stack after a
    direct call: the plain run is a copy named after the user's file in a fresh build folder, started as
    ./NAME with the user's environment, as the user runs it; and in the function harness, where one input in
    two is called directly, its scan runs off the call stack's top."""
    c = _only_candidate(FIX / "context" / "rev", "rev.c", "rev64")
    assert c["reason"] in ("wrong-output", "crash"), c


def test_a_memo_kept_in_the_mmx_registers_does_not_pay_off_in_timing():
    """Three distinct recorded calls, a 4-entry memo in mm0-mm7: fninit only marks the registers empty, and
    it was 37x 'faster'. Between passes the timing driver zeroes them."""
    c = _only_candidate(FIX / "timing" / "churn", "churn.c", "churn")
    # what is left is its loop, about as fast as gcc's: no 37x, whatever the verdict on a few percent
    assert c["speedup"] is None or c["speedup"] < 1.2, c


def _only_candidate(folder, c_file: str, fn: str) -> dict:
    """The verdict on the one candidate of `folder`/cands/`fn`, with the program tests of `folder`/tests."""
    data = run_json(
        str(folder / c_file), "-f", fn, "--candidates", str(folder / "cands"), "--tests", str(folder / "tests"),
        "--inputs", "5000",
    )  # fmt: skip
    [c] = data["functions"][0]["candidates"]
    return c
