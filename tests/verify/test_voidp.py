"""`void *` parameters with a length are bytes, and a `void *` result is compared as NULL, a place in a
block the call allocated, or a place in the caller's buffer (zlib's gzread, gzwrite and zcalloc)."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

VOIDP = FIXTURES / "verify" / "voidp"


def test_a_void_pointer_with_a_length_is_a_byte_buffer(tmp_path):
    res = pipeline_on_rewrites(tmp_path, VOIDP / "voidp.c", "checksum", VOIDP / "voidp_wrong.c", proof_budget=0)
    assert res.status == "done", res.detail
    assert "buf: array of uint8_t" in res.harness and "from 'len'" in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_returned_block_is_compared_by_its_size_and_bytes(tmp_path):
    res = pipeline_on_rewrites(tmp_path, VOIDP / "voidp.c", "zeroed", VOIDP / "voidp_wrong.c", proof_budget=0)
    assert res.status == "done", res.detail
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail
    assert "items=7" in wrong.detail, wrong.detail
