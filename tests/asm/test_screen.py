"""Static screening of candidate assembly: what it stops, and that honest compiler output passes."""

from __future__ import annotations

import subprocess

import pytest
from support import FIXTURES

from supercoder_lsp import tools
from supercoder_lsp.asm.cut import cut_function, list_functions
from supercoder_lsp.asm.screen import screen

ASM_FIX = FIXTURES / "asm"
ORIGINAL = "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\tmovq %rdi, %rax\n\tret\n\t.size f, .-f\n"


def fn(body: str) -> str:
    return f"\t.text\n\t.globl f\n\t.type f, @function\nf:\n{body}\n\t.size f, .-f\n"


@pytest.mark.parametrize(
    "body,says",
    [
        pytest.param("\tmovl $60, %eax\n\tsyscall", "line 6: 'syscall': system call", id="syscall"),
        pytest.param("\tint $0x80", "system call 'int'", id="int80"),
        pytest.param("\tinb $0x60, %al", "privileged", id="port-io"),
        pytest.param("\thlt", "privileged", id="hlt"),
        pytest.param("\twrmsr", "privileged", id="wrmsr"),
        pytest.param("\tmovq %cr0, %rax", "control or debug register", id="cr0"),
        pytest.param("\trdtsc", "nondeterministic", id="rdtsc"),
        pytest.param("\tcpuid", "nondeterministic", id="cpuid"),
        # the trap flag tells a single-stepped check from a real call: a candidate read it and went wrong there
        pytest.param("\tpushfq\n\tpopq %rax", "reads the flags register's trap flag", id="pushf"),
        pytest.param("\tpushq %rax\n\tpopfq", "writes the flags register's trap flag", id="popf"),
        pytest.param("\t.byte 0x0f, 0x05", "raw bytes in an executable section", id="raw-bytes"),
        pytest.param('\t.incbin "/etc/passwd"', ".incbin pulls in an outside file", id="incbin"),
        pytest.param('\t.include "evil.s"', ".include pulls in an outside file", id="include"),
        pytest.param("\t.macro m\n\tsyscall\n\t.endm\n\tm", "macro", id="macro"),
        pytest.param("\tcall system@PLT", "references 'system'", id="call-libc"),
        pytest.param("\tjmp execve", "references 'execve'", id="jump-libc"),
        pytest.param("\tmovq environ(%rip), %rax", "references 'environ'", id="data-ref"),
        pytest.param("\tcall *%rax", "indirect call", id="indirect-call"),
        pytest.param("\tmovq 0x601040, %rax", "absolute address", id="absolute-load"),
        pytest.param("\tmovq %rax, 0(,%rdi,8)", "absolute address", id="absolute-indexed"),
        pytest.param("\tjmp 0x401000", "absolute address", id="absolute-jump"),
        pytest.param("\tmovq %fs:0x28, %rax", "%fs/%gs segment", id="tls"),
        pytest.param("\t.section .data\n\t.long 1\n\t.text", "section .data", id="new-writable-section"),
        pytest.param(
            '\t.section .init_array,"aw"\n\t.quad f\n\t.text', ".init_array runs code before", id="constructor"
        ),
        pytest.param('\t.section .wx,"awx",@progbits\n\tret', "writable and executable", id="wx-section"),
        pytest.param(
            '\t.section .text.evil,"ax",@progbits\n\tret', "executable section .text.evil", id="new-code-section"
        ),
        # raw unwind bytes other than the frame descriptions gcc writes (DW_CFA_set_loc here)
        pytest.param("\t.cfi_startproc\n\t.cfi_escape 0x1,0x8\n\tret\n\t.cfi_endproc", "raw unwind", id="cfi-escape"),
    ],
)
def test_unsafe_candidates_are_named_with_their_line(body, says):
    problems = screen(fn(body), ORIGINAL)
    assert problems, body
    assert any(says in p for p in problems), problems


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("\tpopcntq %rdi, %rax\n\tret", id="plain"),
        pytest.param("\tleaq 0(,%rdi,8), %rax\n\tret", id="lea-scaled-index"),
        pytest.param(
            '\tmovsd .LC0(%rip), %xmm0\n\tret\n\t.section .rodata.cst8,"aM",@progbits,8\n.LC0:\n\t.quad 1\n\t.text',
            id="rodata-constant",
        ),
        pytest.param("\tcall memcpy@PLT\n\tret", id="pure-libc"),
        pytest.param("\tcall bcmp@PLT\n\tret", id="clang-bcmp"),  # clang's memcmp(...) == 0
        pytest.param("\tcall __popcountdi2@PLT\n\tret", id="libgcc-popcount"),
        pytest.param(
            "\tleaq .L4(%rip), %rdx\n\tmovslq (%rdx,%rdi,4), %rax\n\taddq %rdx, %rax\n\tnotrack jmp *%rax\n"
            "\t.section .rodata\n.L4:\n\t.long .L5-.L4\n\t.text\n.L5:\n\tret",
            id="jump-table",
        ),
        pytest.param("\tnopw 0x0(%rax,%rax,1)\n\tret", id="nop-with-displacement"),
        pytest.param("1:\n\tdecq %rdi\n\tjnz 1b\n\tret", id="numeric-local-label"),
        # AVX-512 decorators are not symbols (gcc -march=native on an AVX-512 machine: deflate_fast was "unsafe")
        pytest.param("\tvpsubw %zmm5, %zmm2, %zmm1{%k1}{z}\n\tret", id="avx512-zeroing-mask"),
        pytest.param("\tvaddps (%rdi){1to16}, %zmm1, %zmm2\n\tret", id="avx512-broadcast"),
        pytest.param("\tvaddps {rn-sae}, %zmm1, %zmm2, %zmm3\n\tret", id="avx512-rounding"),
    ],
)
def test_ordinary_code_passes(body):
    assert screen(fn(body), ORIGINAL) == []


def test_a_call_to_a_helper_whose_name_starts_with_r_is_a_direct_call():
    """`call read_buf` (zlib's deflate_fast at -O2, its static helper out of line) is not `call rax`."""
    helper = "\t.type read_buf, @function\nread_buf:\n\tret\n"
    original = ORIGINAL + helper
    assert screen(fn("\tcall read_buf\n\tret") + helper, original) == []
    assert any("indirect call" in p for p in screen(fn("\tcall %r11\n\tret"), original))
    assert any("indirect call" in p for p in screen(fn("\tcall r11d\n\tret"), original))


def test_a_symbol_hidden_beside_an_avx512_decorator_is_still_seen():
    problems = screen(fn("\tvaddps environ(%rip){1to16}, %zmm1, %zmm2\n\tret"), ORIGINAL)
    assert any("references 'environ'" in p for p in problems), problems
    assert any("references 'system'" in p for p in screen(fn("\tvaddps {system}, %zmm1, %zmm2\n\tret"), ORIGINAL))


def _compilers():
    return [c for c in ("gcc", "clang") if tools.which(c)]


@pytest.mark.parametrize(
    "flags", [["-O3"], ["-O3", "-march=native"], ["-O2", "-fPIC"], ["-O3", "-fno-pic"]], ids=lambda f: " ".join(f)
)
@pytest.mark.parametrize("cc", _compilers())
def test_every_function_compilers_emit_passes_against_itself(cc, flags):
    """Screening must not break honest code: every cut of every fixture passes."""
    for src in sorted(ASM_FIX.glob("*.c")):
        if src.stem.endswith("_main"):
            continue
        asm = subprocess.run(
            [cc, *flags, "-S", "-g0", "-o", "-", str(src)], capture_output=True, text=True, check=True
        ).stdout
        for name in list_functions(asm):
            if name.endswith(".cold") or "." in name:
                continue
            cut = cut_function(asm, name)
            assert screen(cut.text, cut.text) == [], (src.name, name)


def test_gccs_own_unwind_descriptions_of_a_realigned_frame_pass():
    """gcc describes a frame realigned through a DRAP register (AVX code called with a misaligned stack)
    with .cfi_escape (DW_CFA_expression, DW_CFA_def_cfa_expression): read by an unwinder, never run. A
    -march=native candidate of such a function was refused as unsafe."""
    src = (
        "#include <immintrin.h>\n__m256 h(__m256, __m256, __m256, __m256, __m256, __m256, __m256, __m256, "
        "__m256, __m256);\n__attribute__((force_align_arg_pointer)) float f(float *a, int n) {\n"
        "    __m256 v = _mm256_loadu_ps(a);\n    return h(v, v, v, v, v, v, v, v, v, v)[0] + n;\n}\n"
    )
    asm = subprocess.run(
        ["gcc", "-O3", "-mavx2", "-S", "-g0", "-x", "c", "-o", "-", "-"], input=src, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    assert ".cfi_escape 0x10" in asm
    cut = cut_function(asm, "f")
    assert screen(cut.text, cut.text) == []
