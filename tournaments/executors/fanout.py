"""Handing units to a fixed number of workers, lazily: what the in-process and local executors
share. A unit is taken from the runner's iterator only when a worker is free, so the schedule
is never held in memory and a unit's missing games are looked up just before it is played."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import trio

from tournaments.executors.work import UnitWork

Worker = Callable[[trio.MemoryReceiveChannel[UnitWork]], Awaitable[None]]


async def fan_out(units: Iterator[UnitWork], workers: int, worker: Worker) -> None:
    """Run `workers` copies of `worker`, each taking units from one shared channel."""
    send, receive = trio.open_memory_channel[UnitWork](0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_feed, units, send)
        for _ in range(workers):
            nursery.start_soon(worker, receive.clone())
        await receive.aclose()


async def _feed(units: Iterator[UnitWork], send: trio.MemorySendChannel[UnitWork]) -> None:
    async with send:
        for unit in units:
            try:
                await send.send(unit)
            except trio.BrokenResourceError:
                # Every worker has ended, which only an error does: theirs is the one to
                # report (e.g. a full disk), not this channel's.
                return
