"""The job slots: an edited function's job goes before the jobs of a file just opened, and replacement
checks last."""

from __future__ import annotations

import asyncio

from supercoder_lsp.lsp.slots import CHECK, EDITED, OPENED, Slots


async def _order(slots: Slots, queued: list[tuple[str, int]]) -> list[str]:
    ran: list[str] = []
    hold = asyncio.Event()

    async def job(name: str, priority: int, wait: asyncio.Event | None = None) -> None:
        async with slots.take(priority):
            ran.append(name)
            if wait is not None:
                await wait.wait()

    first = asyncio.create_task(job("running", OPENED, hold))
    await asyncio.sleep(0)
    tasks = []
    for name, priority in queued:
        tasks.append(asyncio.create_task(job(name, priority)))
        await asyncio.sleep(0)
    hold.set()
    await asyncio.gather(first, *tasks)
    return ran


def test_the_newest_edit_first_then_the_opened_file_in_order_then_the_checks():
    got = asyncio.run(
        _order(Slots(1), [("open1", OPENED), ("check", CHECK), ("open2", OPENED), ("edit1", EDITED), ("edit2", EDITED)])
    )
    assert got == ["running", "edit2", "edit1", "open1", "open2", "check"]


def test_a_cancelled_waiter_takes_no_slot_and_a_cancelled_holder_gives_its_slot_on():
    async def run() -> list[str]:
        slots = Slots(1)
        ran: list[str] = []
        hold = asyncio.Event()

        async def job(name: str, wait: asyncio.Event | None = None) -> None:
            async with slots.take(OPENED):
                ran.append(name)
                if wait is not None:
                    await wait.wait()

        holder = asyncio.create_task(job("holder", hold))
        await asyncio.sleep(0)
        gone = asyncio.create_task(job("gone"))
        after = asyncio.create_task(job("after"))
        await asyncio.sleep(0)
        gone.cancel()  # a newer save replaced it while it waited
        await asyncio.sleep(0)
        holder.cancel()  # and the running one is cancelled: its slot passes on
        await asyncio.gather(holder, gone, return_exceptions=True)
        await asyncio.wait_for(after, 5)
        assert slots.free == 1  # every slot back
        return ran

    assert asyncio.run(run()) == ["holder", "after"]


def test_two_slots_run_two_at_once():
    async def run() -> int:
        slots = Slots(2)
        now = top = 0

        async def job() -> None:
            nonlocal now, top
            async with slots.take(OPENED):
                now += 1
                top = max(top, now)
                await asyncio.sleep(0.01)
                now -= 1

        await asyncio.gather(*(job() for _ in range(5)))
        return top

    assert asyncio.run(run()) == 2
