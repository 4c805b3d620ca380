"""A bot's games read from a store for its page and its listings, in the league's kept child
(`child.Kept`: `python -m tournaments.league.reads`, below the server's priority): decoding
hundreds of games is tens of milliseconds of Python that the pages must not wait for."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from tournaments.league.child import Kept, serve
from tournaments.store.exclusion import hidden
from tournaments.store.results import FinishedGame
from tournaments.store.store import GameChoice, LogRow, Store

READS_NICE = 5
"""How far below the server's priority the child reads: the pages come first."""


class GamesOf(msgspec.Struct, frozen=True, tag=True):
    """The games of `bot` in the store that `choice` keeps (`Store.games_of`)."""

    store: str
    bot: str
    choice: GameChoice


class Recent(msgspec.Struct, frozen=True, tag=True):
    """The newest `count` games any version of `bot` sat in, and its `logs` newest stderr
    logs (`Store.recent_games`, `Store.logs_of`)."""

    store: str
    bot: str
    count: int
    logs: int


Request = GamesOf | Recent


class Found(msgspec.Struct, frozen=True, tag=True):
    """What a request found: the games (id, game), the store's hidden labels, the logs."""

    games: list[tuple[int, FinishedGame]]
    hidden: list[str]
    logs: list[tuple[int, str, LogRow]] = []


def answer(request: Request) -> Found:
    """Read what `request` asks for (nothing before the store exists)."""
    path = Path(request.store)
    if not path.exists():
        return Found([], [])
    with Store(path, readonly=True) as store:
        if isinstance(request, GamesOf):
            games = store.games_of(request.bot, request.choice)
            return Found(games, sorted(hidden(store, [])))
        games = store.recent_games(request.bot, request.count)
        return Found(games, sorted(hidden(store, [])), store.logs_of(request.bot, request.logs))


def reader() -> Kept[Request, Found]:
    """The league's reads (`Kept.open` while it runs)."""
    return Kept(__name__, Found, answer)


if __name__ == "__main__":
    sys.exit(serve(answer, Request, READS_NICE))
