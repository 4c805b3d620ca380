"""The runner: plays a tournament's missing games and stores each as it finishes.

The runner is the coordinator: it walks the schedule lazily (so memory does not grow with the
number of games), turns each unit — one rotation of some deals of one seat-set — that still has
games to play into plain data (`executors.work.UnitWork`: the bots as they run, and every
game's seed and the seats' own seeds, keyed by the store's secret, which stays here), and hands
the units to an executor (`tournaments.executors`): trio tasks in this process, referee processes
on this machine, or a Dask cluster. The executor opens each unit's bots once and plays all its
games on the same processes (a bot process start can cost more than a game); since a unit holds
one rotation, no process plays two games of the same deal. Every finished game comes back here,
is replayed with this process's own engine (`executors.verify`: a game that does not replay is
refused, kept for inspection, played again, and its worker sent no more units; one a remote
worker reports a fault in waits for the coordinator's own play of its deal, `executors.confirm`)
and is stored in a batch committed at least every second — the runner is the store's only
writer — so stopping at any moment — Ctrl-C, a crash, `kill -9` — loses at most the games in
flight or not yet committed, and the next run plays exactly the games that are not stored. A
game delivered twice (a re-run unit) is stored once. Each seat's stderr comes back as text and
is written to the log directory of the limits (`<store>.logs/`), only for the bots that wrote
something.

Recovery: a bot that crashed is restarted for the next game of its pairing (`BotHandle`). A bot
whose games end in its own fault `probation_after` times in a row is put on probation: reported
once (`on_probation`, `RunReport.probation`) so that a human looks at it, while its games go on
being played (and forfeited) so the schedule stays complete. An exception from the referee
itself (a rules engine bug) voids that game: nothing is stored, no bot is blamed, the run goes
on, and `Voided.command` is a one-line `arena match` that plays the same game again.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence

import msgspec
import trio

from referee import BotSpec, Limits
from tournaments.executors import Executor
from tournaments.executors.checking import Checker, checking, processes_here
from tournaments.executors.confirm import disagreement, to_confirm
from tournaments.executors.inprocess import InProcess
from tournaments.executors.verify import refusal
from tournaments.executors.work import (
    Deal,
    Delivered,
    GameDone,
    GameVoided,
    Result,
    Seat,
    UnitFailed,
    UnitWork,
)
from tournaments.plan.config import Tournament
from tournaments.plan.entrants import Player, odds
from tournaments.plan.schedule import (
    Unit,
    bot_seeds,
    deal_seed,
    pieces_per_seat_set,
    seat_set_count,
    seat_sets,
    seating,
    units,
)
from tournaments.store.results import FaultRow, FinishedGame
from tournaments.store.store import BATCH_S, LogRow, Store, log_file, seat_set_key


class Voided(msgspec.Struct, frozen=True):
    """A game voided by an error of the referee (not of a bot), and how to reproduce it."""

    bots: tuple[str, ...]
    deal: int
    rotation: int
    error: str
    """The exception's last line, e.g. "IndexError: list index out of range"."""
    command: str
    """One `arena match` command line that plays the same game (same seed, seats, clock)."""


class Refused(msgspec.Struct, frozen=True):
    """A game a worker sent that did not replay or was not confirmed, or a unit it failed: not
    stored, played again elsewhere."""

    worker: str
    bots: tuple[str, ...]
    deal: int
    rotation: int
    reason: str
    blocked: bool = True
    """Whether the worker is sent no more units (a failed unit counts against it; too many
    block it)."""


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
    refused: list[Refused] = []
    """Games refused because they did not replay (played again, or by the next run)."""


OnStart = Callable[[int, int], None]
"""Called once with (games in the schedule, games already stored)."""
OnGame = Callable[[FinishedGame], None]
"""Called after each game is stored."""
OnVoid = Callable[[Voided], None]
"""Called when a game is voided by a referee error."""
OnProbation = Callable[[str, str], None]
"""Called with (bot label, its last fault) when a bot goes on probation."""
OnRefused = Callable[[Refused], None]
"""Called when a worker's game is refused (it did not replay)."""
PASSES = 3
"""Times a run plays the games it refused again (on the workers not refused) before leaving
them to the next run."""


def reproduce_command(tournament: Tournament, seed: int, specs: Sequence[BotSpec]) -> str:
    """The `arena match` command line that plays this game again, outside any tournament."""
    t = tournament.time
    words = ["arena", "match", "--game", tournament.game, "--seed", str(seed)]
    for key, value in tournament.options.items():
        words += ["--option", f"{key}={msgspec.json.encode(value).decode()}"]
    words += ["--move-ms", str(t.move_ms), "--bank-ms", str(t.bank_ms)]
    words += ["--increment-ms", str(t.increment_ms), "--startup-ms", str(t.startup_ms)]
    if t.first_move_ms:
        words += ["--first-move-ms", str(t.first_move_ms)]
    words += [shlex.join(spec.command) for spec in specs]
    return shlex.join(words)


class LogBudget:
    """The bytes of stderr kept per bot label over all its games (a league's `logs_mb` per
    version): a log past it is not written, its game records it as dropped."""

    def __init__(self, limit: int, used: dict[str, int]) -> None:
        self.limit = limit
        self.used = used
        """Bytes kept so far per label (`Store.log_bytes` when the budget is made)."""

    def take(self, label: str, size: int) -> bool:
        """Whether a log of `size` bytes of `label` is kept (and counted)."""
        if self.used.get(label, 0) + size > self.limit:
            return False
        self.used[label] = self.used.get(label, 0) + size
        return True


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _safe(label: str) -> str:
    """A label as a part of a log's file name (for people; the store records whose it is)."""
    return _UNSAFE.sub("_", label)[:40] or "bot"


class Runner:
    """One run of one tournament: the schedule, the store, the bots, the executor and the
    callbacks. The executor defaults to `InProcess` with the tournament's concurrency."""

    def __init__(
        self,
        tournament: Tournament,
        store: Store,
        players: Sequence[Player],
        *,
        limits: Limits,
        executor: Executor | None = None,
        on_start: OnStart | None = None,
        on_game: OnGame | None = None,
        on_void: OnVoid | None = None,
        on_probation: OnProbation | None = None,
        on_refused: OnRefused | None = None,
        checker: Checker | None = None,
        claimed: set[tuple[str, int, int]] | None = None,
        log_budget: LogBudget | None = None,
        tables: Iterable[tuple[tuple[int, ...], range]] | None = None,
    ) -> None:
        self.tournament = tournament
        self.store = store
        self.secret = store.secret()
        self.players = {player.id: player for player in sorted(players, key=lambda p: p.id)}
        self.limits = limits
        self.executor = executor or InProcess(tournament.workers)
        self.on_start = on_start or (lambda total, stored: None)
        self.on_game = on_game or (lambda game: None)
        self.on_void = on_void or (lambda voided: None)
        self.on_probation = on_probation or (lambda label, fault: None)
        self.on_refused = on_refused or (lambda refused: None)
        self.refused: list[Refused] = []
        self.checker = checker
        """Where games are replayed before they are stored: processes of their own (games from
        other machines, `Executor.remote`), or None: in `deliver` itself."""
        self.played = 0
        self.voided: list[Voided] = []
        self.probation: list[str] = []
        self._faults_in_a_row: dict[int, int] = {}
        self.claimed = set() if claimed is None else claimed
        """The games (seat-set key, deal, rotation) handed to the executor and not yet back:
        left out of the units made meanwhile. Shared by runs on one store that overlap (a
        league's rounds), so that none plays a game another has in hand."""
        self.log_budget = log_budget
        self.tables = tables
        """The seat-sets (store ids in schedule order) and the deals of each to play, in this
        order, instead of the tournament's schedule: a league's round (`league.pairing`), taken
        as `work` hands out its units (one pass; `run` plays the tournament's schedule)."""
        self._seats = {bot: self._seat(player) for bot, player in self.players.items()}

    def _seat(self, player: Player) -> Seat:
        """A bot as a worker runs it, with the identity its files must hash to there."""
        entrant = player.entrant
        time = self.tournament.time if entrant.time is None else entrant.time
        return Seat(entrant.spec, entrant.command, entrant.hash, odds(entrant.time), time)

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
        if self.tables is not None:  # a unit per rotation of each table's deals
            return (
                unit
                for seat_set, deals in self.tables
                for unit in units([seat_set], deals.stop, 1, first=deals.start)
            )
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
        if self.limits.log_dir is not None:
            # Before any bot starts: a sandbox masks only the hidden paths that exist when it
            # is made, and a worker's bots would otherwise see this directory appear.
            os.makedirs(self.limits.log_dir, exist_ok=True)
        self.on_start(total, stored)
        if self.executor.remote:
            with checking(processes_here()) as self.checker:
                await in_batches(self.store, self._passes, self.checker)
        else:
            await in_batches(self.store, self._passes)
        return RunReport(
            total=total,
            stored_before=stored,
            played=self.played,
            voided=self.voided,
            probation=self.probation,
            refused=self.refused,
        )

    async def _passes(self) -> None:
        """The schedule's missing games, then again those refused meanwhile (`PASSES`)."""
        for _ in range(PASSES + 1):
            refused = len(self.refused)
            await self.executor.run(self.work(), self.deliver)
            if self.checker is not None:
                await self.checker.settled()
            if len(self.refused) == refused:
                return

    def work(self) -> Iterator[UnitWork]:
        """The units that still have games to play, in schedule order, as workers take them
        (each game claimed until it is delivered)."""
        t = self.tournament
        claimed = self.claimed
        for unit in self._units():
            key = seat_set_key(unit.seat_set)
            done = self.store.stored(key, unit.deals)
            dealt = {deal: seed for (deal, _), seed in done.items()}
            players = len(unit.seat_set)
            missing = [
                Deal(
                    deal,
                    # A deal already begun keeps its seed (a store made before seeds were keyed
                    # by the table dealt by the tournament seed alone): its rotations must share it.
                    dealt[deal] if deal in dealt else deal_seed(self.secret, t.seed, key, deal),
                    bot_seeds(self.secret, t.seed, deal, unit.rotation, players),
                )
                for deal in unit.deals
                if (deal, unit.rotation) not in done and (key, deal, unit.rotation) not in claimed
            ]
            if missing:
                claimed.update((key, deal.deal, unit.rotation) for deal in missing)
                yield UnitWork(
                    game=t.game,
                    options=t.options,
                    seat_set=unit.seat_set,
                    seats=[self._seats[bot] for bot in unit.seat_set],
                    rotation=unit.rotation,
                    deals=missing,
                    limits=self.limits,
                    tag=key,
                )

    def deliver(self, work: UnitWork, result: Delivered) -> None:
        """Take one game back from the executor: free it unplayed, void it, or replay it and
        then store it or refuse it (`settle`); or count a unit's failure against its worker."""
        if isinstance(result, UnitFailed):
            self._failed(work, result)
            return
        if isinstance(result, GameDone):
            if self.checker is not None:
                self.checker.check(work, result, functools.partial(self.settle, work, result))
            else:
                self.settle(work, result, refusal(work, result))
            return
        self.claimed.discard((seat_set_key(work.seat_set), result.deal, result.rotation))
        if isinstance(result, GameVoided):
            self._void(work, result)
        # GameUnplayed: its unit was ended, a later one plays it

    def settle(self, work: UnitWork, game: GameDone, reason: str | None) -> None:
        """Store a game that replays, refuse one that does not (`reason`); free its claim. A
        game a remote worker says a bot faulted in waits for the coordinator's own play of the
        same deal (`confirm`) before either."""
        if reason is None and self.checker is not None and to_confirm(game):
            self.checker.confirm(work, game, functools.partial(self._confirmed, work, game))
            return
        self.claimed.discard((seat_set_key(work.seat_set), game.deal, game.rotation))
        if reason is not None:
            self._refuse(work, game, reason)
        else:
            self._store(work.seat_set, game)

    def _confirmed(self, work: UnitWork, game: GameDone, mine: Result) -> None:
        """The coordinator played `game`'s deal itself (`mine`): the worker's game counts if
        the same seats faulted the same way; else it is refused, its worker sent no more
        units, and the coordinator's game counts instead."""
        self.claimed.discard((seat_set_key(work.seat_set), game.deal, game.rotation))
        if isinstance(mine, GameVoided):
            self._void(work, mine)
            return
        if not isinstance(mine, GameDone):  # never ended early: one game, no `ends`
            return
        differs = disagreement(game, mine)
        if differs is None:
            self._store(work.seat_set, game)
            return
        self._refuse(work, game, f"not confirmed: {differs}")
        self._store(work.seat_set, mine)

    def _failed(self, work: UnitWork, failed: UnitFailed) -> None:
        """Count a unit its worker failed against it (the executor plays it again elsewhere)."""
        key = seat_set_key(work.seat_set)
        self.store.add_failure(
            worker=failed.worker, seat_set=key, rotation=work.rotation, reason=failed.reason
        )
        seated = seating(work.seat_set, work.rotation)
        bots = tuple(self.players[bot].label for bot in seated)
        first = work.deals[0].deal if work.deals else -1
        why = f"its unit of seat-set {key} rotation {work.rotation} failed: {failed.reason}"
        self.on_refused(Refused(failed.worker, bots, first, work.rotation, why, failed.blocked))

    def _refuse(self, work: UnitWork, game: GameDone, reason: str) -> None:
        """Keep the game for inspection, send its worker no more units, and say so."""
        worker = game.worker or "this process"
        self.store.add_refused(
            worker=worker,
            seat_set=seat_set_key(work.seat_set),
            deal=game.deal,
            rotation=game.rotation,
            reason=reason,
            record=game.record,
        )
        self.executor.refuse(worker)
        seated = seating(work.seat_set, game.rotation)
        bots = tuple(self.players[bot].label for bot in seated)
        refused = Refused(worker, bots, game.deal, game.rotation, reason)
        self.refused.append(refused)
        self.on_refused(refused)

    def _logs(self, seated: Sequence[int], game: GameDone) -> list[tuple[LogRow, str]]:
        """Each seat's log of `game` as it will be recorded, with the text to write (none for a
        bot whose logs are over their budget: recorded as dropped)."""
        if self.limits.log_dir is None:
            return []
        kept = []
        for seat, text in game.logs:
            label = self.players[seated[seat]].label
            size = len(text.encode("utf-8", "replace"))
            dropped = self.log_budget is not None and not self.log_budget.take(label, size)
            row = LogRow(seat, f"seat{seat}-{_safe(label)}.log", size, dropped)
            kept.append((row, "" if dropped else text))
        return kept

    def _write_logs(self, game_id: int, logs: list[tuple[LogRow, str]]) -> None:
        """Write the kept logs of the stored game `game_id` to the log directory."""
        assert self.limits.log_dir is not None
        os.makedirs(self.limits.log_dir, exist_ok=True)
        for row, text in logs:
            if not row.dropped:
                path = os.path.join(self.limits.log_dir, log_file(game_id, row.file))
                with open(path, "w", encoding="utf-8", errors="replace") as file:
                    file.write(text)

    def _void(self, work: UnitWork, game: GameVoided) -> None:
        seated = seating(work.seat_set, game.rotation)
        seed = next(deal.seed for deal in work.deals if deal.deal == game.deal)
        specs = [self.players[bot].entrant.spec for bot in seated]
        voided = Voided(
            bots=tuple(self.players[bot].label for bot in seated),
            deal=game.deal,
            rotation=game.rotation,
            error=game.error,
            command=reproduce_command(self.tournament, seed, specs),
        )
        self.voided.append(voided)
        self.on_void(voided)

    def _watch(self, seated: Sequence[int], faults: Sequence[FaultRow]) -> None:
        """Count each bot's faulty games in a row; put it on probation at the threshold."""
        threshold = self.tournament.probation_after
        faulty = {fault.seat: fault for fault in faults}
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

    def _store(self, ids: tuple[int, ...], game: GameDone) -> None:
        seated = seating(ids, game.rotation)
        logs = self._logs(seated, game)
        stored = self.store.add_game(
            seat_set=seat_set_key(ids),
            deal=game.deal,
            rotation=game.rotation,
            seed=game.seed,
            bots=seated,
            played=game.played,
            decisions=game.decisions,
            record=game.record,
            logs=[row for row, _ in logs],
            worker=game.worker,
        )
        if stored is None:  # delivered again by a re-run unit: counted and reported once
            return
        if logs:
            self._write_logs(stored, logs)
        self.played += 1
        self.on_game(
            FinishedGame(
                seat_set=",".join(self.players[bot].label for bot in ids),
                deal=game.deal,
                rotation=game.rotation,
                bots=tuple(self.players[bot].label for bot in seated),
                played=game.played,
            )
        )
        self._watch(seated, game.played.faults)


async def in_batches(
    store: Store, play: Callable[[], Awaitable[None]], checker: Checker | None = None
) -> None:
    """`play()`, with `store` keeping its games in batches (`Store.batched`), each committed
    within `BATCH_S` of its first game even while no other game comes; and `checker`'s
    processes serving meanwhile (their checks settled before it ends)."""
    error: BaseException | None = None
    with store.batched():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_commit_when_due, store)
            if checker is not None:
                for _ in range(checker.processes):
                    nursery.start_soon(checker.serve)
                nursery.start_soon(checker.confirming)
            try:
                await play()
                if checker is not None:
                    await checker.settled()
            except BaseException as exc:  # raised outside: callers see it, not a group around it
                error = exc
            nursery.cancel_scope.cancel()
    if error is not None:
        raise error


async def _commit_when_due(store: Store) -> None:
    while True:
        await trio.sleep(BATCH_S / 4)
        store.commit_due()
