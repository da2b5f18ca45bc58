"""A struct's big array members (zlib's deflate_state heap[573], inflate_state's codes[1444]) are drawn as
one per input: all random bytes, all zero, every element small (indices into another array), or one by
one as a scalar field is. One by one for every element made a walk over indices stop at the first bad
one almost always, and cost 70% of a harness run where an input is an inflate_state."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

from supercoder_lsp.build import resolve
from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions

ARRAYS = FIXTURES / "verify" / "arrays"


def test_a_structs_big_arrays_are_found_in_the_types(tmp_path):
    compile_debug_object(ARRAYS / "heap.c", resolve(ARRAYS / "heap.c"), tmp_path / "d.o")
    [s] = compiled_functions(tmp_path / "d.o")["heap_cost"].signature.params
    assert s.type.pointee is not None
    assert s.type.pointee.arrays == ((4, 516), (516, 772), (772, 836))  # heap, tree, depth


def test_a_walk_over_indices_in_a_struct_is_followed_far_and_a_rewrite_wrong_there_is_caught(tmp_path):
    """heap_wrong.c differs only where the walk reaches a twelfth valid index: with each element drawn
    on its own (one in four a valid index) no generated input got there, and it passed."""
    res = pipeline_on_rewrites(tmp_path, ARRAYS / "heap.c", "heap_cost", ARRAYS / "heap_wrong.c")
    assert res.coverage is not None and res.coverage["generated_percent"] == 100, (res.harness, res.coverage)
    [wrong] = res.candidates
    assert wrong.reason == "wrong-output", (wrong.reason, wrong.detail)
