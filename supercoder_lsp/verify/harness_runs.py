"""Runs of a built harness over its inputs: the limits each input runs under, the split over the cores, the
reruns of a part that did not end cleanly, and the paired runs that tell whether a build stays inside its
buffers."""

from __future__ import annotations

import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..harness.contract import (
    CRASHED,
    NOT_RUN,
    TIMED_OUT,
)
from .harness_build import HarnessBase
from .layout import layout_env
from .records import (
    BASELINE_SECONDS,
    FLOOR_MS,
    INPUT_MS,
    LATER_FACTOR,
    LONG_FLOOR_MS,
    MODE_FLIP_SIDES,
    MODE_ORIGINAL,
    MODE_STOP_SLOW,
    SHORT_INPUT_MS,
    Records,
)
from .sandbox import run_limited

MAX_PARTS = 4  # a run over the inputs is split over up to this many cores (FunctionHarness._run_parts) ...
MIN_SPLIT = 1000  # ... where it has at least this many
MAX_LATE = 4  # of the inputs out of time in a part run where the original finished them, this many tried alone


def cores() -> int:
    """The parts a run over the inputs is split into: one per core this process may use, up to MAX_PARTS."""
    return min(len(os.sched_getaffinity(0)), MAX_PARTS)


class HarnessRuns(HarnessBase):
    """A built harness's runs over its inputs."""

    @property
    def later_ms(self) -> int:
        """The limit per input of the runs after the original's first, on inputs it finished."""
        return min(INPUT_MS, LATER_FACTOR * self.input_ms)

    def run_original(self, exe: Path, n: int, mode: int, start: int = 0) -> None:
        """Run another build of the original (the coverage build) on inputs `start` to `n`; raises
        RuntimeError when it fails. An input on which that build breaks the harness itself (at -Og a
        generated state can send it writing outside its frame where -O3 did not) is skipped, up to 32; so
        is every input the -O3 original crashed on (never compared: zlib's inflateSync writes past a local
        array of 4 bytes on a generated state's bit count, and at -Og over the harness's own frame)."""
        skip = bytearray(self.skip_file.read_bytes() if self.skip_file is not None else b"")
        env: dict[str, str] = {}
        if self.base is not None:
            failed = [i for i in range(min(n, len(self.base.status))) if self.base.failed(i)]
            if failed:
                skip.extend(b"\0" * (n - len(skip)))
                for i in failed:
                    skip[i] = 1
                path = self.dir / "skip.other.bin"
                path.write_bytes(bytes(skip))
                env = {"SC_SKIP": str(path)}
        for _ in range(33):
            limit = max(30.0, 10 * self.base_seconds)
            r = self._run(exe, n, mode, limit, env, True, start) if start else self._run_parts(exe, n, mode, limit, env)
            if not r.run.timed_out and r.run.returncode == 0:
                return
            m = re.search(r"at input (\d+)", r.run.stderr)
            if r.run.timed_out or m is None or len(env) and int(m[1]) < len(skip) and skip[int(m[1])]:
                break
            i = int(m[1])
            skip.extend(b"\0" * (i + 1 - len(skip)))
            skip[i] = 1
            path = self.dir / "skip.other.bin"
            path.write_bytes(bytes(skip))
            env = {"SC_SKIP": str(path)}
        raise RuntimeError(
            "its run on the inputs " + ("timed out" if r.run.timed_out else f"ended with {r.run.returncode}")
        )

    def _run(
        self,
        exe: Path,
        n: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None = None,
        original: bool = True,
        start: int = 0,
    ) -> Records:
        # malloc without its per-thread cache: a freed block is free again at once, so the memory a call
        # leaves allocated shows (sc_heap_held)
        env = {**(env or {}), "GLIBC_TUNABLES": "glibc.malloc.tcache_count=0", **layout_env(self.name)}
        if start:
            env["SC_FROM"] = str(start)
        # the original's first runs with its limit; every later run gives the inputs it finished within it
        # LATER_FACTOR times as much (a run beside another must not call an input out of time that is not),
        # and those it crashed on its limit (skip.bin: sc_on_alarm)
        if self.input_ms != INPUT_MS:
            env = {**env, "SC_INPUT_MS": str(self.input_ms)}
        if mode & MODE_STOP_SLOW:  # 50 times its slowest finished input, at least the floor
            env["SC_INPUT_FLOOR_MS"] = str(FLOOR_MS if self.input_ms == SHORT_INPUT_MS else LONG_FLOOR_MS)
        if not mode & MODE_STOP_SLOW and self.later_ms != self.input_ms and "SC_LATER_TICKS" not in env:
            env["SC_LATER_TICKS"] = str(self.later_ms // self.input_ms)
        if self.skip_file is not None and "SC_SKIP" not in env:
            env = {**env, "SC_SKIP": str(self.skip_file)}
        if self.only_recorded:
            env = {**env, "SC_ONLY_RECORDED": "1"}
        fd, path = tempfile.mkstemp(prefix="sc-records-", dir=self.dir)
        try:
            argv = [str(exe), "run", str(n), str(fd), str(mode | (MODE_ORIGINAL if original else 0))]
            r = run_limited(argv, timeout=timeout, binary=True, pass_fds=(fd,), env=env)
            os.lseek(fd, 0, os.SEEK_SET)
            data = Path(path).read_bytes()
        finally:
            os.close(fd)
            os.unlink(path)
        return Records.parse(data, r)

    def _run_parts(
        self,
        exe: Path,
        n: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None = None,
        original: bool = True,
        rerun: bool = True,
        late_ok: int = 0,
    ) -> Records:
        """`_run` over inputs 0..n-1 as one run per part of the harness's partition (_cuts), the parts at
        once, one per core, their records joined. Every run whose records are compared is split the same
        way: a call's result can depend on the calls before it in its process (a random word that falls
        on the heap, which earlier calls grew: 12 of send_tree's 102,151 inputs), and so the original and
        a candidate see the same history. A part that does not end cleanly (an exit code, a finding, the
        process out of time, an input out of time where the original was not and that is not so alone:
        _late_hold) is run again alone, with no other part beside it (`rerun`; the original's first runs,
        which stop early by design, are not); the records then end with the first part that stopped, as
        one run's that stopped there. Inputs before `late_ok` that run out of time are taken as they are,
        with no rerun (the self-check's generated inputs beside recorded calls: at worst one is left out)."""
        at = self._cuts(n)
        if len(at) == 2:
            return self._run(exe, n, mode, timeout, env, original)
        with ThreadPoolExecutor(len(at) - 1) as pool:
            got = list(
                pool.map(lambda k: self._run(exe, at[k + 1], mode, timeout, env, original, at[k]), range(len(at) - 1))
            )
        for k, r in enumerate(got):
            if rerun and not (
                self._ended(r, at[k], at[k + 1])
                and self._late_hold(exe, r, at[k], mode, timeout, env, original, late_ok)
            ):
                got[k] = self._run(exe, at[k + 1], mode, timeout, env, original, at[k])
            if not self._ended(got[k], at[k], at[k + 1]):
                return Records.joined(got[: k + 1])
        return Records.joined(got)

    def _cuts(self, n: int) -> list[int]:
        """Where runs over the first `n` inputs start and end: one part per core (up to MAX_PARTS) of all
        SC_NINPUTS inputs, fixed once per harness, whatever `n` is."""
        if self.parts == 0:
            self.parts = cores() if self.total >= MIN_SPLIT else 1
        inner = [self.total * k // self.parts for k in range(1, self.parts)]
        return [0, *(c for c in inner if 0 < c < n), n]

    @staticmethod
    def _ended(r: Records, lo: int, hi: int) -> bool:
        return r.run.returncode == 0 and not r.run.timed_out and r.trailer is None and len(r.status) == hi - lo

    def _late_hold(
        self,
        exe: Path,
        r: Records,
        lo: int,
        mode: int,
        timeout: float,
        env: dict[str, str] | None,
        original: bool,
        late_ok: int = 0,
    ) -> bool:
        """Whether the inputs of part run `r` (from input `lo`) that ran out of time where the original finished
        them (on a busy machine, a part beside another may) run out of time again, each alone: the first
        MAX_LATE of them, tried one by one; else the whole part runs again alone. A call that loops loops
        again (the self-check's, where the result depends on where the buffers lie: inflate's input 91,639
        cost a rerun of 4.4 s, inflate_fast's 36 s)."""
        base = self.base
        late = [
            lo + i
            for i, s in enumerate(r.status)
            if s & TIMED_OUT and lo + i >= late_ok and not (base and lo + i < len(base.status) and base.failed(lo + i))
        ]
        for i in late[:MAX_LATE]:
            alone = self._run(exe, i + 1, mode, timeout, env, original, i)
            if not (len(alone.status) == 1 and alone.status[0] & TIMED_OUT):
                return False
        return True

    def stays_inside(self, exe: Path, env: dict[str, str], skip: Path | None = None) -> tuple[bool, int, int]:
        """Run the original on every input twice, each buffer against one guard page and then the
        other: whether every result (crash or value) is the same both times, so it touches nothing
        outside its buffers; how many inputs ran, and on how many it crashed or ran out of time in either
        run. An input that ran out of time in either run, or that one of them did not reach within its
        SC_BUDGET_MS, says nothing about where its buffers lie (a busy machine) and is not compared. The
        two runs go side by side (a probe's search takes some 16 pairs: inflate_table's 5 s, halved).
        With `skip`, the inputs it failed on in either run are written there as SC_SKIP reads them (not
        run): a probe's later runs pass over them (inflate_table crashes on 24,152 of its 25,600 inputs
        with the most elements, a signal each, 0.2 s a pair)."""
        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(lambda mode: self._run(exe, 10**9, mode, BASELINE_SECONDS, env), (0, MODE_FLIP_SIDES))
        self.probe_run = a  # the probe says why, where it failed on every input
        n, m = len(a.status), min(len(a.status), len(b.status))
        failing, late = CRASHED | TIMED_OUT | NOT_RUN, TIMED_OUT | NOT_RUN
        if skip is not None:
            skip.write_bytes(bytes(1 if (a.status[i] | b.status[i]) & failing else 0 for i in range(m)))
        # the same records byte for byte (where it stays inside, nearly always): no comparison one by one.
        # Where no input finished in both runs nothing was compared, and nothing is known: not inside (a
        # busy machine once had slow_key.c's 6 ms calls all out of time at one element, and probed 1, not 16)
        compared = [i for i in range(m) if not (a.status[i] | b.status[i]) & late]
        same = bool(compared) and (
            a.raw == b.raw
            or (
                n == len(b.status)
                and all(a.failed(i) == b.failed(i) and (a.failed(i) or a.values[i] == b.values[i]) for i in compared)
            )
        )
        # failed: where it crashed, or ran out of time in either run. An input that finished on one side
        # only was not compared either: where one run finished its inputs and the run beside it none (a busy
        # machine, whose ticks came late), nothing was compared, and the probe runs again with the whole
        # limit instead of taking it for a read outside (CI once probed slow_key.c's key so)
        return same, n, sum(1 for i in range(n) if a.status[i] & failing or (i < m and b.status[i] & late))

    def timing_skip_file(self) -> Path | None:
        """The inputs a timing run passes over: those the original failed on (crashed, ran out of time, or
        never reached), as SC_SKIP reads them; None when it failed on none. A crash is the input's result in
        the verifier, but the timing driver has no way to go on past one."""
        if self.base is None or not any(self.base.failed(i) for i in range(len(self.base.status))):
            return self.skip_file
        path = self.dir / "skip.timing.bin"
        path.write_bytes(bytes(1 if self.base.failed(i) else 0 for i in range(len(self.base.status))))
        return path
