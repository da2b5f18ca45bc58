"""Differential testing of one function against its -O3 original.

The baseline and the candidate each live in their own object, linked into
their own copy of a generated harness (another translation unit, so gcc's
IPA-RA cannot make the caller depend on which registers the callee leaves
alone). Each harness process writes one record per input (status, return value and a
hash of every buffer and writable global) to a descriptor of its own; the
records and what the function printed are compared here, outside the process
that ran the candidate, which never sees the expected outputs. Inputs on which
the -O3 original crashes or runs out of time are skipped and counted; a
candidate must not crash where the original does not.

The parts, each a module: records.py (what a run gives back), harness_build.py (state and build),
harness_runs.py (runs, limits, the split over the cores), self_check.py (the original's runs adopted and
checked against itself), comparison.py (a candidate checked), early_look.py (the editor's first verdicts);
FunctionHarness strings them together.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from ..asm.immediates import object_constants
from ..harness.contract import (
    EXIT_ALLOCATES,
    EXIT_SLOW,
    NOT_RUN,
    TIMED_OUT,
)
from ..harness.plan import long_inputs
from .comparison import Compared
from .early_look import EarlyLook
from .records import (
    BASELINE_SECONDS,
    FLOOR_MS,
    INPUT_MS,
    MODE_FLIP_SIDES,
    MODE_PROGRAM_STATE,
    MODE_RANDOM_GLOBALS,
    MODE_STOP_SLOW,
    READS_PAST,
    Check,
    OutsideDomain,
    Records,
    baseline_failure,
    forbidden_call,
)

T = TypeVar("T")


class FunctionHarness(EarlyLook, Compared):
    """Generated harness for one function: build once, check many candidates."""

    def prepare(
        self,
        base_obj: Path,
        after: Callable[[], T] | None = None,
        first_look: Callable[[FunctionHarness], None] | None = None,
    ) -> T | None:
        """Build the harness and record the baseline's outputs on every input; then `after()` (coverage,
        which runs the original over the inputs compared), whose result is returned. Every run is split
        over the cores (_run_parts), one after another: coverage run beside the self-check, as it was, had
        to run again wherever the self-check left inputs out (trees.c's send_tree: 3 s of its 11). Before
        all that, where the original is slow on them, `first_look` gets a harness of the first FIRST_LOOK
        inputs (_first_look)."""
        self._build_runtime()
        exe = self.link(base_obj, "baseline")
        self.base_exe = exe
        self.base_constants = object_constants(base_obj)
        state = MODE_PROGRAM_STATE if self.n_states else 0
        modes = (MODE_RANDOM_GLOBALS | state, state) if self.support else (0,)
        self._reads_past_early(exe, modes)
        if first_look is not None:
            early = self._recorded_look(exe, modes) if self.n_recorded else self._first_look(exe)
            if early is not None:
                first_look(early)
        rec = None
        budget = {"SC_BUDGET_MS": str(int(self.budget_seconds * 1000))}
        for mode in modes:
            if rec is not None and not self._better_on_sample(exe, mode, rec[0], budget):
                break  # the globals' initial state does no better than their random state where both ran
            r = self._first_run(exe, mode, budget)
            if r.run.returncode == EXIT_ALLOCATES:
                raise RuntimeError(
                    f"a call of the -O3 original changes the heap in a way the function harness cannot compare "
                    f"(input {len(r.status) - 1:,}: it frees memory it was given, allocates with memalign, or "
                    "keeps over 1,024 blocks); give program tests with --tests DIR"
                )
            if r.run.returncode == EXIT_SLOW:
                slow = sum(1 for i in range(len(r.status)) if r.status[i] & TIMED_OUT)
                raise OutsideDomain(
                    f"the -O3 original runs out of time on most generated inputs ({slow} of the first "
                    f"{len(r.status)}); bound them (--bound FUNC.PARAM=LOW:HIGH or [bounds.FUNC] in .supercoder.toml)"
                )
            if r.run.timed_out:
                raise OutsideDomain(
                    f"the -O3 baseline needs over {BASELINE_SECONDS}s for the generated inputs; "
                    "bound them (--bound FUNC.PARAM=LOW:HIGH or [bounds.FUNC] in .supercoder.toml)"
                )
            if r.run.returncode != 0 and self.n_recorded and not forbidden_call(r):
                # out of its domain the original broke the harness itself (a write past its own stack frame,
                # indexed by a random count): the program's own calls are its domain, checked alone
                rc = r.run.returncode
                self.only_recorded = (
                    r.run.stderr.strip().splitlines()[-1]
                    if r.run.stderr.strip()
                    else f"signal {-rc}"
                    if rc < 0
                    else f"exit code {rc}"
                )
                r = self._run_parts(exe, self.total, mode | MODE_STOP_SLOW, BASELINE_SECONDS + 10, budget, rerun=False)
            if r.run.returncode != 0:
                raise RuntimeError(baseline_failure(r))
            not_run = sum(1 for s in r.status if s & NOT_RUN)
            skipped = sum(1 for i in range(len(r.status)) if r.failed(i)) - not_run
            if rec is None or skipped < rec[1]:
                rec = (r, skipped, mode)
            if skipped * 2 <= len(r.status) - not_run or not_run:
                break  # random global state that crashes the original on most inputs is not its domain
        assert rec is not None
        r, skipped, self.mode = rec
        self._adopt(r, skipped)
        if any(p.role in ("array", "cstring") for p in self.plan.params):
            self._self_check_or_recorded(exe, budget)
        if self.only_recorded:
            self.outside_generated = self.n_inputs - self.n_recorded
        # after the self-check, which may leave inputs out: coverage goes over the ones compared
        return after() if after else None

    def describe_inputs(self) -> str:
        crashes = self.skipped - self.outside_recorded - self.outside_generated - self.not_run
        limit = (
            f" (over {FLOOR_MS}-{self.input_ms} ms each, 50 times its slowest other input)"
            if self.input_ms != INPUT_MS
            else ""
        )
        skipped = (
            (
                f", {self.not_run:,} generated inputs not run: the -O3 original used its {self.budget_seconds:g}s "
                "budget on the others (--baseline-seconds)"
                if self.not_run
                else ""
            )
            + (f", {crashes:,} skipped: the -O3 original crashes or runs out of time on them{limit}" if crashes else "")
            + (
                f", {self.outside_recorded:,} recorded calls left out: they reach memory the recording did not keep"
                if self.outside_recorded
                else ""
            )
            + (
                f", {self.outside_generated:,} generated inputs left out: the -O3 original breaks the harness itself "
                f"on them ({self.only_recorded}: it writes outside its inputs and its own frame), so only the "
                "program's calls are checked"
                if self.only_recorded
                else f", {self.outside_generated:,} generated inputs left out: the -O3 original's result on them "
                "depends on where its buffers lie (it reads past them, e.g. through a NULL pointer field)"
                if self.outside_generated
                else ""
            )
        )
        starts = (
            ["initial"]
            + (["random"] if self.mode & MODE_RANDOM_GLOBALS else [])
            + (
                [f"{self.n_states} recorded program state{'s' if self.n_states > 1 else ''}"]
                if self.mode & MODE_PROGRAM_STATE
                else []
            )
        )
        state = (
            f", globals from their {', '.join(starts[:-1])} and {starts[-1]} state"
            if self.support and len(starts) > 1
            else ""
        )
        state += self._longest()
        if self.n_recorded:
            made = self.n_inputs - self.n_recorded
            return (
                f"{self.n_inputs:,} inputs: {made:,} generated, {self.n_recorded:,} recorded from the program's own "
                f"calls{skipped}{state}"
            )
        return f"{self.n_inputs:,} generated inputs{skipped}{state}"

    def _longest(self) -> str:
        """The longest generated array the original finished on (its few long inputs, plan.LONG_LEN)."""
        longs = long_inputs(self.plan, self.n_edge, self.n_random)
        base = self.base
        done = [n for i, n in longs.items() if base is not None and i < len(base.status) and not base.failed(i)]
        if not longs:
            return ""
        return f", the longest array {max(done):,} elements" if done else ", none of its long inputs finished"


__all__ = [
    "BASELINE_SECONDS",
    "FLOOR_MS",
    "INPUT_MS",
    "MODE_FLIP_SIDES",
    "READS_PAST",
    "Check",
    "FunctionHarness",
    "OutsideDomain",
    "Records",
]
