"""A file that already carries a function as verified assembly is recognised as such."""

from __future__ import annotations

from support import FIXTURES

from supercoder_lsp.optimize.replace import render
from supercoder_lsp.source import find_function, parse_functions
from supercoder_lsp.source.replaced import replaced_functions

SRC = (FIXTURES / "verify" / "popcount.c").read_text()
ASM = "\t.globl\tpopcount\n\t.type\tpopcount, @function\npopcount:\n\tpopcntq\t%rdi, %rax\n\tret\n"


def test_a_rendered_replacement_is_recognised_and_other_functions_are_not():
    edited = render(
        SRC, find_function(parse_functions(SRC), "popcount"), ASM, "verified 6.00x faster than gcc -O3 (test)"
    )
    assert replaced_functions(edited) == {"popcount"}
    assert replaced_functions(SRC) == set()
    # a hand-written asm block without supercoder's note is the user's own business
    assert replaced_functions('__asm__(\n    "\\t.globl\\tf\\n"\n);\n') == set()
