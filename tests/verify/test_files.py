"""Functions that read and write file descriptors (zlib's gz* functions): the harness emulates them, so
each input's files are the same in both processes and what a call writes is compared (its bytes and
where they go, not how many write() calls carry them)."""

from __future__ import annotations

from pathlib import Path

from support import FIXTURES, pipeline_on_rewrites

FILES = FIXTURES / "verify" / "files"


def _run(tmp: Path, fn: str, *cands: str):
    return pipeline_on_rewrites(tmp, FILES / "reader.c", fn, *(FILES / f"{c}.c" for c in cands), proof_budget=0)


def test_a_function_that_reads_a_descriptor_gets_a_harness_and_a_short_read_is_caught(tmp_path):
    res = _run(tmp_path, "fill", "reader_once")
    assert res.status == "done", (res.detail, res.harness)
    assert res.coverage and res.coverage["percent"] == 100, res.coverage  # EOF, EIO and EBADF files all come
    [once] = res.candidates
    assert once.reason == "wrong-output", once.detail


def test_what_a_function_writes_is_its_result_not_how_it_is_chunked(tmp_path):
    res = _run(tmp_path, "flush_out", "reader_onewrite", "reader_short")
    assert res.status == "done", (res.detail, res.harness)
    by = {c.label: c for c in res.candidates}
    assert by["reader_onewrite"].reason in (None, "not-faster"), by["reader_onewrite"].detail
    assert by["reader_onewrite"].inputs_checked > 3000
    assert by["reader_short"].reason == "wrong-output", by["reader_short"].detail


def test_a_const_void_path_beside_a_descriptor_is_read_as_a_c_string(tmp_path):
    # gz_open(const void *path, int fd, const char *mode): `fd` is first taken for path's length; the
    # original's result then depends on what lies past path's bytes, so path is tried as a C string
    res = pipeline_on_rewrites(
        tmp_path,
        FILES / "opener.c",
        "open_named",
        FILES / "opener_direct.c",
        FILES / "opener_short.c",
        proof_budget=0,
    )
    assert res.status == "done", (res.detail, res.harness)
    assert "path: C string" in res.harness and "fd: int32_t" in res.harness, res.harness
    by = {c.label: c for c in res.candidates}
    assert by["opener_direct"].reason in (None, "not-faster"), by["opener_direct"].detail
    assert by["opener_short"].reason == "wrong-output", by["opener_short"].detail
