"""The in-process executor: every match in this one referee, as concurrent trio tasks.

One trio loop runs every match at once, so the referee's CPU (about as much as random bots'
own) is one core's worth however many there are; it starts nothing but the bots, and a test
that patches the rules engine in this process sees its patch applied."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Iterator

from tournaments.executors import Deliver, Ends
from tournaments.executors.budget import Share
from tournaments.executors.fanout import Taking, fan_out
from tournaments.executors.work import (
    Result,
    UnitWork,
    play_games,
    played_by,
    this_machine,
)


class InProcess:
    remote = False

    def __init__(self, workers: int, share: Share | None = None) -> None:
        self.workers = workers
        """Units played at once (each plays one match at a time)."""
        self.share = share
        """The budget of units at once this executor shares with others of its process."""
        self.name = this_machine("(in process)")

    async def run(
        self, units: Iterator[UnitWork], deliver: Deliver, ends: Ends | None = None
    ) -> None:
        async def work(receive: Taking) -> None:
            async with receive:
                async for unit in receive:
                    event = None if ends is None else ends(unit)
                    await play_games(unit, functools.partial(self._deliver, deliver, unit), event)

        await fan_out(units, self.workers, work, self.share)

    def _deliver(self, deliver: Deliver, unit: UnitWork, result: Result) -> None:
        deliver(unit, played_by(self.name, result))

    def refuse(self, worker: str) -> None:
        """Nothing to send elsewhere: this process is the only worker (the runner stops
        playing again what it keeps refusing)."""

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        """Nothing outlives a run here: its bots are a unit's own."""
        yield
