"""The leaderboard and every bot's rating over time, kept up to date in a child process
(`python -m tournaments.league.board`, kept by `board_keeper.BoardKeeper`) that holds the
league's tallies between refreshes and reads only the games stored since the last one.

Why a child: pages are answered from the last board at once while the next is made, the
server's memory stays flat however many games the league holds, and the fit's CPU is another
interpreter's, not the trio thread's (nor, in a thread, the GIL's). Why kept: a refresh costs
the new games and one fit, not every game again. The Elo is of every game at each refresh; its
± intervals come from a bootstrap drawn a budget at a time (`running.BUDGET_S`), so on a
large league a board may show the intervals of the last finished bootstrap (`Board.resampled`
says of how many games) while the next is drawn. Otherwise the numbers are `arena table`'s own
(`tables.standings`, `tables.pairs`), as `compute` makes them from scratch.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from threading import get_ident
from typing import Any

import msgspec

from tournaments.league.child import serve
from tournaments.league.heap import give_back_freed_memory, map_large_allocations
from tournaments.league.shelf import History, Shelf, shelf_path
from tournaments.rank.ratings import MuSeries
from tournaments.rank.running import BUDGET_S, RunningTables
from tournaments.rank.tables import other_side, pairs, standings
from tournaments.report.page import thinned
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store, bot_of

BOARD_NICE = 2
"""As the reads child: below the server's thread, whose pages a refresh would otherwise slow
when they meet on a core, and above the ladder's bots, behind whose games it would fall."""


class Board(msgspec.Struct, frozen=True):
    """What the server holds of the standings (every bot's head to head and its rating over
    time are on the board's shelf: `tournaments.league.shelf`)."""

    games: int
    """Games the tables count (those of removed bots left out)."""
    standings: list[dict[str, Any]]
    """`arena table`'s standings rows, strongest first."""
    pairs: list[dict[str, Any]] = []
    """`arena table`'s head-to-head rows of the pairs with a kept bot (`Refresh.keep`: the
    benchmarks, whose rows the grades are made of), each pair once (the higher ranked as
    `bot`)."""
    made: float = 0.0
    """When it was computed (time.time())."""
    resampled: int = 0
    """Of how many of the games the ± intervals are: `games` when they are this board's own,
    fewer while the next bootstrap is drawn (the Elo is always of every game)."""


EMPTY = Board(0, [])


def compute(store_path: Path, keep: Collection[str] = ()) -> Board:
    """The board of the store at `store_path` from scratch (empty before the first game): what
    the kept board (`Running`) equals once its bootstrap is drawn."""
    if not store_path.exists():
        return EMPTY
    with Store(store_path, readonly=True) as store:
        everything = store.games_as_stored()
        shown = [game for _, game in visible(everything, hidden(store, []))]
    rows = standings(shown).records() if shown else []
    order = [str(row["bot"]) for row in rows]
    met = pairs(shown, order).records() if shown else []
    return Board(
        games=len(shown),
        standings=rows,
        pairs=[row for row in met if row["bot"] in keep or row["opponent"] in keep],
        made=time.time(),
        resampled=len(shown),
    )


def head_to_head(board: Board, label: str) -> list[dict[str, Any]]:
    """`label`'s head-to-head rows, each from its side (`bot` is `label`)."""
    found = []
    for row in board.pairs:
        if row["bot"] == label:
            found.append(row)
        elif row["opponent"] == label:
            found.append(other_side(row))
    return found


def history(values: Sequence[float]) -> History:
    """A rating over time as its page draws it: the report's thinning, the mu alone."""
    return History(len(values), [mu for _, mu in thinned(values)])


class Running:
    """A store's board kept up to date: its tables (`RunningTables`) and its bots' ratings
    over time, added to with each batch of newly stored games that no hidden bot sat in
    (`hide`: a removal starts a `Running` anew)."""

    def __init__(
        self, store: Path, hide: set[str], labels: dict[int, str], *, schedule: bool = False
    ) -> None:
        self.store, self.hide, self.labels = store, hide, labels
        """The store's labels of its bots when its games were read (`Store.labels`): a new
        version renames its bot's older one (`name@hash`) in every game (`rename`)."""
        self.last = 0
        """The id of the last game read."""
        self.tables = RunningTables(schedule=schedule)
        self._series = MuSeries(bot_of)
        """The ratings over time of the games counted since they were last kept on the
        shelf (`keep_series`), which holds each bot's whole series."""
        self._series_kept = False
        """The shelf's series are this board's (else they are written anew)."""
        self._unshelved: set[str] = set()
        """The bots whose rating over time changed since the shelf was last written."""
        self._gone: set[str] = set()
        """The labels renamed since: their rows leave the shelf."""
        self._shelved = False
        """The shelf holds this board's rows (else it is written anew)."""

    def add(self, games: list[tuple[int, FinishedGame]]) -> None:
        """Count these games (newly stored, in the order stored)."""
        if not games:
            return
        self.last = games[-1][0]
        shown = visible([game for _, game in games], self.hide)
        self.tables.add(shown)
        for bot in self._series.add(shown):
            self._unshelved.add(bot)

    def rename(self, labels: dict[int, str]) -> bool:
        """Take the store's `labels` now, renaming the bots whose label changed; False if a
        bot counted is gone (another store at this path: start anew)."""
        names = {old: labels.get(bot) for bot, old in self.labels.items() if labels.get(bot) != old}
        if not names:
            return True
        if None in names.values():
            return False
        renaming = {old: str(new) for old, new in names.items()}
        self._gone |= renaming.keys()
        self.tables.rename(renaming)
        self._series.rename(renaming)
        self.hide = {renaming.get(bot, bot) for bot in self.hide}
        self.labels = labels
        return True

    def board(self, budget_s: float, keep: Collection[str] = ()) -> tuple[Board, bool]:
        """The board now, the bootstrap drawn for up to `budget_s` of CPU, with the head to
        head of the `keep` bots; and whether it still has resamples to draw (the intervals are
        not yet this board's own)."""
        if not self.tables.games:
            return msgspec.structs.replace(EMPTY, made=time.time()), False
        tables = self.tables.tables(budget_s, among=keep)
        board = Board(
            games=self.tables.games,
            standings=tables.standings.records(),
            pairs=tables.pairs.records(),
            made=time.time(),
            resampled=tables.resampled,
        )
        return board, tables.drawing

    def keep_series(self, shelf: Shelf, least: int = 0) -> None:
        """Move the ratings over time counted since to `shelf` once they are `least` values."""
        counted = self._series.series
        if sum(map(len, counted.values())) < least:
            return
        shelf.extend(counted, anew=not self._series_kept)
        counted.clear()
        self._series_kept = True

    def shelve(self, shelf: Shelf, order: Sequence[str]) -> None:
        """Write what changed since the last time to `shelf` (everything the first time): the
        head-to-head rows of the pairs with new games, the histories of their bots, and the
        board's `order`."""
        self.keep_series(shelf)
        changed = {bot: history(shelf.series(bot)) for bot in self._unshelved}
        sums = self.tables.pairs
        columns = [key for key, _ in sums.columns()]
        shelf.write(
            columns, sums.take_touched(), order, changed, anew=not self._shelved, gone=self._gone
        )
        self._unshelved, self._gone, self._shelved = set(), set(), True


class Refresh(msgspec.Struct, frozen=True):
    """Asks the board's child for the board of `store` now, with the head to head of the
    `keep` bots (the rest on the shelf: `shelf_path`)."""

    store: str
    budget_s: float = BUDGET_S
    keep: list[str] = []


class Refreshed(msgspec.Struct, frozen=True, tag=True):
    board: Board
    drawing: bool
    """The bootstrap has resamples left: refresh again even without new games."""
    cpu_s: float
    """The refresh's CPU time."""


class Keeping:
    """The board's child's state: the `Running` board of the store last asked for, and that
    store kept open (opening one checks all of it: a refresh must not cost the whole store),
    with its shelf."""

    def __init__(self) -> None:
        self.running: Running | None = None
        self._store: Store | None = None
        self._shelf: Shelf | None = None
        self._thread = 0
        """The thread that opened `_store`: an SQLite connection serves only it (outside the
        child, each refresh may run in another thread)."""

    def refresh(self, request: Refresh) -> Refreshed:
        """Read the games stored since the last refresh and make the board (a store not yet
        made: the empty board)."""
        began = time.thread_time()
        path = Path(request.store)
        if not path.exists():
            self.running = None
            self._close()
            return Refreshed(EMPTY, False, time.thread_time() - began)
        store = self._open(path)
        try:
            with store.snapshot():
                labels = store.labels()  # of the games read: in one snapshot with them
                running = self._running(path, hidden(store, []), labels)
                assert self._shelf is not None
                running = _count_new(store, running, labels, store.last_game(), self._shelf)
        except BaseException:
            self._close()
            raise
        running.labels = labels
        self.running = running
        board, drawing = running.board(request.budget_s, request.keep)
        assert self._shelf is not None
        running.shelve(self._shelf, [str(row["bot"]) for row in board.standings])
        give_back_freed_memory()  # the slices read, the columns grown: a third of a first board
        return Refreshed(board, drawing, time.thread_time() - began)

    def _open(self, path: Path) -> Store:
        """The store at `path`, opened (and checked) once for this thread, and its shelf."""
        if self._store is None or self._store.path != path or self._thread != get_ident():
            self._close()
            self._store, self._thread = Store(path, readonly=True), get_ident()
            self._shelf = Shelf.anew(shelf_path(path))
        return self._store

    def _close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._shelf is not None:
            self._shelf.close()
            self._shelf = None

    def _running(self, path: Path, hide: set[str], labels: dict[int, str]) -> Running:
        """The running board of `path` with these bots hidden and labels: the one kept (its
        bots renamed), or a new one (another store, a bot removed)."""
        kept = self.running
        if kept is not None and kept.store == path and kept.rename(labels) and kept.hide == hide:
            return kept
        return Running(path, hide, labels)


READ_SLICE = 2_000
"""Games read and counted at a time: the first board of a store of a million games holds a
slice of them in memory, not all (their objects, freed, would leave the child's heap at its
peak); a small slice also leaves fewer of the tallies' long-lived objects scattered among
freed ones."""
SERIES_HELD = 1 << 17
"""Ratings over time (8 bytes each) the count of many games holds before it moves them to the
shelf: a million games' are two million."""


def _count_new(
    store: Store, running: Running, labels: dict[int, str], last: int, shelf: Shelf
) -> Running:
    """`running` with the games stored after its last one through the game `last` counted, a
    slice at a time; a game of three or more seats in a store counted as two-player makes
    the count start anew keeping every game (a mixed store: `RunningTables`' schedule)."""
    after = running.last
    while after < last:
        through = min(after + READ_SLICE, last)
        new = store.games_as_stored(after, through)
        if running.tables.schedule is None and _seats_over_two(new):
            if running.tables.games:
                running, after = Running(running.store, running.hide, labels, schedule=True), 0
                continue
            running.tables.schedule = []
        running.add(new)
        running.keep_series(shelf, SERIES_HELD)
        del new
        give_back_freed_memory()  # the slice's games: the next slice's room
        after = through
    running.last = max(running.last, last)
    return running


def _seats_over_two(games: Sequence[tuple[int, FinishedGame]]) -> bool:
    return any(len(game.bots) > 2 for _, game in games)


if __name__ == "__main__":
    map_large_allocations()
    sys.exit(serve(Keeping().refresh, Refresh, BOARD_NICE))
