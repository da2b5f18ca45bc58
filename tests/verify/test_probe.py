"""Buffers without a length parameter get the length the -O3 original touches, found on guard pages."""

from __future__ import annotations

from pathlib import Path

from support import FIXTURES, pipeline_on_rewrites

PROBE = FIXTURES / "verify" / "probe"


def _run(tmp: Path, src: Path, fn: str, *wrong: str):
    return pipeline_on_rewrites(tmp, src, fn, *(PROBE / f"{w}.c" for w in wrong), rounds=6)


def test_fixed_size_arrays_get_the_size_the_original_touches(tmp_path):
    """`uint32_t state[5]`, `const unsigned char block[64]`: bare pointers to the compiler, five
    and 64 elements to the original. A rewrite that reads one element more crashes on the guard."""
    res = _run(tmp_path, PROBE / "block.c", "mix_block", "block_overread")
    assert "state: array of 5 uint32_t, as much as the -O3 original touches" in res.harness, res.harness
    assert "block: array of 64 uint8_t" in res.harness
    [c] = res.candidates
    assert c.reason == "crash" and "signal 11" in c.detail, (c.reason, c.detail)


def test_a_buffer_read_until_a_sentinel_has_no_size_and_says_what_to_give(tmp_path):
    res = _run(tmp_path, PROBE / "until_zero.c", "count_until_zero")
    assert res.status == "unsupported"
    assert "'a' has no length parameter" in res.detail and "touches memory outside 4096 elements" in res.detail
    assert "--bound count_until_zero.a=N:N" in res.detail


def test_a_public_struct_read_as_a_larger_private_one_is_sized_by_probing(tmp_path):
    """zlib's gzFile: a 24-byte public struct that every gz* function casts to its private gz_state. The
    original reads past the 24 bytes the type says, so the harness probes how far (the private state's
    80 bytes here) instead of refusing the function; a rewrite that reads one byte more crashes."""
    res = _run(tmp_path, PROBE / "file.c", "file_sum", "file_reads_more")
    assert "reads as 80 bytes (probed with guard pages; its own 24 bytes" in res.harness, res.harness
    assert res.coverage and res.coverage["percent"] >= 70
    [c] = res.candidates
    assert c.reason == "crash" and "signal 11" in c.detail, (c.reason, c.detail)


def test_a_pointer_without_a_length_beside_a_handle_read_past_is_probed_with_the_handle_grown(tmp_path):
    """zlib's gzerror(gzFile, int *errnum): probing `code` alone, the original's reads past the public
    handle move its results, so the handle is grown (probed) first and `code` probed beside it; its
    message is returned as a string."""
    res = _run(tmp_path, PROBE / "file.c", "file_error")
    assert res.status != "unsupported", res.detail
    assert "code: array of 1 int32_t, as much as the -O3 original touches" in res.harness, res.harness
    assert "one struct file_s that the original reads as" in res.harness
