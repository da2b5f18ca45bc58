"""The original's runs that decide what a candidate is compared with: its first run (the short limit, then
the long one), which state of the globals, and the self-check (every buffer against the guard on its other
side) that refuses a harness whose results depend on where memory lies."""

from __future__ import annotations

from pathlib import Path

from ..harness.contract import (
    ABI_BROKEN,
    CRASHED,
    DIRTY_UPPER,
    EXIT_SLOW,
    NOT_RUN,
    TIMED_OUT,
)
from .harness_runs import HarnessRuns
from .records import (
    BASELINE_SECONDS,
    INPUT_MS,
    MODE_FLIP_SIDES,
    MODE_STOP_SLOW,
    SHORT_INPUT_MS,
    OutsideDomain,
    Records,
    baseline_failure,
    reads_past,
)

SAMPLE = 10_000  # inputs on which a second state of the globals is tried before a whole run (_better_on_sample)


class SelfChecked(HarnessRuns):
    """The original's first run adopted, and checked against itself."""

    def _first_run(self, exe: Path, mode: int, budget: dict[str, str]) -> Records:
        """The original's first run over the inputs, each with the short time limit; where most inputs run
        out of time with it, again with the long one (a function that takes 20 ms to a second on each).
        Short first: where a few inputs loop for ever (deflate_fast on a generated state: one in sixty), the
        long limit cost a second or two for each of the four it took to give up on it (9 s of 40)."""
        r = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
        if r.run.returncode != EXIT_SLOW or self.input_ms >= INPUT_MS:
            return r
        self.input_ms = INPUT_MS
        slow = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
        if slow.run.returncode == EXIT_SLOW:  # they loop: the short run's counts say how many
            self.input_ms = SHORT_INPUT_MS
            return r
        return slow

    def _better_on_sample(self, exe: Path, mode: int, first: Records, budget: dict[str, str]) -> bool:
        """Whether `mode` fails the original on fewer of the first SAMPLE inputs, or of the program's recorded
        calls, than the run `first` did: only then is it worth a whole run (trees.c's send_tree fails as often
        with either state of the file's globals: 1.5 s of its first result)."""
        if self._fewer_fail(exe, mode, first, 0, min(SAMPLE, self.total, len(first.status)), budget):
            return True
        if not self.n_recorded:
            return False
        # and the program's recorded calls (after the generated inputs), where they are few: the sample
        # does not hold them (send_tree's four: a whole run of the second state, 0.8 s, where they did as well)
        if self.n_recorded > SAMPLE or len(first.status) < self.total:
            return True
        return self._fewer_fail(exe, mode, first, self.total - self.n_recorded, self.total, budget)

    def _fewer_fail(self, exe: Path, mode: int, first: Records, lo: int, hi: int, budget: dict[str, str]) -> bool:
        """Whether `mode` fails the original on fewer of inputs `lo` to `hi` than the run `first` did (True
        where its run says nothing: the whole run will)."""
        r = self._run(exe, hi, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, True, lo)
        if r.run.returncode != 0 or len(r.status) != hi - lo:
            return True
        return sum(map(r.failed, range(hi - lo))) < sum(first.failed(i) for i in range(lo, hi))

    def _self_check_or_recorded(self, exe: Path, budget: dict[str, str]) -> None:
        """The self-check; where it fails on generated inputs but the program's recorded calls run whole,
        those calls are the harness's inputs, checked alone."""
        try:
            self._self_check(exe)
        except OutsideDomain:
            if not self.n_recorded or self.only_recorded:
                raise
            # the generated inputs broke the harness itself in the self-check (deflate.c's fill_window:
            # a generated state's fields as far offsets): the program's own calls are checked alone
            self.only_recorded = "the self-check was killed"
            r = self._run_parts(exe, self.total, self.mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
            if r.run.returncode != 0:
                raise RuntimeError(baseline_failure(r)) from None
            self._adopt(r, sum(1 for i in range(len(r.status)) if r.failed(i) and not r.status[i] & NOT_RUN))
            self._self_check(exe)

    def _adopt(self, r: Records, skipped: int) -> None:
        """Take baseline run `r` (`skipped` inputs failed on it) as the one candidates are compared with."""
        self.not_run = sum(1 for s in r.status if s & NOT_RUN)
        skipped += self.not_run
        # candidates are not run where the original ran out of time, or broke the calling convention itself;
        # where it crashed, they run with the original's own limit (sc_on_alarm)
        timed_out = bytes(1 if s & (TIMED_OUT | NOT_RUN | ABI_BROKEN) else 2 if s & CRASHED else 0 for s in r.status)
        if any(timed_out):
            self.skip_file = self.dir / "skip.bin"
            self.skip_file.write_bytes(timed_out)
        self.base = r
        self.n_inputs = len(r.status)
        self.skipped = skipped
        self.base_dirty_upper = any(s & DIRTY_UPPER for s in r.status)
        self.base_seconds = r.run.seconds
        if skipped == self.n_inputs:
            raise OutsideDomain(
                "the -O3 original crashes or runs out of time on every generated input; "
                "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
            )

    def _self_check(self, exe: Path, margin: float = 1.0) -> None:
        """The baseline once more, every buffer against the guard on its other side. An original that
        reads or writes outside its inputs (past a struct that is really an array, through a NULL
        pointer field plus an offset) gives results that depend on where memory lies: such a harness
        would call good candidates wrong, so it is refused, unless the program's own recorded calls run
        whole: they are then the domain, and the generated inputs it reads past are left out and counted.
        `margin`: how many times the moved inputs of a private state must pass their limit to refuse."""
        assert self.base is not None
        # beside recorded calls, a generated input that runs out of time here is left out, whether it would
        # alone or not: no part runs again for it (inflate_fast: two reruns of 15 s each, for inputs that
        # loop only after the calls before them in their process, not alone)
        first_recorded = self.n_inputs - self.n_recorded
        late_ok = first_recorded if self.n_recorded else 0
        again = self._run_parts(exe, self.n_inputs, self.mode | MODE_FLIP_SIDES, BASELINE_SECONDS + 10, late_ok=late_ok)
        if len(again.status) < self.n_inputs:
            # killed outright: on a generated input the original wrote far outside its inputs (trees.c's
            # _tr_tally: dyn_ltree[lc] with a random lc) and broke the harness itself; narrower inputs may do
            raise OutsideDomain(
                "the -O3 original breaks the harness itself on generated inputs (it writes far outside them, "
                f"as with an index far out of range){': ' + again.run.stderr.strip()[-200:] if again.run.stderr.strip() else ''}; "
                "give input bounds for its parameters (--bound NAME=LOW:HIGH)"
            )
        a, b = self.base, again
        moved = [
            i
            for i in range(self.n_inputs)
            if a.failed(i) != b.failed(i) or (not a.failed(i) and a.values[i] != b.values[i])
        ]
        late = _out_of_time(a, b, moved, late_ok)
        for i in late:
            self.skipped += not a.failed(i)
            a.status[i] |= TIMED_OUT
        moved = [i for i in moved if i not in late]
        # a recorded call that reaches memory the recording did not keep (past a region's 64 KiB, a
        # pointer it did not follow) is an incomplete input: left out, not the harness
        self.outside_recorded = sum(1 for i in moved if i >= first_recorded)
        generated = [i for i in moved if i < first_recorded]
        good_recorded = sum(1 for i in range(first_recorded, self.n_inputs) if not a.failed(i)) - sum(
            1 for i in moved if i >= first_recorded and not a.failed(i)
        )
        # a private state's data pointers all point into one generated buffer; where the original runs past
        # its end (pending_buf[pending] near the end), the input is left out, as long as most are not
        # a loose input moves too: the self-check has its buffers tight, against the guard after them (sc_rt.h)
        good_generated = sum(1 for i in range(first_recorded) if not a.failed(i))
        if (
            generated
            and not good_recorded
            and not (self._owned_data() and 4 * len(generated) <= margin * good_generated)
        ):
            raise RuntimeError(reads_past(generated[0]))
        # where the program's own calls run whole, they are the function's domain: a generated input it
        # reads past (a NULL pointer field plus an offset) is left out and counted, as a crash is; so is
        # one that runs past the buffer a generated private state's data pointers point into
        self.outside_generated = len(generated)
        for i in moved:
            self.skipped += not a.failed(i)
            a.status[i] |= CRASHED

    def _owned_data(self) -> bool:
        """Whether a private state's data pointers point into one generated buffer (its inputs that run past
        it are left out, as long as most are not: _self_check)."""
        return any(p.data or any(o.data for o in p.owned) for p in self.plan.params)

    @property
    def checked(self) -> int:
        return self.n_inputs - self.skipped

    def _program_agrees(self, got: Records) -> bool:
        """Whether a candidate gives the original's results on every recorded call of the program."""
        base = self.base
        assert base is not None
        first = self.n_inputs - self.n_recorded
        return (
            self.n_recorded > 0
            and len(got.status) >= self.n_inputs
            and all(
                base.failed(i) or (not got.failed(i) and got.values[i] == base.values[i])
                for i in range(first, self.n_inputs)
            )
        )


def _out_of_time(a: Records, b: Records, moved: list[int], late_ok: int) -> set[int]:
    """Of the inputs that moved between the two runs, those that say nothing about where their buffers lie,
    left out as out of time: a generated input that ran out of time in the second run alone (taken as it is,
    not run again: late_ok; on a busy machine one in 28,000 of a compressor's inputs was said to read past its
    buffers, in one full test run in two), and any that ran out of time in either run and crashed in neither
    (a quadratic original's long input finished in one run and not in the other)."""
    late = {i for i in moved if i < late_ok and not a.failed(i) and b.status[i] & TIMED_OUT}
    both = [(i, a.status[i] | b.status[i]) for i in moved]
    return late | {i for i, st in both if st & TIMED_OUT and not st & CRASHED}
