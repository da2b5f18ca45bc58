"""A length passed by pointer: zlib's compress(dest, uLongf *destLen, source, sourceLen) takes dest's
capacity in *destLen and returns the bytes written there. Before, dest was sized by sourceLen and
*destLen was random, so the original wrote past dest and every input depended on where buffers lie."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

CAP = FIXTURES / "verify" / "capacity"


def test_dest_gets_the_capacity_its_length_pointer_says_and_a_write_past_it_is_caught(tmp_path):
    res = pipeline_on_rewrites(tmp_path, CAP / "pack.c", "pack", CAP / "pack_wrong.c")
    assert "dest: array of uint8_t, length 0..4096, given as *destLen" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    [wrong] = res.candidates
    assert wrong.reason in ("wrong-output", "crash"), wrong.detail


def test_the_programs_calls_are_recorded_with_as_much_of_dest_as_destlen_says(tmp_path):
    res = pipeline_on_rewrites(tmp_path, CAP / "pack.c", "pack", CAP / "pack_wrong.c", tests_dir=CAP / "tests")
    assert res.coverage is not None and res.coverage["recorded"] == 2, res.harness
    assert "outside" not in res.harness and "left out" not in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason in ("wrong-output", "crash"), wrong.detail
