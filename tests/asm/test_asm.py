"""Tests for supercoder_lsp.asm: cutting functions out of real gcc/clang output,
normalizing candidates, vetting objects, and instruction features.

The `.s` inputs are generated here from the C fixtures in tests/fixtures/asm/
(gcc -O3 -S -g0, and clang -O3 -S -g0 where clang exists).  The proof that a cut
is complete: link the cut objects with a C driver (another file) and compare
the program's output with the original program built normally.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp.asm.cut import (
    AsmFunction,
    FunctionMissing,
    cut_function,
    list_functions,
    normalize_candidate,
    rename_local_labels,
    rename_symbols,
)
from supercoder_lsp.asm.elfcheck import check_object, inspect_object
from supercoder_lsp.asm.features import (
    cpu_flags,
    cpu_model,
    instruction_features,
    missing_cpu_flags,
    required_cpu_flags,
)

FIX = FIXTURES / "asm"
COMPILERS = [pytest.param(c, id=c) for c in ("gcc", "clang") if shutil.which(c)]
pytestmark = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")


# --- helpers -------------------------------------------------------------------


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=60, **kw)


def must(cmd) -> subprocess.CompletedProcess:
    p = run(cmd)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{p.stderr}"
    return p


def compile_s(cc: str, src: Path, tmp: Path, flags=()) -> str:
    out = tmp / f"{src.stem}.{cc}.s"
    must([cc, "-O3", "-S", "-g0", *flags, src, "-o", out])
    return out.read_text()


def assemble(text: str, path: Path) -> Path:
    path.with_suffix(".s").write_text(text)
    must(["gcc", "-c", path.with_suffix(".s"), "-o", path.with_suffix(".o")])
    return path.with_suffix(".o")


def outcome(exe: Path, *args) -> tuple[int, str, str]:
    p = run([exe, *args])
    return p.returncode, p.stdout, p.stderr


# --- drag-along cases ------------------------------------------------------------------


@dataclass
class Case:
    source: str  # fixture stem: SOURCE.c holds the functions, SOURCE_main.c the driver
    functions: tuple[str, ...]  # what the driver calls: each is cut and assembled alone
    check: Callable[[dict[str, AsmFunction], str], None]
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    runs: tuple[tuple[str, ...], ...] = ((),)
    include_original: bool = False  # the function is static: build the original with -include
    externals: set[str] = field(default_factory=set)  # what the cuts may leave undefined


def _popcount(fns, cc):
    f = fns["popcount_loop"]
    assert f.local_calls == [] and f.external_refs == [] and f.sections == [".text"]
    assert not f.has_cold


def _switch(fns, cc):
    f = fns["dispatch"]
    assert f.external_refs == ["puts"]
    assert any(s.startswith(".rodata") and "str" not in s for s in f.sections)  # the jump table
    assert re.search(r"^\t\.long\t\.L\w+-\.L\w+|^\t\.quad\t\.L\w+", f.text, re.M)


def _switch_ffs(fns, cc):
    _switch(fns, cc)
    assert ".text.dispatch" in fns["dispatch"].sections


def _floats(fns, cc):
    assert ".rodata.cst8" in fns["poly"].sections
    assert ".rodata.cst4" in fns["scalef"].sections
    assert ".rodata.cst16" in fns["absdiff"].sections  # the fabs sign mask
    for f in fns.values():
        assert f.external_refs == []


def _strings(fns, cc):
    assert ".rodata.str1.1" in fns["describe"].sections
    assert re.search(r'"aMS",@progbits,1', fns["describe"].text)
    assert fns["describe"].external_refs == []
    assert "printf" in fns["greet"].external_refs


def _counter(fns, cc):
    assert len(fns["next_id"].local_objects) == 1
    assert len(fns["next_step"].local_objects) == 1
    assert ".data" in fns["next_step"].sections


def _cold(fns, cc):
    f = fns["checked_sum"]
    assert "abort" in f.external_refs
    assert any(c.startswith("report") for c in f.local_calls)  # the static cold helper comes along
    if cc == "gcc":
        assert f.has_cold and ".text.unlikely" in f.sections
        assert "checked_sum.cold" in f.text and ".size\tchecked_sum.cold, .-checked_sum.cold" in f.text


def _clone(fns, cc):
    f = fns["use_scaled"]
    if cc == "gcc":
        assert f.local_calls == ["scaled_sum.constprop.0"]
        assert fns["lookup1"].local_calls == ["lookup.part.0"]
    else:
        assert f.local_calls == ["scaled_sum"]
        assert fns["lookup1"].local_calls == ["lookup"]


def _tls_goto(fns, cc):
    assert any(s.startswith(".tbss") for s in fns["bump"].sections)
    assert len(fns["bump"].local_objects) == 1 and len(fns["interp"].local_objects) == 1


def _static(fns, cc):
    f = fns["mix"]
    assert "\t.globl\tmix" in f.text and "made global" in f.text


DRAG_CASES = [
    pytest.param(Case("popcount", ("popcount_loop",), _popcount), id="popcount-loop"),
    pytest.param(Case("switch", ("dispatch",), _switch), id="jump-table-pie"),
    pytest.param(
        Case("switch", ("dispatch",), _switch, cflags=("-fno-pic",), ldflags=("-no-pie",)), id="jump-table-nopic"
    ),
    pytest.param(
        Case("switch", ("dispatch",), _switch_ffs, cflags=("-ffunction-sections",)), id="jump-table-function-sections"
    ),
    pytest.param(Case("floats", ("poly", "scalef", "absdiff"), _floats), id="float-constants"),
    pytest.param(Case("strings", ("describe", "greet"), _strings), id="string-literals"),
    pytest.param(Case("counter", ("next_id", "next_step"), _counter), id="function-static"),
    pytest.param(Case("cold", ("checked_sum",), _cold, runs=((), ("neg",))), id="cold-path"),
    pytest.param(Case("clone", ("use_scaled", "lookup1"), _clone), id="clones"),
    pytest.param(Case("tls_goto", ("bump", "interp"), _tls_goto), id="tls-and-label-table"),
    pytest.param(Case("tls_goto", ("bump", "interp"), _tls_goto, cflags=("-fPIC",)), id="tls-and-label-table-pic"),
    pytest.param(Case("static_fn", ("mix",), _static, include_original=True), id="static-made-global"),
]


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("case", DRAG_CASES)
def test_cut_assembles_alone_and_links(case: Case, cc: str, tmp_path: Path):
    src, main = FIX / f"{case.source}.c", FIX / f"{case.source}_main.c"
    asm = compile_s(cc, src, tmp_path, case.cflags)
    fns = {name: cut_function(asm, name) for name in case.functions}
    case.check(fns, cc)
    objs = []
    for name, f in fns.items():
        obj = assemble(f.text, tmp_path / f"cut_{name}")
        assert check_object(obj, name) == [], f.text
        assert ".file" not in f.text and ".ident" not in f.text
        objs.append(obj)
    if case.include_original:
        orig_cmd = [cc, "-O3", *case.cflags, *case.ldflags, "-include", src, main]
    else:
        orig_cmd = [cc, "-O3", *case.cflags, *case.ldflags, main, src]
    must([*orig_cmd, "-o", tmp_path / "orig"])
    must(["gcc", "-O2", *case.ldflags, main, *objs, "-o", tmp_path / "cut"])
    for args in case.runs:
        assert outcome(tmp_path / "cut", *args) == outcome(tmp_path / "orig", *args)


@pytest.mark.parametrize("cc", COMPILERS)
def test_missing_functions(cc: str, tmp_path: Path):
    asm = compile_s(cc, FIX / "inlined.c", tmp_path)
    with pytest.raises(FunctionMissing) as e:
        cut_function(asm, "square")
    assert e.value.kind == "inlined"
    assert "inlined `square` into its callers" in str(e.value) and "noinline" in str(e.value)
    switch = compile_s(cc, FIX / "switch.c", tmp_path)
    with pytest.raises(FunctionMissing) as e:
        cut_function(switch, "puts")
    assert e.value.kind == "absent"


def test_clone_only_gcc(tmp_path: Path):
    asm = compile_s("gcc", FIX / "clone.c", tmp_path)
    for name, clone in (("scaled_sum", "scaled_sum.constprop.0"), ("lookup", "lookup.part.0")):
        with pytest.raises(FunctionMissing) as e:
            cut_function(asm, name)
        assert e.value.kind == "clone-only" and e.value.clones == [clone]
        assert clone in str(e.value)
    fns = list_functions(asm)
    assert fns.index("scaled_sum.constprop.0") < fns.index("use_scaled")
    assert {"lookup.part.0", "use_scaled", "lookup1", "lookup2", "lookup3"} <= set(fns)


def test_cold_part_alone_is_refused(tmp_path: Path):
    asm = compile_s("gcc", FIX / "cold.c", tmp_path)
    assert "checked_sum.cold" in list_functions(asm)
    with pytest.raises(FunctionMissing, match="part of `checked_sum`") as e:
        cut_function(asm, "checked_sum.cold")
    assert e.value.kind == "absent"


def test_data_symbol_is_not_a_function():
    asm = "\t.data\n\t.globl\tv\n\t.type\tv, @object\nv:\n\t.long\t1\n"
    with pytest.raises(FunctionMissing) as e:
        cut_function(asm, "v")
    assert e.value.kind == "absent"


def test_set_alias_is_followed():
    # gcc -O3 -S emits `.set .LC1,.LC0` for identical constants.
    asm = """\t.text\n\t.globl\tf\n\t.type\tf, @function\nf:\n\tmovdqa\t.LC1(%rip), %xmm0\n\tret
\t.size\tf, .-f\n\t.section\t.rodata.cst16,"aM",@progbits,16\n\t.align 16\n.LC0:\n\t.quad\t1\n\t.quad\t2
\t.set\t.LC1,.LC0\n\t.ident\t"x"\n"""
    f = cut_function(asm, "f")
    assert ".set\t.LC1,.LC0" in f.text and ".LC0:" in f.text and f.external_refs == []


# --- renaming -----------------------------------------------------------------------


def test_two_renamed_cuts_live_in_one_file(tmp_path: Path):
    asm = compile_s("gcc", FIX / "floats.c", tmp_path)
    a = cut_function(asm, "poly").text
    b = rename_symbols(a, {"poly": "poly_b"})
    clash = run(["gcc", "-c", "-x", "assembler", "-", "-o", tmp_path / "x.o"], input=a + b)
    assert clash.returncode != 0 and "already defined" in clash.stderr
    both = rename_local_labels(a, "a_") + rename_local_labels(b, "b_")
    assert ".La_C0" in both and ".Lb_C0:" in both and ".LC0" not in both and '"aM"' in both
    obj = assemble(both, tmp_path / "both")
    assert set(inspect_object(obj).globals) == {"poly", "poly_b"}
    assert rename_local_labels('\t.string ".L1"  # .L2\n', "p") == '\t.string ".L1"  # .L2\n'


# --- normalize_candidate --------------------------------------------------------------

BARE_LOOP = """\
popcount_loop:
\txorl\t%eax, %eax
.Lloop:
\ttestq\t%rdi, %rdi
\tje\t.Ldone
\tmovq\t%rdi, %rdx
\tandl\t$1, %edx
\taddl\t%edx, %eax
\tshrq\t%rdi
\tjmp\t.Lloop
.Ldone:
\tret
"""

COMMENTED = (
    "# a candidate with comments\r\n"
    "\t.globl popcount_loop\r\n"
    "\t.type popcount_loop, @function\r\n"
    "popcount_loop:   /* entry */\r\n"
    "\txorl %eax, %eax  # count\r\n"
    "/* a block\r\n comment */\r\n"
    "1:\ttestq %rdi, %rdi ; je 2f\r\n"
    "\tmovq %rdi, %rdx; andl $1, %edx\r\n"
    "\taddl %edx, %eax\r\n"
    "\tshrq %rdi\r\n"
    "\tjmp 1b\r\n"
    "2:\tret\r\n"
    "\t.size popcount_loop, .-popcount_loop\r\n"
)

INTEL_BARE = """\
\t.intel_syntax noprefix
\t.globl popcount_loop
popcount_loop:
\t.cfi_startproc
\txor eax, eax
.Lloop:
\ttest rdi, rdi
\tje .Ldone
\tmov rdx, rdi
\tand edx, 1
\tadd eax, edx
\tshr rdi, 1
\tjmp .Lloop
.Ldone:
\tret
"""


def _link_popcount(text: str, tmp_path: Path):
    f = normalize_candidate(text, "popcount_loop")
    obj = assemble(f.text, tmp_path / "cand")
    assert check_object(obj, "popcount_loop") == []
    main, src = FIX / "popcount_main.c", FIX / "popcount.c"
    must(["gcc", "-O2", main, obj, "-o", tmp_path / "cut"])
    must(["gcc", "-O3", main, src, "-o", tmp_path / "orig"])
    assert outcome(tmp_path / "cut") == outcome(tmp_path / "orig")
    return f


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(BARE_LOOP, id="bare-no-section-no-size"),
        pytest.param(COMMENTED, id="crlf-comments-semicolons"),
        pytest.param(INTEL_BARE, id="intel-bare-unbalanced-cfi"),
    ],
)
def test_normalize_bare_candidates(text: str, tmp_path: Path):
    f = _link_popcount(text, tmp_path)
    assert f.sections == [".text"]
    assert "\r" not in f.text and "comment" not in f.text.split("\n", 1)[1]
    if "intel" in text:
        assert ".intel_syntax noprefix" in f.text
        assert f.text.rstrip().splitlines()[-2].strip() == ".att_syntax prefix"
        assert ".cfi_" not in f.text  # unbalanced in the candidate: all dropped


@pytest.mark.parametrize("cc", COMPILERS)
def test_normalize_whole_tu(cc: str, tmp_path: Path):
    asm = compile_s(cc, FIX / "popcount.c", tmp_path)
    f = _link_popcount(asm, tmp_path)
    assert f.text == cut_function(asm, "popcount_loop").text


def test_normalize_intel_tu(tmp_path: Path):
    asm = compile_s("gcc", FIX / "floats.c", tmp_path, ("-masm=intel",))
    f = normalize_candidate(asm, "poly")
    assert ".intel_syntax noprefix" in f.text and f.text.count(".att_syntax prefix") == 1
    assert f.external_refs == []  # registers and PTR/QWORD are not symbols
    obj = assemble(f.text, tmp_path / "poly")
    assert check_object(obj, "poly") == []


def test_normalize_keeps_trailing_data_without_size(tmp_path: Path):
    text = "f:\n\tmovsd\t.LC0(%rip), %xmm0\n\tret\n\t.section .rodata\n.LC0:\n\t.double 1.5\n"
    f = normalize_candidate(text, "f")
    assert ".size\tf, .-f" in f.text and ".double 1.5" in f.text
    assert check_object(assemble(f.text, tmp_path / "f"), "f") == []


def test_normalize_requires_the_label():
    with pytest.raises(ValueError, match="never defines `foo:`"):
        normalize_candidate("\t.globl foo\nbar:\n\tret\n", "foo")


# --- elfcheck ------------------------------------------------------------------------

GOOD = "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tret\n\t.size f, .-f\n"


@pytest.mark.parametrize(
    "text, allowed, expected",
    [
        pytest.param(GOOD, None, [], id="good"),
        pytest.param(GOOD + "\t.globl g\ng:\n\tret\n", None, ["unexpected global symbols: g"], id="extra-globl"),
        pytest.param(GOOD + "\t.globl g\ng:\n\tret\n", {"g"}, [], id="extra-globl-allowed"),
        pytest.param(
            GOOD + '\t.section .wx,"awx",@progbits\n\tnop\n', None, ["writable and executable"], id="wx-section"
        ),
        pytest.param(
            GOOD + '\t.section .mycode,"ax",@progbits\n\tnop\n',
            None,
            ["executable section .mycode"],
            id="exec-outside-text",
        ),
        pytest.param("\t.text\nf:\n\tret\n", None, ["global function (it is local"], id="local-only"),
        pytest.param("\t.data\n\t.globl f\nf:\n\t.long 1\n", None, ["not a FUNC"], id="not-func"),
    ],
)
def test_check_object(text, allowed, expected, tmp_path: Path):
    obj = assemble(text, tmp_path / "t")
    problems = check_object(obj, "f", allowed_globals=allowed)
    assert len(problems) == len(expected), problems
    for want, got in zip(expected, problems):
        assert want in got


def test_inspect_object(tmp_path: Path):
    text = GOOD + "\tcall puts@PLT\n\t.section .rodata\n.Lx:\nlocal_obj:\n\t.long 3\n"
    r = inspect_object(assemble(text, tmp_path / "t"))
    assert r.globals["f"].type == "FUNC" and r.globals["f"].section == ".text"
    assert "local_obj" in r.locals and "puts" in r.undefined
    text_sec = next(s for s in r.sections if s.name == ".text")
    assert text_sec.executable and not text_sec.writable and text_sec.flag_letters == "AX"


# --- features ---------------------------------------------------------------------------

FEATURE_CASES = [
    pytest.param(
        "int f(unsigned long x){return __builtin_popcountl(x);}", ("-mpopcnt",), {"popcnt"}, {"popcnt"}, id="popcnt"
    ),
    pytest.param("int f(unsigned long x){return __builtin_clzl(x);}", ("-mlzcnt",), {"lzcnt"}, {"abm"}, id="lzcnt"),
    pytest.param("int f(unsigned long x){return __builtin_ctzl(x);}", ("-mbmi",), {"tzcnt"}, {"bmi1"}, id="tzcnt"),
    pytest.param(
        "unsigned long f(unsigned long x, int n){return x >> (n & 63);}", ("-mbmi2",), {"bmi2"}, {"bmi2"}, id="bmi2"
    ),
    pytest.param(
        "void f(int *restrict a, const int *restrict b, int n){for(int i=0;i<n;i++) a[i]+=b[i]*3;}",
        ("-mavx2",),
        {"avx2"},
        {"avx2"},
        id="avx2",
    ),
    pytest.param("int f(int a, int b, int c){return a < b ? c : b;}", (), {"cmov"}, set(), id="cmov"),
    pytest.param("unsigned long f(unsigned long x){return __builtin_bswap64(x);}", (), {"bswap"}, set(), id="bswap"),
    pytest.param(
        "double f(double a, double b, double c){return a*b+c;}",
        ("-mfma", "-ffp-contract=fast"),
        {"fma"},
        {"fma"},
        id="fma",
    ),
    pytest.param(
        "void f(float *restrict a, const float *restrict b, int n){for(int i=0;i<n;i++) a[i]+=b[i];}",
        ("-mavx512f", "-mprefer-vector-width=512"),
        {"avx512"},
        {"avx512f"},
        id="avx512",
    ),
]


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("code, flags, families, cpu", FEATURE_CASES)
def test_compiled_features(code, flags, families, cpu, cc, tmp_path: Path):
    src = tmp_path / "f.c"
    src.write_text(code + "\n")
    asm = compile_s(cc, src, tmp_path, flags)
    assert families <= instruction_features(asm), asm
    assert cpu <= required_cpu_flags(asm)
    assert missing_cpu_flags(asm, flags=set()) >= cpu


@pytest.mark.parametrize(
    "asm, families, cpu",
    [
        pytest.param("popcntq %rdi, %rax", {"popcnt"}, {"popcnt"}, id="popcntq"),
        pytest.param("popcnt rax, rdi", {"popcnt"}, {"popcnt"}, id="intel-popcnt"),
        pytest.param("andnl %esi, %edi, %eax\nblsrq %rdi, %rax", {"bmi1"}, {"bmi1"}, id="bmi1"),
        pytest.param("pdep %rsi, %rdi, %rax\nmulxq %rsi, %rax, %rdx", {"bmi2"}, {"bmi2"}, id="bmi2-ops"),
        pytest.param("bsfq %rdi, %rax\nbsrl %edi, %eax", {"bsf", "bsr"}, set(), id="bsf-bsr"),
        # the bytes decide: F3 0F BC/BD is TZCNT/LZCNT where the CPU has it (BSF/BSR elsewhere)
        pytest.param("rep bsfq %rdi, %rax", {"tzcnt"}, {"bmi1"}, id="rep-bsf-is-tzcnt"),
        pytest.param("repz bsrq %rdi, %rax", {"lzcnt"}, {"abm"}, id="rep-bsr-is-lzcnt"),
        pytest.param(".byte 0xf3, 0x48, 0x0f, 0xb8, 0xc7", {"popcnt"}, {"popcnt"}, id="popcnt-as-bytes"),
        pytest.param("rep\nbsrq %rdi, %rax", {"lzcnt"}, {"abm"}, id="prefix-on-its-own-line"),
        pytest.param("{evex} vpaddq %xmm1, %xmm0, %xmm0", {"avx512"}, {"avx512f", "avx512vl"}, id="evex-on-xmm0-15"),
        pytest.param("gf2p8affineqb $0, %xmm1, %xmm0", {"gfni"}, {"gfni"}, id="gfni"),
        pytest.param("vgf2p8affineqb $0, %ymm1, %ymm0, %ymm0", {"gfni", "avx"}, {"gfni", "avx"}, id="gfni-vex"),
        pytest.param("movbel (%rdi), %eax", {"movbe"}, {"movbe"}, id="movbe"),
        pytest.param("crc32b %dil, %eax\npcmpgtq %xmm1, %xmm0", {"sse4.2"}, {"sse4_2"}, id="sse4.2"),
        pytest.param("pmulld %xmm1, %xmm0\nptest %xmm0, %xmm0", {"sse4.1"}, {"sse4_1"}, id="sse4.1"),
        pytest.param("pshufb %xmm1, %xmm0", {"ssse3"}, {"ssse3"}, id="ssse3"),
        pytest.param("paddd %xmm1, %xmm0", {"sse2 vector"}, set(), id="sse2-vector"),
        pytest.param("pxor %xmm0, %xmm0\nmovaps %xmm1, %xmm0", set(), set(), id="zeroing-not-vector"),
        pytest.param("extrq $8, $0, %xmm0", {"sse4a"}, {"sse4a"}, id="sse4a"),
        pytest.param("blcfill %rdi, %rax", {"tbm"}, {"tbm"}, id="tbm"),
        pytest.param("adcxq %rsi, %rdi\nadoxq %rsi, %rdi", {"adx"}, {"adx"}, id="adx"),
        pytest.param("sete %al\ncmovgq %rsi, %rdi", {"setcc", "cmov"}, set(), id="setcc-cmov"),
        pytest.param("vaddps %xmm1, %xmm2, %xmm0\nvmovdqu (%rdi), %ymm0", {"avx"}, {"avx"}, id="avx"),
        pytest.param("vpbroadcastd %xmm0, %xmm1", {"avx2"}, {"avx2"}, id="avx2-broadcast"),
        pytest.param("vbroadcastss %xmm0, %ymm1", {"avx2"}, {"avx2"}, id="avx2-reg-broadcast"),
        pytest.param("vfmadd231sd %xmm2, %xmm1, %xmm0", {"fma"}, {"fma"}, id="fma3"),
        pytest.param("vpternlogd $0x96, %zmm1, %zmm2, %zmm3", {"avx512"}, {"avx512f"}, id="avx512f"),
        pytest.param("kmovq %k1, %rax", {"avx512"}, {"avx512f", "avx512bw"}, id="avx512bw"),
        pytest.param("vpaddd %xmm16, %xmm1, %xmm2", {"avx512"}, {"avx512f", "avx512vl"}, id="avx512vl"),
        pytest.param("vpmullq %zmm1, %zmm2, %zmm3", {"avx512"}, {"avx512f", "avx512dq"}, id="avx512dq"),
    ],
)
def test_feature_table(asm, families, cpu):
    assert instruction_features(asm) == families
    assert required_cpu_flags(asm) == cpu


def test_cpu_flags_override(monkeypatch):
    asm = "shrx %rsi, %rdi, %rax\npopcntq %rdi, %rax\ncmovne %rsi, %rax"
    monkeypatch.setenv("SUPERCODER_CPU_FLAGS", "fpu sse2 popcnt")
    assert cpu_flags() == frozenset({"fpu", "sse2", "popcnt"})
    assert missing_cpu_flags(asm) == {"bmi2"}
    assert missing_cpu_flags(asm, flags={"bmi2", "popcnt"}) == set()
    monkeypatch.delenv("SUPERCODER_CPU_FLAGS")
    assert isinstance(cpu_model(), str) and cpu_model()
    if Path("/proc/cpuinfo").exists():
        assert "sse2" in cpu_flags()
