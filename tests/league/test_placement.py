"""A new version is placed at once, on a real server whose ladder is busy on every core: its
first game comes as soon as the games in play end (not once the units in hand are played), and
its first games meet every other bot from every seat before any is repeated."""

from __future__ import annotations

import contextlib
import datetime
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from leaguehelp import BOT, Running, token
from patience import Deadline
from tourhelp import Gate

from tournaments.league.files import League

pytestmark = pytest.mark.slow

HOUSE = ("a", "b", "c", "d")
CONCURRENCY = 2
PAIRS = len(HOUSE) * 2
"""A newcomer's opponents × rotations."""
TARGET_S = 10.0
"""The issue's target: a new version's first stored game within 10 s of `playing`."""

LEAGUE = """
game = "azul"
players = 2
concurrency = {concurrency}
sandbox = "none"

[participants]
{house}

[time]
move_ms = 600000              # a held decision never times out

[league]
uploads_per_hour = 50         # batch: the default, units of a thousand games
"""


Game = tuple[int, str, list[tuple[str, str]]]
"""A stored game: its id, when it finished (UTC), and each seat's bot (name, content hash)."""


def stored_games(league: Path, since: int = 0) -> list[Game]:
    """The games stored after the id `since`, in the order stored; each seat's bot by its
    store row, which a new version never shares with an older one (its label it does)."""
    db = league.with_suffix(".sqlite")
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as connection:
        rows = connection.execute(
            "SELECT g.id, g.finished, b.name, b.hash FROM games g JOIN seats s ON s.game = g.id "
            "JOIN bots b ON b.id = s.bot WHERE g.id > ? ORDER BY g.id, s.seat",
            (since,),
        ).fetchall()
    games: dict[int, Game] = {}
    for game_id, finished, name, hashed in rows:
        games.setdefault(game_id, (game_id, finished, []))[2].append((name, hashed))
    return list(games.values())


def plays(identity: str, game: Game) -> bool:
    return any(hashed == identity for _, hashed in game[2])


def wait_games(league: Path, identity: str, since: int, count: int, timeout: float = 180) -> None:
    """Until the version whose files hash to `identity` has played `count` games after the id
    `since` (the timeout only ends a hung test)."""
    deadline = Deadline(timeout)
    while sum(plays(identity, game) for game in stored_games(league, since)) < count:
        assert not deadline.passed(), f"{identity} has not played {count} games"
        time.sleep(0.1)


def placed(league: Path, identity: str, since: int) -> tuple[int, list[tuple[str, int]], str]:
    """Of the games stored after the id `since`: how many came before the first of the version
    of `identity` (the games in play when it became `playing`), the version's (opponent, seat)
    in each of its games, and when its first finished."""
    after = stored_games(league, since)
    first = next(n for n, game in enumerate(after) if plays(identity, game))
    pairs = []
    for _, _, seats in after[first:]:
        hashes = [hashed for _, hashed in seats]
        if identity in hashes:
            seat = hashes.index(identity)
            pairs.append((seats[1 - seat][0], seat))
    return first, pairs, after[first][1]


def seconds(earlier: str, later: str) -> float:
    parse = datetime.datetime.fromisoformat
    return (parse(later) - parse(earlier)).total_seconds()


def test_a_new_version_plays_at_once_and_meets_every_bot_from_every_seat(tmp_path: Path) -> None:
    gate = Gate(tmp_path)
    file = tmp_path / "busy.toml"
    house = "\n".join(f"{name} = {gate.bot('random')}" for name in HOUSE)
    file.write_text(LEAGUE.format(concurrency=CONCURRENCY, house=house))
    alice = token(file, "alice")
    gate.limit(2 * 40)  # 40 games of the house bots begun, then each worker holds one
    served = Running(file)
    try:
        gate.wait_held(file.with_suffix(".sqlite"), 40 - CONCURRENCY)
        # its units in hand hold about a thousand games each: a new version plays first
        for number, pick in enumerate(("0", "len(legal) - 1"), 1):
            code, answer = served.upload(
                alice, "up", "bot.py", BOT.format(pick=pick, name="up").encode()
            )
            assert code == 201, answer
            # the held games end (the second version finds none held): its check takes the
            # first slot of the games at once they free, ahead of the ladder's next games
            gate.open()
            assert served.status("up", {"playing", "rejected"})["status"] == "playing"
            since = stored_games(file)[-1][0]
            with League(file) as league:
                playing = league.registry.versions("up")[-1]
            assert playing.status == "playing" and playing.identity is not None
            wait_games(file, playing.identity, since, 2 * PAIRS)
            # games are committed in batches: count from the last that finished before it
            # became `playing`, whenever it was committed
            since = max(
                [since] + [game for game, done, _ in stored_games(file) if done < playing.updated]
            )
            before, mine, first = placed(file, playing.identity, since)
            # only the games in play when it became `playing` came before its first
            assert before <= CONCURRENCY, (number, before)
            # its first games meet every other bot from every seat, evenly
            opening = Counter(mine[: 2 * PAIRS])
            assert set(opening) == {(bot, seat) for bot in HOUSE for seat in (0, 1)}, opening
            assert max(opening.values()) <= 3, opening
            if number == 2:  # a new version of a placed bot is placed afresh, at once
                assert seconds(playing.updated, first) <= TARGET_S
    finally:
        gate.open()
        served.stop()
