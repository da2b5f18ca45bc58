"""Struct fields from the constants the function compares with: a `mode` that must be one of two
magic numbers (zlib's gzbuffer checks GZ_READ or GZ_WRITE) is drawn from the -O3 original's own
comparisons, so generated inputs get past the check without any program to record."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.asm.constants import compared_constants, compared_fields

DICT = FIXTURES / "verify" / "dictionary"


def test_the_constants_of_the_originals_comparisons_are_found():
    text = "\tcmpl\t$7247, 24(%rdi)\n\tje\t.L3\n\tcmpl\t$31153, %eax\n\tcmpq\t$1, %rsi\n\tsubl\t$-40, %edx\n"
    got = compared_constants(text)
    assert got[:3] == (7247, 7246, 7248) and 31153 in got
    assert 1 not in got  # small values are drawn anyway
    assert (-40) & (2**64 - 1) in got


def test_a_mode_that_must_be_a_magic_number_is_reached_by_generated_inputs(tmp_path):
    res = pipeline_on_rewrites(tmp_path, DICT / "mode.c", "set_buffer", DICT / "mode_wrong.c", n_random=5000, rounds=6)
    assert res.coverage is not None and res.coverage["generated_percent"] >= 70, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_each_field_gets_the_values_it_is_compared_with(tmp_path):
    assert compared_fields("\tcmpl\t$666, (%rdi)\n\tcmpl\t$2, 4(%rdi)\n\tcmpl\t$5, x(%rip)\n") == {
        0: (666, 665, 667),
        4: (2, 1, 3),
    }
    res = pipeline_on_rewrites(
        tmp_path, DICT / "header.c", "set_header", DICT / "header_wrong.c", n_random=5000, rounds=6
    )
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_field_checked_against_a_range_gets_both_ends():
    """zlib's inflateStateCheck, `mode < HEAD || mode > SYNC`, as gcc -O3 writes it: the field less HEAD,
    compared unsigned with SYNC - HEAD. Random fields never land in [16180, 16211]."""
    asm = "\tmovl\t8(%rdx), %esi\n\tleal\t-16180(%rsi), %ecx\n\tcmpl\t$31, %ecx\n\tja\t.L49\n"
    assert compared_fields(asm) == {8: (16180, 16179, 16181, 16211, 16210, 16212)}
    assert compared_fields("\tmovzwl\t4(%rdi), %eax\n\tsubl\t$7, %eax\n\tcmpl\t$3, %eax\n") == {4: (7, 6, 8, 10, 9, 11)}
