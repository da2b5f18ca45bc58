"""External tools: find them, or fail with the command that installs them."""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import subprocess

INSTALL = {
    "gcc": "apt-get install gcc",
    "cc": "apt-get install gcc",
    "as": "apt-get install binutils",
    "objcopy": "apt-get install binutils",
    "clang": "apt-get install clang",
    "hyperfine": "apt-get install hyperfine",
    "valgrind": "apt-get install valgrind",
    "callgrind_annotate": "apt-get install valgrind",
}


class ToolMissing(RuntimeError):
    """A required external program is not installed."""

    def __init__(self, tool: str, why: str = ""):
        self.tool = tool
        cmd = INSTALL.get(tool.rsplit("/", 1)[-1].split("-")[0], f"apt-get install {tool}")
        super().__init__(
            f"'{tool}' was not found on PATH{(' (' + why + ')') if why else ''}. "
            f"Install it with: sudo {cmd}  (or run `make setup` as root)"
        )


def which(tool: str) -> str | None:
    return shutil.which(tool)


def require(tool: str, why: str = "") -> str:
    path = shutil.which(tool)
    if not path:
        raise ToolMissing(tool, why)
    return path


@functools.cache
def version(tool: str) -> str:
    """First line of `tool --version`, or '' when it does not run."""
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else ""


_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)  # looked up before any fork: a child only calls it


def die_with_parent(parent: int) -> None:
    """In a child before it runs its program (preexec_fn): killed when its parent is. A worker the editor
    cancels is killed with its process group, and a harness, in a session of its own for containment, went
    on burning a core for up to its CPU limit beside the next job. `parent` is the parent's pid, taken
    before the fork: where the parent is already gone, the child exits at once."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)
