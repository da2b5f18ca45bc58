"""A handle's private state, generated: zlib's deflate*/inflate* functions first check that the
z_stream's allocator hooks are set and that its state points back to it with a known status. The
compiler's types say which struct the library keeps behind the handle (also where the public
header leaves it opaque); generated handles get it, with its back-pointer, fields from the original's
comparisons, and hooks that crash if called, so the inputs get past the check without a program."""

from __future__ import annotations

import pytest
from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.build import resolve
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions

OWNED = FIXTURES / "verify" / "owned"
# the private states' inputs run near their time limits: flaky beside other tests on two cores
pytestmark = pytest.mark.serial


def test_the_private_state_behind_an_opaque_pointer_is_found_in_the_types(tmp_path):
    """The handle's `state` is a `struct internal_state *` that the public header leaves opaque; the one
    complete struct of the file pointing back to the handle is what the library casts it to."""
    compile_debug_object(OWNED / "handle.c", resolve(OWNED / "handle.c"), tmp_path / "d.o")
    [h, _, _] = compiled_functions(tmp_path / "d.o")["handle_pending"].signature.params
    t = h.type.pointee
    assert t is not None and t.code_offsets == (32, 40)  # zalloc, zfree
    [(off, state, back, _)] = t.owned
    assert (off, state.text, back) == (24, "struct private_state", (0,))


def test_generated_handles_get_past_the_state_check_and_catch_a_wrong_rewrite(tmp_path):
    res = pipeline_on_rewrites(tmp_path, OWNED / "handle.c", "handle_pending", OWNED / "handle_wrong.c", n_random=3000)
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert "with the 120-byte struct it owns behind offset 24 (pointing back to it;" in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_handles_allocator_hooks_are_the_harnesss_malloc_and_free_and_the_copy_is_compared(tmp_path):
    """deflateCopy-style: the copy allocates its state through source->zalloc (a crash at a trap address
    before); now the blocks are made, and a copy whose state points back to the wrong handle is caught."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "copy.c", "handle_copy", OWNED / "copy_wrong.c", n_random=3000)
    assert res.coverage is not None and res.coverage["missed"] == [29, 30], (res.harness, res.coverage)  # malloc fails
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_private_states_data_pointers_are_found_in_the_types(tmp_path):
    """window_state's window and pending buffers point to bytes; `next` points to a code, and the state
    has its own array of them (inflate_state's codes[]): it points into that."""
    compile_debug_object(OWNED / "window.c", resolve(OWNED / "window.c"), tmp_path / "d.o")
    [h, _, _] = compiled_functions(tmp_path / "d.o")["window_dictionary"].signature.params
    assert h.type.pointee is not None
    [(_, _, _, data)] = h.type.pointee.owned
    assert data == ((24, 1, 0, 0), (32, 1, 0, 0), (40, 1, 0, 0), (48, 1, 0, 0), (80, 4, 88, 96))


def test_a_window_in_the_private_state_is_generated_and_a_copy_wrong_once_it_wraps_is_caught(tmp_path):
    """inflateGetDictionary-style: the window's two parts copied out; with the window NULL (before) the
    copy never ran (25% of the lines)."""
    res = pipeline_on_rewrites(
        tmp_path, OWNED / "window.c", "window_dictionary", OWNED / "window_dictionary_wrong.c", n_random=3000
    )
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert "its 5 data pointer(s) into one 64 KiB buffer or its own arrays" in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_pointers_compared_with_each_other_point_into_one_buffer(tmp_path):
    """deflatePrime-style: `sym_buf < pending_out + 8` compares two of the state's pointers; in one buffer
    that does not depend on where buffers lie, so the inputs get past it, and a rewrite that writes at
    pending_out instead of pending_buf is caught."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "window.c", "window_prime", OWNED / "window_prime_wrong.c")
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert "with the 472-byte struct it owns" in res.harness, res.harness  # not a probed array of bytes
    [wrong] = res.candidates
    assert wrong.reason in ("wrong-output", "crash"), wrong.detail  # crash: past the buffer's end


def test_a_pointer_into_the_states_own_table_is_compared_by_where_it_points(tmp_path):
    """inflateCodesUsed-style: next - codes. next points into the state's own codes[] (NULL on some inputs:
    those are left out, NULL - codes depends on where the state lies); a rewrite off by one at one entry
    is caught."""
    res = pipeline_on_rewrites(
        tmp_path, OWNED / "window.c", "window_codes_used", OWNED / "window_codes_used_wrong.c", n_random=3000
    )
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    assert "generated inputs left out" in res.harness, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_block_of_no_bytes_from_the_hooks_is_the_harnesss_own(tmp_path):
    """zalloc(opaque, 0, 1) gives a block at its slot's very end; freeing it after the call went to
    glibc and crashed the harness itself ('the -O3 baseline itself fails'), zlib's deflateCopy with w_size 0."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "sized.c", "handle_resize", n_random=3000)
    assert res.status == "done", res.detail
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness


def test_a_struct_parameters_own_data_pointers_point_into_a_buffer(tmp_path):
    """trees.c's _tr_tally(deflate_state *s, ...) crashed on every generated input: s->sym_buf was NULL.
    Now it points into a buffer, and a rewrite that also moves pending_out back to sym_buf is caught:
    where those pointers are left is compared as (buffer, offset), not cleared."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "tally.c", "window_tally", OWNED / "tally_wrong.c", n_random=3000)
    assert "its 5 data pointer(s) into one 64 KiB buffer or its own arrays" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.harness
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_node_that_owns_two_structs_of_its_own_type_gets_both_and_a_mistake_behind_one_is_caught(tmp_path):
    """cJSON's print_value: its item points to its next and prev nodes, both of its own type. The harness
    declared one `c` per owned struct in the same C block, so it did not compile ("redefinition of 'c'"),
    and every such function was "harness could not be linked". Each now has a block of its own."""
    res = pipeline_on_rewrites(tmp_path, OWNED / "siblings.c", "neighbours", OWNED / "siblings_wrong.c", n_random=3000)
    assert res.status == "done", res.detail
    assert "with the 32-byte struct it owns behind offset 8 (pointing back to it)" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.coverage
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail


def test_a_union_of_storage_and_a_struct_with_a_big_table_is_generated_as_the_struct(tmp_path):
    """lz4's LZ4_stream_t (a char array beside the struct it is used as, with a hashTable[4096]) was "not
    supported by the generated harness": the union's char array and the struct's table are more leaves than
    a table of fields holds. It is now generated as its struct, the table's bytes random, its dictionary a
    data pointer; a rewrite that leaves one position unhashed is caught."""
    src = OWNED / "stream_union.c"
    wrong_src = tmp_path / "stream_union_wrong.c"  # the last position of a dictionary that ends just so
    loop = "for (const uint8_t *q = p; q + 4 <= end; q += 3)"
    assert loop in src.read_text()
    wrong_src.write_text(src.read_text().replace(loop, loop.replace("q + 4", "q + 5")))
    res = pipeline_on_rewrites(tmp_path, src, "stream_load", wrong_src, n_random=3000)
    assert res.status == "done", res.detail
    assert "one stream_t (read as its struct stream_internal) (16416 bytes" in res.harness, res.harness
    assert "its 1 data pointer(s) into one 64 KiB buffer" in res.harness, res.harness
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, res.coverage
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", wrong.detail
