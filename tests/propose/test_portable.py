"""A source change that uses CPU features the project's flags do not enable keeps the program
running on every x86-64 CPU: `target_clones` with a clone name gcc builds (gcc 12 refuses
`target_clones("lzcnt")`), called from another file, whose default copy has none of the new
instructions. clang 14 cannot link such a function from another file: none is offered there."""

from __future__ import annotations

import re
import subprocess

import pytest

from supercoder_lsp.propose.portable import clone_target, clones_attribute

BODIES = {  # target names -> a body that wants them, and the instruction it becomes
    ("popcnt",): ("return __builtin_popcountll(x);", "popcnt"),
    ("lzcnt",): ("return x ? __builtin_clzll(x) : 64;", "lzcnt"),
    ("bmi",): ("return x ? __builtin_ctzll(x) : 64;", "tzcnt"),  # gcc's default copy: rep bsf (reads as tzcnt)
    ("lzcnt", "popcnt"): ("return __builtin_popcountll(x) + (x ? __builtin_clzll(x) : 64);", "lzcnt"),
}


def test_clone_names():
    assert clone_target(["popcnt"]) == "popcnt"
    assert clone_target(["sse4.2", "popcnt"]) == "arch=x86-64-v2"
    assert clone_target(["lzcnt"]) == clone_target(["bmi", "popcnt"]) == "arch=x86-64-v3"
    assert clone_target(["avx512f", "bmi2"]) == "arch=x86-64-v4"
    assert clone_target(["adx"]) is None and clones_attribute([]) is None
    assert clones_attribute(["popcnt"]) == 'target_clones("popcnt", "default")'
    assert clones_attribute(["popcnt"], "clang-14") is None


def _functions(objdump: str) -> dict[str, str]:
    out: dict[str, str] = {}
    name = None
    for line in objdump.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            name = m.group(1)
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


@pytest.mark.parametrize("targets", list(BODIES), ids=lambda t: "+".join(t))
def test_the_attribute_builds_is_called_from_another_file_and_its_default_copy_runs_anywhere(tmp_path, targets):
    cc = "gcc"
    body, insn = BODIES[targets]
    attr = clones_attribute(targets)
    assert attr is not None
    plain = f"unsigned f(unsigned long long x) {{ {body} }}\n"
    main = (
        "#include <stdio.h>\nunsigned f(unsigned long long);\n"
        "int main(void) { unsigned long long x = 0x9e3779b97f4a7c15ULL; for (int i = 0; i < 5000; i++) {"
        ' printf("%u\\n", f(x >> (i % 64))); x = x * 6364136223846793005ULL + 1; } return 0; }\n'
    )
    (tmp_path / "main.c").write_text(main)
    outs = []
    for name, src in (("plain", plain), ("cloned", f"__attribute__(({attr}))\n{plain}")):
        (tmp_path / f"{name}.c").write_text(src)
        obj, exe = tmp_path / f"{name}.o", tmp_path / name
        subprocess.run([cc, "-O3", "-c", str(tmp_path / f"{name}.c"), "-o", str(obj)], check=True)
        subprocess.run([cc, "-O3", str(obj), str(tmp_path / "main.c"), "-o", str(exe)], check=True)
        outs.append(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
        if name == "cloned":
            dis = subprocess.run(["objdump", "-d", str(obj)], capture_output=True, text=True, check=True).stdout
            copies = _functions(dis)
            default = [t for n, t in copies.items() if "default" in n]
            fast = [t for n, t in copies.items() if n.startswith("f.") and "default" not in n and "resolver" not in n]
            assert default and fast, sorted(copies)
            if insn != "tzcnt":
                assert all(insn not in t for t in default), "the default copy must run on CPUs without " + insn
            assert any(insn in t for t in fast), f"no {insn} in the cloned copy: {sorted(copies)}"
    assert outs[0] == outs[1] and len(outs[0].split()) == 5000
