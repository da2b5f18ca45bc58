"""A project's own test suite as a source of calls: the project is copied, built with its own build and
tested with its own test command, with a compiler in front of the project's that, where the build
compiles the optimized file into an object, puts the recording object in its place (the file's code
with a stub in front of one function that writes its calls' arguments, program_state.recording_objects).
Every test process then records, each to a file of its own, and the calls are replayed in the harness
as recorded inputs. The first run builds the whole project; a run for another function touches the file
so that the build compiles it again and relinks.

The command comes from `--test-command`, `.supercoder.toml` `[build] test-command`, or with `auto` from
the project itself: CTest for a CMakeLists.txt, `meson test` for a meson.build, `make check` or
`make test` for a Makefile with that target. The compiler reaches the build through `CC` (and as make's
`CC=` for the commands found here): a build that sets its compiler otherwise records nothing, and the
report says so.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..build.project_copy import copy_project, run_in_group

BUILD_DIR = "_supercoder_build"
TIMEOUT = 600.0


def find_test_command(root: Path) -> str | None:
    """The project's test command, where its build system says how to run its tests."""
    if (root / "CMakeLists.txt").is_file():
        return (
            f"cmake -S . -B {BUILD_DIR} -DCMAKE_BUILD_TYPE=Release && cmake --build {BUILD_DIR} -j2 && "
            f"ctest --test-dir {BUILD_DIR} --output-on-failure"
        )
    if (root / "meson.build").is_file():
        return f"meson setup {BUILD_DIR} && meson test -C {BUILD_DIR}"
    for name in ("GNUmakefile", "makefile", "Makefile"):
        f = root / name
        if f.is_file():
            targets = set(re.findall(r"^([A-Za-z_-]+)\s*:", f.read_text(errors="replace"), re.M))
            for t in ("check", "test"):
                if t in targets:
                    return f"make {t}"
    return None


def project_root(file: Path) -> Path:
    """The project a file belongs to: its git work tree, else the nearest folder up with a build file."""
    p = subprocess.run(["git", "-C", str(file.parent), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return Path(p.stdout.strip())
    for d in [file.parent, *file.parent.parents]:
        if any((d / n).is_file() for n in ("CMakeLists.txt", "meson.build", "Makefile", "configure")):
            return d
    return file.parent


_WRAPPER = """#!/bin/sh
# supercoder's recording compiler: the project's compiler, and where it compiles @TARGET@ into an object,
# that object is replaced by the recording one ($SC_RECORD_OBJ)
@REAL@ "$@" || exit $?
[ -n "$SC_RECORD_OBJ" ] || exit 0
c=0; hit=0; out=; prev=
for a in "$@"; do
  [ "$prev" = -o ] && out=$a
  case $a in
    -c) c=1 ;;
    *.c) [ "$(realpath -m -- "$a" 2>/dev/null)" = "@TARGET@" ] && hit=1 ;;
  esac
  prev=$a
done
[ $c = 1 ] && [ $hit = 1 ] || exit 0
[ -n "$out" ] || out=$(basename "@TARGET@" .c).o
cp "$SC_RECORD_OBJ" "$out" && echo "$out" >> "$SC_SWAP_LOG"
"""


@dataclass
class SuiteRun:
    command: str
    returncode: int
    seconds: float
    swapped: int  # objects of the file the build replaced with the recording one
    record_files: list[Path]
    tail: str  # the end of its output, where it failed

    def problem(self, file: str) -> str:
        """Why it recorded nothing, or '' where it ran."""
        if not self.swapped:
            return (
                f"the test suite's build never compiled {file} with the compiler it was given in CC "
                f"(exit {self.returncode}): {self.tail[-300:]}"
            )
        return ""


class TestSuite:
    """The project's test suite, run with a recording object for one function at a time."""

    def __init__(self, root: Path, file: Path, command: str, compiler: str, work: Path, timeout: float = TIMEOUT):
        self.root, self.file, self.command, self.work, self.timeout = root, file.resolve(), command, work, timeout
        self.copy = work / "project"
        self.target = self.copy / self.file.relative_to(root.resolve())
        self.wrapper = work / "sc-cc"
        self.compiler = compiler
        self._copied = False

    def _prepare(self) -> None:
        if self._copied:
            self.target.touch()  # compiled again, and relinked, by the next build
            return
        self.work.mkdir(parents=True, exist_ok=True)
        copy_project(self.root, self.copy)
        real = shlex.quote(self.compiler)
        self.wrapper.write_text(_WRAPPER.replace("@REAL@", real).replace("@TARGET@", str(self.target.resolve())))
        self.wrapper.chmod(0o755)
        self._copied = True

    def run(self, recording_obj: Path, tag: str) -> SuiteRun:
        """The suite with `recording_obj` in place of the file's object; its record files."""
        self._prepare()
        out = self.work / f"records-{tag}"
        out.mkdir(parents=True, exist_ok=True)
        swap_log = out / "swapped"
        env = {
            **os.environ,
            "CC": str(self.wrapper),
            "SC_RECORD_OBJ": str(recording_obj),
            "SC_SWAP_LOG": str(swap_log),
            "SC_ARGS_DIR": str(out),
        }
        cmd = self.command
        if cmd.startswith("make ") or cmd == "make":
            cmd += f" CC={shlex.quote(str(self.wrapper))}"
        t0 = time.perf_counter()
        try:
            p = run_in_group(cmd, self.copy, env, self.timeout)
            code, text = p.returncode, (p.stdout + p.stderr).decode(errors="replace")
        except subprocess.TimeoutExpired as e:
            code, text = 124, f"timed out after {self.timeout:.0f} s: {(e.stdout or b'').decode(errors='replace')}"
        swapped = len(swap_log.read_text().splitlines()) if swap_log.is_file() else 0
        files = sorted(out.glob("args.*"))
        return SuiteRun(cmd, code, time.perf_counter() - t0, swapped, files, text.strip()[-1200:])
