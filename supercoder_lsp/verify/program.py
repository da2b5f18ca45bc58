"""Program tests: NAME.in / NAME.out pairs, exact stdout match (as SuperCoder does)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .sandbox import run_limited


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


def _first_difference(expected: str, actual: str) -> str:
    e, a = expected.splitlines(), actual.splitlines()
    for i in range(max(len(e), len(a))):
        x = e[i] if i < len(e) else "<end of output>"
        y = a[i] if i < len(a) else "<end of output>"
        if x != y:
            return f"line {i + 1}: expected {x[:120]!r}, got {y[:120]!r}"
    return "outputs differ in whitespace at the end"


def run_tests(exe: Path, tests: list[tuple[str, Path, Path]], timeout: float = 10.0) -> ProgramCheck:
    passed = 0
    for name, inp, out in tests:
        r = run_limited([str(exe)], timeout=timeout, stdin_path=str(inp))
        if r.killed_by_seccomp:
            return ProgramCheck(False, "unsafe", f"test {name}: made a forbidden system call; the seccomp filter stopped it", passed)
        if r.timed_out:
            return ProgramCheck(False, "timeout", f"test {name}: no result within {timeout:.0f}s", passed)
        if r.returncode < 0:
            return ProgramCheck(False, "crash", f"test {name}: killed by signal {-r.returncode}", passed)
        expected = out.read_text(errors="replace")
        if r.stdout != expected:
            return ProgramCheck(False, "wrong-output", f"test {name}: {_first_difference(expected, r.stdout)}", passed)
        passed += 1
    return ProgramCheck(True, None, f"{passed} program tests pass", passed)
