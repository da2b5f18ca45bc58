"""The containment a whole program runs under when it is timed or checked on a workload.

Every program that runs candidate code, and the -O3 program it is compared with, links the same
constructor (harness/sc_program_sandbox.c): stdin/stdout/stderr and memory, nothing that opens files,
sockets or processes. A workload that names its input files (`{exe} -c FILE`) gets those files, and only
those, read-only: `SC_SANDBOX_READ` lists them and the constructor lets Landlock enforce it, for the
baseline and the candidate alike. Where the -O3 program itself is stopped, `explain` says by which system
call, so the refusal can name it and what to do.
"""

from __future__ import annotations

import functools
import re
import shlex
import signal
from pathlib import Path

UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")
OPENS = {"open", "openat", "openat2", "creat"}
_FORBIDDEN = re.compile(r"sandbox: forbidden system call (\d+)")


def workload_files(workload: str | None, cwd: Path) -> list[str]:
    """The existing regular files a workload command names (as words, or after `--opt=`), absolute."""
    if not workload:
        return []
    try:
        words = shlex.split(workload.replace("{exe}", " "))
    except ValueError:  # unbalanced quotes: the shell would refuse it too
        return []
    found: list[str] = []
    for w in words:
        for part in (w, w.split("=", 1)[-1]):
            if not part or part.startswith("-") and part == w:
                continue
            f = (cwd / part).resolve()
            if f.is_file() and str(f) not in found and "\n" not in str(f):
                found.append(str(f))
    return found


def program_env(workload: str | None, cwd: Path, *, explain: bool = False) -> dict[str, str]:
    """What a contained program's environment adds: the files it may read; `explain` only for the -O3 program."""
    env = {}
    files = workload_files(workload, cwd)
    if files:
        env["SC_SANDBOX_READ"] = "\n".join(files)
    if explain:
        env["SC_SANDBOX_EXPLAIN"] = "1"
    return env


@functools.cache
def _syscall_names() -> dict[int, str]:
    try:
        text = UNISTD.read_text()
    except OSError:
        return {}
    return {int(n): name for name, n in re.findall(r"#define __NR_(\w+)\s+(\d+)", text)}


def forbidden_call(stderr: str) -> str | None:
    """The system call an explained sandbox stop names on stderr: 'openat (257)'; None if none was named."""
    m = _FORBIDDEN.search(stderr or "")
    if not m:
        return None
    n = int(m.group(1))
    name = _syscall_names().get(n)
    return f"{name} ({n})" if name else f"number {n}"


def refusal(stderr: str, files: list[str]) -> str:
    """Why a workload cannot be timed contained, and what to do: the -O3 program was stopped by the sandbox."""
    call = forbidden_call(stderr)
    what = f"system call {call}" if call else "a system call"
    name = call.split(" ")[0] if call else ""
    if name in OPENS:
        if files:
            todo = (
                "the sandbox lets a program open only the files the workload names, read-only (Landlock): "
                "name every file it reads in --workload, or feed the input on stdin ('{exe} ARGS < FILE') or "
                "with --bench-input"
            )
        else:
            todo = (
                "a program may open only the files its workload names, read-only; feed the input on stdin "
                "('{exe} ARGS < FILE') or with --bench-input, and write the output to stdout"
            )
    else:
        todo = "give a workload that reads stdin and writes stdout (--bench-input FILE, or '{exe} ARGS < FILE')"
    return (
        f"the -O3 program itself, contained as every candidate is, is stopped on the workload by {what}, "
        f"which the program sandbox forbids: no run of it can be timed; {todo}"
    )


def describe_status(status: int) -> str:
    """A shell's exit status in words: 159 is 'killed by signal 31 (SIGSYS: stopped by the program sandbox)'
    (a negative one, as Python reports a signal, likewise)."""
    if status < 0 or 128 < status < 128 + 65:
        sig = -status if status < 0 else status - 128
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        why = ": stopped by the program sandbox" if sig == signal.SIGSYS else ""
        return f"{status} (killed by signal {sig}, {name}{why})"
    return str(status)
