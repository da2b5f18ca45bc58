"""A fresh copy of a project's sources, for a build of its own (`supercoder apply`'s builds, the test
suite run with a recording object): git's tracked and untracked-but-not-ignored files, less build folders
git does not ignore (one with a CMakeCache.txt) and build outputs; without git, the tree less those."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

OUTPUTS = ("*.o", "*.a", "*.so", "*.so.*", "*.gcda", "*.gcno", "CMakeCache.txt", "CMakeFiles", "__pycache__")


def _git_files(project: Path, *how: str) -> list[Path]:
    out = subprocess.run(["git", "-C", str(project), "ls-files", "-z", *how], capture_output=True, check=True).stdout
    return [Path(p) for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def _is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def _sources(project: Path) -> list[Path]:
    """The project's files as its version control sees them (relative paths): the tracked ones, and the
    untracked ones it does not ignore that are not programs or libraries a build left."""
    try:
        tracked = _git_files(project)
        untracked = _git_files(project, "-o", "--exclude-standard")
    except (subprocess.CalledProcessError, FileNotFoundError):
        return []
    return tracked + [p for p in untracked if not _is_elf(project / p)]


def copy_project(project: Path, dest: Path, edits: dict[str, str] | None = None) -> None:
    """`project`'s sources into `dest`, with `edits` (relative path -> text) written over them."""
    files = _sources(project)
    builds = {p.parent for p in files if p.name == "CMakeCache.txt"}  # build folders git does not ignore
    files = [p for p in files if not builds.intersection(p.parents) and not any(p.match(g) for g in OUTPUTS)]
    if files:
        for rel in files:
            src = project / rel
            if src.is_file() or src.is_symlink():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / rel, follow_symlinks=False)
    else:
        shutil.copytree(project, dest, symlinks=True, ignore=shutil.ignore_patterns(".git", *OUTPUTS))
    for name, text in (edits or {}).items():
        (dest / name).write_bytes(text.encode("utf-8", "surrogateescape"))


def run_in_group(cmd: str, cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """`cmd` through the shell in a process group of its own; on timeout (TimeoutExpired) the whole group
    is killed, so a test runner's children (valgrind, test programs) do not outlive it."""
    with subprocess.Popen(
        cmd, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    ) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except BaseException:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.communicate()
            raise
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
