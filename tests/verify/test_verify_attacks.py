"""The function harness against candidates built to get past it: each one is wrong
in one way that a weaker harness missed, and must be rejected with a correctness
or safety reason (never accepted, never merely "not faster")."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FIXTURES, asm_fn, check_asm, make_harness, shared_harness

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.asm.features import cpu_flags
from supercoder_lsp.harness.plan import LONG_STRIDE, make_plan
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.source import parse_functions

FIX = FIXTURES / "verify"
ATT = FIX / "attacks"


def variant(tmp: Path, c_file: Path, name: str, flags=("-O3",)) -> str:
    """A rewrite written in C and compiled by gcc: real compiler output, wrong on purpose."""
    cfg = BuildConfig("gcc", flags, "test", str(c_file.parent))
    return cut_function(build.compile_to_asm(c_file, cfg, tmp / f"{c_file.stem}.s"), name).text


def verdict(tmp: Path, original: str, wrong: str, name: str, **kw):
    """The wrong rewrite checked by the original's harness, which passes the original against itself (built
    once for the tests of this process that attack that original: support.shared_harness)."""
    h, cut = shared_harness(ATT / original, name, **kw)
    return h, check_asm(h, tmp, variant(tmp, ATT / wrong, name), "wrong")


def test_long_arrays_catch_lane_sums_that_wrap(tmp_path):
    """Eight 16-bit lane sums are right on every array up to a couple of thousand bytes."""
    h, chk = verdict(tmp_path, "sum_bytes.c", "sum_bytes_lanes16.c", "sum_bytes")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    n = int(chk.detail.split("elements)")[0].rsplit("(", 1)[1].split()[0])
    assert n > 2000  # a length that the old 64-element cap never reached


def test_lengths_just_past_the_usual_most_are_checked(tmp_path):
    """Wrong only on 4,097 to 8,191 elements: the long inputs cover every octave past 4,096, the first one
    (4,097 to 8,192, the third long input) included; they started at 8,192."""
    h, chk = verdict(tmp_path, "sum_ints.c", "sum_ints_between_lengths.c", "sum_ints", n_random=3 * LONG_STRIDE)
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_signed_length_is_also_negative(tmp_path):
    """Treating `int n` as unsigned reads far past an empty buffer where the original reads nothing."""
    h, chk = verdict(tmp_path, "sum_ints.c", "sum_ints_unsigned.c", "sum_ints")
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail
    assert "n=-" in chk.detail


def test_two_pointers_share_a_length_and_may_overlap(tmp_path):
    """dst and src both get buffers sized by n, and overlapping ones where C allows it."""
    fn = next(f for f in parse_functions((ATT / "inc_copy.c").read_text()) if f.name == "inc_copy")
    plan = make_plan(fn.signature)
    assert plan.supported, plan.why
    assert [p.role for p in plan.params] == ["array", "array", "length"]
    h, chk = verdict(tmp_path, "inc_copy.c", "inc_copy_restrict.c", "inc_copy")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_overlaps_past_a_vector_are_drawn(tmp_path):
    """Blocks of 8 with a check for overlaps of 1-3 elements only: wrong where the buffers are 4-7 apart,
    which the inputs did not draw."""
    h, chk = verdict(tmp_path, "inc_copy.c", "inc_copy_blocks8.c", "inc_copy")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_buffers_of_two_types_overlap_where_c_lets_them(tmp_path):
    """`unsigned char *dst` over `const char *src`: bytes may alias anything, and an in-place decoder is called
    so. Written from the last pair to the first, the rewrite is right on separate buffers and wrong in place;
    the finding says the buffers are one memory and what to do where no caller does that."""
    h, chk = verdict(tmp_path, "xor_pairs.c", "xor_pairs_backward.c", "xor_pairs")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "declare them restrict" in chk.detail


@pytest.mark.parametrize(
    "wrong, says",
    [
        ("scale_v_keeps_mxcsr.c", "unset, which the original raises"),  # MXCSR restored on return
        ("scale_v_pads.c", "it raises FE_INVALID, which the original does not"),  # 0 * inf on a pad
    ],
)
def test_the_floating_point_exception_flags_a_call_leaves_are_compared(tmp_path, wrong, says):
    """Right values and other exception flags: one drops the flags the call raised (and those set before it),
    one raises FE_INVALID on a zero pad times an infinite k. A program that traps on them or tests them sees it."""
    h, chk = verdict(tmp_path, "scale_v.c", wrong, "scale_v")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "floating-point exception flags differ" in chk.detail and says in chk.detail, chk.detail


def test_a_memo_in_the_spare_bytes_of_a_heap_block_is_stale_on_a_reused_buffer(tmp_path):
    """Right wherever its buffer is not a malloc'd one near its code; there it keeps (tag, sum) past the end.
    Some inputs lie in a block of the harness's own malloc heap, each input's calls (a neighbour's first, on
    one in sixteen) in the same chunk: the memo answers the changed buffer with the old sum."""
    h, chk = verdict(tmp_path, "sum_bytes.c", "sum_bytes_slack_memo.c", "sum_bytes")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_crash_on_a_buffer_in_the_heap_is_the_inputs(tmp_path):
    """Crashes only where its buffer looks like a program's malloc'd one: it is "crash" on that input (the
    pointer into the abandoned copy is put back), not the harness failing outside any call."""
    h, chk = verdict(tmp_path, "sum_bytes.c", "sum_bytes_heap_trap.c", "sum_bytes")
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail
    assert chk.detail.startswith("signal 4 on input sum_bytes("), chk.detail


def test_a_call_that_finds_its_statics_warm_is_checked(tmp_path):
    """Wrong only once its table is built (every call of a program but the first): on one primed input in two
    the call finds the globals as the neighbour's calls left them, where they were reset before every call."""
    h, chk = verdict(tmp_path, "lower_lazy.c", "lower_lazy_warm.c", "lower_lazy")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_statics_are_compared_variable_by_variable_wherever_a_build_lays_them_out(tmp_path):
    """A table aligned to 64 (as -march=native aligns it) lies elsewhere in the section than -O3's: an honest
    rewrite so built was wrong-output ('the file-statics (.bss) holds 288 bytes ..., 320 after this one's').
    Each variable is compared by its name, and a wrong entry left in one is named."""
    h, chk = verdict(tmp_path, "lower_lazy.c", "lower_lazy_aligned.c", "lower_lazy")
    assert chk.ok, chk.detail
    h, chk = verdict(tmp_path, "lower_lazy.c", "lower_lazy_bad_table.c", "lower_lazy")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "first at byte 91 of 'table'" in chk.detail, chk.detail


def test_numbers_in_text_come_padded_with_many_zeros_and_with_units(tmp_path):
    """Numbers in text had at most 12 leading zeros and no unit after them: a size parser wrong past 33 digits
    (zeros padding "64K") passed; as did one wrong past 2^63 with a unit (audit 11)."""
    h, chk = verdict(tmp_path, "size_unit.c", "size_unit_long_zeros.c", "size_unit")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert 'size_unit(s="00000000000' in chk.detail, chk.detail


def test_a_write_before_the_start_of_a_buffer_crashes(tmp_path):
    h, cut = make_harness(tmp_path, FIX / "funcs" / "scale.c", "scale")
    # v[i] *= k, and v[-1] rewritten with its own value: harmless unless the page before v is guarded
    body = (
        "\ttestq %rsi, %rsi\n\tje .Ld\n\tmovsd -8(%rdi), %xmm1\n\tmovsd %xmm1, -8(%rdi)\n\txorl %eax, %eax\n"
        ".Ll:\n\tmovsd (%rdi,%rax,8), %xmm1\n\tmulsd %xmm0, %xmm1\n\tmovsd %xmm1, (%rdi,%rax,8)\n\tincq %rax\n"
        "\tcmpq %rax, %rsi\n\tjne .Ll\n.Ld:\n\tret"
    )
    chk = check_asm(h, tmp_path, asm_fn("scale", body), "underwrite")
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail


@pytest.mark.parametrize(
    "wrong", ["table_off_by_one.c", "table_forgets_last.c"], ids=["reads-wrong-entry", "skips-global-write"]
)
def test_globals_start_realistic_and_are_compared(tmp_path, wrong):
    """A table the program fills at start-up is random in the harness (not all zeros), and writes to globals count."""
    h, chk = verdict(tmp_path, "table.c", wrong, "lookup")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_inputs_where_the_original_crashes_are_skipped_not_fatal(tmp_path):
    h, chk = verdict(tmp_path, "divide.c", "divide_trap7.c", "divide")
    assert 0 < h.skipped < h.n_inputs // 2  # b == 0 and INT_MIN / -1
    assert "skipped: the -O3 original crashes" in h.describe_inputs()
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail
    assert "b=7" in chk.detail


def test_float_results_are_compared_bit_for_bit(tmp_path):
    """Clearing the sign of a NaN: equal under any-NaN comparison, different bits."""
    h, chk = verdict(tmp_path, "magnitude.c", "magnitude_fabs.c", "magnitude")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "nan" in chk.detail.lower()


DOT_COMMUTED = (  # s = a[i] * b[i] + s, in order: the product's NaN where two meet, not the sum's
    "\txorpd %xmm0, %xmm0\n\ttestq %rdx, %rdx\n\tjle .Ld\n\txorl %eax, %eax\n.Ll:\n\tmovsd (%rsi,%rax,8), %xmm1\n"
    "\tmulsd (%rdi,%rax,8), %xmm1\n\taddsd %xmm0, %xmm1\n\tmovapd %xmm1, %xmm0\n\tincq %rax\n\tcmpq %rax, %rdx\n"
    "\tjne .Ll\n.Ld:\n\tret"
)


def test_which_nan_two_nans_give_is_not_compared(tmp_path):
    """The same sums in the same order, each `a[i] * b[i] + s` where -O3 adds `s + a[i] * b[i]`: where two
    NaNs meet, x86 gives the first operand's, so the bits differ; IEEE 754 leaves that open, and a compiler
    may commute. Bit for bit, four honest builds of a dot product were refused."""
    h, cut = make_harness(tmp_path, ATT / "dot_doubles.c", "dot_doubles")
    chk = check_asm(h, tmp_path, asm_fn("dot_doubles", DOT_COMMUTED), "commuted")
    assert chk.ok, chk.detail


def test_output_of_a_function_that_prints_is_compared_and_records_survive(tmp_path):
    src = tmp_path / "noisy.c"
    src.write_text('#include <stdio.h>\nint noisy(int x) { printf("x=%d\\n", x); return x + 1; }\n')
    h, cut = make_harness(tmp_path, src, "noisy", n_random=2000)
    assert check_asm(h, tmp_path, cut.text, "self").ok
    quiet = tmp_path / "quiet.c"
    quiet.write_text("int noisy(int x) { return x + 1; }\n")
    chk = check_asm(h, tmp_path, variant(tmp_path, quiet, "noisy"), "quiet")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert 'what it prints differs from byte 0 on: the original prints "x=' in chk.detail, chk.detail
    assert "this prints nothing more" in chk.detail, chk.detail


def test_what_a_call_prints_on_stderr_is_compared_input_by_input(tmp_path):
    """A verbose mode reports on stderr; the rewrite returns the same and drops the report: wrong-output on an
    input with verb > 2, and the finding shows what each printed."""
    orig = FIX / "prints" / "count_runs.c"
    h, cut = make_harness(tmp_path, orig, "count_runs", n_random=3000)
    chk = check_asm(h, tmp_path, variant(tmp_path, FIX / "prints" / "count_runs_quiet.c", "count_runs"), "quiet")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert 'the original prints "      ' in chk.detail and "this prints nothing more" in chk.detail, chk.detail


# --- the calling convention ---------------------------------------------------------


@pytest.fixture(scope="module")
def popcount(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("abi")
    h, cut = make_harness(tmp, FIX / "popcount.c", "popcount", n_random=5000)
    return h, tmp


@pytest.mark.parametrize(
    "body,reason,what",
    [
        pytest.param(
            "\tpopcntq %rdi, %rax\n\tmovq %rdi, %mm0\n\tret",
            "abi-violation",
            "x87 register stack",
            id="mmx-without-emms",
        ),
        pytest.param(
            "\tpopcntq %rdi, %rax\n\tmovq $0, 8(%rsp)\n\tret",
            "abi-violation",
            "caller's frame",
            id="writes-caller-frame",
        ),
        pytest.param(
            "\tpopcntq %rdi, %rax\n\tmovq %rax, 40(%rsp)\n\tret",
            "abi-violation",
            "caller's frame",
            id="writes-padding-slot",
        ),
        pytest.param(
            "\tpopcntq %rdi, %rax\n\taddq %rsi, %rax\n\tret", "wrong-output", "", id="reads-unused-argument-register"
        ),
        pytest.param("\tpopcntq %rdi, %rdi\n\taddq %rdi, %rax\n\tret", "wrong-output", "", id="reads-rax-on-entry"),
        # keeps its argument 512 bytes below the stack pointer (beyond the 128-byte red zone) while it works:
        # a signal arriving meanwhile overwrites it, as it would in a real program
        pytest.param(
            "\tmovq %rdi, -512(%rsp)\n\tmovl $3000, %ecx\n.Lspin:\n\tdecl %ecx\n\tjne .Lspin\n"
            "\tmovq -512(%rsp), %rdi\n\tpopcntq %rdi, %rax\n\tret",
            "wrong-output",
            "",
            id="data-below-red-zone",
        ),
    ],
)
def test_calling_convention(popcount, body, reason, what):
    h, tmp = popcount
    chk = check_asm(h, tmp, asm_fn("popcount", body), f"abi-{abs(hash(body))}")
    assert (chk.ok, chk.reason) == (False, reason), chk.detail
    assert what in chk.detail


@pytest.mark.skipif("avx" not in cpu_flags(), reason="needs a CPU with AVX")
def test_dirty_upper_ymm_state_is_an_abi_violation(popcount):
    h, tmp = popcount
    chk = check_asm(h, tmp, asm_fn("popcount", "\tvpcmpeqd %ymm1, %ymm1, %ymm1\n\tpopcntq %rdi, %rax\n\tret"), "ymm")
    assert (chk.ok, chk.reason) == (False, "abi-violation"), chk.detail
    assert "vzeroupper" in chk.detail
    clean = check_asm(
        h,
        tmp,
        asm_fn("popcount", "\tvpcmpeqd %ymm1, %ymm1, %ymm1\n\tvzeroupper\n\tpopcntq %rdi, %rax\n\tret"),
        "ymm-clean",
    )
    assert clean.ok, clean.detail


@pytest.mark.skipif("bmi1" not in cpu_flags(), reason="needs a CPU with BMI1 (tzcnt)")
def test_upper_half_of_a_32_bit_argument_gets_varied_junk(tmp_path):
    """tzcntq on a 32-bit argument: right for x == 0 only when bit 32 of the register happens to be set."""
    h, cut = make_harness(tmp_path, ATT / "ctz32.c", "ctz32")
    chk = check_asm(h, tmp_path, asm_fn("ctz32", "\ttzcntq %rdi, %rax\n\tret"), "tzcnt64")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "ctz32(x=0)" in chk.detail
    right = check_asm(h, tmp_path, asm_fn("ctz32", "\ttzcntl %edi, %eax\n\tret"), "tzcnt32")
    assert right.ok, right.detail


def test_globals_also_start_from_the_state_the_program_really_has(tmp_path):
    """`main` sets a mode flag that neither initial nor random contents reach; with program tests
    the harness replays the program's own globals, and the branch it takes is checked too."""
    from supercoder_lsp.optimize.pipeline import Options, Pipeline

    state = FIX / "state"
    cands = tmp_path / "cands" / "scale"
    cands.mkdir(parents=True)
    (cands / "wrong.s").write_text(variant(tmp_path, state / "mode_wrong.c", "scale"))
    opts = Options(
        proposers=("replay",),
        candidates_dir=tmp_path / "cands",
        tests_dir=state / "tests",
        functions=("scale",),
        n_random=5000,
        rounds=6,
        use_cache=False,
    )
    [fn] = Pipeline(opts).run(state / "mode.c").functions
    assert "recorded program state" in fn.harness, fn.harness
    [c] = fn.candidates
    assert c.reason == "wrong-output", (c.reason, c.detail)


# --- arguments on the stack (zlib's deflateInit2_ has 8 parameters) -----------------------

MIX8 = (
    "\tleaq (%rsi,%rsi,2), %rax\n\txorq %r8, %rcx\n\taddq %rdi, %rax\n\tsubq %rdx, %rax\n"
    "\tleaq (%r9,%r9,4), %rdx\n\taddq %rcx, %rax\n\taddq %rdx, %rax\n\tmovq 8(%rsp), %rdx\n"
    "\tleaq (%rax,%rdx,2), %rax\n"
)


@pytest.fixture(scope="module")
def mix8(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stack")
    h, cut = make_harness(tmp, ATT / "stack_args.c", "mix8", n_random=3000)
    assert check_asm(h, tmp, cut.text, "self").ok
    return h, tmp


@pytest.mark.parametrize(
    "tail,reason,what",
    [
        # the right code, which reads g and h where the caller put them; and also writes its own slot
        pytest.param("\tmovslq 16(%rsp), %rdx\n\tsubq %rdx, %rax\n\tret", None, "", id="right"),
        pytest.param(
            "\tmovslq 16(%rsp), %rdx\n\tmovq $0, 16(%rsp)\n\tsubq %rdx, %rax\n\tret", None, "", id="writes-own-slot"
        ),
        # h as a 64-bit word: its upper half on the stack is junk, as in a register
        pytest.param("\tsubq 16(%rsp), %rax\n\tret", "wrong-output", "", id="reads-h-as-64-bits"),
        # a third stack word that the caller never passed
        pytest.param(
            "\tmovslq 16(%rsp), %rdx\n\tsubq %rdx, %rax\n\taddq 24(%rsp), %rax\n\tret",
            "wrong-output",
            "",
            id="reads-past-its-arguments",
        ),
        # ... or writes it: the caller's frame
        pytest.param(
            "\tmovslq 16(%rsp), %rdx\n\tmovq $0, 24(%rsp)\n\tsubq %rdx, %rax\n\tret",
            "abi-violation",
            "caller's frame",
            id="writes-past-its-arguments",
        ),
    ],
)
def test_arguments_passed_on_the_stack(mix8, tail, reason, what):
    h, tmp = mix8
    chk = check_asm(h, tmp, asm_fn("mix8", MIX8 + tail), f"stack-{abs(hash(tail))}")
    if reason is None:
        assert chk.ok, chk.detail
    else:
        assert (chk.ok, chk.reason) == (False, reason), chk.detail
        assert what in chk.detail


@pytest.mark.parametrize(
    "wrong",
    [
        "sum_ints_island.c",  # the fixed address every buffer had
        "sum_ints_program_heap.c",  # a buffer outside where a program's heap and mmap'd blocks lie
        "sum_ints_page_edge.c",  # a buffer against a page boundary
        "sum_ints_stack.c",  # a stack outside where a program's stacks lie
        "sum_ints_environ.c",  # the verifier's settings in its environment
        "sum_ints_near_stack.c",  # a buffer far from its stack pointer (never a caller's local array)
        "sum_ints_near_code.c",  # a buffer far from its code (never a program's global)
        "sum_ints_no_header.c",  # zeros before a buffer (never malloc's chunk header)
        "sum_ints_above_frame.c",  # the trampoline's bytes after its call, in a return address above it
        "sum_ints_counts.c",  # a count of its calls that goes wrong past the calls a check used to make
    ],
)
def test_a_candidate_right_only_where_it_can_tell_the_harness_is_rejected(tmp_path, wrong):
    """Each one sums right where its buffer or stack looks like the harness's and is one too many where it
    looks like a program's: it must be run, and compared, where it looks like a program's."""
    h, chk = verdict(tmp_path, "sum_ints.c", wrong, "sum_ints")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_candidate_that_writes_into_its_const_input_and_puts_it_back_crashes(tmp_path):
    """Every byte it changes it restores before it returns, so the compared bytes never differ; but a const
    buffer is read-only while the call runs (on one input in four), as data in .rodata would be."""
    h, chk = verdict(tmp_path, "sum_ints.c", "sum_ints_writes_const.c", "sum_ints")
    assert (chk.ok, chk.reason) == (False, "crash"), chk.detail


@pytest.mark.serial  # its inputs' time limits decide what is left out: flaky beside other tests on two cores
def test_a_store_past_the_end_that_writes_back_the_same_bytes_is_seen(tmp_path):
    """Whole aligned blocks, the bytes outside the buffer written back as read: no page boundary is crossed
    and the compared bytes are right. On a sample of short inputs the call runs single-stepped, and the bytes
    beside each output buffer change under it: a stale copy written back is a store outside the object."""
    h, chk = verdict(tmp_path, "xor_bytes.c", "xor_bytes_blocks.c", "xor_bytes")
    assert (chk.ok, chk.reason) == (False, "wrong-output") and "beside a buffer" in chk.detail, chk.detail


def test_a_store_beside_a_struct_that_writes_back_the_same_bytes_is_seen(tmp_path):
    """The same for a struct behind a pointer: whole aligned blocks, the bytes beside the struct written back
    as read. The bytes beside a struct parameter are watched as an array's are."""
    h, chk = verdict(tmp_path, "bump_tail.c", "bump_tail_blocks.c", "bump_tail", compiled_types=True)
    assert (chk.ok, chk.reason) == (False, "wrong-output") and "beside a buffer" in chk.detail, chk.detail


@pytest.mark.parametrize("wrong", ["sum_ints_memo.c", "sum_ints_memo3.c"], ids=["second-call", "third-call"])
def test_a_result_kept_for_the_next_call_is_seen(tmp_path, wrong):
    """A memo below the stack pointer, keyed on a few of the input's elements: right on every new input, stale
    where a program calls it again on a buffer it changed. On a sample of inputs the harness calls it first,
    one to three times, on the input with one bit of its buffers flipped, then on the input; and a candidate's
    repeated input is called many times on a neighbour before its recorded call (a memo that answers from its
    third matching call on passed one call on a neighbour)."""
    h, chk = verdict(tmp_path, "sum_ints.c", wrong, "sum_ints")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_data_kept_below_the_red_zone_is_lost_to_a_signal(tmp_path):
    """A running sum kept 3 KiB below the stack pointer: the harness's ticks (a program's signal handlers)
    fill 16 KiB below the red zone with junk that changes from tick to tick (2 KiB let it pass)."""
    h, chk = verdict(tmp_path, "sum_ints.c", "sum_ints_deep_scratch.c", "sum_ints")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_stale_write_back_past_a_longer_output_is_seen(tmp_path):
    """For n over 128, the 32 bytes past dst rewritten with what they held, only where no page boundary is
    near: longer buffers (up to 8 KiB) are watched single-stepped on a sample of inputs too."""
    h, chk = verdict(tmp_path, "inc_copy.c", "inc_copy_tail_rmw.c", "inc_copy")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "beside a buffer" in chk.detail, chk.detail


@pytest.mark.parametrize(
    "original, wrong, name",
    [
        ("find_first.c", "find_first_sorted.c", "find_first"),  # sorted data, and a key that is in it
        ("count_spaces.c", "count_spaces_the.c", "count_spaces"),  # the words of a text
        ("ones64.c", "ones64_near_top.c", "ones64"),  # integers near the top of their type
        ("sum_ints.c", "sum_ints_rows.c", "sum_ints"),  # elements that count up by one (row numbers)
        ("sum_ints.c", "sum_ints_sparse.c", "sum_ints"),  # arrays that are zero but for a few elements
        ("neg_all.c", "neg_all_default_nan.c", "neg_all"),  # the NaN 0/0 gives, in an array
        ("count_slashes.c", "count_slashes_paths.c", "count_slashes"),  # a path in a C string
        ("dot_ints.c", "dot_ints_self.c", "dot_ints"),  # two read-only arrays that are one
        ("sum_ints.c", "sum_ints_smooth.c", "sum_ints"),  # a sampled signal
        ("sum_bytes.c", "sum_bytes_utf8.c", "sum_bytes"),  # text in two-byte UTF-8
        ("sum_ints.c", "sum_ints_mid_long.c", "sum_ints"),  # lengths a little past a multiple of 4,096
        ("sum_bytes.c", "sum_bytes_prose.c", "sum_bytes"),  # prose in a byte buffer (not only in C strings)
        ("inc_copy.c", "inc_copy_blocks128.c", "inc_copy"),  # buffers 65 to 127 elements apart
        ("sum_bytes.c", "sum_bytes_records.c", "sum_bytes"),  # the bytes of an array of equal doubles
        ("utf8_valid.c", "utf8_valid_surrogates.c", "utf8_valid"),  # the edges of UTF-8 in a text
        ("utf8_valid.c", "utf8_valid_after4.c", "utf8_valid"),  # a bad four-byte sequence after an emoji
        ("find_bytes.c", "find_bytes_inside.c", "find_bytes"),  # a needle cut from its haystack
        ("dot_ints.c", "dot_ints_near.c", "dot_ints"),  # two arrays next to each other (loose placement)
    ],
)
def test_data_a_program_has_and_random_draws_do_not_is_generated(tmp_path, original, wrong, name):
    """Each one is right on random data and wrong on data programs pass all the time: sorted arrays with a key
    from them, text of words, integers near their type's most. One random input in eight (sixteen for the
    integers) is drawn so."""
    h, chk = verdict(tmp_path, original, wrong, name)
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_memo_kept_past_the_programs_data_is_a_write_no_object_owns(tmp_path):
    """Keyed on all of its input, the memo is never stale; but it lives in the rest of the executable's last
    page, past .bss, memory no object owns. That page's rest holds drawn bytes during every call."""
    h, chk = verdict(tmp_path, "sum_ints.c", "sum_ints_past_data.c", "sum_ints")
    assert (chk.ok, chk.reason) == (False, "abi-violation"), chk.detail
    assert "past the end of the program's data" in chk.detail, chk.detail


@pytest.mark.parametrize(
    "original,wrong,name",
    [
        pytest.param("hash_seed.c", "hash_seed_magic.c", "hash_seed", id="a-seed"),
        pytest.param("sum_ints.c", "sum_ints_magic.c", "sum_ints", id="an-element"),
        pytest.param("sum_bytes.c", "sum_bytes_magic.c", "sum_bytes", id="a-word-of-bytes"),
        pytest.param("scale_special.c", "scale_special_dropped.c", "scale", id="the-originals-special-case-dropped"),
    ],
)
def test_a_candidate_wrong_on_one_value_its_code_holds_is_rejected(tmp_path, original, wrong, name):
    """Wrong on one value in 2^32 alone (a seed, an element, four bytes compared as a word, the original's
    special case left out): no random draw meets it. The candidate's code holds the value, or the
    original's holds it and the candidate's does not, and a pass of inputs drawn from those constants does."""
    h, chk = verdict(tmp_path, original, wrong, name)
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
    assert "constants its code holds" in chk.detail


@pytest.mark.parametrize(
    "original, wrong, name",
    [
        ("utf8_valid.c", "utf8_valid_pieces.c", "utf8_valid"),  # a character across a 1 MiB piece's end
        ("find_bytes.c", "find_bytes_windows.c", "find_bytes"),  # a match across a 1 MiB window's end
        ("sum_ints.c", "sum_ints_past_2m.c", "sum_ints"),  # wrong past 2^21 elements alone
    ],
)
def test_work_done_in_pieces_past_a_mebibyte_is_checked_across_their_ends(tmp_path, original, wrong, name):
    """Each one is right on every input of up to 2^20 elements: it works in pieces of 1 MiB (or counts in 21
    bits) and is wrong only where a character or a match crosses a piece's end, or past 2^21. The long inputs
    go past 2^21, and their text, and a needle searched for in them, cross the ends of every piece of 64 KiB
    that a program's buffers would be cut into."""
    h, chk = verdict(tmp_path, original, wrong, name)
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


@pytest.mark.parametrize(
    "original, wrong, name",
    [
        ("count_pos.c", "count_pos_null.c", "count_pos"),  # (NULL, 0), as callers pass an empty array
        ("sum_bytes.c", "sum_bytes_misaligned.c", "sum_bytes"),  # neither end 16-byte aligned
        ("parse_dec.c", "parse_dec_wraps.c", "parse_dec"),  # a decimal number just past 2^32
        ("sum_bytes.c", "sum_bytes_lanes_flush.c", "sum_bytes"),  # a long run of 0xff bytes
        ("max_d.c", "max_d_last_tie.c", "max_d"),  # -0 and +0 tied as the largest, the rest below zero
    ],
)
def test_inputs_a_program_passes_and_the_harness_never_drew_are_drawn(tmp_path, original, wrong, name):
    """Each one is right on every input the harness drew before (a held-out audit's classes): a NULL array
    with no elements; a buffer with neither end on a vector's alignment; the digits of a number at a type's
    edge; a long run of the largest element with the other arguments near their most."""
    h, chk = verdict(tmp_path, original, wrong, name, n_random=3 * LONG_STRIDE)
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail
