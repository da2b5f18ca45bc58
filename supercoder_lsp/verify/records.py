"""What one harness run gives back (a record per input: status, result bits, a hash of what it wrote), a
candidate's verdict, and why an original cannot be checked by the function harness."""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from ..harness.contract import (
    CRASHED,
    EXIT_SYSCALL,
    NOT_RUN,
    SHORT_MS,
    TIMED_OUT,
    TRAILER_ABI,
    TRAILER_SYSCALL,
    exit_words,
)
from .sandbox import RunResult

# the modes and limits of a run (harness/sc_verify.h reads them from its arguments and environment)
BASELINE_SECONDS = 120
MODE_RANDOM_GLOBALS = 1
MODE_PROGRAM_STATE = 2
MODE_FLIP_SIDES = 4
INPUT_MS = 1000  # an input runs out of time after one to two of these, where most inputs need over SHORT_INPUT_MS
SHORT_INPUT_MS = SHORT_MS  # ... or else of these (FunctionHarness._first_run)
FLOOR_MS = (
    4  # with the short limit, the original's first run allows 50 times its slowest input, at least this (sc_verify.h)
)
LONG_FLOOR_MS = (
    200  # ... and with the long limit, this: an input that loops costs 0.2 s, not 1-2 (lz4's LZ4F_decompress)
)
LATER_FACTOR = 5  # runs after the original's first (self-check, coverage, candidates) allow this many times its limit
MODE_STOP_SLOW = 16  # the baseline's first run: stop when most inputs run out of time (EXIT_SLOW)
MODE_ORIGINAL = 32  # a run of the original: where it breaks the calling convention, that input is ABI_BROKEN
RECORD = 24  # status, result bits, hash of outputs (see harness/sc_verify.h)


READS_PAST = "depends on where its buffers lie"  # the self-check's verdict (pipeline: probe struct sizes)


def reads_past(i: int) -> str:
    """The self-check's refusal, on generated input i."""
    return (
        f"the -O3 original's result on generated input {i} {READS_PAST}: it reads or writes memory outside the "
        "inputs the harness gives it (a struct that is really an array, a pointer field the harness sets to "
        "NULL); give program tests with --tests DIR"
    )


@dataclass
class Check:
    ok: bool
    reason: str | None  # "link-error", "wrong-output", "crash", "timeout", "abi-violation", "unsafe"
    detail: str
    inputs: int
    program_agrees: bool = False  # wrong, but only on inputs the program never produced


@dataclass
class Records:
    """One harness run: a record per input, what the function printed, how the process ended."""

    status: list[int]
    values: list[tuple[int, int]]
    stdout: bytes
    run: RunResult
    raw: bytes = b""
    trailer: tuple[int, int, int] | None = None  # (kind, input, finding or system call) of a run that ended on one

    @classmethod
    def parse(cls, data: bytes, run) -> Records:
        n = len(data) // RECORD
        words = struct.unpack(f"<{3 * n}Q", data[: n * RECORD])
        trailer = None
        if n and words[-3] & (TRAILER_ABI | TRAILER_SYSCALL):
            trailer, words, n = tuple(words[-3:]), words[:-3], n - 1
        return cls(list(words[0::3]), list(zip(words[1::3], words[2::3])), run.stdout, run, data[: n * RECORD], trailer)

    def failed(self, i: int) -> bool:
        return bool(self.status[i] & (CRASHED | TIMED_OUT | NOT_RUN))

    @classmethod
    def joined(cls, parts: list[Records]) -> Records:
        """The records of runs over consecutive ranges of inputs, all but the last ended cleanly, as one
        run's that ended as the last did."""
        out, last = b"".join(p.stdout for p in parts), parts[-1]
        run = RunResult(
            last.run.returncode,
            out,
            "".join(p.run.stderr for p in parts),
            last.run.timed_out,
            max(p.run.seconds for p in parts),
        )
        return cls(
            [s for p in parts for s in p.status],
            [v for p in parts for v in p.values],
            out,
            run,
            b"".join(p.raw for p in parts),
            last.trailer,
        )


class OutsideDomain(RuntimeError):
    """The generated inputs are not the function's: the -O3 original fails or runs out of time on (nearly)
    all of them. Narrower inputs may do (harness.plan.narrowed)."""


SYSCALL_NAMES = {0: "read", 1: "write", 2: "open", 9: "mmap", 12: "brk", 39: "getpid", 257: "openat", 318: "getrandom"}
UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")  # the kernel's names (linux-libc-dev), where present


@functools.lru_cache(maxsize=1)
def syscall_names() -> dict[int, str]:
    names = dict(SYSCALL_NAMES)
    try:
        for m in re.finditer(r"^#define __NR_(\w+) (\d+)$", UNISTD.read_text(), re.M):
            names.setdefault(int(m.group(2)), m.group(1))
    except OSError:
        pass
    return names


def forbidden_call(r: Records) -> bool:
    return re.search(r"forbidden system call (\d+)", r.run.stderr) is not None


def forbidden_syscall(r: Records) -> str | None:
    """Where a run of the original ended on a system call the harness does not allow: which, and why that
    stops it; else None."""
    m = re.search(r"forbidden system call (\d+)", r.run.stderr)
    kind, _, what = r.trailer or (0, None, None)
    named = m or (kind == TRAILER_SYSCALL and what is not None)
    if not (named or r.run.returncode == EXIT_SYSCALL or r.run.killed_by_seccomp):
        return None
    n = (int(m.group(1)) if m else int(what or 0)) if named else -1
    name = syscall_names().get(n, f"number {n}") if named else "which, the run did not say"
    why = (
        "its results depend on random numbers the system gives, so no two runs can be compared"
        if name == "getrandom"
        else "it allocates memory or does I/O, whose effects the harness does not compare"
        if named
        else "the harness does not compare what the system does"
    )
    return f"the -O3 original makes a system call the function harness does not allow ({name}: {why})"


def baseline_failure(r: Records) -> str:
    """Why the -O3 original cannot run in the function harness, and what to do."""
    err = r.run.stderr.strip()
    syscall = forbidden_syscall(r)
    if syscall:
        return f"{syscall}; give program tests with --tests DIR"
    return (
        f"the -O3 baseline itself fails in the harness ({err or exit_words(r.run.returncode)}); "
        "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
    )


def first_byte_difference(expected: bytes, actual: bytes) -> str:
    i = next(
        (k for k in range(min(len(expected), len(actual))) if expected[k] != actual[k]), min(len(expected), len(actual))
    )
    return f"at byte {i}: expected {expected[i : i + 40]!r}, got {actual[i : i + 40]!r}"
