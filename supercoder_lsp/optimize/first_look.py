"""The editor's first verdicts on a function whose -O3 original is slow on the generated inputs.

Before the original has run on every input (zlib's deflate_fast: 30 s), the first proposer's first
candidates are checked on a harness of the first inputs (FunctionHarness._first_look). A candidate found
wrong there shows at once, as the verdicts so far; it is wrong on an input of the whole harness too, and
that verdict stays where the whole harness's inputs turn out the same (FunctionHarness.same_inputs), else
it is checked again with the whole harness. Where the program's recorded calls are among the inputs, the
first look is on those calls alone (FunctionHarness._recorded_look: inflate_fast's 11, where its generated
inputs took 38 s). A candidate that passes gets the first pass of its timing, on those calls or on the
first random inputs the original finishes (Judge.first_look): one that pass shows no faster, or that
cannot be timed, has that verdict at once, and is judged again with the whole harness, which keeps the
first pass where it times the same inputs (timing); any other has no verdict yet. The editor only (the
pipeline's on_update): the command line gives every verdict at once, and the first look costs the whole
run a few seconds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..model import Candidate, CandidateResult, Timing
from ..verify.function_check import FunctionHarness
from .judge import Judge

CANDIDATES = 2  # the most candidates checked on the first inputs; the first verdict there ends it, and so does
# a candidate that passes them and is timed no slower (it may be faster: the whole harness decides)


class Prefetched(Iterator[Candidate]):
    """A proposer's candidates with the first one drawn at once, on a thread of its own: the compilers
    proposer builds the file again for it, beside the harness's build and runs, which it does not need; it
    is checked as soon as that harness is ready. Its failure is raised where it is asked for."""

    def __init__(self, stream: Iterator[Candidate]):
        self.stream = stream
        self.first: list = []
        self.thread: threading.Thread | None = threading.Thread(target=self._draw, daemon=True)
        self.thread.start()

    def _draw(self) -> None:
        try:
            self.first.append((next(self.stream, None), None))
        except Exception as e:  # noqa: BLE001 - raised by __next__, where the round reports it
            self.first.append((None, e))

    def __next__(self) -> Candidate:
        if self.thread is not None:
            self.thread.join()
            self.thread = None
            [(cand, error)] = self.first
            if error is not None:
                raise error
            if cand is None:
                raise StopIteration
            return cand
        return next(self.stream)


@dataclass
class FirstLook:
    stream: Iterator[Candidate]  # the first proposer's candidates: the round goes on with the same
    judge_on: Callable[[FunctionHarness], Judge]  # a judge with that harness (its first_look is used)
    show: Callable[[list[CandidateResult]], None]  # the verdicts so far, to the editor
    progress: Callable[[str], None]
    drawn: list[tuple[Candidate, CandidateResult | None]] = field(default_factory=list)
    early: FunctionHarness | None = None
    error: Exception | None = None  # the proposer's own failure, for the round to report

    def __call__(self, early: FunctionHarness) -> None:
        if self.early is not None:  # once: a narrowed harness is prepared again
            return
        self.early = early
        judge = self.judge_on(early)
        for _ in range(CANDIDATES):
            try:
                cand = next(self.stream, None)
            except Exception as e:  # the round says so
                self.error = e
                return
            if cand is None:
                return
            on = (
                f"the program's {early.n_recorded:,} recorded calls"
                if early.only_recorded
                else f"{early.n_inputs:,} inputs"
            )
            self.progress(f"first look: {cand.label} on {on}")
            r = judge.first_look(cand)
            self.drawn.append((cand, r))
            if r is not None:
                self.show([v for _, v in self.drawn if v is not None])
                return
            if judge.timer is not None:
                # the first pass of its timing did not show it no faster: only the whole harness can show it
                # faster, so that one is prepared now, not after another candidate's look (bench_lsp's popcount
                # on a busy machine: 2.3 s of its first hint in one traced run)
                return

    def verdict(self, harness: FunctionHarness | None, r: CandidateResult | None) -> CandidateResult | None:
        """The first look's verdict on a drawn candidate where it stands with the whole harness, else None.
        Not a timing's: a candidate no faster (or that could not be timed) is still checked on every input of
        the whole harness (timing)."""
        if r is None or self.early is None or harness is None or not harness.same_inputs(self.early):
            return None
        return None if r.reason == "not-faster" else r

    def timing(self, harness: FunctionHarness | None, r: CandidateResult | None) -> Timing | None:
        """The first pass of a drawn candidate's timing, where the round would time it on the same inputs:
        the same program's recorded calls, or the same first random inputs the original finishes (the
        whole harness failed it on the same of them), with the same plan and linked objects. It already
        showed the candidate no faster, so the round keeps it once the whole harness has checked the
        candidate (a second timing cost inflate 2 s a candidate); else None."""
        early = self.early
        if r is None or r.timing is None or r.reason != "not-faster" or early is None or harness is None:
            return None
        if harness.plan != early.plan or harness.support_objs != early.support_objs:
            return None
        if early.only_recorded:
            same = harness.recorded is early.recorded
        else:
            same = not harness.n_recorded and harness.fails_alike(early)
        return r.timing if same else None
