"""The ladder that never ends: rounds of games where they tell the most, on the season's
tournament prepared once (`OpenSeason`).

Each round is a gauntlet of one bot — a version not yet placed first, else the bot whose
rating is least certain (openskill's sigma) — against every combination of the others, over
all its seat-sets' deals up to `batch` more than it has played: every deal in every seat
rotation, dealt and stored exactly as a tournament's (the same runner, store and deal seeds),
so no deal is played twice and a new opponent meets every deal the others met.
"""

from __future__ import annotations

import contextlib
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple

import msgspec
import trio

from tournaments.executors import Executor
from tournaments.executors.budget import Share
from tournaments.executors.checking import Checker, checking, processes_here
from tournaments.executors.choose import executor_for
from tournaments.executors.work import Delivered, UnitFailed, UnitWork
from tournaments.league.files import League
from tournaments.league.season import OpenSeason
from tournaments.plan.schedule import seat_set_count
from tournaments.play.runner import LogBudget, Runner, in_batches
from tournaments.play.running import GameListener
from tournaments.rank.ratings import OnlinePlackettLuce
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

LADDER_NICE = 5
"""The ladder's referee processes and bots run this much below the server's priority (on the
local executor): its games fill every core, and the pages and the checks of new versions must
still answer at once. Bots only compete with each other, all at the same priority, so their
clocks are as fair as in a tournament."""


class Focus:
    """What the ladder knows of every bot's games — how many, the highest deal, openskill's
    sigma — by store id: a new version takes over its bot's label (the old one's becomes
    `name@hash`) but never its id, so it is placed afresh. From the store once, then from
    each game as it is stored: a round's choice costs nothing however many games the league
    holds. (Sigma is over every game a bot played, in the order seen: a scheduling hint, not
    the tables' rating.)"""

    def __init__(self, games: Iterable[FinishedGame] = (), ids: Mapping[str, int] = {}) -> None:
        self.played: Counter[int] = Counter()
        self.top: dict[int, int] = {}
        self.ratings = OnlinePlackettLuce()
        for game in games:
            self.add(game, ids)

    def add(self, game: FinishedGame, ids: Mapping[str, int]) -> None:
        """Note `game`, its labels read as store ids by `ids` (those of the round that played
        it: a label may name a newer version by the time it is stored)."""
        bots = tuple(ids[label] for label in game.bots)
        for bot in set(bots):
            self.played[bot] += 1
            self.top[bot] = max(self.top.get(bot, -1), game.deal)
        self.ratings.add(msgspec.structs.replace(game, bots=tuple(map(str, bots))))

    def plan(self, bots: Iterable[int], last_deal: int) -> None:
        """A round was planned up to `last_deal` for the seat-sets of these bots: the next
        round of any of them starts beyond, though its games are not stored yet."""
        for bot in bots:
            self.top[bot] = max(self.top.get(bot, -1), last_deal)

    def choose(self, bots: Mapping[int, str], batch: int) -> tuple[int, int]:
        """Of the playing bots (their store ids → names), the one the next round is about —
        an unplaced one first (by name), else the least certain — and the deals its seat-sets
        play up to: `batch` more than it has played."""
        bot = min(
            bots,
            key=lambda bot: (
                self.played[bot] > 0,
                -self.ratings.sigma(str(bot)),
                bots[bot],
                bot,
            ),
        )
        return bot, self.top.get(bot, -1) + 1 + batch


OPENING = 8
"""A version's first deals of each seat-set, played in laps over every seat-set in every
rotation (`schedule.laps`: deal 0, deal 1, deals 2-3, 4-7) while it has played fewer games than
they hold: it meets every other bot from every seat before any game is repeated, and stays as
even while placed. Beyond, a unit plays a seat-set's deals on one set of bot processes."""


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
    out, and each bot's highest deal counts the deals already planned (`Focus.plan`).

    The stream ends when the league has too few bots for a game; it is cancelled from outside
    otherwise. Each round reads the playing versions afresh, so a new version joins, and a
    disabled or superseded one leaves, at the next round; and a change (`changes`: an upload, a
    version checked, a bot disabled) ends the round and its units in hand (`ends`: each after
    its game in play, the rest handed back unplayed), so that the next round starts as soon as
    a worker is free, however long units are. What an ended round did not play is played by a
    later round of one of its bots (each plays every deal its seat-sets lack)."""

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
                if change.is_set():
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
        candidate, deals = self.focus.choose(names, self.league.settings.batch)
        self.focus.plan(names, deals - 1)
        seat_sets = seat_set_count(len(players), tournament.players, True, tournament.max_seat_sets)
        opening = self.focus.played[candidate] < OPENING * seat_sets * tournament.players
        ids = {player.label: player.id for player in players}
        return Runner(
            msgspec.structs.replace(tournament, candidate=names[candidate], deals=deals),
            self.season.store,
            players,
            limits=limits,
            on_game=functools.partial(self._on_game, ids),
            on_void=self.listener.on_void,
            on_probation=self.listener.on_probation,
            on_refused=self.listener.on_refused,
            executor=self.executor,
            checker=self.checker,
            claimed=self.claimed,
            log_budget=self.log_budget,
            opening=OPENING if opening else 0,
        )

    def _on_game(self, ids: Mapping[str, int], game: FinishedGame) -> None:
        self.focus.add(game, ids)
        self.listener.on_game(game)


def noted(league: League) -> tuple[Focus, LogBudget]:
    """A `Focus` of the league's stored games and the bytes of stderr each version has kept
    (read once, when the ladder starts)."""
    budget = league.settings.logs_mb * 1024 * 1024
    if not league.store_path.exists():
        return Focus(), LogBudget(budget, {})
    with Store(league.store_path, readonly=True) as store, store.snapshot():
        ids = {label: bot for bot, label in store.labels().items()}
        return Focus(store.games(), ids), LogBudget(budget, store.log_bytes())


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
    focus, log_budget = await trio.to_thread.run_sync(noted, league)  # pages answer meanwhile
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
