"""The editor's first verdicts on a function whose -O3 original is slow on the generated inputs.

Before the original has run on every input (zlib's deflate_fast: 30 s), the first proposer's first
candidates are checked on a harness of the first inputs (FunctionHarness._first_look). A candidate found
wrong there shows at once, as the verdicts so far; it is wrong on an input of the whole harness too, and
that verdict stays where the whole harness's inputs turn out the same (FunctionHarness.same_inputs), else
it is checked again with the whole harness. A candidate that passes has no verdict yet: the round judges
it as any other. Where the program's recorded calls are among the inputs, the first look is on those
calls alone (FunctionHarness._recorded_look: inflate_fast's 11, where its generated inputs took 38 s),
and a candidate that passes them gets the first pass of its timing on them (Judge.first_look): one that
pass shows no faster has that verdict at once; all are judged again with the whole harness. The editor
only (the pipeline's on_update): the command line gives every verdict at once, and the first look costs
the whole run a few seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .judge import Judge
from .model import Candidate, CandidateResult
from .verify.function_check import FunctionHarness

CANDIDATES = 2  # the most candidates checked on the first inputs; the first verdict there ends it


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

    def verdict(self, harness: FunctionHarness | None, r: CandidateResult | None) -> CandidateResult | None:
        """The first look's verdict on a drawn candidate where it stands with the whole harness, else None."""
        if r is None or self.early is None or harness is None or not harness.same_inputs(self.early):
            return None
        return r
