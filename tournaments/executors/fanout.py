"""Handing units to a fixed number of workers, lazily: what the in-process and local executors
share. A unit is taken from the runner's iterator only when a worker is free (and, with a
`Share` of a budget, holds one of its slots), so the schedule is never held in memory and a
unit's missing games are looked up just before it is played."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import trio

from tournaments.executors.budget import Share
from tournaments.executors.work import UnitWork


class Taking:
    """A worker's units from the channel the workers share (`async with taking: async for unit
    in taking`), each taken with a slot of `share` held until the worker asks for its next
    unit or stops."""

    def __init__(self, receive: trio.MemoryReceiveChannel[UnitWork], share: Share | None) -> None:
        self._receive, self._share = receive, share
        self._held = False

    async def __aenter__(self) -> Taking:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._let_go()
        await self._receive.aclose()

    def __aiter__(self) -> Taking:
        return self

    async def __anext__(self) -> UnitWork:
        self._let_go()
        if self._share is not None:
            await self._share.acquire()
            self._held = True
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            self._let_go()
            raise StopAsyncIteration from None
        except BaseException:
            self._let_go()
            raise

    def _let_go(self) -> None:
        if self._held and self._share is not None:
            self._held = False
            self._share.release()


Worker = Callable[[Taking], Awaitable[None]]


async def fan_out(
    units: Iterator[UnitWork], workers: int, worker: Worker, share: Share | None = None
) -> None:
    """Run `workers` copies of `worker`, each taking units from one shared channel (a slot of
    `share` for each)."""
    send, receive = trio.open_memory_channel[UnitWork](0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_feed, units, send)
        for _ in range(workers):
            nursery.start_soon(worker, Taking(receive.clone(), share))
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
