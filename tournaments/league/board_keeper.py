"""The server's side of the league's board: the last board, and the task that asks the board's
child (`board`) for the next one after new games."""

from __future__ import annotations

import sys
import time
from collections.abc import Collection
from pathlib import Path

import trio

from protocol.errors import ArenaError
from tournaments.league.board import (
    EMPTY,
    Keeping,
    Refresh,
    Refreshed,
)
from tournaments.league.kept import Kept

MIN_REFRESH_S = 5.0
"""The board is made again at most this often, and its child busy at most a tenth of the time
(`IDLE_FACTOR`): a league that stores games all the time must not spend its cores on its own
leaderboard."""
IDLE_FACTOR = 9
"""After a refresh, the board waits at least this many times the CPU the refresh took."""


class BoardKeeper:
    """The last board, and the task that asks the board's child for the next one after new
    games (or while its bootstrap is drawn)."""

    def __init__(self, store_path: Path, keep: Collection[str] = ()) -> None:
        self.store_path = store_path
        self.keep = sorted(keep)
        """The bots whose head to head the board holds (`Board.pairs`)."""
        self.board = EMPTY
        self.previous: dict[str, float] = {}
        """Each bot's Elo on the board before this one: the leaderboard's "last change"."""
        self.generation = 0
        """Counts the boards made: what a page rendered from one may be kept under."""
        self._stored = trio.Event()
        self.refreshed = trio.Event()
        """Set (and replaced) each time a new board is in."""
        self._child: Kept[Refresh, Refreshed] = Kept(
            Keeping.__module__, Refreshed, Keeping().refresh
        )

    def on_game(self) -> None:
        """A game was stored: the board is out of date."""
        self._stored.set()

    def start_over(self, store_path: Path) -> None:
        """A new season: its board is of its own store, empty until its first game."""
        self.store_path = store_path
        self.previous = {}
        self.board = EMPTY
        self.generation += 1
        self._stored.set()

    async def refresh(self) -> Refreshed | None:
        """Bring the board up to date now (None: it could not be, the log says why)."""
        asked = self.store_path
        try:
            refreshed = await self._child.ask(Refresh(str(asked), keep=self.keep))
        except ArenaError as exc:
            print(
                f"arena serve: the leaderboard could not be computed: {exc}",
                file=sys.stderr,
                flush=True,
            )
            return None
        if asked != self.store_path:  # a new season began meanwhile: its board comes next
            return refreshed
        self.previous = {str(row["bot"]): float(row["elo"]) for row in self.board.standings}
        self.board = refreshed.board
        self.generation += 1
        self.refreshed.set()
        self.refreshed = trio.Event()
        return refreshed

    async def run(self) -> None:
        """Refresh after new games (or while the bootstrap is drawn), until cancelled: at most
        every `MIN_REFRESH_S`, and idle at least `IDLE_FACTOR` times the CPU a refresh took."""
        async with self._child.open():
            while True:
                began = time.monotonic()
                self._stored = trio.Event()
                refreshed = await self.refresh()
                cpu = refreshed.cpu_s if refreshed else time.monotonic() - began
                took = time.monotonic() - began
                await trio.sleep(max(MIN_REFRESH_S - took, IDLE_FACTOR * cpu))
                if refreshed is None or not refreshed.drawing:
                    await self._stored.wait()
