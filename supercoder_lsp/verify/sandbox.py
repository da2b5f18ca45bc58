"""Run a process that executes candidate code, with limits.

Every run gets its own process group (killed whole on timeout), no core
dumps, and rlimits on CPU time, address space, file size and open files.
Stronger containment (seccomp, a scratch directory) hooks in here.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from dataclasses import dataclass

ADDRESS_SPACE = 4 << 30
FILE_SIZE = 1 << 30


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool
    seconds: float


def _limits(cpu_seconds: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    return apply


def run_limited(argv: list[str], *, timeout: float, cwd: str | None = None, stdin_path: str | None = None,
                env: dict | None = None) -> RunResult:
    import time

    t0 = time.perf_counter()
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True, preexec_fn=_limits(int(timeout) + 2), close_fds=True,
                             env=env)
        try:
            out, err = p.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            timed_out = True
    finally:
        if stdin_path:
            stdin.close()
    try:  # nothing the candidate forked may outlive it
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rc = p.returncode
    if rc == -signal.SIGXCPU:
        timed_out = True
    return RunResult(rc, out.decode(errors="replace"), err.decode(errors="replace"), timed_out, time.perf_counter() - t0)
