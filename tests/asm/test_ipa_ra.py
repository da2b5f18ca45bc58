"""A candidate is verified as it will live: in its own object, linked with the
rest of the program rebuilt without the function's definition. Spliced into
the file's own -O3 assembly, an ABI-legal candidate that writes call-clobbered
registers breaks main, which gcc's IPA-RA let keep values in them."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from support import FIXTURES

FIX = FIXTURES / "ipa_ra"
CAND = FIX / "cands" / "dist" / "clobbers-caller-saved.s"


def test_the_fixture_really_exercises_ipa_ra(tmp_path):
    """Splicing the candidate into gcc's own .s breaks the program (wrong output or a hang)."""
    s = subprocess.run(
        ["gcc", "-O3", "-S", "-g0", str(FIX / "pairs.c"), "-o", "-"], capture_output=True, text=True, check=True
    ).stdout
    s = re.sub(r"^(\s*\.globl\s+)dist$", r"\1dist_gcc", s, flags=re.M)
    s = re.sub(r"^(\s*\.type\s+)dist,", r"\1dist_gcc,", s, flags=re.M)
    s = re.sub(r"^dist:", "dist_gcc:", s, flags=re.M)
    s = re.sub(r"^(\s*\.size\s+)dist, \.-dist", r"\1dist_gcc, .-dist_gcc", s, flags=re.M)
    (tmp_path / "spliced.s").write_text(s + "\n" + CAND.read_text())
    subprocess.run(["gcc", str(tmp_path / "spliced.s"), "-o", str(tmp_path / "spliced")], check=True)
    expected = (FIX / "tests" / "03.out").read_text()
    try:
        r = subprocess.run(
            [str(tmp_path / "spliced")], stdin=open(FIX / "tests" / "03.in"), capture_output=True, text=True, timeout=5
        )
        assert r.stdout != expected
    except subprocess.TimeoutExpired:
        pass  # main's loop counter lived in a clobbered register


def test_abi_legal_candidate_is_accepted_as_it_will_live(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "supercoder_lsp.cli",
            "optimize",
            "--json",
            "--no-cache",
            str(FIX / "pairs.c"),
            "-f",
            "dist",
            "--candidates",
            str(FIX / "cands"),
            "--tests",
            str(FIX / "tests"),
            "--inputs",
            "20000",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    [c] = json.loads(p.stdout)["functions"][0]["candidates"]
    assert c["tests_passed"] == 3, c["detail"]
    assert (c["status"], c["reason"]) == ("accepted", None), c["detail"]
