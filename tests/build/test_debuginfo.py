"""Types from the compiler: a -g build of library-style code read back from DWARF."""

from __future__ import annotations

from support import FIXTURES

from supercoder_lsp.build.debuginfo import compile_debug_object, compiled_functions
from supercoder_lsp.harness.plan import make_plan
from supercoder_lsp.model import BuildConfig

ZLIKE = FIXTURES / "real" / "zlike.c"


def compiled(tmp_path, flags=("-O3",)):
    obj = tmp_path / "zlike.o"
    compile_debug_object(ZLIKE, BuildConfig("gcc", flags, "test", str(ZLIKE.parent)), obj)
    return compiled_functions(obj)


def test_macros_and_typedefs_resolve_to_the_types_the_compiler_sees(tmp_path):
    fns = compiled(tmp_path)
    sig = fns["checksum_z"].signature
    assert str(sig) == "uLong (uLong adler, const Bytef * buf, z_size_t len)"  # the names the code uses
    adler, buf, length = sig.params
    assert (adler.type.kind, adler.type.bits, adler.type.signed) == ("int", 64, False)
    assert buf.type.kind == "pointer" and buf.type.const and buf.type.pointee.bits == 8
    assert (length.type.kind, length.type.bits) == ("int", 64)
    plan = make_plan(sig)
    assert plan.supported, plan.why  # a buffer with its length: the generated harness handles it
    assert [p.role for p in plan.params] == ["int", "array", "length"]


def test_inlined_static_helpers_name_the_functions_that_hold_their_code(tmp_path):
    fns = compiled(tmp_path)
    assert not fns["fold"].out_of_line and not fns["fold"].external
    assert fns["fold"].inlined_into == ["checksum_z", "zlike_consume"]
    assert fns["checksum_z"].out_of_line and fns["checksum_z"].external


def test_a_function_the_preprocessor_removed_is_not_there_and_flags_bring_it_back(tmp_path):
    assert "checksum_legacy" not in compiled(tmp_path)
    assert "checksum_legacy" in compiled(tmp_path, ("-O3", "-DZLIKE_LEGACY"))


def test_struct_pointers_carry_their_layout(tmp_path):
    """Named as the code names them, with the size and the fields the harness generates."""
    [s] = compiled(tmp_path)["zlike_level"].signature.params
    assert s.type.kind == "pointer" and s.type.text == "zlike_state *"
    assert (s.type.pointee.kind, s.type.pointee.size) == ("struct", 8)
    assert s.type.pointee.fields == ((0, "int", 32, True), (4, "int", 32, False))
    strm, _ = compiled(tmp_path)["zlike_consume"].signature.params
    assert strm.type.pointee.size == 40 and strm.type.pointee.pointer_offsets == (0, 32)  # next_in, zalloc
