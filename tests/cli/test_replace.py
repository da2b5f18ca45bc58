"""Replacing a function's C with verified assembly: the edit, and the checks before it is offered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import FIXTURES

from supercoder_lsp.optimize import replace
from supercoder_lsp.source import parse_functions

FIX = FIXTURES
SWAR = FIX / "lsp" / "cands" / "popcount" / "swar.s"
POPCNT = FIX / "verify" / "cands" / "popcount" / "good-popcnt.s"


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder_lsp.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def render(src: Path, name: str, asm: Path) -> str:
    text = src.read_text()
    fn = next(f for f in parse_functions(text) if f.name == name)
    return replace.render(text, fn, asm.read_text(), "test")


def test_the_block_is_guarded_and_keeps_the_c(tmp_path):
    text = render(FIX / "verify" / "popcount.c", "popcount", POPCNT)
    assert (
        "#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(__ILP32__) && defined(__POPCNT__)"
        in text
    )
    assert '".att_syntax prefix\\n"' in text and "#else" in text and "x &= x - 1;" in text
    # without -mpopcnt the C is built; with it, the assembly: both behave the same
    src = tmp_path / "p.c"
    src.write_text(text)
    for flags in (["-O3"], ["-O3", "-mpopcnt"], ["-O0"]):
        subprocess.run(["gcc", *flags, str(src), "-o", str(tmp_path / "p")], check=True)
        out = subprocess.run(
            [str(tmp_path / "p")], input="1 2 3 18446744073709551615\n", capture_output=True, text=True
        )
        assert out.stdout == "68\n"


def test_local_labels_are_unique_and_intel_syntax_builds_fail_loudly(tmp_path):
    asm = (
        "\t.text\n\t.globl popcount\n\t.type popcount, @function\npopcount:\n\txorl %eax, %eax\n.L2:\n\ttestq %rdi, %rdi\n"
        "\tje .L3\n\tleaq -1(%rdi), %rdx\n\tincl %eax\n\tandq %rdx, %rdi\n\tjmp .L2\n.L3:\n\tret\n\t.size popcount, .-popcount\n"
    )
    (tmp_path / "k.s").write_text(asm)
    text = render(FIX / "verify" / "popcount.c", "popcount", tmp_path / "k.s")
    assert ".L2" not in text and ".Lsc_popcount_" in text
    src = tmp_path / "p.c"
    src.write_text(text)
    subprocess.run(
        ["gcc", "-O0", "-c", str(src), "-o", str(tmp_path / "o0.o")], check=True
    )  # no clash with gcc's .L labels
    r = subprocess.run(
        ["gcc", "-O3", "-masm=intel", "-c", str(src), "-o", str(tmp_path / "i.o")], capture_output=True, text=True
    )
    assert r.returncode != 0


def test_static_functions_are_refused_with_a_reason():
    text = "static int f(int x) { return x + 1; }\nint g(int y) { return f(y); }\n"
    fn = parse_functions(text)[0]
    with pytest.raises(replace.ReplaceError, match="static"):
        replace.render(text, fn, "f:\n\tret\n", "n")


def test_cli_writes_only_a_verified_faster_replacement(tmp_path):
    src = tmp_path / "popcount.c"
    src.write_text((FIX / "lsp" / "popcount.c").read_text())  # a 64-step loop: SWAR's win shows on any machine
    p = cli("replace", str(src), "-f", "popcount", "--assembly", str(SWAR), "--inputs", "20000", "--write", "--json")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["ok"] and res["faster"] and res["written"] and res["speedup"] > 1.5
    assert ".att_syntax prefix" in src.read_text()
    # the POPCNT candidate under plain -O3: the guard is false, nothing is written
    src2 = tmp_path / "p2.c"
    src2.write_text((FIX / "verify" / "popcount.c").read_text())
    p = cli("replace", str(src2), "-f", "popcount", "--assembly", str(POPCNT), "--inputs", "2000", "--write")
    assert p.returncode == 5 and "guard is false" in p.stdout
    assert src2.read_text() == (FIX / "verify" / "popcount.c").read_text()


def test_a_caller_that_loses_inlining_blocks_the_replacement(tmp_path):
    p = cli(
        "replace",
        str(FIX / "replace" / "clamp.c"),
        "-f",
        "clamp255",
        "--assembly",
        str(FIX / "replace" / "clamp255-cmov.s"),
        "--inputs",
        "5000",
    )
    assert p.returncode == 5
    assert "caller sum_clamped gets slower" in p.stdout


def test_library_style_code_is_re_verified_with_the_compilers_types(tmp_path):
    """`uLong ZEXPORT checksum_z(...)` has no signature tree-sitter understands; the replacement check plans
    its harness from the compiler's types, as `optimize` does, instead of 'cannot re-verify'."""
    from supercoder_lsp import build
    from supercoder_lsp.asm.cut import cut_function
    from supercoder_lsp.model import BuildConfig

    src = tmp_path / "zlike.c"
    src.write_text((FIX / "real" / "zlike.c").read_text())
    asm = build.compile_to_asm(src, BuildConfig("gcc", ("-O2",), "t", str(tmp_path)), tmp_path / "o2.s")
    (tmp_path / "o2-checksum.s").write_text(cut_function(asm, "checksum_z").text)
    p = cli(
        "replace",
        str(src),
        "-f",
        "checksum_z",
        "--assembly",
        str(tmp_path / "o2-checksum.s"),
        "--json",
        "--inputs",
        "2000",
    )
    res = json.loads(p.stdout)
    assert "cannot re-verify" not in res["detail"], res["detail"]
    assert res["inputs_checked"] > 2000 and (res["ok"] or "slower" in res["detail"]), res
