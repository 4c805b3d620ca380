"""Executors: where a tournament's games are played, while the runner schedules and stores.

The seam is `work`: a unit of work as plain data and `play_games`/`play_unit`, which play it
with no store and no callbacks into the runner. Each executor takes the runner's units, plays
them somewhere and hands each finished game back (`Deliver`) as it arrives; the runner, alone,
writes the store. The executors:

- `inprocess.InProcess`: trio tasks in this process, one referee for every match at once
  (nothing to keep between runs);
- `local.Local`: one referee process per match at once (`worker` is its main), so the
  referee's own CPU is spread over the cores;
- `ondask.OnDask`: tasks on a Dask cluster (`pip install '.[dask]'`), a `LocalCluster` or a
  scheduler's address.

`choose.executor_for` builds the one a tournament asks for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import Protocol

import trio

from tournaments.executors.work import Delivered, ExecutorError, UnitWork

Deliver = Callable[[UnitWork, Delivered], None]
"""Called on the coordinator's trio thread with each game of a unit, as soon as it is back, a
`GameDone` naming the worker that played it, or a `UnitFailed` (the unit is played again
elsewhere: its games still come)."""
Ends = Callable[[UnitWork], trio.Event]
"""The event that ends a unit between two games once set (asked when the unit is taken): a
league's ladder ends its units at once for a new version, and bot processes are still kept
for all of a unit's games while nothing changes."""


class Executor(Protocol):
    remote: bool
    """Whether its games come from other machines, by the thousand: the coordinator then
    replays them in processes of their own (`checking`) rather than in its own thread."""

    async def run(
        self, units: Iterator[UnitWork], deliver: Deliver, ends: Ends | None = None
    ) -> None:
        """Play every unit of `units` (taken lazily, as workers free up), delivering each game.

        With `ends`, a unit whose event is set ends after the game in play, each of its other
        games delivered as `GameUnplayed` (a Dask task plays its unit whole, at a worker out of
        reach).

        Raises `ExecutorError` when a unit cannot be played; cancellation stops every worker
        and bot it started before it returns."""
        ...

    def refuse(self, worker: str) -> None:
        """Send `worker` (a `GameDone.worker`) no more units: a game it played did not replay
        (`verify`) or was not confirmed (`confirm`). Its units in play still come back, and
        are checked as any."""
        ...

    def kept(self) -> AbstractAsyncContextManager[None]:
        """Inside this block, what `run` starts to play units (referee processes, a cluster's
        client) outlives each run and serves the next: a league's ladder plays a short run
        after another, and would otherwise start them for every one. Stopped when it ends."""
        ...


__all__ = ["Deliver", "Ends", "Executor", "ExecutorError"]
