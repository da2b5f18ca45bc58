"""The object screen: what the assembler produced, read with pyelftools and capstone,
and the linked-program check that keeps load-time code from running before the filter."""

from __future__ import annotations

import pytest
from support import FIXTURES

from supercoder_lsp import build
from supercoder_lsp.asm.cut import cut_function
from supercoder_lsp.asm.elfcheck import check_linked, inspect_object
from supercoder_lsp.asm.objscreen import screen_object
from supercoder_lsp.model import BuildConfig
from supercoder_lsp.source import parse_functions

FIX = FIXTURES
HOSTILE = FIX / "hostile" / "popcount"
POPCOUNT = FIX / "verify" / "popcount.c"


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("objscreen")
    cut = cut_function(
        build.compile_to_asm(POPCOUNT, BuildConfig("gcc", ("-O3",), "t", str(POPCOUNT.parent)), tmp / "b.s"), "popcount"
    )
    build.assemble(cut.text, tmp / "base.o")
    return tmp, tmp / "base.o"


@pytest.mark.parametrize(
    "name,what",
    [
        pytest.param("ifunc-fill", "IFUNC", id="ifunc-resolver"),
        pytest.param("ifunc-fill", "system call 'syscall'", id="syscall-in-fill-bytes"),
        pytest.param("init-array-anyname", "SHT_INIT_ARRAY", id="init-array-under-another-name"),
        pytest.param("ctors-section", ".ctors.00099", id="ctors"),
        pytest.param("align-fill-syscall", "system call 'syscall'", id="syscall-in-alignment-padding"),
        pytest.param("mid-instruction-syscall", "middle of an instruction", id="jump-into-an-immediate"),
        pytest.param("hidden-cache", "writable state (.bss", id="hidden-state"),
        pytest.param("label-offset-reach", "past the end of .text", id="local-label-plus-offset"),
        pytest.param("global-offset-reach", "past the end of .text", id="function-plus-offset"),
    ],
)
def test_what_the_text_screen_cannot_see_is_refused(original, name, what):
    tmp, base = original
    obj = tmp / f"{name}.o"
    build.assemble((HOSTILE / f"{name}.s").read_text().replace("@CANARY@", str(tmp / "victim")), obj)
    problems = screen_object(obj, base)
    assert any(what in p for p in problems), problems


VARIANTS = [
    ("gcc", ("-O3",)),
    ("gcc", ("-O2",)),
    ("gcc", ("-O3", "-march=native", "-funroll-loops")),
    ("clang", ("-O3",)),
    ("clang", ("-O3", "-march=native")),
]


@pytest.mark.parametrize(
    "c_file",
    [
        "asm/switch.c",
        "asm/cold.c",
        "asm/tls_goto.c",
        "asm/floats.c",
        "asm/strings.c",
        "verify/funcs/arrmax.c",
        "verify/attacks/table.c",
        "verify/attacks/sum_bytes.c",
    ],
)
def test_compiler_output_passes(tmp_path, c_file):
    """No false alarms: every function of real gcc and clang output, against gcc -O3's."""
    src = FIX / c_file
    asms = {}
    for i, (cc, flags) in enumerate(VARIANTS):
        asms[i] = build.compile_to_asm(src, BuildConfig(cc, flags, "t", str(src.parent)), tmp_path / f"v{i}.s")
    build.compile_object(src, BuildConfig("gcc", ("-O3",), "t", str(src.parent)), tmp_path / "file.o")
    r = inspect_object(tmp_path / "file.o")
    sizes = {s.name: s.size for s in (*r.globals.values(), *r.locals.values())}
    checked = 0
    for fn in parse_functions(src.read_text()):
        try:
            base = cut_function(asms[0], fn.name)
        except Exception:
            continue  # inlined away
        build.assemble(base.text, tmp_path / "base.o")
        for i, asm in asms.items():
            try:
                cand = cut_function(asm, fn.name)
            except Exception:
                continue
            build.assemble(cand.text, tmp_path / "cand.o")
            assert screen_object(tmp_path / "cand.o", tmp_path / "base.o", extern_sizes=sizes) == [], (
                fn.name,
                VARIANTS[i],
            )
            checked += 1
    assert checked >= 2


def test_the_linked_program_is_checked_for_load_time_code(tmp_path):
    """Structural: whatever got past the screens, an IFUNC from the candidate shows in the linked program."""
    main = tmp_path / "main.c"
    main.write_text("extern long popcount(unsigned long); int main(void) { return popcount(7) != 3; }\n")
    build.compile_object(main, BuildConfig("gcc", ("-O2",), "t", str(tmp_path)), tmp_path / "main.o")
    build.assemble(
        "\t.text\n\t.globl popcount\n\t.type popcount, @function\npopcount:\n\tpopcntq %rdi, %rax\n\tret\n",
        tmp_path / "good.o",
    )
    build.assemble(
        (HOSTILE / "ifunc-fill.s").read_text().replace("@CANARY@", str(tmp_path / "victim")), tmp_path / "bad.o"
    )
    build.link([tmp_path / "main.o", tmp_path / "good.o"], tmp_path / "ref")
    build.link([tmp_path / "main.o", tmp_path / "bad.o"], tmp_path / "bad")
    assert check_linked(tmp_path / "ref", tmp_path / "ref") == []
    problems = check_linked(tmp_path / "bad", tmp_path / "ref")
    assert any("IRELATIVE" in p for p in problems), problems


@pytest.mark.parametrize(
    "align,extra,refused",
    [
        pytest.param(64, "", False, id="wider-alignment-is-padding"),
        pytest.param(4096, "", True, id="padding-past-a-cache-line"),
        pytest.param(32, "\t.local\tlower_memo\n\t.comm\tlower_memo,32,32\n", True, id="another-object"),
    ],
)
def test_writable_state_is_counted_in_objects_and_alignment_only_pads(tmp_path, align, extra, refused):
    """-march=native aligns a table in .bss to 64 where -O3 aligned it to 32: the same objects with more
    padding before them are not state the original lacks (an honest rewrite was refused for it); a gap
    wider than a cache line, or an object the original does not have, is."""
    src = FIX / "asm" / "lazy_table.c"
    asm = build.compile_to_asm(src, BuildConfig("gcc", ("-O3",), "t", str(src.parent)), tmp_path / "o3.s")
    cut = cut_function(asm, "ascii_lower")
    build.assemble(cut.text, tmp_path / "base.o")
    assert "\t.comm\tlower_tab,256,32\n" in cut.text
    text = cut.text.replace("\t.comm\tlower_tab,256,32\n", f"\t.comm\tlower_tab,256,{align}\n{extra}")
    build.assemble(text, tmp_path / "cand.o")
    problems = [p for p in screen_object(tmp_path / "cand.o", tmp_path / "base.o") if "writable state" in p]
    assert bool(problems) == refused, problems
