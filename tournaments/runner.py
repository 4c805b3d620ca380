"""The concurrent runner: plays a tournament's missing games and stores each as it finishes.

Workers (trio tasks, `workers` of them) take units — some deals of one seat-set — from a channel
fed lazily from the schedule, so memory does not grow with the number of games. A worker opens
the unit's bots once and plays all its games on the same processes (a bot process start can
cost more than a game). Each finished game is stored in its own transaction before the next
starts, so stopping at any moment — Ctrl-C, a crash, `kill -9` — loses at most the games in
flight, and the next run plays exactly the games that are not stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence

import msgspec
import trio

from referee import BotHandle, Limits, MatchOutcome, open_bots, play_match
from tournaments.config import Tournament
from tournaments.entrants import Entrant
from tournaments.results import FaultRow, FinishedGame, Played
from tournaments.schedule import (
    Unit,
    deal_seed,
    pieces_per_seat_set,
    seat_set_count,
    seat_sets,
    seating,
    units,
)
from tournaments.store import Store, seat_set_key


class Player(msgspec.Struct, frozen=True):
    """A participant as the runner sees it: its store id, its label, and how to run it."""

    id: int
    label: str
    entrant: Entrant


class RunReport(msgspec.Struct, frozen=True):
    total: int
    """Games in the schedule."""
    stored_before: int
    """Of those, already stored when the run began (resumed)."""
    played: int


OnStart = Callable[[int, int], None]
"""Called once with (games in the schedule, games already stored)."""
OnGame = Callable[[FinishedGame], None]
"""Called after each game is stored."""


def played_from(outcome: MatchOutcome, wall_ms: float) -> Played:
    """The referee's outcome as the store's plain data."""
    return Played(
        scores=list(outcome.result.scores),
        ranks=list(outcome.result.ranks),
        tiebreak=outcome.result.tiebreak,
        moves=list(outcome.moves),
        think_ms=list(outcome.think_ms),
        faults=[FaultRow(f.seat, f.kind, f.reason, f.decision) for f in outcome.faults],
        wall_ms=round(wall_ms, 3),
    )


async def play_game(
    tournament: Tournament,
    handles: Sequence[BotHandle],
    deal: int,
    rotation: int,
    *,
    limits: Limits,
    tag: str,
) -> tuple[MatchOutcome, float]:
    """Play deal `deal` with the seat-set's handles in `rotation`; the outcome and wall ms."""
    began = time.perf_counter()
    outcome = await play_match(
        tournament.game,
        tournament.options,
        deal_seed(tournament.seed, deal),
        seating(handles, rotation),
        tournament.time,
        limits=limits,
        match_id=f"{tag}.{deal}.{rotation}",
    )
    return outcome, (time.perf_counter() - began) * 1000


class Runner:
    """One run of one tournament: the schedule, the store, the bots and the callbacks."""

    def __init__(
        self,
        tournament: Tournament,
        store: Store,
        players: Sequence[Player],
        *,
        limits: Limits,
        on_start: OnStart | None = None,
        on_game: OnGame | None = None,
    ) -> None:
        self.tournament = tournament
        self.store = store
        self.players = {player.id: player for player in sorted(players, key=lambda p: p.id)}
        self.limits = limits
        self.on_start = on_start or (lambda total, stored: None)
        self.on_game = on_game or (lambda game: None)
        self.played = 0

    def _seat_sets(self) -> Iterator[tuple[int, ...]]:
        t = self.tournament
        by_name = {player.entrant.name: player.id for player in self.players.values()}
        candidate = by_name[t.candidate] if t.candidate is not None else None
        return seat_sets(
            list(self.players),
            t.players,
            candidate=candidate,
            limit=t.max_seat_sets,
            seed=t.seed,
        )

    def _units(self) -> Iterator[Unit[int]]:
        t = self.tournament
        count = seat_set_count(
            len(self.players), t.players, t.candidate is not None, t.max_seat_sets
        )
        pieces = pieces_per_seat_set(t.deals, count, t.workers)
        return units(self._seat_sets(), t.deals, pieces)

    async def run(self) -> RunReport:
        t = self.tournament
        deals = range(t.deals)
        per_seat_set = t.deals * t.players
        total = stored = 0
        for seat_set in self._seat_sets():
            total += per_seat_set
            stored += self.store.count(seat_set_key(seat_set), deals)
        self.on_start(total, stored)
        send, receive = trio.open_memory_channel[Unit[int]](0)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._feed, send)
            for _ in range(t.workers):
                nursery.start_soon(self._work, receive.clone())
            await receive.aclose()
        return RunReport(total=total, stored_before=stored, played=self.played)

    async def _feed(self, send: trio.MemorySendChannel[Unit[int]]) -> None:
        """Send the units that still have games to play, in schedule order."""
        players = self.tournament.players
        async with send:
            for unit in self._units():
                key = seat_set_key(unit.seat_set)
                if self.store.count(key, unit.deals) < len(unit.deals) * players:
                    await send.send(unit)

    async def _work(self, receive: trio.MemoryReceiveChannel[Unit[int]]) -> None:
        async with receive:
            async for unit in receive:
                await self._play_unit(unit)

    async def _play_unit(self, unit: Unit[int]) -> None:
        """Play the unit's missing games on one set of bot processes, storing each at once."""
        ids = unit.seat_set
        key = seat_set_key(ids)
        done = self.store.stored(key, unit.deals)
        specs = [self.players[bot].entrant.spec for bot in ids]
        async with open_bots(specs, self.limits) as handles:
            for deal in unit.deals:
                for rotation in range(len(ids)):
                    if (deal, rotation) not in done:
                        outcome, wall_ms = await play_game(
                            self.tournament, handles, deal, rotation, limits=self.limits, tag=key
                        )
                        self._store(ids, deal, rotation, outcome, wall_ms)

    def _store(
        self, ids: tuple[int, ...], deal: int, rotation: int, outcome: MatchOutcome, wall_ms: float
    ) -> None:
        seated = seating(ids, rotation)
        played = played_from(outcome, wall_ms)
        key = seat_set_key(ids)
        stored = self.store.add_game(
            seat_set=key,
            deal=deal,
            rotation=rotation,
            seed=outcome.seed,
            bots=seated,
            played=played,
            decisions=outcome.decisions,
            record=outcome.record,
        )
        if stored:
            self.played += 1
            self.on_game(
                FinishedGame(
                    seat_set=",".join(self.players[bot].label for bot in ids),
                    deal=deal,
                    rotation=rotation,
                    bots=tuple(self.players[bot].label for bot in seated),
                    played=played,
                )
            )
