"""Verify stage: the generated harness, the ABI trampoline and program tests, on real gcc output."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FIXTURES, asm_fn, check_asm, make_harness

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.harness.plan import describe, make_plan
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.optimize.pipeline import Options, Pipeline
from supercoder_lsp.source import parse_functions

FIX = FIXTURES / "verify"


@pytest.fixture(scope="module")
def popcount(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("popcount")
    h, cut = make_harness(tmp, FIX / "popcount.c", "popcount")
    return h, tmp, cut


def test_baseline_against_itself_passes_every_input(popcount):
    h, tmp, cut = popcount
    chk = check_asm(h, tmp, cut.text, "self")
    assert chk.ok, chk.detail
    assert chk.inputs == h.n_inputs > 20_000  # edge values plus the random ones


CALLEE_SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]


@pytest.mark.parametrize("reg", CALLEE_SAVED, ids=CALLEE_SAVED)
def test_each_clobbered_callee_saved_register_is_named(popcount, reg):
    h, tmp, _ = popcount
    chk = check_asm(h, tmp, asm_fn("popcount", f"\tpopcntq %rdi, %rax\n\tmovq $1, %{reg}\n\tret"), f"clobber-{reg}")
    assert (chk.ok, chk.reason) == (False, "abi-violation")
    assert f"%{reg}" in chk.detail


@pytest.mark.parametrize(
    "body,what",
    [
        pytest.param("\tpopcntq %rdi, %rax\n\tpopq %rcx\n\taddq $8, %rsp\n\tjmp *%rcx", "%rsp", id="rsp-not-restored"),
        pytest.param("\tpopcntq %rdi, %rax\n\tstd\n\tret", "direction flag", id="direction-flag"),
        pytest.param(
            "\tpopcntq %rdi, %rax\n\tsubq $8, %rsp\n\tstmxcsr (%rsp)\n\torl $0x6000, (%rsp)\n\tldmxcsr (%rsp)\n\taddq $8, %rsp\n\tret",
            "MXCSR",
            id="mxcsr-rounding-mode",
        ),
        pytest.param(
            "\tpopcntq %rdi, %rax\n\tsubq $8, %rsp\n\tfnstcw (%rsp)\n\torw $0x0c00, (%rsp)\n\tfldcw (%rsp)\n\taddq $8, %rsp\n\tret",
            "x87 control word",
            id="x87-control-word",
        ),
    ],
)
def test_other_abi_state_must_be_preserved(popcount, body, what):
    h, tmp, _ = popcount
    chk = check_asm(h, tmp, asm_fn("popcount", body), "abi")
    assert (chk.ok, chk.reason) == (False, "abi-violation"), chk.detail
    assert what in chk.detail


def test_wrong_output_reports_first_failing_input_expected_and_actual(popcount):
    h, tmp, _ = popcount
    chk = check_asm(h, tmp, asm_fn("popcount", "\tpopcntl %edi, %eax\n\tret"), "low32")
    assert (chk.ok, chk.reason) == (False, "wrong-output")
    # the first input with a bit above 31 set: expected the true count, got the low half's
    assert chk.detail.startswith("popcount(x=")
    x = int(chk.detail.split("x=")[1].split(")")[0])
    assert f"expected {bin(x).count('1')}, got {bin(x & 0xFFFFFFFF).count('1')}" in chk.detail


def test_crash_and_timeout_are_reasons_not_hangs(popcount):
    h, tmp, _ = popcount
    crash = check_asm(h, tmp, asm_fn("popcount", "\tmovq 0, %rax\n\tret"), "crash")
    assert (crash.reason, "signal 11" in crash.detail) == ("crash", True)
    hang = check_asm(h, tmp, asm_fn("popcount", ".Lspin:\n\tjmp .Lspin"), "hang")
    assert hang.reason == "timeout"


def test_upper_half_of_32_bit_argument_is_poisoned(tmp_path):
    h, _ = make_harness(tmp_path, FIX / "funcs" / "widen.c", "widen")
    # relies on the upper half of %rdi being zero: legal C would never see that bug without poisoning
    wrong = check_asm(h, tmp_path, asm_fn("widen", "\tleaq (%rdi,%rdi,2), %rax\n\tret"), "no-zext")
    assert wrong.reason == "wrong-output", wrong.detail
    right = check_asm(h, tmp_path, asm_fn("widen", "\tmovl %edi, %eax\n\tleaq (%rax,%rax,2), %rax\n\tret"), "zext")
    assert right.ok, right.detail


def test_array_reads_past_the_end_hit_a_guard_page(tmp_path):
    h, cut = make_harness(tmp_path, FIX / "funcs" / "arrmax.c", "arrmax", bounds={"n": [0, 40]})
    assert check_asm(h, tmp_path, cut.text, "self").ok
    # reads a[n] as well: off by one, would pass without a guard page after the array
    body = (
        "\tmovl $-2147483648, %eax\n\txorl %ecx, %ecx\n.Lt:\n\tcmpl %esi, %ecx\n\tjg .Ld\n"
        "\tmovl (%rdi,%rcx,4), %edx\n\tcmpl %edx, %eax\n\tcmovl %edx, %eax\n\tincl %ecx\n\tjmp .Lt\n.Ld:\n\tret"
    )
    chk = check_asm(h, tmp_path, asm_fn("arrmax", body), "overread")
    assert chk.reason in ("crash", "wrong-output"), chk.detail
    assert "arrmax(a={" in chk.detail


def test_c_string_harness_finds_an_off_by_one_case_bug(tmp_path):
    h, cut = make_harness(tmp_path, FIX / "funcs" / "vowels.c", "count_vowels")
    assert check_asm(h, tmp_path, cut.text, "self").ok
    # forgets the uppercase vowels
    body = (
        "\txorl %eax, %eax\n.Ll:\n\tmovzbl (%rdi), %ecx\n\ttestb %cl, %cl\n\tje .Le\n\tincq %rdi\n"
        "\tcmpb $97, %cl\n\tje .Lv\n\tcmpb $101, %cl\n\tje .Lv\n\tcmpb $105, %cl\n\tje .Lv\n"
        "\tcmpb $111, %cl\n\tje .Lv\n\tcmpb $117, %cl\n\tjne .Ll\n.Lv:\n\tincl %eax\n\tjmp .Ll\n.Le:\n\tret"
    )
    chk = check_asm(h, tmp_path, asm_fn("count_vowels", body), "lower-only")
    assert chk.reason == "wrong-output"
    assert 'count_vowels(s="' in chk.detail


def test_output_buffers_are_compared(tmp_path):
    h, cut = make_harness(tmp_path, FIX / "funcs" / "scale.c", "scale", bounds={"v": [0, 33]})
    assert check_asm(h, tmp_path, cut.text, "self").ok
    # returns without scaling anything
    chk = check_asm(h, tmp_path, asm_fn("scale", "\tret"), "noop")
    assert chk.reason == "wrong-output", chk.detail


def test_function_using_its_files_globals_links_with_the_rest_of_the_file(tmp_path):
    h, cut = make_harness(tmp_path, FIX / "funcs" / "counter.c", "bump")
    assert "limit" in cut.external_refs
    assert check_asm(h, tmp_path, cut.text, "self").ok
    # ignores the global limit
    chk = check_asm(h, tmp_path, asm_fn("bump", "\tmovl %edi, %eax\n\tret"), "nolimit")
    assert chk.reason == "wrong-output"


def test_unsupported_signatures_say_what_to_do():
    fn = parse_functions("struct p { int x; }; int f(struct p *q, int n) { return n; }")[0]
    plan = make_plan(fn.signature)
    assert not plan.supported and "--tests" in plan.why
    fn = parse_functions("int g(const int *a) { return a[0]; }")[0]
    plan = make_plan(fn.signature)  # no length parameter: a fixed length, probed (test_probe.py)
    assert plan.supported and plan.params[0].probe and plan.params[0].max_len == 4096


def test_bounds_are_validated_against_the_type():
    fn = parse_functions("int f(unsigned char c) { return c; }")[0]
    assert "does not fit" in make_plan(fn.signature, {"c": [0, 300]}).why
    assert "does not have" in make_plan(fn.signature, {"x": [0, 3]}).why
    assert make_plan(fn.signature, {"c": [10, 20]}).supported


def test_a_length_named_for_another_parameter_is_not_a_strings_length():
    """zlib's deflateInit_(strm, level, version, stream_size): stream_size is sizeof(z_stream), not the
    length of the version string; taken as one, a version of length 0 is read past its end."""
    init = parse_functions("int init_(int level, const char *version, int stream_size) { return 0; }")[0]
    assert [p.role for p in make_plan(init.signature).params] == ["int", "cstring", "int"]
    put = parse_functions("int put(const char *src, int src_len) { return 0; }")[0]
    assert [p.role for p in make_plan(put.signature).params] == ["array", "length"]
    named = parse_functions("int put(const char *name, int len) { return 0; }")[0]
    assert [p.role for p in make_plan(named.signature).params] == ["array", "length"]


ZLIKE = FIXTURES / "real" / "zlike.c"


def _variant(tmp: Path, name: str, old: str, new: str) -> str:
    """The -O3 assembly of `name` compiled from zlike.c with one edit: a candidate as a model might write it."""
    src = tmp / f"{abs(hash(new))}.c"
    text = ZLIKE.read_text()
    assert old in text
    src.write_text(text.replace(old, new))
    asm = build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "t", str(tmp)), tmp / f"{src.stem}.s")
    return cut_function(asm, name).text


@pytest.fixture(scope="module")
def consume(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("consume")
    h, cut = make_harness(tmp, ZLIKE, "zlike_consume", n_random=5000, compiled_types=True)
    return h, tmp, cut


def test_a_struct_pointer_gets_its_fields_generated_and_compared(consume):
    h, tmp, cut = consume
    assert (
        describe(h.plan)
        == "strm: one zlike_stream (40 bytes, fields random, its 2 pointer field(s) NULL, its 1 data pointer(s) "
        "into one 64 KiB buffer or its own arrays); used: uint32_t"
    )
    chk = check_asm(h, tmp, cut.text, "self")
    assert chk.ok and chk.inputs > 5000, chk.detail
    same = _variant(tmp, "zlike_consume", "strm->total_in += used;", "strm->total_in = strm->total_in + used;")
    assert check_asm(h, tmp, same, "same").ok


def test_a_wrong_write_to_one_struct_field_is_caught(consume):
    """Wrong only when the stream is nearly empty: a bookkeeping slip a model could make."""
    h, tmp, _ = consume
    wrong = _variant(tmp, "zlike_consume", "strm->total_in += used;", "strm->total_in += used + (strm->avail_in == 1);")
    chk = check_asm(h, tmp, wrong, "wrong")
    assert not chk.ok and chk.reason == "wrong-output", chk.detail


def test_a_count_one_short_of_a_large_field_is_generated(consume):
    """Wrong only where `used` is one less than a large `avail_in`: two random draws almost never meet
    so, but an integer parameter is now and then drawn from a struct's field, or one off."""
    h, tmp, _ = consume
    wrong = _variant(
        tmp,
        "zlike_consume",
        "strm->total_in += used;",
        "strm->total_in += used + (strm->avail_in == 1 && used > 100000);",
    )
    chk = check_asm(h, tmp, wrong, "far")
    assert not chk.ok and chk.reason == "wrong-output", chk.detail


def test_a_pointer_field_is_compared_by_where_it_points(consume):
    """Addresses differ between processes, so a pointer field is never compared by value; next_in points
    into a generated buffer (it was NULL, and this line never ran), and where it is left is compared as
    (buffer, offset): a candidate that moves it one byte too far is caught."""
    h, tmp, _ = consume
    other = _variant(tmp, "zlike_consume", "strm->next_in += used;", "strm->next_in += used + 1;")
    chk = check_asm(h, tmp, other, "ptr")
    assert (chk.ok, chk.reason) == (False, "wrong-output"), chk.detail


def test_a_struct_pointer_used_as_an_array_is_refused_not_misjudged(tmp_path):
    """`const zlike_code *tree` points to one struct as far as the types say, and the function reads tree[n]:
    past the object the harness gives. Its results then depend on where memory lies, which would make good
    candidates look wrong; the baseline's self-check (buffers against the other guard) refuses the harness."""
    with pytest.raises(RuntimeError, match="depends on where its buffers lie"):
        make_harness(tmp_path, ZLIKE, "zlike_sum_freq", n_random=2000, compiled_types=True)


def test_a_refusal_the_first_inputs_already_show_comes_before_the_whole_run(tmp_path):
    """The same refusal where the first 2,000 of 20,000 inputs already show it: it comes from them, not
    after runs over every input (zlib's inflate_fast: 67 s of its 0.7 ms inputs before it, 4 s now)."""
    with pytest.raises(RuntimeError, match=r"depends on where its buffers lie.*seen on the first 2,000 generated"):
        make_harness(tmp_path, ZLIKE, "zlike_sum_freq", n_random=20000, compiled_types=True)


def test_a_refusal_only_random_inputs_show_also_comes_before_the_whole_run(tmp_path):
    """The first 2,000 inputs are edge ones, and rare_past's edge keys never take its branch that reads one
    byte past the buffer: 2,000 random inputs from the start of a part of the whole run show it too, and the
    refusal comes from them, naming the same input the whole run would (zlib's inflate_table: 2.1 s before
    its buffers were probed, 0.6 s now)."""
    fixture = FIXTURES / "verify" / "domain" / "rare_past.c"
    with pytest.raises(RuntimeError, match=r"depends on where its buffers lie.*2,000 from input") as early:
        make_harness(tmp_path, fixture, "rare_past", n_random=20000, compiled_types=True)
    assert "seen on the first 2,000 generated inputs and" in str(early.value), early.value


def test_an_original_that_mallocs_and_frees_a_copy_gets_a_harness(tmp_path):
    """Before the heap was grown ahead of the sandbox, its malloc made a system call and it had none."""
    h, _ = make_harness(tmp_path, FIXTURES / "verify" / "noharness" / "alloc.c", "dup_sum", n_random=200)
    assert h.n_inputs > 200 and h.skipped == 0


def test_the_definition_the_flags_compile_is_the_one_asked_for_and_two_strings_get_a_harness():
    """`match_len` is defined under #ifdef FASTEST and under its #else; by name, the compiled one is
    taken (zlib's longest_match was reported 'not compiled' for the other). Its two C strings each
    get their own generated text."""
    opts = Options(proposers=(), functions=("match_len",), n_random=2000, rounds=6, use_cache=False)
    [res] = Pipeline(opts).run(FIX / "funcs" / "alternatives.c").functions
    assert "not compiled" not in (res.harness or "") + res.detail, res.detail
    assert "a: C string" in res.harness and "b: C string" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["percent"] == 100, res.coverage


def test_three_arrays_of_one_length_overlap_a_pair_at_a_time(tmp_path):
    """dst, a and b may each be one memory or overlap (no restrict). Drawn for two pairs on one input, the
    second pair's placement changed what the first pair's buffer held by where each lay, and the self-check
    refused a plain saturating add ("depends on where its buffers lie"); now the harness is built and the
    original passes it."""
    h, cut = make_harness(tmp_path, FIX / "funcs" / "mix3.c", "mix3", n_random=6000)
    chk = check_asm(h, tmp_path, cut.text, "self")
    assert chk.ok, chk.detail
