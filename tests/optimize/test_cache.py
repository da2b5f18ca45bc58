"""Results cache: round trip, concurrent writers, torn entries, unwritable directories."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import time
from pathlib import Path

from support import FIXTURES

from supercoder_lsp.model import CandidateResult, FunctionResult, Position, Range, SourceChange, Timing
from supercoder_lsp.optimize.cache import Cache


def result(tag: int) -> FunctionResult:
    t = Timing("interleaved", 2.0 + tag, (1.9, 2.1 + tag), (0.98, 1.02), True, [{"offset": 0}], {"x": [1.0] * 500})
    c = CandidateResult(
        f"c{tag}",
        "compilers:gcc",
        "accepted",
        None,
        "ok",
        "popcntq %rdi, %rax\n" * 50,
        ["popcnt"],
        ["popcnt"],
        1000,
        2,
        t,
        None,
        SourceChange("attribute", "x", "y"),
    )
    return FunctionResult(
        "f",
        Range(Position(1, 0), Position(3, 1)),
        "int (int x)",
        "done",
        "",
        1.0,
        "asm",
        "h",
        [c],
        f"c{tag}",
        coverage={"generated": 90, "recorded": 10, "lines": 7, "percent": 100, "generated_percent": 29, "missed": []},
    )


def test_round_trip_keeps_every_field(tmp_path):
    cache = Cache(tmp_path)
    cache.put("ab" * 32, result(1))
    got = cache.get("ab" * 32)
    assert got == result(1)
    assert cache.get("cd" * 32) is None


def _writer(d: str, tag: int, n: int) -> None:
    c = Cache(d)
    for _ in range(n):
        c.put("ee" * 32, result(tag))


def test_concurrent_writers_never_leave_a_torn_entry(tmp_path):
    procs = [mp.Process(target=_writer, args=(str(tmp_path), tag, 40)) for tag in range(4)]
    for p in procs:
        p.start()
    reader = Cache(tmp_path)
    seen = set()
    while any(p.is_alive() for p in procs):
        r = reader.get("ee" * 32)
        if r is not None:
            seen.add(r.best)
            assert r in [result(t) for t in range(4)]
    for p in procs:
        p.join()
    assert reader.get("ee" * 32).best in {f"c{t}" for t in range(4)}
    assert not list(tmp_path.rglob(".tmp-*"))  # no temp files left behind


def test_torn_or_foreign_entry_is_a_miss_and_is_replaced(tmp_path):
    cache = Cache(tmp_path)
    cache.put("ff" * 32, result(0))
    path = next(tmp_path.rglob("*.json"))
    path.write_text(path.read_text()[:100])
    assert cache.get("ff" * 32) is None
    path.write_text(json.dumps({"format": 999}))
    assert cache.get("ff" * 32) is None
    assert cache.put("ff" * 32, result(2)) and cache.get("ff" * 32) == result(2)


def test_unwritable_cache_reports_instead_of_failing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = Cache(blocker / "sub")
    assert cache.problem and "cache" in cache.problem
    assert cache.put("aa" * 32, result(0)) is False
    assert cache.get("aa" * 32) is None


def test_a_verdict_from_another_verifier_version_is_not_served(tmp_path, monkeypatch):
    """A verdict reached by a weaker verifier must not survive a change to what is checked."""
    from supercoder_lsp.optimize import environment, pipeline

    verify = FIXTURES / "verify"
    opts = pipeline.Options(
        proposers=("replay",),
        candidates_dir=verify / "cands",
        samples=1,
        n_random=1000,
        rounds=6,
        functions=("popcount",),
        cache_dir=tmp_path,
    )
    monkeypatch.setattr(environment, "VERIFIER_VERSION", 2)  # what the cache key says
    assert pipeline.Pipeline(opts).run(verify / "popcount.c").functions[0].cached is False
    assert pipeline.Pipeline(opts).run(verify / "popcount.c").functions[0].cached is True
    monkeypatch.setattr(environment, "VERIFIER_VERSION", 3)
    assert pipeline.Pipeline(opts).run(verify / "popcount.c").functions[0].cached is False


def test_a_verdict_is_not_served_after_an_edit_to_a_header_the_file_includes(tmp_path):
    """The key holds the file's own text; a header it includes changed what the function computes (K), so a
    verdict reached on the old header must not be served: it is verified again, and kept again."""
    from supercoder_lsp.optimize import pipeline

    src, opts = _scale_with_header(tmp_path)
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is False
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is True
    (tmp_path / "k.h").write_text("#define K 5u\n")
    _age(tmp_path / "k.h")  # saved a moment before the run, not while it builds
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is False
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is True  # kept with the new header
    (tmp_path / "k.h").write_text("#define K 5u\n")  # saved again, unchanged: still served
    _age(tmp_path / "k.h")
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is True


def test_a_header_saved_while_the_run_goes_on_does_not_pass_for_the_one_it_used(tmp_path):
    """The editor's job on scale.c goes on while the user saves k.h: the verdict was reached with the old K,
    so it must be kept with the old header's hash (taken when the build read it), not the one k.h has when
    the run ends; the next run, on the new header, verifies again."""
    from supercoder_lsp.optimize import pipeline

    src, opts = _scale_with_header(tmp_path)
    header = tmp_path / "k.h"

    def save_header(fn: str, stage: str, *rest) -> None:
        if stage == "harness":  # after the build, while the function is verified
            header.write_text("#define K 5u\n")
            _age(header)

    assert pipeline.Pipeline(opts, progress=save_header).run(src).functions[0].cached is False
    assert header.read_text() == "#define K 5u\n"
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is False  # K 5 was never verified
    assert pipeline.Pipeline(opts).run(src).functions[0].cached is True


def _age(*paths: Path) -> None:
    """Dated a few seconds back, as a file saved before a run (not while it builds) is."""
    old = time.time() - 5
    for p in paths:
        os.utime(p, (old, old))


def _scale_with_header(tmp_path: Path):
    """scale.c, whose result depends on K from its header k.h (both dated a moment back), and options that
    verify scale alone with no candidates, with a results cache in tmp_path."""
    from supercoder_lsp.optimize import pipeline

    (tmp_path / "k.h").write_text("#define K 3u\n")
    src = tmp_path / "scale.c"
    src.write_text('#include "k.h"\nunsigned scale(unsigned x) {\n    return x * K + (x >> 3);\n}\n')
    _age(tmp_path / "k.h", src)
    (tmp_path / "empty").mkdir()
    opts = pipeline.Options(
        proposers=("replay",),
        candidates_dir=tmp_path / "empty",
        n_random=1000,
        functions=("scale",),
        cache_dir=tmp_path / "cache",
    )
    return src, opts
