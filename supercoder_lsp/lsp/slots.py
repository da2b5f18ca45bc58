"""The background jobs' slots (settings.parallel_jobs), handed out by priority rather than in arrival order:
the job of a function the user just edited first (the newest edit first), then the jobs of a file's other
functions in their ranked order, then the replacement checks (they serve a code action, not a hint). A job
waiting behind others of a file just opened no longer waits for all of them after the user edits its
function."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

EDITED, OPENED, CHECK = 0, 1, 2


class Slots:
    def __init__(self, n: int):
        self.free = n
        self._waiting: list[tuple[int, int, asyncio.Future]] = []
        self._seq = itertools.count()

    @asynccontextmanager
    async def take(self, priority: int) -> AsyncIterator[None]:
        if self.free > 0 and not self._waiting:
            self.free -= 1
        else:
            seq = next(self._seq)
            granted: asyncio.Future = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (priority, -seq if priority == EDITED else seq, granted))
            try:
                await granted
            except asyncio.CancelledError:
                if granted.done() and not granted.cancelled():
                    self._give_back()  # handed over as it was cancelled: the next one gets it
                else:
                    self._waiting = [w for w in self._waiting if w[2] is not granted]
                    heapq.heapify(self._waiting)
                raise
        try:
            yield
        finally:
            self._give_back()

    def _give_back(self) -> None:
        while self._waiting:
            _, _, granted = heapq.heappop(self._waiting)
            if not granted.done():
                granted.set_result(None)
                return
        self.free += 1
