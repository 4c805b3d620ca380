"""The ladder that never ends: rounds of games where they tell the most, on the season's
tournament prepared once (`OpenSeason`).

Each round is a lap of small blocks of games over the seat-sets that teach the standings most
(`tournaments.league.pairing`): a new version first, then every bot below a floor of games,
then the pairs never met and the bot–benchmark pairs whose score does not yet decide a grade,
then the bots furthest below a share weighted by their rating's uncertainty, each against the
opponents it has met least. A block is a seat-set's next deals, as many again as it has played
(at most `batch` and what its games take in `pairing.UNIT_S`), each unit one rotation of them
on one set of bot processes: every deal in every seat rotation, dealt and stored exactly as a
tournament's (the same runner, store and deal seeds), so no deal is played twice.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

import trio

from tournaments.executors import Executor
from tournaments.executors.budget import Share
from tournaments.executors.checking import Checker, checking, processes_here
from tournaments.executors.choose import executor_for
from tournaments.executors.work import Delivered, GameUnplayed, GameVoided, UnitFailed, UnitWork
from tournaments.league.files import League
from tournaments.league.heap import give_back_freed_memory
from tournaments.league.pairing import Focus, SeatSet, Table, thresholds
from tournaments.league.season import OpenSeason
from tournaments.play.runner import LogBudget, Refused, Runner, in_batches
from tournaments.play.running import GameListener
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

LADDER_NICE = 5
"""The ladder's referee processes and bots run this much below the server's priority (on the
local executor): its games fill every core, and the pages and the checks of new versions must
still answer at once. Bots only compete with each other, all at the same priority, so their
clocks are as fair as in a tournament."""


class Handed(NamedTuple):
    """A unit in hand: the runner of its round (which stores its games), how many of its
    games are still to come back (the entry goes with the last), and the event that ends it."""

    runner: Runner
    left: list[int]
    ends: trio.Event


class Rounds:
    """The ladder's rounds as one stream of units for one executor run. The next round is
    planned when a worker is about to be free, not once the last unit of the one before has
    ended: waiting for it would leave the other cores idle at every round's end. Rounds thus
    overlap; the games in hand are claimed (`Runner.claimed`) so that a later round leaves them
    out, and `Focus` counts the blocks already planned, so the next round spreads beyond them.

    The stream ends when the league has too few bots for a game; it is cancelled from outside
    otherwise. Each round reads the playing versions afresh, so a new version joins, and a
    disabled or superseded one leaves, at the next round; and a change (`changes`: an upload, a
    version checked, a bot disabled) ends the round and its units in hand (`ends`: each after
    its game in play, the rest handed back unplayed), so that the next round starts as soon as
    a worker is free, however long units are. What an ended round did not play, the next round
    plays first (`Focus.missed`)."""

    def __init__(
        self,
        season: OpenSeason,
        listener: GameListener,
        focus: Focus,
        changes: Callable[[], trio.Event],
        log_budget: LogBudget,
        executor: Executor | None = None,
        checker: Checker | None = None,
    ) -> None:
        self.season, self.listener, self.focus = season, listener, focus
        self.league = season.league
        self.executor = executor
        """What plays the units (told of a worker whose games do not replay)."""
        self.checker = checker
        """Where the games are replayed, when not in `deliver` (`Runner.checker`)."""
        self.log_budget = log_budget
        self.changes = changes
        self.claimed: set[tuple[str, int, int]] = set()
        self._handed: dict[int, Handed] = {}
        """id() of each unit in hand → what it belongs to."""
        self._table: tuple[SeatSet, int] = ((), 0)
        """The seat-set and first deal of the table the runner took last (its units being
        handed out)."""

    def units(self) -> Iterator[UnitWork]:
        while True:
            change = self.changes()  # before the round reads the versions: none is missed
            runner = self._plan()
            if runner is None:
                return
            handed = False
            for work in runner.work():
                self._handed[id(work)] = Handed(runner, [len(work.deals)], change)
                handed = True
                yield work
                if change.is_set():  # the next round plays first what this one's table lacks
                    self.focus.missed(*self._table)
                    break
            if not handed:  # every game of the round stored or in hand: nothing new to play
                return

    def deliver(self, work: UnitWork, result: Delivered) -> None:
        handed = self._handed[id(work)]
        if isinstance(result, UnitFailed):  # not a game: the unit's games still come
            handed.runner.deliver(work, result)
            return
        handed.left[0] -= 1
        if not handed.left[0]:
            del self._handed[id(work)]
        if isinstance(result, GameUnplayed | GameVoided):
            self.focus.missed(work.seat_set, result.deal)
        handed.runner.deliver(work, result)

    def ends(self, work: UnitWork) -> trio.Event:
        """The event that ends `work` (a unit in hand) between two games: the next change
        after its round was planned."""
        return self._handed[id(work)].ends

    def runner_of(self, work: UnitWork) -> Runner:
        """The runner of the round `work` (a unit in hand) belongs to."""
        return self._handed[id(work)].runner

    def _plan(self) -> Runner | None:
        """The next round's runner, on the season's store; None with too few bots for a
        game."""
        season = self.season
        tournament, players, limits = season.tournament, season.players(), season.limits
        if len(players) < tournament.players:
            return None
        names = {player.id: player.entrant.name for player in players}
        settings = self.league.settings
        house = self.league.tournament.participants
        marks = thresholds(settings)
        tables = self.focus.choose(names, tournament.players, settings.batch, marks, house)
        ids = {player.label: player.id for player in players}
        return Runner(
            tournament,
            self.season.store,
            players,
            limits=limits,
            on_game=functools.partial(self._on_game, ids),
            on_void=self.listener.on_void,
            on_probation=self.listener.on_probation,
            on_refused=functools.partial(self._on_refused, ids),
            executor=self.executor,
            checker=self.checker,
            claimed=self.claimed,
            log_budget=self.log_budget,
            tables=self._taken(tables),
        )

    def _taken(self, tables: Iterable[Table]) -> Iterator[Table]:
        """`tables` as the runner takes them, the last one kept (`_table`)."""
        for table in tables:
            self._table = (table[0], table[1].start)
            yield table

    def _on_game(self, ids: Mapping[str, int], game: FinishedGame) -> None:
        self.focus.add(game, ids)
        self.listener.on_game(game)

    def _on_refused(self, ids: Mapping[str, int], refused: Refused) -> None:
        self.focus.missed(tuple(sorted(ids[label] for label in refused.bots)), refused.deal)
        self.listener.on_refused(refused)


async def noted(league: League) -> tuple[Focus, LogBudget]:
    """A `Focus` of the league's stored games and the bytes of stderr each version has kept
    (read once, when the ladder starts), `NOTED_SLICE` games at a time in the server's thread:
    a million games are minutes of Python, which in a thread would hold the pages through the
    GIL, and between two slices the pages are answered."""
    budget = league.settings.logs_mb * 1024 * 1024
    if not league.store_path.exists():
        return Focus(), LogBudget(budget, {})
    focus = Focus(benchmarks=league.settings.benchmarks)
    # checked when the season opened it; read a slice at a time, never held whole
    with Store(league.store_path, readonly=True, check=False) as store, store.snapshot():
        ids = {label: bot for bot, label in store.labels().items()}
        for after in range(0, store.last_game(), NOTED_SLICE):
            focus.note((game for _, game in store.games_as_stored(after, after + NOTED_SLICE)), ids)
            await trio.sleep(0)
        focus.settle()
        log_bytes = store.log_bytes()
    give_back_freed_memory()  # the slices read, the columns outgrown: a sixth of the server
    return focus, LogBudget(budget, log_bytes)


NOTED_SLICE = 50
"""Games noted at once when the ladder starts: a few milliseconds of the server's thread, so
that a page asked for meanwhile, which needs several turns of the thread, waits little at
each."""


async def run_ladder(
    season: OpenSeason,
    listener: GameListener,
    changes: Callable[[], trio.Event],
    share: Share | None = None,
) -> None:
    """Play the season's rounds until cancelled, on one executor kept open from round to round
    (its referee processes are not started again for each); with too few bots, wait for the
    next change (a version uploaded or playing). `changes` gives the event the next change
    sets, taken before the work so that a change during it is not missed. `share`: the budget
    of games at once it shares with the checks and the scrimmages."""
    league = season.league
    focus, log_budget = await noted(league)
    executor = executor_for(league.tournament, nice=LADDER_NICE, share=share)
    checks = checking(processes_here()) if executor.remote else contextlib.nullcontext()
    async with executor.kept():
        with checks as checker:
            await _rounds(season, listener, changes, focus, log_budget, executor, checker)


async def _rounds(
    season: OpenSeason,
    listener: GameListener,
    changes: Callable[[], trio.Event],
    focus: Focus,
    log_budget: LogBudget,
    executor: Executor,
    checker: Checker | None,
) -> None:
    """`run_ladder`'s rounds on its executor, kept open, until cancelled."""
    while True:
        change = changes()
        rounds = Rounds(season, listener, focus, changes, log_budget, executor, checker)
        play = functools.partial(executor.run, rounds.units(), rounds.deliver, rounds.ends)
        await in_batches(season.store, play, checker)
        await change.wait()
