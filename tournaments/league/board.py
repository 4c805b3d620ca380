"""The leaderboard and every bot's rating over time, computed from the whole store in a child
process (`python -m tournaments.league.board STORE`) and kept by the server between refreshes.

Why a child: the standings go over every game (a 10,000-game store takes about 1.5 s with its
bootstrap intervals), and done in the server's own process they would hold the trio thread —
or, in a thread, the GIL — while pages wait, and leave the games' memory behind. In a child,
pages are answered from the last board at once, the server's memory stays flat however many
games the league holds, and the numbers are `arena table`'s own (`tables.standings`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from tournaments.league.files import bot_of
from tournaments.rank.ratings import mu_series
from tournaments.rank.tables import pairs, standings
from tournaments.report.page import thinned
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame
from tournaments.store.store import Store

MIN_REFRESH_S = 5.0
"""The board is computed again at most this often, and at most a tenth of the time
(`IDLE_FACTOR`): a league that stores games all the time must not spend its cores on its own
leaderboard (at 10,000 games a board takes about 0.9 s of CPU, so it comes every 9 s or so)."""
IDLE_FACTOR = 9
"""After a refresh, the board waits at least this many times as long as the refresh took."""


class History(msgspec.Struct, frozen=True):
    """A bot's openskill mu over its games, thinned as the report thins it (the last kept)."""

    games: int
    points: list[float]


class Board(msgspec.Struct, frozen=True):
    games: int
    """Games the tables count (those of removed bots left out)."""
    standings: list[dict[str, Any]]
    """`arena table`'s standings rows, strongest first."""
    history: dict[str, History]
    """Every bot (its name: all its versions) → its rating over time."""
    pairs: list[dict[str, Any]] = []
    """`arena table`'s head-to-head rows, each pair once (the higher ranked as `bot`)."""
    made: float = 0.0
    """When it was computed (time.time())."""


EMPTY = Board(0, [], {})


def compute(store_path: Path) -> Board:
    """The board of the store at `store_path` (empty before the first game)."""
    if not store_path.exists():
        return EMPTY
    with Store(store_path, readonly=True) as store:
        everything = store.games_as_stored()
        shown = visible([game for _, game in everything], hidden(store, []))
    rows = standings(shown).records() if shown else []
    order = [str(row["bot"]) for row in rows]
    return Board(
        games=len(shown),
        standings=rows,
        history={bot: history(mus) for bot, mus in rating_histories(shown).items()},
        pairs=pairs(shown, order).records() if shown else [],
        made=time.time(),
    )


def head_to_head(board: Board, label: str) -> list[dict[str, Any]]:
    """`label`'s head-to-head rows, each from its side (`bot` is `label`)."""
    found = []
    for row in board.pairs:
        if row["bot"] == label:
            found.append(row)
        elif row["opponent"] == label:
            found.append(_other_side(row))
    return found


def _other_side(row: dict[str, Any]) -> dict[str, Any]:
    """A head-to-head row as its opponent sees it."""

    def negated(value: float | None) -> float | None:
        return None if value is None else -value

    return {
        **row,
        "bot": row["opponent"],
        "opponent": row["bot"],
        "wins": row["losses"],
        "losses": row["wins"],
        "score_pct": round(100 - row["score_pct"], 1),
        "elo": negated(row["elo"]),
        "elo_lo": negated(row["elo_hi"]),
        "elo_hi": negated(row["elo_lo"]),
        "los_pct": round(100 - row["los_pct"], 1),
        **{mine: row[theirs] for mine, theirs in _DEALS_SEEN_FROM_THE_OTHER_SIDE if theirs in row},
    }


_DEALS_SEEN_FROM_THE_OTHER_SIDE = [
    ("deals_0", "deals_2"),
    ("deals_0_5", "deals_1_5"),
    ("deals_1_5", "deals_0_5"),
    ("deals_2", "deals_0"),
]
"""A two-player pair's deals by points scored (the pentanomial) read from the opponent."""


def rating_histories(games: Sequence[FinishedGame]) -> dict[str, list[float]]:
    """Every bot's openskill mu after each game it sat in, `games` in the order they were
    stored; a bot is its name, every version (`name@hash`) counted as it."""
    return mu_series(games, bot_of)


def history(values: list[float]) -> History:
    """A rating over time as its page draws it: the report's thinning, the mu alone."""
    return History(len(values), [mu for _, mu in thinned(values)])


class BoardKeeper:
    """The last board, and the task that computes the next one after new games."""

    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        self.board = EMPTY
        self.previous: dict[str, float] = {}
        """Each bot's Elo on the board before this one: the leaderboard's "last change"."""
        self.generation = 0
        """Counts the boards made: what a page rendered from one may be kept under."""
        self._stored = trio.Event()
        self.refreshed = trio.Event()
        """Set (and replaced) each time a new board is in."""

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

    async def refresh(self) -> None:
        """Compute the board now, in a child process."""
        result = await trio.run_process(
            [sys.executable, "-m", "tournaments.league.board", str(self.store_path)],
            capture_stdout=True,
            capture_stderr=True,
            check=False,
        )
        if result.returncode != 0:
            detail = result.stderr.decode("utf-8", "replace").strip().splitlines()
            print(
                f"arena serve: the leaderboard could not be computed: {detail[-1:] or '?'}",
                file=sys.stderr,
                flush=True,
            )
            return
        board = msgspec.json.decode(result.stdout, type=Board)
        self.previous = {str(row["bot"]): float(row["elo"]) for row in self.board.standings}
        self.board = board
        self.generation += 1
        self.refreshed.set()
        self.refreshed = trio.Event()

    async def run(self) -> None:
        """Refresh after new games, until cancelled: at most every `MIN_REFRESH_S`, and idle
        at least `IDLE_FACTOR` times as long as a refresh took."""
        while True:
            began = time.monotonic()
            self._stored = trio.Event()
            await self.refresh()
            took = time.monotonic() - began
            await trio.sleep(max(MIN_REFRESH_S - took, IDLE_FACTOR * took))
            await self._stored.wait()


def main(argv: list[str]) -> int:
    sys.stdout.buffer.write(msgspec.json.encode(compute(Path(argv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
