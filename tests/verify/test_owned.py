"""A handle's private state, generated: zlib's deflate*/inflate* functions first check that the
z_stream's allocator hooks are set and that its state points back to it with a known status. The
compiler's types say which struct the library keeps behind the handle (also where the public
header leaves it opaque); generated handles get it, with its back-pointer, fields from the original's
comparisons, and hooks that crash if called, so the inputs get past the check without a program."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.build import resolve
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions

OWNED = FIXTURES / "verify" / "owned"


def test_the_private_state_behind_an_opaque_pointer_is_found_in_the_types(tmp_path):
    """The handle's `state` is a `struct internal_state *` that the public header leaves opaque; the one
    complete struct of the file pointing back to the handle is what the library casts it to."""
    compile_debug_object(OWNED / "handle.c", resolve(OWNED / "handle.c"), tmp_path / "d.o")
    [h, _, _] = compiled_functions(tmp_path / "d.o")["handle_pending"].signature.params
    t = h.type.pointee
    assert t is not None and t.code_offsets == (32, 40)  # zalloc, zfree
    [(off, state, back)] = t.owned
    assert (off, state.text, back) == (24, "struct private_state", (0,))


def test_generated_handles_get_past_the_state_check_and_catch_a_wrong_rewrite(tmp_path):
    res = pipeline_on_rewrites(tmp_path, OWNED / "handle.c", "handle_pending", OWNED / "handle_wrong.c", n_random=3000)
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert "with the 120-byte struct it owns behind offset 24 (pointing back to it)" in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_handles_allocator_hooks_are_the_harnesss_malloc_and_free_and_the_copy_is_compared(tmp_path):
    """deflateCopy-style: the copy allocates its state through source->zalloc (a crash at a trap address
    before); now the blocks are made, and a copy whose state points back to the wrong handle is caught."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "copy.c", "handle_copy", OWNED / "copy_wrong.c", n_random=3000)
    assert res.coverage is not None and res.coverage["missed"] == [29, 30], (res.harness, res.coverage)  # malloc fails
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail
