"""Functions that allocate: a working buffer from malloc, freed before returning, runs in the function
harness (the heap is grown before the sandbox, so malloc needs no system call); memory a call leaves
allocated is its result, which the harness does not compare: the original is refused, a candidate is
wrong."""

from __future__ import annotations

from pathlib import Path

from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.pipeline import Options, Pipeline

ALLOC = FIXTURES / "verify" / "alloc"


def _run(tmp: Path, src: str, fn: str, *cands: str):
    d = tmp / "cands" / fn
    d.mkdir(parents=True)
    cfg = BuildConfig("gcc", ("-O3",), "test", str(ALLOC))
    for c in cands:
        (d / f"{c}.s").write_text(cut_function(build.compile_to_asm(ALLOC / f"{c}.c", cfg, tmp / f"{c}.s"), fn).text)
    opts = Options(
        proposers=("replay",), candidates_dir=tmp / "cands", functions=(fn,), n_random=3000, rounds=4,
        use_cache=False,
    )  # fmt: skip
    [res] = Pipeline(opts).run(ALLOC / f"{src}.c").functions
    return res


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
