"""A handle the library casts to a larger private struct that begins with it: zlib's gzFile is a
`struct gzFile_s *` (have, next, pos) and every gz* function reads it as a gz_state. The compiler's types
name that struct; before, the harness probed it as bytes whose pointers (the `in` buffer) were NULL."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.build import resolve
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions

EXT = FIXTURES / "verify" / "extends"


def test_the_private_struct_that_begins_with_the_handles_is_its_layout(tmp_path):
    compile_debug_object(EXT / "putc.c", resolve(EXT / "putc.c"), tmp_path / "d.o")
    [f, _] = compiled_functions(tmp_path / "d.o")["pub_putc"].signature.params
    t = f.type.pointee
    assert t is not None and t.size == 56 and t.text == "struct pub_s (a priv_state that begins with one)"
    assert [off for off, _, _, _ in t.data] == [8, 40, 48]  # x.next (in the struct it begins with), in, msg


def test_generated_handles_are_the_private_struct_and_a_write_past_its_buffer_is_caught(tmp_path):
    res = pipeline_on_rewrites(tmp_path, EXT / "putc.c", "pub_putc", EXT / "putc_wrong.c", n_random=3000)
    assert "probed" not in res.harness, res.harness
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    [wrong] = res.candidates
    assert wrong.reason in ("wrong-output", "crash"), wrong.detail
