"""The compilers proposer: each variant builds the whole file with the project's flags plus its own."""

from __future__ import annotations

from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.propose.base import ProposalRequest
from supercoder_lsp.propose.compilers import CompilersProposer
from supercoder_lsp.source import parse_functions

SRC = FIXTURES / "verify" / "popcount.c"


def test_a_project_that_turns_gcc_only_warnings_into_errors_still_gets_its_clang_variants(tmp_path):
    """cJSON builds with -Werror and gcc's -Wformat-overflow, which clang does not know: every clang variant
    was 'unusable: unknown warning option'. Warnings never change the code, so variants build without them."""
    cfg = BuildConfig("gcc", ("-O3", "-Werror", "-Wformat-overflow", "-Wall"), "test", str(SRC.parent))
    asm = build.compile_to_asm(SRC, cfg, tmp_path / "base.s")
    fn = next(f for f in parse_functions(SRC.read_text()) if f.name == "popcount")
    req = ProposalRequest(fn, SRC, SRC.read_text(), cut_function(asm, "popcount").text, cfg, tmp_path)
    [cand] = CompilersProposer(variants=(("clang", ("-O2",)),)).propose(req, 1)
    assert cand.problem is None and "popcount:" in cand.assembly, cand.problem
