"""The concurrent runner: plays a tournament's missing games and stores each as it finishes.

Workers (trio tasks, `workers` of them) take units — one rotation of some deals of one seat-set
— from a channel fed lazily from the schedule, so memory does not grow with the number of games.
A worker opens the unit's bots once and plays all its games on the same processes (a bot process
start can cost more than a game); since a unit holds one rotation, no process plays two games of
the same deal. Every game's seed and the seats' own seeds are keyed by the store's secret
(`tournaments.schedule`), which no bot can reach. Each finished game is stored in its own
transaction before the next starts, so stopping at any moment — Ctrl-C, a crash, `kill -9` —
loses at most the games in flight, and the next run plays exactly the games that are not stored.

Recovery: a bot that crashed is restarted for the next game of its pairing (`BotHandle`). A bot
whose games end in its own fault `probation_after` times in a row is put on probation: reported
once (`on_probation`, `RunReport.probation`) so that a human looks at it, while its games go on
being played (and forfeited) so the schedule stays complete. An exception from the referee
itself (a rules engine bug) voids that game: nothing is stored, no bot is blamed, the run goes
on, and `Voided.command` is a one-line `arena match` that plays the same game again.
"""

from __future__ import annotations

import shlex
import time
import traceback
from collections.abc import Callable, Iterator, Sequence

import msgspec
import trio

from protocol import TimeControl
from referee import BotHandle, BotSpec, Limits, MatchOutcome, open_bots, play_match
from tournaments.config import Tournament
from tournaments.entrants import Entrant
from tournaments.results import FaultRow, FinishedGame, Played
from tournaments.schedule import (
    Unit,
    bot_seeds,
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


class Voided(msgspec.Struct, frozen=True):
    """A game voided by an error of the referee (not of a bot), and how to reproduce it."""

    bots: tuple[str, ...]
    deal: int
    rotation: int
    error: str
    """The exception's last line, e.g. "IndexError: list index out of range"."""
    command: str
    """One `arena match` command line that plays the same game (same seed, seats, clock)."""


class RunReport(msgspec.Struct, frozen=True):
    total: int
    """Games in the schedule."""
    stored_before: int
    """Of those, already stored when the run began (resumed)."""
    played: int
    voided: list[Voided] = []
    """Games the referee itself failed (not stored: the next run tries them again)."""
    probation: list[str] = []
    """Labels of the bots put on probation in this run."""


OnStart = Callable[[int, int], None]
"""Called once with (games in the schedule, games already stored)."""
OnGame = Callable[[FinishedGame], None]
"""Called after each game is stored."""
OnVoid = Callable[[Voided], None]
"""Called when a game is voided by a referee error."""
OnProbation = Callable[[str, str], None]
"""Called with (bot label, its last fault) when a bot goes on probation."""


def reproduce_command(tournament: Tournament, seed: int, specs: Sequence[BotSpec]) -> str:
    """The `arena match` command line that plays this game again, outside any tournament."""
    t = tournament.time
    words = ["arena", "match", "--game", tournament.game, "--seed", str(seed)]
    for key, value in tournament.options.items():
        words += ["--option", f"{key}={msgspec.json.encode(value).decode()}"]
    words += ["--move-ms", str(t.move_ms), "--bank-ms", str(t.bank_ms)]
    words += ["--increment-ms", str(t.increment_ms), "--startup-ms", str(t.startup_ms)]
    words += [shlex.join(spec.command) for spec in specs]
    return shlex.join(words)


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
    secret: bytes,
    limits: Limits,
    tag: str,
    times: Sequence[TimeControl] | None = None,
) -> tuple[MatchOutcome, float]:
    """Play deal `deal` with the seat-set's handles in `rotation`; the outcome and wall ms.

    `times` are the bots' time controls in the order of `handles` (the tournament's for all when
    None). The handles must not have played another rotation of this deal (see the module
    docstring).
    """
    began = time.perf_counter()
    seed = tournament.seed
    outcome = await play_match(
        tournament.game,
        tournament.options,
        deal_seed(secret, seed, deal),
        seating(handles, rotation),
        tournament.time if times is None else seating(times, rotation),
        limits=limits,
        bot_seeds=bot_seeds(secret, seed, deal, rotation, len(handles)),
        log_tag=f"{tag}.{deal}.{rotation}",
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
        on_void: OnVoid | None = None,
        on_probation: OnProbation | None = None,
    ) -> None:
        self.tournament = tournament
        self.store = store
        self.secret = store.secret()
        self.players = {player.id: player for player in sorted(players, key=lambda p: p.id)}
        self.limits = limits
        self.on_start = on_start or (lambda total, stored: None)
        self.on_game = on_game or (lambda game: None)
        self.on_void = on_void or (lambda voided: None)
        self.on_probation = on_probation or (lambda label, fault: None)
        self.played = 0
        self.voided: list[Voided] = []
        self.probation: list[str] = []
        self._faults_in_a_row: dict[int, int] = {}

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
        pieces = pieces_per_seat_set(t.deals, count, t.workers, t.players)
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
        return RunReport(
            total=total,
            stored_before=stored,
            played=self.played,
            voided=self.voided,
            probation=self.probation,
        )

    async def _feed(self, send: trio.MemorySendChannel[Unit[int]]) -> None:
        """Send the units that still have games to play, in schedule order."""
        async with send:
            for unit in self._units():
                done = self.store.stored(seat_set_key(unit.seat_set), unit.deals)
                if any((deal, unit.rotation) not in done for deal in unit.deals):
                    await send.send(unit)

    async def _work(self, receive: trio.MemoryReceiveChannel[Unit[int]]) -> None:
        async with receive:
            async for unit in receive:
                await self._play_unit(unit)

    async def _play_unit(self, unit: Unit[int]) -> None:
        """Play the unit's missing games on one set of bot processes, storing each at once."""
        ids, rotation = unit.seat_set, unit.rotation
        key = seat_set_key(ids)
        done = self.store.stored(key, unit.deals)
        specs = [self.players[bot].entrant.spec for bot in ids]
        times = [self.tournament.time_for(self.players[bot].entrant.name) for bot in ids]
        async with open_bots(specs, self.limits) as handles:
            for deal in unit.deals:
                if (deal, rotation) in done:
                    continue
                try:
                    outcome, wall_ms = await play_game(
                        self.tournament,
                        handles,
                        deal,
                        rotation,
                        secret=self.secret,
                        limits=self.limits,
                        tag=key,
                        times=times,
                    )
                except Exception as exc:  # a referee bug: see the module docstring
                    self._void(ids, deal, rotation, exc)
                    continue
                self._store(ids, deal, rotation, outcome, wall_ms)
                self._watch(seating(ids, rotation), outcome)

    def _void(self, ids: tuple[int, ...], deal: int, rotation: int, exc: Exception) -> None:
        seated = seating(ids, rotation)
        seed = deal_seed(self.secret, self.tournament.seed, deal)
        specs = [self.players[bot].entrant.spec for bot in seated]
        voided = Voided(
            bots=tuple(self.players[bot].label for bot in seated),
            deal=deal,
            rotation=rotation,
            error=traceback.format_exception_only(exc)[-1].strip(),
            command=reproduce_command(self.tournament, seed, specs),
        )
        self.voided.append(voided)
        self.on_void(voided)

    def _watch(self, seated: Sequence[int], outcome: MatchOutcome) -> None:
        """Count each bot's faulty games in a row; put it on probation at the threshold."""
        threshold = self.tournament.probation_after
        faulty = {fault.seat: fault for fault in outcome.faults}
        for seat, bot in enumerate(seated):
            if seat not in faulty:
                self._faults_in_a_row[bot] = 0
                continue
            count = self._faults_in_a_row[bot] = self._faults_in_a_row.get(bot, 0) + 1
            if threshold and count == threshold:
                label = self.players[bot].label
                self.probation.append(label)
                fault = faulty[seat]
                self.on_probation(label, f"{fault.kind}: {fault.reason}")

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
