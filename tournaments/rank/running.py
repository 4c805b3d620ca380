"""The standings and head-to-head tables of games that keep coming (a league's): their sums
kept between refreshes, so a refresh costs the new games and one Elo fit, not every game again.

The Elo is refitted on every game at each refresh (one fit is quick); the bootstrap behind its
± intervals is two hundred refits, so it is drawn a CPU budget at a time, and until the
bootstrap of the latest games is done, the tables show the last finished bootstrap's
intervals around the new Elo (`Tables.resampled` says of how many games). With the bootstrap
drawn to its end the tables are exactly `tables.standings` and `tables.pairs` of the games
(in the order they were added).
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Mapping, Sequence

import msgspec

from tournaments.rank.ratings import Fitting, Rating, renamed
from tournaments.rank.tables import BotSums, PairSums, Table, plackett_luce
from tournaments.store.results import FinishedGame

BUDGET_S = 1.0
"""CPU a refresh spends at most on the bootstrap's resamples (at least one is drawn): a small
league's bootstrap is done within one refresh; a large one keeps its last intervals for a few
refreshes, and a new game still reaches the tables at the next."""


class Tables(msgspec.Struct, frozen=True):
    standings: Table
    pairs: Table
    resampled: int
    """Of how many of the games the ± intervals are (all of them once the bootstrap is
    done)."""
    drawing: bool
    """The bootstrap has resamples left: the intervals are not yet of every game."""


class RunningTables:
    """The tables of the games added so far, batch by batch (`schedule`: keep every game, as
    the Plackett–Luce columns of games of three or more seats rate them all, anew, in
    schedule order)."""

    def __init__(self, *, schedule: bool = False) -> None:
        self.games = 0
        self.schedule: list[FinishedGame] | None = [] if schedule else None
        self._bots = BotSums()
        self._pairs = PairSums()
        """The head-to-head sums, whose deal tally (`PairSums.tally`) the Elo fit reads."""
        self._version = 0
        """Counts the changes (games added, bots renamed): a bootstrap is of one version."""
        self._drawing: Fitting | None = None
        """The bootstrap under way, of how many games, of which version."""
        self._drawing_games = self._drawing_version = 0
        self._intervals: dict[str, Rating] = {}
        """The last finished bootstrap's ratings, of how many games, of which version."""
        self._intervals_games, self._intervals_version = 0, -1

    def add(self, games: Sequence[FinishedGame]) -> None:
        if not games:
            return
        self._version += 1
        self.games += len(games)
        self._bots.add(games)
        self._pairs.add(games)
        if self.schedule is not None:
            self.schedule += games

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new `names` (old → new): a bot's new version renames its older one.
        The last intervals stay shown under the new names; the bootstrap starts again, since
        names order the deals it draws."""
        self._version += 1
        self._bots.rename(names)
        self._pairs.rename(names)
        if self.schedule is not None:
            self.schedule = [_renamed_game(game, names) for game in self.schedule]
        self._intervals = {names.get(bot, bot): rating for bot, rating in self._intervals.items()}
        self._drawing = None

    @property
    def pairs(self) -> PairSums:
        """The head-to-head sums: every pair's row, and the rows changed (`touched`)."""
        return self._pairs

    def tables(self, budget_s: float = BUDGET_S, among: Collection[str] | None = None) -> Tables:
        """The standings and head-to-head tables now (some games added), the bootstrap drawn
        for up to `budget_s` of CPU (one resample at least); the head to head of the pairs
        with a bot of `among` only, if given (a league's whole table is too large to make at
        each refresh)."""
        self._resample(budget_s)
        luce = plackett_luce(self.schedule or []) if self._bots.multi else {}
        ladder = self._bots.table(self._ratings(), luce)
        order = [str(row["bot"]) for row in ladder.records()]
        return Tables(
            ladder,
            self._pairs.table(order, among),
            self._intervals_games,
            self._intervals_version != self._version,
        )

    def _resample(self, budget_s: float) -> None:
        """Draw the bootstrap under way, then, if games came since it began, that of the
        games now (its deals made only then: one bootstrap's are held at a time)."""
        began, drew = time.thread_time(), False
        while True:
            if self._drawing is None:
                if self._intervals_version == self._version:
                    return
                self._drawing = Fitting(self._pairs.tally.deals())
                self._drawing_games, self._drawing_version = self.games, self._version
            if not self._drawing.left:
                self._intervals = self._drawing.fitted().ratings()
                self._intervals_games = self._drawing_games
                self._intervals_version, self._drawing = self._drawing_version, None
                continue
            if drew and time.thread_time() - began >= budget_s:
                return
            self._drawing.draw()
            drew = True

    def _ratings(self) -> dict[str, Rating]:
        """Every bot's Elo of all the games with the last bootstrap's interval around it (the
        bootstrap's own ratings when it is of all the games; no interval for a bot it did
        not rate). The Elo is the bootstrap's under way if it is of these games, else a fit
        of each pair's totals (the same numbers: the fit reads only them)."""
        if self._intervals_version == self._version:
            return self._intervals
        if self._drawing is not None and self._drawing_version == self._version:
            current = self._drawing
        else:
            current = Fitting(self._pairs.tally.pair_totals(), bootstrap=0)
        shifted = {}
        for bot, elo in current.elo().items():
            old = self._intervals.get(bot, Rating(elo, -math.inf, math.inf))
            shifted[bot] = Rating(elo, elo - (old.elo - old.lo), elo + (old.hi - old.elo))
        return shifted


def _renamed_game(game: FinishedGame, names: Mapping[str, str]) -> FinishedGame:
    seat_set, _ = renamed(game.deal_key, names)
    bots = tuple(names.get(bot, bot) for bot in game.bots)
    return msgspec.structs.replace(game, seat_set=seat_set, bots=bots)
