"""The editor's first verdicts before the original has run on every input: a harness of the first inputs
(or of the program's recorded calls alone) where the whole one would take long, and the self-check's
refusal where the first inputs already show it."""

from __future__ import annotations

import copy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Self

from ..harness.contract import (
    EXIT_SLOW,
    NOT_RUN,
    TIMED_OUT,
)
from .harness_runs import cores
from .records import (
    BASELINE_SECONDS,
    FLOOR_MS,
    MODE_FLIP_SIDES,
    MODE_RANDOM_GLOBALS,
    MODE_STOP_SLOW,
    READS_PAST,
    SHORT_INPUT_MS,
    OutsideDomain,
    Records,
    reads_past,
)
from .self_check import SelfChecked

FIRST_LOOK = 20_000  # inputs of the editor's first verdicts (FunctionHarness._first_look) ...
FIRST_LOOK_SECONDS = 2.5  # ... where its three runs over all inputs would take this (inflateBack 3.4, gz_comp 5.5)
TIMED_FIRST = 2048  # ... and as many random inputs past the edge ones: the timing driver's first ones among them
EARLY = (
    2_000  # the first inputs on which the self-check's refusal is tried first (FunctionHarness._reads_past_early) ...
)
EARLY_MS = 1_500  # ... in up to this many ms of the original's run on them
EARLY_MARGIN = 1.25  # ... refused there only where a private state's moved inputs are this many times the whole's limit
EARLY_RANDOM_MARGIN = 1.5  # ... or, with as many random ones weighted in, this many times (_moved_later)
TASTE_MS = 500  # the original's run on a tenth of them tells whether a first look pays (_slow_to_prepare) ...


class EarlyLook(SelfChecked):
    """Harnesses of the first inputs, for the first verdicts."""

    def _first_inputs(self, n: int, mode: int, parts: int = 0) -> Self:
        """This harness over its first `n` generated inputs alone, in `mode` (the same binary: an input is
        generated from its index), split over `parts` processes (0: as many as the cores). It shares this
        one's folder; its own first run, adoption and self-check are the caller's."""
        q = copy.copy(self)
        q.total, q.parts, q.n_recorded, q.recorded, q.skip_file, q.mode = n, parts, 0, None, None, mode
        return q

    def _reads_past_early(self, exe: Path, modes: tuple[int, ...]) -> None:
        """Raise the self-check's refusal (READS_PAST) where the first EARLY inputs already show it, in each
        state of the globals the first run may take: inflate_fast's came after 67 s of runs over every input
        (0.7 ms each), where its first inputs tell it in 3 s (send_tree's first ones do not: their edge
        inputs move less often than the rest, so its whole run still decides). They are run as
        the first part of a whole run is (one process from input 0: the same history), with the same limits
        and self-check; where a private state's inputs are left out rather than refused unless too many
        move (_self_check), the first ones must show EARLY_MARGIN times too many. Only where the program's
        calls are not among the inputs: with them, generated inputs that move are left out, not refused."""
        if (
            self.n_recorded
            or self.total < 2 * EARLY
            or not any(p.role in ("array", "cstring") for p in self.plan.params)
        ):
            return
        seen: str | None = None
        for mode in modes:
            q = self._first_inputs(EARLY, mode, parts=1)
            r = q._run(exe, EARLY, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, {"SC_BUDGET_MS": str(EARLY_MS)})
            if r.run.returncode != 0 or len(r.status) != EARLY:
                return
            good = sum(1 for i in range(EARLY) if not r.failed(i))
            try:
                q._adopt(r, sum(1 for i in range(EARLY) if r.failed(i) and not r.status[i] & NOT_RUN))
                q._self_check(exe, EARLY_MARGIN)
            except OutsideDomain:
                return
            except RuntimeError as e:
                if READS_PAST not in str(e):
                    return
                seen = seen or f"{e} (seen on the first {EARLY:,} generated inputs)"
                continue
            # a private state's inputs left out there: the first ones are edge inputs, which move less often
            # than the random ones (inflate_table: 8 of the 126 it finished, against 81 of 148 from its
            # 62,500th): the random ones from the start of a part of the whole run (the same history) too,
            # each sample weighted as the whole harness holds such inputs
            late = self._moved_later(exe, mode, q.outside_generated, good, r.run.seconds)
            if late is None:
                return
            seen = seen or late
        if seen is not None:
            raise RuntimeError(seen)

    def _moved_later(self, exe: Path, mode: int, moved_first: int, good_first: int, seconds: float) -> str | None:
        """The self-check's refusal where EARLY random inputs from the start of a part of the whole run show
        one that moves (a plain harness), or, with the first EARLY inputs (`moved_first` of their `good_first`
        finished ones moved, in `seconds`) and each weighted as the whole holds inputs like them,
        EARLY_RANDOM_MARGIN times too many of a private state's; else None. Tried where something moved
        there, or their run was quick (under TASTE_MS)."""
        if not moved_first and seconds * 1000 > TASTE_MS:
            return None
        cuts = self._cuts(self.total)
        lo = next((c for c in cuts[1:-1] if c >= max(self.n_edge, EARLY)), max(self.n_edge, EARLY))
        first_like = max(self.n_edge, EARLY)  # the inputs the first EARLY stand for
        rest = self.n_edge + self.n_random - first_like
        if rest < EARLY or lo + EARLY > self.n_edge + self.n_random:
            return None
        env, q = {"SC_BUDGET_MS": str(EARLY_MS)}, self._first_inputs(self.total, mode)  # no skip file: a first run
        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(
                lambda m: q._run(exe, lo + EARLY, m | MODE_STOP_SLOW, BASELINE_SECONDS + 10, env, True, lo),
                (mode, mode | MODE_FLIP_SIDES),
            )
        if not (self._ended(a, lo, lo + EARLY) and self._ended(b, lo, lo + EARLY)):
            return None
        unknown = TIMED_OUT | NOT_RUN
        ran = [i for i in range(EARLY) if not (a.status[i] | b.status[i]) & unknown]
        moved = [i for i in ran if a.failed(i) != b.failed(i) or (not a.failed(i) and a.values[i] != b.values[i])]
        good = sum(1 for i in ran if not a.failed(i))
        est_moved = moved_first * first_like + len(moved) * rest
        est_good = good_first * first_like + good * rest
        if not moved or (self._owned_data() and 4 * est_moved <= EARLY_RANDOM_MARGIN * est_good):
            return None
        return (
            f"{reads_past(lo + moved[0])} (seen on the first {EARLY:,} generated inputs and {EARLY:,} from input "
            f"{lo:,}: {len(moved)} of {good:,} moved there)"
        )

    def _first_look(self, exe: Path) -> Self | None:
        """A harness of the first FIRST_LOOK inputs (and TIMED_FIRST random ones past the edge inputs, where
        those are more: inflateBack's 25,000), in the same binary (an input is generated from its index):
        the original's run and self-check on them, with the globals' first state. A candidate it finds wrong,
        crashing, out of time or breaking the calling convention is so on an input of the whole harness: a
        verdict the editor shows before the original has run on every input (deflate_fast's 30 s); one it
        passes has none yet, but for the first pass of its timing (first_look.py). None where the original's
        run, self-check and coverage over every input would take under FIRST_LOOK_SECONDS (_slow_to_prepare),
        or its run or self-check on them did not end cleanly (prepare decides those), or the program's
        recorded calls are among the inputs: generated ones alone are then refused where they move, which the
        whole harness leaves out (inflate_fast: 30 s for none); _recorded_look is for those."""
        n = max(FIRST_LOOK, self.n_edge + TIMED_FIRST)
        if self.total < 2 * n or self.n_states or self.n_recorded:
            return None
        mode = MODE_RANDOM_GLOBALS if self.support else 0
        if not self._slow_to_prepare(exe, mode):
            return None
        q = self._first_inputs(n, mode)
        r = q._run_parts(exe, n, q.mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, rerun=False)
        if r.run.returncode != 0 or len(r.status) != n:
            return None
        try:
            q._adopt(r, sum(1 for i in range(n) if r.failed(i)))
            q._self_check(exe)
        except RuntimeError:
            return None
        return q

    def _slow_to_prepare(self, exe: Path, mode: int) -> bool:
        """Whether the original's run, self-check and coverage over every input would take over
        FIRST_LOOK_SECONDS, told from its run on a tenth of the first FIRST_LOOK inputs, in one process
        (where the original is fast, that is all it costs: adler32_z), for up to TASTE_MS: one that does not
        finish them by then is slow (inflate_fast: 1,723 of its first 2,000 inputs crash, 60 loop)."""
        taste = self._run(
            exe, FIRST_LOOK // 10, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, {"SC_BUDGET_MS": str(TASTE_MS)}
        )
        if taste.run.returncode not in (0, EXIT_SLOW):
            return False
        return (
            taste.run.returncode == EXIT_SLOW
            or any(s & NOT_RUN for s in taste.status)
            or (self._three_runs(taste) >= FIRST_LOOK_SECONDS)
        )

    def _recorded_look(self, exe: Path, modes: tuple[int, ...]) -> Self | None:
        """A harness of the program's recorded calls alone (the generated inputs are not run), for the
        editor's first verdicts where the original's runs over the generated inputs beside them are slow
        (_slow_to_prepare; inflate_fast: 38 s of its first run and self-check, where its 11 recorded calls
        take a tenth of a second; inflate: 7.5 s, for a look that costs the first candidate's compile and
        the first pass of its timing, which the round then keeps where the whole harness agrees): the
        original's run and self-check on them, in the globals' first state where the original finishes one
        of them in it. None where they would not take long, or its runs on the calls do not end cleanly
        (prepare decides those). Its verdicts are the first look's (first_look.py): the round judges the
        candidates again with the whole harness."""
        if self.total - self.n_recorded < 2 * FIRST_LOOK or not self._slow_to_prepare(exe, modes[0]):
            return None
        for mode in modes:
            q = copy.copy(self)
            q.only_recorded, q.skip_file, q.mode = "the editor's first look", None, mode
            r = q._run_parts(exe, q.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, rerun=False)
            if r.run.returncode != 0 or len(r.status) != q.total:
                return None
            try:
                q._adopt(r, sum(1 for i in range(q.total) if r.failed(i)))
                q._self_check(exe)
            except OutsideDomain:
                continue  # the original fails on every recorded call in this state of the globals
            except RuntimeError:
                return None
            return q
        return None

    def _three_runs(self, taste: Records) -> float:
        """Seconds the original's three runs over all inputs (first run, self-check, coverage) would take,
        told from `taste`, its first run on the first inputs. An input out of time there was given the
        floor of the first run's limit (FLOOR_MS), in the whole first run up to SHORT_INPUT_MS (the slowest
        input it returned from grows), and no time in the two runs after (they pass over it): deflate_fast,
        one input in sixty looping, took 13 s over its first run where the taste's 0.18 s told 4.5."""
        n = len(taste.status)
        if not n:
            return 0.0
        late = sum(1 for s in taste.status if s & TIMED_OUT)
        rest = max(0.0, taste.run.seconds - late * FLOOR_MS / 1000)
        first = rest + late * SHORT_INPUT_MS / 1000
        return (first + 2 * rest) * self.total / n / cores()

    def finished_random(self) -> int:
        """Of its random inputs (past the edge ones), how many the original finished: the timing driver
        times the first ones it finished (measure/interleaved.py), so a first look's timing is of the same
        inputs as the whole harness's where it holds enough of them (first_look.py)."""
        assert self.base is not None
        hi = min(self.n_inputs, self.n_edge + self.n_random)
        return sum(1 for i in range(self.n_edge, hi) if not self.base.failed(i))

    def fails_alike(self, early: Self) -> bool:
        """Whether the original failed on the same of `early`'s random inputs here as there (and in the same
        state of the globals): where both hold the inputs a timing would take, it takes the same ones."""
        a, b = self.base, early.base
        if a is None or b is None or early.mode != self.mode:
            return False
        hi = min(early.n_inputs, self.n_inputs, self.n_edge + self.n_random)
        return all(a.failed(i) == b.failed(i) for i in range(self.n_edge, hi))

    def same_inputs(self, early: Self) -> bool:
        """Whether a verdict of `early` (_first_look) holds for this harness, once prepared: its inputs are
        the same (neither narrowed, nor only the program's calls) with the same globals (linked with the same
        objects: a first look with the function alone, its whole harness with the file's) in the same state."""
        return (
            early.mode == self.mode
            and early.plan == self.plan
            and early.support_objs == self.support_objs
            and (early.seed, early.n_random) == (self.seed, self.n_random)
            and not self.only_recorded
            and not early.only_recorded
        )
