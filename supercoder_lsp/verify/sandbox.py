"""Run a process that executes candidate code, contained.

Every such process gets: a fresh scratch working directory (removed after),
no file descriptors beyond stdin/stdout/stderr, a minimal environment, its
own process group (killed whole on timeout and after it ends; killed when the
process that started it dies, as when the editor cancels a job), no core dumps,
and rlimits on CPU time, data size, file size, processes and open files.
Inside, the harness or the linked-in constructor installs no_new_privs and a
seccomp filter before the first candidate instruction (harness/sc_sandbox.h).
`sandbox_available()` checks once that this machine can do that.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..harness.contract import EXIT_NO_SANDBOX
from ..tools import die_with_parent

DATA_SIZE = 4 << 30  # private writable memory; not address space: the harness reserves a PROT_NONE sea
FILE_SIZE = 64 << 20


class SandboxUnavailable(RuntimeError):
    pass


@dataclass
class RunResult:
    returncode: int
    stdout: Any  # bytes when run with binary=True, else str
    stderr: str
    timed_out: bool
    seconds: float

    @property
    def killed_by_seccomp(self) -> bool:
        return self.returncode == -signal.SIGSYS


def allow_unsandboxed() -> bool:
    return os.environ.get("SUPERCODER_ALLOW_UNSANDBOXED") == "1"


def _limits(cpu_seconds: int):
    parent = os.getpid()

    def apply():
        die_with_parent(parent)  # a worker the editor cancels takes its harnesses with it
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_DATA, (DATA_SIZE, DATA_SIZE))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE, FILE_SIZE))
        resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # not enforced for root: seccomp blocks fork there

    return apply


def _env(inherit: bool = False) -> dict:
    """The minimal environment; `inherit`: the user's, as their own run of the program has it, less what
    would run code before the sandbox (LD_PRELOAD, LD_AUDIT) and what names this tool."""
    if inherit:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("LD_PRELOAD", "LD_AUDIT") and not k.startswith(("SC_", "SUPERCODER_"))
        }
    else:
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    if allow_unsandboxed():
        env["SC_ALLOW_UNSANDBOXED"] = "1"
    return env


def run_limited(
    argv: list[str],
    *,
    timeout: float,
    stdin_path: str | None = None,
    binary: bool = False,
    pass_fds: tuple[int, ...] = (),
    cwd: str | None = None,
    env: dict | None = None,
    as_program: str | None = None,
) -> RunResult:
    """Run argv contained; stdout as bytes when `binary`; `pass_fds` stay open in the child
    (the harness's record descriptor); `cwd` instead of a fresh scratch directory (a user's workload
    command, whose paths are relative to where the user runs the tool); `env` adds to the minimal environment.
    `as_program` (a name): run as a user runs their program, nothing of this tool in sight: a copy named so in
    a fresh build folder, started there as `./NAME`, with the user's environment."""
    t0 = time.perf_counter()
    scratch = tempfile.mkdtemp(prefix="build-" if as_program else "sc-scratch-")
    stdin: Any = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    exe = str(Path(argv[0]).resolve())
    if as_program:
        shutil.copy2(exe, Path(scratch) / as_program)
        exe = f"./{as_program}"
    try:
        p = subprocess.Popen(
            [exe, *argv[1:]],
            cwd=cwd or scratch,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_limits(int(timeout) + 2),
            close_fds=True,
            pass_fds=pass_fds,
            env={**_env(inherit=as_program is not None), **(env or {})},
        )
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
        shutil.rmtree(scratch, ignore_errors=True)
    try:  # nothing the candidate started may outlive it
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rc = p.returncode
    if rc == -signal.SIGXCPU:
        timed_out = True
    err_s = err.decode(errors="replace")
    if rc == EXIT_NO_SANDBOX and "sandbox unavailable" in err_s:
        raise SandboxUnavailable(unavailable_message())
    return RunResult(rc, out if binary else out.decode(errors="replace"), err_s, timed_out, time.perf_counter() - t0)


def unavailable_message() -> str:
    return (
        "this machine cannot install a seccomp filter, so untrusted candidates cannot be contained; "
        "refusing to run them. Run on a Linux kernel with seccomp, or opt in to running them "
        "uncontained with --allow-unsandboxed (or SUPERCODER_ALLOW_UNSANDBOXED=1)."
    )


@functools.cache
def sandbox_available() -> bool:
    """Whether a seccomp filter can be installed here; the probe's answer is remembered per kernel."""
    import platform

    import platformdirs

    stamp = Path(platformdirs.user_cache_dir("supercoder")) / f"sandbox-probe-{platform.release()}"
    try:
        if stamp.read_text() == "ok":
            return True
    except OSError:
        pass
    ok = _probe()
    if ok:
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text("ok")
        except OSError:
            pass
    return ok


def _probe() -> bool:
    """Compile and run a probe that installs the filter and then tries a forbidden call."""
    from .. import build
    from ..harness import include_dir

    d = Path(tempfile.mkdtemp(prefix="sc-probe-"))
    try:
        src = d / "probe.c"
        src.write_text(
            '#include "sc_sandbox.h"\n#include <stdio.h>\n'
            'int main(void){ if (sc_sandbox_install(SC_PROGRAM, -1)) return 3; write(1, "ok", 2);'
            " syscall(SYS_getppid); return 4; }\n"
        )
        build.run_tool(
            ["gcc", "-O1", "-I", str(include_dir()), str(src), "-o", str(d / "probe")], "build sandbox probe"
        )
        p = subprocess.run([str(d / "probe")], capture_output=True, timeout=10)
        return p.stdout == b"ok" and p.returncode == -signal.SIGSYS
    finally:
        shutil.rmtree(d, ignore_errors=True)


def require_sandbox() -> None:
    if not sandbox_available() and not allow_unsandboxed():
        raise SandboxUnavailable(unavailable_message())
