"""Seconds spent per stage, added up into a dict (a function's or a candidate's `stage_seconds`)."""

from __future__ import annotations

import time
from contextlib import contextmanager


class Stopwatch:
    def __init__(self, into: dict):
        self.into = into

    @contextmanager
    def __call__(self, stage: str):
        t = time.perf_counter()
        try:
            yield
        finally:
            self.into[stage] = self.into.get(stage, 0.0) + time.perf_counter() - t
