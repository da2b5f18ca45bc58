"""Replaced functions stay verified: `supercoder check` says whether each block's assembly still stands for
the C under its #else (ok, stale, wrong), `--fix` renews the evidence where re-verification passes, and
`supercoder revert` puts the C back byte for byte."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import FIXTURES

SWAR = FIXTURES / "lsp" / "cands" / "popcount" / "swar.s"
ORIGINAL = FIXTURES / "lsp" / "popcount.c"  # a 64-step loop: SWAR's win shows on any machine


def cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder_lsp.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture(scope="module")
def replaced(tmp_path_factory) -> str:
    """popcount.c with popcount replaced by the SWAR assembly, as `supercoder replace --write` leaves it."""
    d = tmp_path_factory.mktemp("replaced")
    src = d / "popcount.c"
    shutil.copy(ORIGINAL, src)
    p = cli("replace", str(src), "-f", "popcount", "--assembly", str(SWAR), "--inputs", "20000", "--write")
    assert p.returncode == 0, p.stdout + p.stderr
    return src.read_text()


def copy(tmp_path: Path, text: str, name: str = "popcount.c") -> Path:
    (tmp_path / name).write_text(text)
    return tmp_path / name


def under_else(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced by `new` in the C under the block's #else alone."""
    head, rest = text.split("#else\n", 1)
    body, tail = rest.split("#endif", 1)
    assert old in body
    return f"{head}#else\n{body.replace(old, new)}#endif{tail}"


def test_the_block_records_its_evidence_and_checks_ok(tmp_path, replaced):
    ev = json.loads(re.search(r"/\* supercoder-evidence: (.*) \*/", replaced)[1])
    assert ev["flags"] == "-O3" and ev["cc"].startswith("gcc") and ev["evidence"].startswith("tested on")
    assert re.match(r"\d+\.\d\dx \(95% CI", ev["claim"]) and isinstance(ev["verifier"], int)
    src = copy(tmp_path, replaced)
    p = cli("check", str(src))
    assert p.returncode == 0 and "popcount: ok" in p.stdout, p.stdout + p.stderr
    # layout and comments under #else do not count
    src.write_text(under_else(replaced, "    int c = 0;", "    int c = 0;   /* the count */\n\n"))
    p = cli("check", str(src))
    assert p.returncode == 0 and "popcount: ok" in p.stdout, p.stdout


def test_an_edited_c_is_stale_and_fix_renews_the_evidence_where_it_still_verifies(tmp_path, replaced):
    src = copy(tmp_path, under_else(replaced, "c += (x >> i) & 1;", "c += (int)((x >> i) & 1);"))
    p = cli("check", str(src))
    assert p.returncode == 1 and "popcount: stale" in p.stdout and "the C under #else changed" in p.stdout, p.stdout
    before = src.read_text()
    p = cli("check", str(src), "--fix", "--inputs", "20000")
    assert p.returncode == 0 and "popcount: fixed" in p.stdout, p.stdout + p.stderr
    after = src.read_text()
    assert after != before and after.replace(
        re.search(r"/\* supercoder-evidence: .*\*/", after)[0], ""
    ) == before.replace(re.search(r"/\* supercoder-evidence: .*\*/", before)[0], "")  # only the evidence line changed
    assert cli("check", str(src)).returncode == 0


def test_a_c_change_the_assembly_does_not_follow_is_wrong(tmp_path, replaced):
    """A bug fix in the C below (a special case the assembly never had): re-verification finds the input,
    even one in 2^64, since the original's code names the value; nothing is written."""
    src = copy(tmp_path, under_else(replaced, "    return c;", "    return c + (x == 12345);"))
    before = src.read_text()
    p = cli("check", str(src), "--fix", "--inputs", "20000")
    assert p.returncode == 1 and "popcount: wrong" in p.stdout and "x=12345" in p.stdout, p.stdout + p.stderr
    assert src.read_text() == before


def test_flags_compiler_verifier_and_missing_evidence_make_it_stale(tmp_path, replaced):
    src = copy(tmp_path, replaced)
    p = cli("check", str(src), "--cflags=-O2")
    assert p.returncode == 1 and "the flags changed ('-O3', now '-O2'" in p.stdout, p.stdout
    src.write_text(re.sub(r'"verifier": \d+', '"verifier": 1', replaced))
    p = cli("check", str(src))
    assert p.returncode == 1 and "verified by verifier 1" in p.stdout, p.stdout
    src.write_text(re.sub(r'"cc": "[^"]*"', '"cc": "gcc 9.9"', replaced))
    assert "the compiler changed ('gcc 9.9'" in cli("check", str(src)).stdout
    src.write_text(re.sub(r"/\* supercoder-evidence: .*\*/\n", "", replaced))
    p = cli("check", str(src))
    assert p.returncode == 1 and "records no evidence" in p.stdout, p.stdout
    # the assembly edited by hand
    src.write_text(replaced.replace('"\\tret\\n"', '"\\tnop\\n"\n    "\\tret\\n"', 1))
    assert "the assembly was edited" in cli("check", str(src)).stdout


def test_check_walks_folders_and_compile_commands_and_writes_a_ci_summary(tmp_path, replaced):
    (tmp_path / "src").mkdir()
    a = copy(tmp_path / "src", replaced, "a.c")
    copy(tmp_path / "src", under_else(replaced, "    return c;", "    return c + 0;"), "b.c")
    copy(tmp_path / "src", ORIGINAL.read_text(), "plain.c")  # nothing replaced: no row
    p = cli("check", str(tmp_path), "--json")
    rows = json.loads(p.stdout)
    assert p.returncode == 1 and {(Path(r["file"]).name, r["status"]) for r in rows} == {
        ("a.c", "ok"),
        ("b.c", "stale"),
    }
    (tmp_path / "compile_commands.json").write_text(
        json.dumps([{"directory": str(a.parent), "file": "a.c", "command": f"gcc -O3 -c {a}"}])
    )
    p = cli("check", str(tmp_path / "compile_commands.json"), "--markdown")
    assert p.returncode == 0 and p.stdout.startswith("| file | function | status | why |"), p.stdout
    assert "| a.c | `popcount` | ok |" in p.stdout


def test_revert_puts_the_c_back_byte_for_byte(tmp_path, replaced):
    src = copy(tmp_path, replaced)
    p = cli("revert", str(src), "-f", "nosuch")
    assert p.returncode == 2 and "no replaced function nosuch (replaced here: popcount)" in p.stderr
    assert src.read_text() == replaced
    p = cli("revert", str(src), "-f", "popcount")
    assert p.returncode == 0, p.stderr
    assert src.read_bytes() == ORIGINAL.read_bytes()
    assert "no replaced functions found" in cli("check", str(src)).stdout
