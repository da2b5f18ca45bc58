"""The project's other files' objects, kept between runs (build/object_cache.py): used again only where the
source, every header it read, the flags and the compiler are as they were."""

from __future__ import annotations

import os
import subprocess
import time

from supercoder_lsp.build.debuginfo import compiled_functions
from supercoder_lsp.build.object_cache import compile_file_kept, compile_kept
from supercoder_lsp.model import BuildConfig

MAIN = "int k(void);\nint main(void) { return k(); }\n"


def _project(tmp_path, value: int):
    """k.c returning K from its header k.h; both dated a minute ago (as files not being edited are)."""
    (tmp_path / "k.h").write_text(f"#define K {value}\n")
    (tmp_path / "k.c").write_text('#include "k.h"\nint k(void) { return K; }\n')
    _age(tmp_path / "k.h", tmp_path / "k.c")
    return tmp_path / "k.c", BuildConfig("gcc", ("-O2",), "test", str(tmp_path))


def _age(*paths, seconds: float = 60) -> None:
    past = time.time() - seconds
    for p in paths:
        os.utime(p, (past, past))


def _returns(tmp_path, obj) -> int:
    (tmp_path / "main.c").write_text(MAIN)
    exe = tmp_path / "prog"
    subprocess.run(["gcc", str(tmp_path / "main.c"), str(obj), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)]).returncode


def test_an_object_is_used_again_where_nothing_it_was_built_from_changed(tmp_path):
    src, cfg = _project(tmp_path, 3)
    cache = tmp_path / "cache"
    assert compile_kept(src, cfg, tmp_path / "a.o", cache).reused is False  # built, and kept
    assert compile_kept(src, cfg, tmp_path / "b.o", cache).reused is True  # used again
    assert (tmp_path / "a.o").read_bytes() == (tmp_path / "b.o").read_bytes()
    assert _returns(tmp_path, tmp_path / "b.o") == 3
    other = BuildConfig("gcc", ("-O1",), "test", str(tmp_path))
    assert compile_kept(src, other, tmp_path / "c.o", cache).reused is False  # other flags: built again


def test_a_changed_header_builds_the_object_again(tmp_path):
    """Only k.h changes (k.c is as it was): a key from the source alone would give the old K."""
    src, cfg = _project(tmp_path, 3)
    cache = tmp_path / "cache"
    compile_kept(src, cfg, tmp_path / "a.o", cache)
    (tmp_path / "k.h").write_text("#define K 4\n")
    _age(tmp_path / "k.h", seconds=30)
    assert compile_kept(src, cfg, tmp_path / "b.o", cache).reused is False
    assert _returns(tmp_path, tmp_path / "b.o") == 4


def test_a_file_changed_just_before_or_while_it_compiled_is_not_kept(tmp_path):
    """k.h written now: the object may hold the header before or after an edit that is still going on."""
    src, cfg = _project(tmp_path, 3)
    (tmp_path / "k.h").write_text("#define K 5\n")
    cache = tmp_path / "cache"
    assert compile_kept(src, cfg, tmp_path / "a.o", cache).reused is False
    assert compile_kept(src, cfg, tmp_path / "b.o", cache).reused is False  # not kept the first time
    assert _returns(tmp_path, tmp_path / "b.o") == 5


def test_a_damaged_entry_is_built_again(tmp_path):
    src, cfg = _project(tmp_path, 3)
    cache = tmp_path / "cache"
    compile_kept(src, cfg, tmp_path / "a.o", cache)
    [entry] = cache.glob("*/*.kept")
    entry.write_text('{"half-writ')
    assert compile_kept(src, cfg, tmp_path / "b.o", cache).reused is False
    assert _returns(tmp_path, tmp_path / "b.o") == 3
    assert compile_kept(src, cfg, tmp_path / "c.o", cache).reused is True  # kept again, whole


def test_a_files_assembly_and_debug_object_are_kept_together_and_a_header_edit_builds_both_again(tmp_path):
    """The editor's choice of functions builds the file's -O3 assembly and its -g object, and the job that
    follows needs both: the second build is the kept one, and an edit to the header makes both anew."""
    src, cfg = _project(tmp_path, 3)
    cache = tmp_path / "cache"
    first = compile_file_kept(src, cfg, tmp_path / "a.s", tmp_path / "a.o", cache)
    assert first.reused is False and {p.name for p in first.inputs} >= {"k.c", "k.h"}
    again = compile_file_kept(src, cfg, tmp_path / "b.s", tmp_path / "b.o", cache)
    assert again.reused is True and {p.name for p in again.inputs} == {p.name for p in first.inputs}
    assert (tmp_path / "b.s").read_text() == (tmp_path / "a.s").read_text()
    assert compiled_functions(tmp_path / "b.o")["k"].name == "k"  # a whole -g object
    (tmp_path / "k.h").write_text("#define K 4\n")
    _age(tmp_path / "k.h", seconds=30)
    third = compile_file_kept(src, cfg, tmp_path / "c.s", tmp_path / "c.o", cache)
    assert third.reused is False
    assert "$4" in (tmp_path / "c.s").read_text() and "$3" not in (tmp_path / "c.s").read_text()
