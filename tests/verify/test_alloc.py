"""Functions that allocate: a working buffer from malloc, freed before returning, runs in the function
harness (the heap is grown before the sandbox, so malloc needs no system call); memory a call leaves
allocated is its result (zlib's deflateInit_ builds its state there): its blocks are compared, size and
bytes, a pointer to one as (block, offset), then freed; a candidate that leaks is wrong."""

from __future__ import annotations

import re
from pathlib import Path

from support import FIXTURES, pipeline_on_rewrites

ALLOC = FIXTURES / "verify" / "alloc"


def _run(tmp: Path, src: str, fn: str, *cands: str):
    return pipeline_on_rewrites(tmp, ALLOC / f"{src}.c", fn, *(ALLOC / f"{c}.c" for c in cands))


def test_a_function_with_a_malloced_working_buffer_is_verified_and_a_leak_is_wrong(tmp_path):
    res = _run(tmp_path, "scratch", "max_prefix", "scratch_leak", "scratch_nomalloc")
    assert res.status == "done" and res.coverage and res.coverage["percent"] == 100, (res.detail, res.harness)
    by = {c.label: c for c in res.candidates}
    leak = by["scratch_leak"]
    assert leak.reason == "wrong-output" and "leaves memory allocated" in leak.detail, leak.detail
    one_pass = by["scratch_nomalloc"]  # the same results without any buffer: verified, then timed
    assert one_pass.inputs_checked > 3000 and one_pass.timing is not None, (one_pass.reason, one_pass.detail)


def test_a_candidate_is_timed_where_its_memory_lies_as_it_was_checked(tmp_path):
    """The timing driver lays out memory as the verifier's runs do (address randomization off, the island
    where the verifier drew it). A candidate that behaves otherwise where its working buffer lies at the
    timing driver's old fixed island (0x200000000000) passed every check and was timed on another path:
    here a wrong one ("behaves differently outside the verification harness"); a slower or faster path
    would have been timed unseen. Now it is timed on the path it was checked on."""
    res = _run(tmp_path, "scratch", "max_prefix", "scratch_timed_island")
    [c] = res.candidates
    assert c.inputs_checked > 3000 and c.timing is not None, (c.reason, c.detail)


def test_a_function_whose_result_is_memory_it_allocates_is_compared_by_that_memory(tmp_path):
    res = _run(tmp_path, "keeps", "buf_init", "keeps_same", "keeps_wrong", "keeps_offset", "keeps_leak")
    assert res.status == "done", (res.detail, res.harness)
    by = {c.label: c for c in res.candidates}
    # calloc and a loop instead of malloc and memset: the same block, the same bytes
    assert by["keeps_same"].reason in (None, "not-faster"), by["keeps_same"].detail
    assert by["keeps_same"].inputs_checked > 3000
    # one byte of the block left unset, from n = 1001 on: the bytes are compared
    assert by["keeps_wrong"].reason == "wrong-output", by["keeps_wrong"].detail
    # the struct points one byte into the block, from n = 2001 on: where it points is compared
    assert by["keeps_offset"].reason == "wrong-output", by["keeps_offset"].detail
    # a second block it forgets: caught, though the first is the same
    assert by["keeps_leak"].reason == "wrong-output", by["keeps_leak"].detail


def test_memory_a_call_allocated_before_it_crashed_is_given_back(tmp_path):
    res = _run(tmp_path, "dies", "table_sum")
    assert res.status == "done", (res.detail, res.harness)
    assert re.search(r"[\d,]+ generated inputs, [\d,]+ skipped: the -O3 original crashes", res.harness), res.harness


def test_freeing_a_handle_it_was_given_is_part_of_the_result(tmp_path):
    res = _run(tmp_path, "closes", "handle_close", "closes_nofree")
    assert res.status == "done", (res.detail, res.harness)
    [nofree] = res.candidates
    assert nofree.reason == "wrong-output", nofree.detail


def test_a_write_past_a_block_the_call_allocated_crashes_that_input_not_the_harness(tmp_path):
    # sink_put mallocs `want` bytes and, with a generated `have` past them, writes on past the block:
    # in glibc's heap that corrupted the heap and the harness died ("the -O3 baseline itself fails")
    res = _run(tmp_path, "sink", "sink_put", "sink_wrong")
    assert res.status == "done", (res.detail, res.harness)
    assert re.search(r"[\d,]+ skipped: the -O3 original crashes", res.harness), res.harness
    assert res.coverage and res.coverage["generated_percent"] == 100, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_call_that_allocates_in_a_loop_is_refused_memory_not_killed(tmp_path):
    # with a generated `want` of 0, sink_drain mallocs empty blocks until its time runs out: past
    # SC_MAXHEAP live blocks malloc returns NULL, and the function returns its error
    res = _run(tmp_path, "sink", "sink_drain")
    assert res.status == "done", (res.detail, res.harness)
    assert res.coverage and res.coverage["generated_percent"] == 100, res.harness


def test_a_buffer_grown_with_realloc_keeps_its_bytes(tmp_path):
    # the harness's realloc moves a block between guarded slots: the same result grown on another schedule
    res = _run(tmp_path, "grows", "grow_sum", "grows_wide", "grows_short")
    assert res.status == "done" and res.coverage and res.coverage["percent"] >= 80, (
        res.detail,
        res.harness,
    )  # all but its out-of-memory path
    by = {c.label: c for c in res.candidates}
    assert by["grows_wide"].reason in (None, "not-faster") and by["grows_wide"].inputs_checked > 3000, by[
        "grows_wide"
    ].detail
    assert by["grows_short"].reason == "wrong-output", by["grows_short"].detail
