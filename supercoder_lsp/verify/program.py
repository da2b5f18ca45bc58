"""Program tests: NAME.in / NAME.out pairs, stdout compared byte for byte (as SuperCoder does, without
decoding), and the exit status compared with the -O3 program's on the same input."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from .sandbox import run_limited
from .thunk import ABI_MARK


@dataclass
class ProgramCheck:
    ok: bool
    reason: str | None  # "wrong-output", "crash", "timeout", "unsafe"
    detail: str
    passed: int


def find_tests(directory: str | Path) -> list[tuple[str, Path, Path]]:
    d = Path(directory)
    if not d.is_dir():
        raise FileNotFoundError(f"tests directory '{d}' does not exist; it must hold NAME.in / NAME.out pairs")
    tests = [(i.stem, i, i.with_suffix(".out")) for i in sorted(d.glob("*.in")) if i.with_suffix(".out").is_file()]
    if not tests:
        raise FileNotFoundError(f"tests directory '{d}' has no NAME.in / NAME.out pairs")
    return tests


def first_difference(expected: bytes, actual: bytes) -> str:
    e, a = expected.split(b"\n"), actual.split(b"\n")
    for i in range(max(len(e), len(a))):
        x = e[i] if i < len(e) else b"<end of output>"
        y = a[i] if i < len(a) else b"<end of output>"
        if x != y:
            return f"line {i + 1}: expected {_show(x)}, got {_show(y)}"
    return "outputs differ"


def _show(b: bytes) -> str:
    s = b[:120].decode("utf-8", errors="backslashreplace")
    return repr(s)


def run_tests(
    exe: Path,
    tests: list[tuple[str, Path, Path]],
    timeout: float = 10.0,
    expected_status: dict[str, int] | None = None,
    env: dict | None = None,
    as_program: str | None = None,
) -> ProgramCheck:
    """Run every test; `env` adds to the program's environment (the checking allocator); `as_program`: as a
    user runs their program of that name (sandbox.run_limited)."""
    passed = 0
    for name, inp, out in tests:
        r = run_limited([str(exe)], timeout=timeout, stdin_path=str(inp), binary=True, env=env, as_program=as_program)
        if ABI_MARK in r.stderr:
            what = r.stderr.split(ABI_MARK, 1)[1].splitlines()[0]
            return ProgramCheck(False, "abi-violation", f"test {name}: {what}", passed)
        if r.killed_by_seccomp:
            return ProgramCheck(
                False, "unsafe", f"test {name}: made a forbidden system call; the seccomp filter stopped it", passed
            )
        if r.timed_out:
            return ProgramCheck(False, "timeout", f"test {name}: no result within {timeout:.0f}s", passed)
        if r.returncode < 0:
            return ProgramCheck(False, "crash", f"test {name}: killed by signal {-r.returncode}", passed)
        expected = out.read_bytes()
        if r.stdout != expected:
            return ProgramCheck(False, "wrong-output", f"test {name}: {first_difference(expected, r.stdout)}", passed)
        want = (expected_status or {}).get(name)
        if want is not None and r.returncode != want:
            return ProgramCheck(
                False, "wrong-output", f"test {name}: exit status {r.returncode}, the -O3 program's is {want}", passed
            )
        passed += 1
    return ProgramCheck(True, None, f"{passed} program tests pass", passed)


def command_for(exe: Path, bench_input: Path | None, workload: str | None) -> str:
    """The shell command that runs the program `exe` on the workload (or on the bench input as its stdin)."""
    if workload:
        if "{exe}" not in workload:
            raise ValueError("--workload must contain {exe} where the program goes, e.g. --workload '{exe} < big.txt'")
        return workload.replace("{exe}", shlex.quote(str(exe)))
    if bench_input:
        return f"{shlex.quote(str(exe))} < {shlex.quote(str(bench_input))}"
    raise ValueError("program timing needs --bench-input FILE or --workload CMD")
