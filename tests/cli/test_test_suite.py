"""The project's own test suite as a source of calls: `--test-command` (or `auto`, or .supercoder.toml's
[build] test-command) builds and tests a copy of the project with a compiler that puts a recording object
in place of the file's, and every call the tests make becomes an input of the function's harness."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from support import FIXTURES, supercoder

from supercoder_lsp.verify.test_suite import find_test_command

PROJECT = FIXTURES / "project" / "bits"
# record_bits takes a record whose last two bytes check the rest: 2,000 random inputs never make one, and
# miss its last lines; the project's test (test_bits.c) calls it with a valid record
ARGS = ("-f", "record_bits", "-p", "replay", "--candidates", "empty", "--inputs", "2000", "--no-cache", "--json")


def _project(tmp_path: Path) -> Path:
    d = tmp_path / "bits"
    shutil.copytree(PROJECT, d)
    (d / "empty").mkdir()
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "p"]):
        subprocess.run(["git", "-C", str(d), *args], check=True, capture_output=True)
    return d


def _function(p: subprocess.CompletedProcess) -> tuple[dict, list[str]]:
    assert p.returncode == 0, p.stdout + p.stderr
    data = json.loads(p.stdout)
    return data["functions"][0], data["notes"]


def test_the_projects_test_suite_calls_become_inputs(tmp_path):
    d = _project(tmp_path)
    alone, _ = _function(supercoder("optimize", "bits.c", *ARGS, cwd=d))
    assert alone["coverage"]["recorded"] == 0 and alone["coverage"]["percent"] < 100, alone["coverage"]
    fn, _ = _function(supercoder("optimize", "bits.c", *ARGS, "--test-command", "auto", cwd=d))
    cov = fn["coverage"]
    assert cov["recorded"] > 0 and cov["percent"] == 100 and cov["generated_percent"] == alone["coverage"]["percent"]
    assert "over 1 program run of the project's test suite (make check)" in fn["harness"], fn["harness"]
    # the user's tree is as it was: the suite ran in a copy
    assert not (d / "bits.o").exists() and not (d / "test_bits").exists()
    # the same from the project file, with the command named
    (d / ".supercoder.toml").write_text('[build]\ntest-command = "make check"\n')
    fn, _ = _function(supercoder("optimize", "bits.c", *ARGS, cwd=d))
    assert fn["coverage"]["recorded"] > 0 and fn["coverage"]["percent"] == 100, fn["harness"]


def test_a_suite_that_records_nothing_says_why(tmp_path):
    d = _project(tmp_path)
    # a build that calls its compiler by name, never through CC: the file's object is never replaced
    cmd = "gcc -O3 bits.c test_bits.c -o t && ./t"
    fn, notes = _function(supercoder("optimize", "bits.c", *ARGS, "--test-command", cmd, cwd=d))
    assert fn["coverage"]["recorded"] == 0
    assert "the test suite's build never compiled bits.c with the compiler it was given in CC" in fn["harness"]
    # 'auto' where the project has no test command
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(PROJECT / "bits.c", lone)
    shutil.copy(PROJECT / "bits.h", lone)
    (lone / "empty").mkdir()
    _, notes = _function(supercoder("optimize", "bits.c", *ARGS, "--test-command", "auto", cwd=lone))
    assert any("no test command found" in n and "--test-command CMD" in n for n in notes), notes


def test_the_test_command_is_found_as_the_projects_build_runs_its_tests(tmp_path):
    (tmp_path / "Makefile").write_text("all:\n\ttrue\ntest: all\n\t./run\n")
    assert find_test_command(tmp_path) == "make test"
    (tmp_path / "Makefile").write_text("all:\n\ttrue\ncheck: all\n\t./run\ntest: check\n")
    assert find_test_command(tmp_path) == "make check"
    (tmp_path / "meson.build").write_text("project('x', 'c')\n")
    assert find_test_command(tmp_path).startswith("meson setup")
    (tmp_path / "CMakeLists.txt").write_text("project(x C)\n")
    assert "ctest --test-dir" in find_test_command(tmp_path)
    empty = tmp_path / "none"
    empty.mkdir()
    assert find_test_command(empty) is None
