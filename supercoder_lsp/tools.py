"""External tools: find them, or fail with the command that installs them."""

from __future__ import annotations

import functools
import shutil
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
