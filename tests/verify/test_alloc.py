"""Functions that allocate: a working buffer from malloc, freed before returning, runs in the function
harness (the heap is grown before the sandbox, so malloc needs no system call); memory a call leaves
allocated is its result, which the harness does not compare: the original is refused, a candidate is
wrong."""

from __future__ import annotations

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


def test_a_function_whose_result_is_memory_it_allocates_says_so(tmp_path):
    res = _run(tmp_path, "keeps", "buf_init")
    assert res.status == "unsupported"
    assert "leaves memory allocated" in res.detail and "its result lives in memory it allocates" in res.detail
    assert "--tests DIR" in res.detail
