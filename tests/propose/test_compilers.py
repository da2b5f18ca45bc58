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


TWO = """unsigned add_bits(unsigned x) { unsigned n = 0; while (x) { n += x & 1; x >>= 1; } return n; }
unsigned twice(unsigned x) { return x * 2u; }
"""


def test_each_variant_compiles_a_file_once_for_all_its_functions_and_again_after_a_save(tmp_path):
    """A variant compiles the whole file, for each function the run optimizes: lz4.c took 2.5 s a variant,
    again for every one of its three functions. Now once per contents of the file; a save compiles again,
    and the candidates are cut from what the file now says."""
    src, log = tmp_path / "two.c", tmp_path / "compiles.log"
    src.write_text(TWO)
    cc = tmp_path / "cc-counting"
    cc.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec gcc "$@"\n')
    cc.chmod(0o755)
    cfg = BuildConfig(str(cc), ("-O3",), "test", str(tmp_path))
    proposer = CompilersProposer(variants=(("gcc", ("-O1",)), ("gcc", ("-Os",))))

    def propose(name: str) -> list[str]:
        asm = build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "test", str(tmp_path)), tmp_path / "base.s")
        fn = next(f for f in parse_functions(src.read_text()) if f.name == name)
        req = ProposalRequest(fn, src, src.read_text(), cut_function(asm, name).text, cfg, tmp_path / name)
        req.workdir.mkdir(exist_ok=True)
        return [c.assembly for c in proposer.propose(req, 2)]

    def compiles() -> int:
        return len(log.read_text().splitlines()) if log.exists() else 0

    assert all("add_bits:" in a for a in propose("add_bits"))
    assert compiles() == 2
    got = propose("twice")
    assert got and all("twice:" in a and "add_bits" not in a for a in got)
    assert compiles() == 2, "the second function compiled the file again"
    src.write_text(TWO.replace("x * 2u", "x * 2u + 77u"))
    got = propose("twice")
    assert compiles() == 4
    assert got and all("77" in a for a in got), got
