"""The replay checks of games from other machines, in processes beside the coordinator's.

A coordinator fed by many workers spends most of its time replaying their games (`verify`):
one core replays a few thousand quick games a second, so checks in its own thread would cap
the whole cluster. `Checker` replays them in a pool of processes, in batches, and settles each
game on the trio thread once its check is back (stored, or refused); the store, the claims and
the listeners stay the coordinator's alone. It also plays on the coordinator, one at a time,
the deals of the games that must be confirmed before they count (`confirm`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
from collections.abc import Callable, Iterator

import trio

from tournaments.executors.confirm import deal_of
from tournaments.executors.here import play_here
from tournaments.executors.verify import refusal
from tournaments.executors.work import GameDone, Result, UnitWork, lacking

Settle = Callable[[str | None], None]
"""Called on the trio thread with a game's refusal (None: it replays)."""
Confirmed = Callable[[Result], None]
"""Called on the trio thread with the coordinator's own play of a game's deal."""
BATCH = 64
"""Games sent to a process at once (what arrived meanwhile, at most this many)."""


def refusals(groups: list[tuple[UnitWork, list[GameDone]]]) -> list[str | None]:
    """In a checking process: the refusal of each game, in order."""
    return [refusal(unit, game) for unit, games in groups for game in games]


class Checker:
    """Checks the games handed to it (`check`) in `processes` processes."""

    def __init__(self, pool: concurrent.futures.Executor, processes: int) -> None:
        self.pool = pool
        self.processes = processes
        self._send, self._receive = trio.open_memory_channel[tuple[UnitWork, GameDone, Settle]](
            float("inf")
        )
        self._confirms, self._to_confirm = trio.open_memory_channel[
            tuple[UnitWork, GameDone, Confirmed]
        ](float("inf"))
        self._unsettled = 0
        self._settled = trio.Event()

    def check(self, unit: UnitWork, game: GameDone, settle: Settle) -> None:
        """Check `game` of `unit`, then call `settle` with its refusal (None: it replays)."""
        self._unsettled += 1
        self._send.send_nowait((unit, game, settle))

    def confirm(self, unit: UnitWork, game: GameDone, confirmed: Confirmed) -> None:
        """Play `game`'s deal on the coordinator (`confirming`), then call `confirmed` with
        that game."""
        self._unsettled += 1
        self._confirms.send_nowait((unit, game, confirmed))

    async def confirming(self) -> None:
        """Play the deals handed to `confirm`, one at a time (the coordinator's own core), and
        hand each game over; when this machine lacks what the unit needs (a runtime only the
        workers have), its play would prove nothing: the worker's game is handed back as is."""
        async for unit, game, confirmed in self._to_confirm:
            mine: list[Result] = [game]
            if not lacking(unit):
                mine = []
                await play_here(deal_of(unit, game), mine.append)
            self._unsettled -= 1
            confirmed(mine[0])
            if not self._unsettled:
                self._settled.set()

    async def settled(self) -> None:
        """Wait until every game handed over so far is settled."""
        while self._unsettled:
            self._settled = trio.Event()
            await self._settled.wait()

    async def serve(self) -> None:
        """Take what arrived (up to `BATCH`), check it in a process, settle it; again."""
        while True:
            batch = [await self._receive.receive()]
            while len(batch) < BATCH:
                try:
                    batch.append(self._receive.receive_nowait())
                except trio.WouldBlock:
                    break
            groups: dict[int, tuple[UnitWork, list[GameDone], list[Settle]]] = {}
            for unit, game, settle in batch:  # each unit crosses to the process once
                group = groups.setdefault(id(unit), (unit, [], []))
                group[1].append(game)
                group[2].append(settle)
            sent = [(unit, games) for unit, games, _ in groups.values()]
            reasons = await trio.to_thread.run_sync(self.pool.submit(refusals, sent).result)
            settles = [
                settle for _, _, group_settles in groups.values() for settle in group_settles
            ]
            for settle, reason in zip(settles, reasons, strict=True):
                self._unsettled -= 1
                settle(reason)
            if not self._unsettled:
                self._settled.set()


def processes_here() -> int:
    """Checking processes for this machine: one per core."""
    return os.cpu_count() or 1


@contextlib.contextmanager
def checking(processes: int) -> Iterator[Checker]:
    """A `Checker` with its processes (fresh interpreters: nothing forked from a process with
    threads) until the block ends; its `serve` tasks run in the caller's nursery. What it holds
    unsettled at the end is dropped (never stored: the next run plays it)."""
    context = multiprocessing.get_context("forkserver")
    pool = concurrent.futures.ProcessPoolExecutor(processes, mp_context=context)
    try:
        yield Checker(pool, processes)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
