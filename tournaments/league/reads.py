"""A bot's games read from a store for its page and its listings, in the league's kept child
(`kept.Kept`: `python -m tournaments.league.reads`, below the server's priority): decoding
hundreds of games is tens of milliseconds of Python that the pages must not wait for.

A page's read must cost what the page shows, however large the store: the stores' connections
are kept (`KeptStores`), opened without `PRAGMA quick_check` (a pass over the whole file) once
the store has been checked. The server checks its stores when it opens them; the child checks
the ones it reads in a thread of its own, at the lowest priority, again every `RECHECK_S`
(`Rechecks`): a store found damaged is refused with its damage from then on.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import msgspec

from tournaments.league.api_answers import FaultAnswer, GameFacts
from tournaments.league.child import serve
from tournaments.league.shelf import NO_OPPONENTS, History, Opponents, Shelf, shelf_path
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame
from tournaments.store.sqlitefile import SqliteFile, StoreError
from tournaments.store.store import GameChoice, LogRow, Store, bot_of

READS_NICE = 2
"""How far below the server's priority the child reads: below the server's thread, above the
ladder's bots (`ladder.LADDER_NICE`), whose games fill every core and would hold a bot's page
behind them."""
RECHECK_S = 600.0
"""How often the child checks again each store it reads (`PRAGMA quick_check`)."""
CHECK_NICE = 19
"""The priority of the child's checks: below everything (a check of a large store is seconds
of CPU)."""


class Sees(msgspec.Struct, frozen=True):
    """Whose logs a viewer may see: every bot's (an organiser), or the `owned` bots'."""

    every: bool = False
    owned: list[str] = []

    def __call__(self, bot: str) -> bool:
        return self.every or bot in self.owned


class GamesOf(msgspec.Struct, frozen=True, tag=True):
    """The games of `bot` in the store that `choice` keeps (`Store.games_of`), as the rows of
    its list for a viewer who `sees` these bots' logs."""

    store: str
    bot: str
    choice: GameChoice
    sees: Sees = Sees()


class Recent(msgspec.Struct, frozen=True, tag=True):
    """The newest `count` games any version of `bot` sat in (older than `before`, if given),
    its `logs` newest stderr logs (`Store.games_of`, `Store.logs_of`), and from the board's
    shelf its rating over time and `opponents` of its head-to-head rows from the
    `opponents_from`-th."""

    store: str
    bot: str
    count: int
    logs: int
    before: int | None = None
    opponents: int = 0
    opponents_from: int = 0


Request = GamesOf | Recent


class ListedGame(GameFacts, frozen=True):
    """One game of a bot's list, as a viewer may see it (the front gives its addresses)."""

    own: list[int]
    """The seats whose record with what they were sent the viewer may download: their own
    bots' (an organiser: every seat)."""
    season: int | None = None
    """The season whose ladder played it (game ids start again each season; None: a
    scrimmage's)."""


class Found(msgspec.Struct, frozen=True, tag=True):
    """What a request found: the games (id, game), the store's hidden labels, the logs, and
    of a `Recent` bot its head-to-head rows and its rating over time."""

    games: list[tuple[int, FinishedGame]]
    hidden: list[str]
    logs: list[tuple[int, str, LogRow]] = []
    opponents: Opponents = NO_OPPONENTS
    history: History | None = None
    rows: list[ListedGame] = []
    """A `GamesOf`'s list (its games left out of `games`)."""
    more: int | None = None
    """After a `GamesOf`'s full page: the id to list the next older page before."""


Opened = TypeVar("Opened", bound=SqliteFile)


class KeptFiles(Generic[Opened]):
    """One connection per file, opened by `opener` and kept open (used by one thread at a
    time). A file replaced (another inode at its path) is opened again."""

    def __init__(self, opener: Callable[[Path], Opened]) -> None:
        self.opener = opener
        self._kept: dict[Path, tuple[tuple[int, int], Opened]] = {}
        self._lock = threading.Lock()
        self.damaged: dict[Path, StoreError] = {}
        """Files a later check found damaged (`Rechecks`): refused with their error."""

    def get(self, path: Path) -> Opened | None:
        """The file at `path` (None if there is none yet)."""
        try:
            found = path.stat()
        except FileNotFoundError:
            return None
        if path in self.damaged:
            raise self.damaged[path]
        identity = (found.st_dev, found.st_ino)
        with self._lock:
            kept = self._kept.get(path)
            if kept is not None and kept[0] == identity:
                return kept[1]
            if kept is not None:
                kept[1].close()
            opened = self.opener(path)
            self._kept[path] = (identity, opened)
            return opened

    def paths(self) -> list[Path]:
        with self._lock:
            return list(self._kept)

    def close(self) -> None:
        with self._lock:
            for _, opened in self._kept.values():
                opened.close()
            self._kept.clear()


class KeptStores(KeptFiles[Store]):
    """The stores, read-only. `check`: the first opening of each store runs
    `PRAGMA quick_check`; later ones never do."""

    def __init__(self, *, check: bool) -> None:
        super().__init__(functools.partial(Store, readonly=True, check=check))


class Reads:
    """The reads of the league's pages, on stores kept open."""

    def __init__(self, stores: KeptStores) -> None:
        self.stores = stores
        self.shelves = KeptFiles(functools.partial(Shelf, readonly=True))

    def answer(self, request: Request) -> Found:
        """Read what `request` asks for (nothing before the store exists)."""
        store = self.stores.get(Path(request.store))
        if store is None:
            return Found([], [])
        with store.snapshot():
            hide = sorted(hidden(store, []))
            if isinstance(request, GamesOf):
                return _listed(request, store.games_of(request.bot, request.choice), hide)
            choice = GameChoice(count=request.count, before=request.before)
            games = store.games_of(request.bot, choice)
            logs = store.logs_of(request.bot, request.logs)
        try:
            shelf = self.shelves.get(shelf_path(Path(request.store)))
            if shelf is None:  # the board's child has not written it yet
                return Found(games, hide, logs)
            opponents = shelf.opponents(request.bot, request.opponents_from, request.opponents)
            return Found(games, hide, logs, opponents, shelf.history(request.bot))
        except StoreError:  # a damaged shelf, which the board's child makes again (`anew`)
            return Found(games, hide, logs)


class Rechecks:
    """Checks again, in a thread at `CHECK_NICE`, every store `stores` reads: the first soon
    after it is first read, then every `RECHECK_S`."""

    PAUSE_S = 5.0

    def __init__(self, stores: KeptStores) -> None:
        self.stores = stores
        self._checked: dict[Path, float] = {}

    def start(self) -> None:
        threading.Thread(target=self._run, name="rechecks", daemon=True).start()

    def _run(self) -> None:
        os.nice(CHECK_NICE)  # on Linux, this thread's priority alone
        while True:
            time.sleep(self.PAUSE_S)
            self.due()

    def due(self) -> None:
        """Check the stores not checked for `RECHECK_S` (or never)."""
        now = time.monotonic()
        for path in self.stores.paths():
            if now - self._checked.get(path, -RECHECK_S) < RECHECK_S:
                continue
            self._checked[path] = now
            try:
                Store(path, readonly=True).close()
            except StoreError as exc:
                self.stores.damaged[path] = exc


def seen(names: Sequence[str], sees: Callable[[str], bool]) -> list[int]:
    """The seats of a game of `names` (store labels) whose bot `sees` says the viewer may see
    the logs of."""
    return [seat for seat, label in enumerate(names) if sees(bot_of(label))]


def _listed(asked: GamesOf, found: list[tuple[int, FinishedGame]], hide: list[str]) -> Found:
    """The rows of the games `found` that no hidden bot sat in (`GamesOf`)."""
    rows = [
        listed_game(game_id, game, asked.bot, asked.sees) for game_id, game in visible(found, hide)
    ]
    more = found[-1][0] if len(found) == asked.choice.count else None
    return Found([], hide, rows=rows, more=more)


def listed_game(
    game_id: int, game: FinishedGame, bot: str, sees: Callable[[str], bool]
) -> ListedGame:
    """`game` as a row of `bot`'s list: its result for the bot, its faults' kinds, and the
    seats whose downloads the viewer may have (`sees`)."""
    ranks = game.played.ranks
    mine = next(seat for seat, label in enumerate(game.bots) if bot_of(label) == bot)
    firsts = ranks.count(1)
    result = "loss" if ranks[mine] != 1 else "win" if firsts == 1 else "draw"
    return ListedGame(
        id=game_id,
        seats=list(game.bots),
        scores=game.played.scores,
        ranks=ranks,
        result=result,
        faults=[FaultAnswer(f.seat, f.kind, f.decision) for f in game.played.faults],
        own=seen(game.bots, sees),
    )


def main() -> int:
    """The child: stores opened unchecked (the server checked them when it opened them), and
    checked again here in the background."""
    stores = KeptStores(check=False)
    Rechecks(stores).start()
    return serve(Reads(stores).answer, Request, READS_NICE)


if __name__ == "__main__":
    sys.exit(main())
