"""A candidate checked: linked into the harness, run on every input the original finished, its records
compared with the original's (status, result, memory, heap, the calling convention, what it printed),
and a pass of inputs drawn from the constants its own code holds."""

from __future__ import annotations

import copy
from pathlib import Path

from .. import build
from ..asm.elfcheck import check_linked
from ..asm.immediates import object_constants
from ..harness.contract import (
    ABI_FINDINGS,
    ALLOCATED,
    CRASHED,
    DIRTY_UPPER,
    EXIT_CRASH,
    EXIT_OK,
    EXIT_SYSCALL,
    FP_FLAGS_SHIFT,
    HEAP_LEFT,
    STORED_AROUND,
    TIMED_OUT,
    TRAILER_ABI,
    TRAILER_SYSCALL,
)
from .layout import layout_env
from .memory_diff import first_difference, fp_flags_words, parse_dump
from .records import Check, Records, first_byte_difference
from .sandbox import RunResult, run_limited
from .self_check import SelfChecked

SC_CDICT_MAX = 64  # harness/sc_cdict.h: the most constants a pass draws from
CONSTANT_INPUTS = 2048  # generated inputs of a candidate's own pass, drawn from its constants (_own_constants)


class Compared(SelfChecked):
    """Candidates checked against the adopted original."""

    # -- checking -------------------------------------------------------------
    def _show(self, exe: Path, i: int) -> tuple[str, str]:
        r = run_limited(
            [str(exe), "show", str(i + self.show_from), str(self.mode)],
            timeout=10,
            env={**layout_env(self.name), **self.show_env},
        )
        lines = r.stdout.strip().splitlines()
        inp = lines[0] if lines else "?"
        if r.returncode != 0:
            return inp, (r.stderr.strip() or f"exit code {r.returncode}")
        return inp, " / ".join(lines[1:]) or "?"

    def _fp_flags_differ(self, got: Records, base: Records) -> Check | None:
        """The first input on which every result agrees but the floating-point exception flags the call left do
        not (sc_plain.h's sc_fp_flags): a finding only where no result differs, so a value is shown first."""
        for i in range(min(len(got.status), len(base.status))):
            if base.failed(i) or got.failed(i):
                continue
            if (got.status[i] ^ base.status[i]) >> FP_FLAGS_SHIFT & 0x3FFF:
                orig, cand = (r.status[i] >> FP_FLAGS_SHIFT & 0x3FFF for r in (base, got))
                return Check(False, "wrong-output", f"{self._input(i)}: {fp_flags_words(orig, cand)}", i)
        return None

    def _memory_difference(self, exe: Path, i: int) -> str:
        """The first region and byte the candidate leaves other than the original on input i (memory_diff.py)."""
        dumps = []
        for e in (self.base_exe, exe):
            r = run_limited(
                [str(e), "show", str(i + self.show_from), str(self.mode), "dump"],
                timeout=20,
                env={**layout_env(self.name), **self.show_env},
            )
            dumps.append(parse_dump(r.stdout))
        first = first_difference(self.plan, self.base_exe, *dumps)
        if first.startswith(("the floating-point", "what it prints", "the original leaves errno")):
            return first
        what = first or "a buffer it writes, a struct behind a pointer, or where a pointer it moves points"
        return f"what it leaves in memory differs ({what})"

    def _input(self, i: int) -> str:
        return self._show(self.base_exe, i)[0].replace("f(", f"{self.name}(", 1)

    def check(self, cand_obj: Path, tag: str) -> Check:
        try:
            exe = self.link(cand_obj, tag)
        except build.BuildError as e:
            return Check(False, "link-error", e.output, 0)
        load_time = check_linked(exe, self.base_exe)
        if load_time:
            return Check(False, "unsafe", "; ".join(load_time), 0)
        budget = max(self.min_timeout, 20 * self.base_seconds)
        got = self._run_parts(exe, self.n_inputs, self.mode, budget, original=False)
        r = got.run
        kind, idx, what = got.trailer or (0, None, None)
        where = f" on input {self._input(idx)}" if idx is not None else ""
        if kind == TRAILER_SYSCALL or r.returncode == EXIT_SYSCALL or r.killed_by_seccomp:
            num = f" (number {what})" if what is not None else ""
            return Check(
                False, "unsafe", f"made a forbidden system call{num}{where}; the seccomp filter stopped it", idx or 0
            )
        if r.timed_out:
            return Check(
                False, "timeout", f"did not finish within {budget:.0f}s (the baseline took {self.base_seconds:.2f}s)", 0
            )
        if kind == TRAILER_ABI and what is not None and idx is not None:
            finding = ABI_FINDINGS[what] if what < len(ABI_FINDINGS) else f"finding {what}"
            return Check(False, "abi-violation", f"{finding}{where}", idx)
        verdict = self._compare(exe, got)
        if not verdict.ok:
            return verdict
        return self._own_constants(exe, cand_obj, budget) or verdict

    def _own_constants(self, exe: Path, cand_obj: Path, timeout: float) -> Check | None:
        """A pass of CONSTANT_INPUTS generated inputs drawn from the constants the candidate's code holds and
        the original's does not, and those the original's holds and the candidate's does not
        (asm/immediates.py, harness/sc_cdict.h), run by the original and by the candidate: a candidate wrong
        on one value alone (a hash's seed == 5381) holds that value, one that drops the original's special
        case (x == 1000003) lacks it, and no random draw meets either. None where there are no such
        constants or it gives the original's results there."""
        if self.only_recorded or self.n_random < 2:
            return None
        cand = object_constants(cand_obj)
        mine = [c for c in cand if c not in self.base_constants]
        dropped = [c for c in self.base_constants if c not in set(cand)]
        half = SC_CDICT_MAX // 2  # each side its half, the rest to the other where one has fewer
        own = mine[: max(half, SC_CDICT_MAX - len(dropped))] + dropped[: max(half, SC_CDICT_MAX - len(mine))]
        own = own[:SC_CDICT_MAX]
        if not own:
            return None
        none = self.dir / "skip.none.bin"
        none.touch()
        env = {"SC_CAND_DICT": ",".join(f"{c:x}" for c in own), "SC_SKIP": str(none)}
        start = self.n_edge + 1  # past the edge inputs and the one called many times (SC_REPEATED)
        end = start + min(CONSTANT_INPUTS, self.n_random - 1)
        key = env["SC_CAND_DICT"]
        base = self.constant_bases.get(key)
        if base is None:
            # the original with its first limit, the candidate with the later one: as in the whole run, an input
            # the original is slow on is left out, and a candidate gets LATER_FACTOR times its time
            base = self._run(
                self.base_exe, end, self.mode, max(timeout, 30.0), {**env, "SC_LATER_TICKS": "1"}, True, start
            )
            if base.run.returncode != 0 or base.run.timed_out:
                return None  # the original itself breaks the harness on them: nothing to compare with
            self.constant_bases[key] = base
        got = self._run(exe, end, self.mode, max(timeout, 30.0), env, False, start)
        n = len(base.status)
        if got.run.timed_out:  # slow on many of them (a run is no measure of time): its records so far are compared
            n = min(n, len(got.status))
            got = Records(got.status[:n], got.values[:n], base.stdout, RunResult(0, base.stdout, "", False, 0.0))
        q = copy.copy(self)
        q.base, q.n_inputs, q.skipped, q.n_edge, q.n_recorded = base, n, 0, -1, 0
        q.show_from, q.show_env = start, env
        verdict = q._compare(exe, got)
        if verdict.ok:
            return None
        shown = ", ".join(f"{c:#x}" for c in own[:4]) + (", ..." if len(own) > 4 else "")
        return Check(
            False,
            verdict.reason,
            f"{verdict.detail} (an input drawn from the constants its code holds and the original's does not, "
            f"or the original's that its code does not hold: {shown})",
            verdict.inputs + start,
        )

    def _compare(self, exe: Path, got: Records) -> Check:
        base = self.base
        assert base is not None, "prepare() first"
        if got.raw == base.raw and got.stdout == base.stdout and got.run.returncode == 0:
            return Check(True, None, f"same results on {self.checked:,} inputs", self.checked)
        n = min(len(got.status), self.n_inputs)
        for i in range(n):
            if base.failed(i):
                continue
            st = got.status[i]
            if st & ALLOCATED and not base.status[i] & ALLOCATED:
                return Check(
                    False,
                    "wrong-output",
                    f"changes the heap where the original does not (frees memory it was given) on input "
                    f"{self._input(i)}",
                    i,
                )
            if st & STORED_AROUND and not base.status[i] & STORED_AROUND and not st & (CRASHED | TIMED_OUT):
                return Check(
                    False,
                    "wrong-output",
                    f"stores into the bytes beside a buffer (past its end or before its start) on input "
                    f"{self._input(i)}, even where it writes back what was there: memory that is not its "
                    "object (beside another thread, a lost update); the original does not",
                    i,
                )
            if (st ^ base.status[i]) & HEAP_LEFT and not st & (CRASHED | TIMED_OUT):
                return Check(
                    False,
                    "wrong-output",
                    f"leaves memory allocated on input {self._input(i)}; the original frees all it allocates"
                    if st & HEAP_LEFT
                    else f"frees the memory the original leaves allocated (its result) on input {self._input(i)}",
                    i,
                )
            if st & (CRASHED | TIMED_OUT) or got.values[i] != base.values[i]:
                inp, expected = self._show(self.base_exe, i)
                _, actual = self._show(exe, i)
                inp = inp.replace("f(", f"{self.name}(", 1)
                if st & TIMED_OUT:
                    return Check(
                        False,
                        "timeout",
                        f"no result within {self.later_ms}-{self.later_ms + self.input_ms} ms on input {inp}, where the original "
                        f"returns {expected}",
                        i,
                    )
                if st & CRASHED:
                    return Check(
                        False, "crash", f"signal {st & 0xFF} on input {inp}, where the original returns {expected}", i
                    )
                agrees = self._program_agrees(got)
                only = (
                    f"; it differs only on inputs the program never produced: on all {self.n_recorded:,} calls "
                    "recorded from the program's runs it gives the original's results"
                    if agrees
                    else ""
                )
                if expected == actual:  # the same result shown, other memory written (where a pointer points)
                    what = f"{inp}: returns {expected} as the original does, but {self._memory_difference(exe, i)}"
                else:
                    what = f"{inp}: expected {expected}, got {actual}"
                if i == self.n_edge and self.n_random:  # sc_verify.h's SC_REPEATED
                    what += (
                        " (on its last of many calls in a row, 1,000,000 or as many as a second allows, the second half"
                        " on a neighbour of this input with a few bits flipped: a result that changes after many calls,"
                        " or one kept from a call on other data)"
                    )
                return Check(False, "wrong-output", f"{what}{only}", i, agrees)
            if st & DIRTY_UPPER and not self.base_dirty_upper:
                return Check(
                    False,
                    "abi-violation",
                    f"upper halves of the YMM registers left dirty on return (no vzeroupper) "
                    f"on input {self._input(i)}; the original leaves them clean",
                    i,
                )
        if fp := self._fp_flags_differ(got, base):
            return fp
        if got.run.returncode != EXIT_OK:
            rc = got.run.returncode
            desc = f"signal {-rc}" if rc < 0 else "a signal outside any call" if rc == EXIT_CRASH else f"exit code {rc}"
            return Check(
                False,
                "crash",
                f"the harness itself failed after input {n} ({desc}): "
                "the candidate corrupted memory outside its own frame and buffers",
                n,
            )
        if len(got.status) < self.n_inputs:
            return Check(
                False, "crash", f"exited early, after {len(got.status):,} of {self.n_inputs:,} inputs", len(got.status)
            )
        if got.stdout != base.stdout:
            return Check(
                False,
                "wrong-output",
                f"printed different output than the original: {first_byte_difference(base.stdout, got.stdout)}",
                0,
            )
        return Check(True, None, f"same results on {self.checked:,} inputs", self.checked)
