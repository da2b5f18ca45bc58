"""Which file-static data a cut function shares with the rest of its file."""

from __future__ import annotations

from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.asm.statics import shared_statics
from supercoder_lsp.model import BuildConfig

SRC = FIXTURES / "asm" / "statics.c"


def _shared(tmp_path, fn: str) -> list[str]:
    asm = build.compile_to_asm(SRC, BuildConfig("gcc", ("-O3",), "test", str(SRC.parent)), tmp_path / "s.s")
    cut = cut_function(asm, fn)
    build.assemble(cut.text, tmp_path / f"{fn}.o")
    return shared_statics(asm, cut, tmp_path / f"{fn}.o")


def test_a_counter_other_functions_write_is_shared(tmp_path):
    assert _shared(tmp_path, "apply") == ["counter"]


def test_a_const_table_of_function_pointers_is_not_shared_state(tmp_path):
    # `ops` lives in .data.rel.ro: a copy in the replacement's object holds the same addresses' targets
    assert "ops" not in _shared(tmp_path, "apply_table")
