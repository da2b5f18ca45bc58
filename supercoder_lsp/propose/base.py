"""The proposer interface: candidate assemblies for one function, N at a time.

Every proposer (compilers, replay, and the model proposers openai, hf and
vllm; propose/registry.py makes them by name) implements `propose(request, n)` and yields Candidate values tagged with
their origin. Proposers never verify or time anything: the pipeline does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..model import BuildConfig, Candidate, CFunction


@dataclass
class Feedback:
    """Why an earlier candidate was rejected (for iterative refinement)."""

    candidate: Candidate
    reason: str
    detail: str


@dataclass
class ProposalRequest:
    function: CFunction
    source_path: Path
    source_text: str
    baseline_asm: str  # the function's -O3 assembly, cut out of the file's .s
    build: BuildConfig
    workdir: Path
    feedback: list[Feedback] = field(default_factory=list)  # the previous round's rejections
    round: int = 0  # 0 for the first samples, k for the k-th refinement round


class ProposerUnavailable(RuntimeError):
    """A proposer cannot be made with these options; the message says what to do."""


class Proposer(Protocol):
    name: str
    refinable: bool  # rejected candidates can go back to it with their reasons (iterative refinement)
    note: str | None  # what went wrong in its last round, for the report (the pipeline clears it)

    def settings(self) -> dict:
        """What changes this proposer's output (goes into the cache key)."""

    def propose(self, request: ProposalRequest, n: int) -> Iterator[Candidate]:
        """Yield up to n candidates for request.function."""
