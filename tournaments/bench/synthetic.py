"""A store of many games written straight into its schema, for what must be measured at the
size of a course or a public competition (a million games among a thousand bots) without
playing them: the league's pages and standings.

A few real games of Azul are played once between random bots (`TEMPLATES`), and every stored
game is one of them re-labelled: its record's header names the game's own bots, so its page
shows and replays it. Which bot takes which seat follows a strength drawn for each bot (the
better performance in a game, strength plus Gumbel noise, takes the template's better rank):
the standings have something to find. Records are spliced, not compressed game by game: each
template's moves are deflated once, and each game's header goes before them as a stored
deflate block (`_spliced`), so that a game costs microseconds, not a compression.

Rows go in as `Store.add_game` writes them (a game, then its seats), `ROWS_PER_COMMIT` games a
transaction, into a store made by `Store`; the (bot, game) index is dropped for the load and
made again at the end by opening the store (its schema), which also checks it. The store is not
bound to settings (the league that opens it binds it to its own), and its bots' content hash is
`HASH` (a league's registry gives its versions their own).
"""

from __future__ import annotations

import datetime
import functools
import sqlite3
import struct
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import msgspec
import numpy as np
import trio

from protocol import TimeControl
from referee import BotSpec, Limits, MatchOutcome, open_bots, play_match
from tournaments.store.store import Store, seat_set_key

GAME = "azul"
TEMPLATES = 4
"""Real games played once, re-labelled into every stored game."""
ROWS_PER_COMMIT = 50_000
HASH = "synthetic"
"""The content hash of every bot of a synthetic store."""
_ADLER = 65521
"""The modulus of adler32 (RFC 1950)."""


class _Template(msgspec.Struct, frozen=True):
    """A played game ready to re-label: its header (decoded) and the rest of its record."""

    header: dict[str, object]
    deflated: bytes
    """The record after its header line, as a raw deflate stream (from a fresh compressor,
    ending in a final block)."""
    adler: int
    """The adler32 of the record after its header line."""
    length: int
    """The length of the record after its header line."""
    outcome: MatchOutcome
    seats: list[tuple[int, int, int, float]]
    """Each seat's row of `seats` after its game and bot: score, rank, moves, think_ms."""
    places: list[int]
    """Each seat's place from the best rank (ties in seat order): the game's performance of
    that place sits there."""


def synthetic_store(
    path: Path,
    bots: Sequence[str],
    games: int,
    players: int = 2,
    seed: int = 0,
    weights: Sequence[float] | None = None,
) -> list[int]:
    """Write `games` games among `bots` (`players` a game) into a new store at `path`; a bot
    takes a seat as often as its weight says, if given (else all alike). Each bot's games."""
    if len(set(bots)) < players:
        raise ValueError(f"{players} players a game need {players} distinct bots")
    if path.exists():
        raise FileExistsError(f"{path} exists: a synthetic store is written into a new file")
    templates = _templates(players, seed)
    with Store(path) as store:
        ids = [store.bot(name, "synthetic", HASH).id for name in bots]
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=len(bots))
    played = np.zeros(len(bots), dtype=np.int64)
    finished = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=OFF")  # a new file: nothing to roll back to
        db.execute("DROP INDEX seats_bot_game")
        for first in range(0, games, ROWS_PER_COMMIT):
            count = min(games, first + ROWS_PER_COMMIT) - first
            chosen = rng.integers(len(templates), size=count)
            seated = _seated(rng, strength, count, players, weights)
            played += np.bincount(seated.ravel(), minlength=len(bots))
            db.execute("BEGIN")
            game_rows, seat_rows = [], []
            for n in range(count):
                template, game, deal = templates[chosen[n]], first + n + 1, first + n
                order = [int(seated[n, place]) for place in template.places]
                outcome = template.outcome
                game_rows.append(
                    (
                        game,
                        seat_set_key([ids[bot] for bot in order]),
                        deal,
                        0,
                        outcome.seed,
                        finished,
                        0.0,
                        outcome.decisions,
                        outcome.result.tiebreak,
                        _spliced(template, [bots[bot] for bot in order]),
                    )
                )
                seat_rows += [
                    (game, seat, ids[bot], *template.seats[seat]) for seat, bot in enumerate(order)
                ]
            db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
            db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?)", seat_rows)
            db.execute("COMMIT")
    finally:
        db.close()
    Store(path).close()  # its indexes made again, WAL mode again, and checked
    return [int(n) for n in played]


def _seated(
    rng: np.random.Generator,
    strength: np.ndarray,
    games: int,
    players: int,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """For each game, its bots (indices into `strength`, distinct, drawn by `weights`) from
    the best performance to the worst, a performance being strength plus Gumbel noise."""
    chances = None if weights is None else np.asarray(weights, dtype=float) / sum(weights)

    def draw(count: int) -> np.ndarray:
        if chances is None:  # the draws of stores made before weights, unchanged
            return rng.integers(len(strength), size=(count, players))
        return rng.choice(len(strength), size=(count, players), p=chances)

    drawn = draw(games)
    while True:  # draw again the games that drew a bot twice
        ordered = np.sort(drawn, axis=1)
        twice = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not twice.any():
            break
        drawn[twice] = draw(int(twice.sum()))
    performance = strength[drawn] + rng.gumbel(size=drawn.shape)
    return np.take_along_axis(drawn, np.argsort(-performance, axis=1), axis=1)


@functools.cache
def _templates(players: int, seed: int) -> tuple[_Template, ...]:
    """The templates of games of `players`, played once a process (a bench or a test writes
    several stores)."""
    return tuple(_template(outcome) for outcome in trio.run(_play, players, seed))


async def _play(players: int, seed: int) -> list[MatchOutcome]:
    """`TEMPLATES` games of random bots (unsandboxed: the framework's own bots)."""
    command = [sys.executable, "-m", "bots.random"]
    specs = [BotSpec(f"random{seat}", command) for seat in range(players)]
    async with open_bots(specs, Limits()) as handles:
        return [
            await play_match(GAME, None, seed + n, handles, TimeControl(move_ms=1000))
            for n in range(TEMPLATES)
        ]


def _template(outcome: MatchOutcome) -> _Template:
    head, _, body = outcome.record.partition(b"\n")
    deflate = zlib.compressobj(wbits=-15)
    deflated = deflate.compress(body) + deflate.flush()
    header = msgspec.json.decode(head, type=dict[str, object])
    result = outcome.result
    seats = list(zip(result.scores, result.ranks, outcome.moves, outcome.think_ms, strict=True))
    by_rank = sorted(range(len(seats)), key=result.ranks.__getitem__)
    places = [by_rank.index(seat) for seat in range(len(seats))]
    return _Template(header, deflated, zlib.adler32(body), len(body), outcome, seats, places)


def _spliced(template: _Template, names: list[str]) -> bytes:
    """The zlib stream of the template's record with `names` in its header: the header line as
    a stored deflate block (not final, byte-aligned), then the template's deflated rest, then
    the adler32 of it all (RFC 1950, 1951)."""
    header = {**template.header, "names": names, "commands": [["synthetic"]] * len(names)}
    line = msgspec.json.encode(header) + b"\n"
    stored = struct.pack("<BHH", 0, len(line), len(line) ^ 0xFFFF) + line
    checksum = _adler32_combine(zlib.adler32(line), template.adler, template.length)
    return b"\x78\x9c" + stored + template.deflated + struct.pack(">I", checksum)


def _adler32_combine(first: int, second: int, second_length: int) -> int:
    """The adler32 of two strings joined, from each one's and the second's length (zlib's
    `adler32_combine`, which Python's zlib does not offer)."""
    low = ((first & 0xFFFF) + (second & 0xFFFF) - 1) % _ADLER
    high = (first >> 16) + (second >> 16) + second_length * (first & 0xFFFF) - second_length
    return low | (high % _ADLER) << 16
