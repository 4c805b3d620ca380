"""The executor tests' tournament of known games (`GOLDEN`), and how they are compared."""

from __future__ import annotations

import hashlib
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import msgspec

from tournaments.plan.prepare import prepare

BOTS = Path(__file__).resolve().parents[1] / "bots"


SECRET = bytes(range(32)).hex()
"""A fixed store secret, so that the deal seeds, and so the games, are known in advance."""


TOURNAMENT = """
game = "azul"
deals = 3
seed = 11
concurrency = 2
{settings}

[time]
move_ms = {move_ms}

[participants]
random = "random"
first = "{python} {bots}/healthy.py {first}"
last = "{python} {bots}/healthy.py pick=last {last}"
"""


GOLDEN = "19ad71d9ca688dd0265e8ae155b042ed531de09d6b3327eb56520668d3d304f4"
"""`digest` of the store of `TOURNAMENT` under `SECRET`: 18 games. Only a change of the games
themselves (the Azul engine, the random bot, how deals are dealt) changes it: first written by
the runner before the executor seam (commit ec95b23), then again when deal seeds were keyed by
the table (dealing version 3), again when records kept each seat's `start` (its seed; the
match id left out, as in the header), and again when `start` named the referee's time mode
(nothing else of the games changed), every executor giving the same."""


GAMES = 18
"""3 seat-sets × 3 deals × 2 rotations."""


def tournament(
    directory: Path,
    *,
    settings: str = "",
    first: str = "",
    last: str = "",
    marker: str = "",
    move_ms: int = 5000,
) -> Path:
    """`TOURNAMENT` in `directory`, its store created with `SECRET`; the file."""
    file = directory / "cup.toml"
    text = TOURNAMENT.format(
        settings=settings,
        move_ms=move_ms,
        python=sys.executable,
        bots=BOTS,
        first=f"{first} {marker}",
        last=f"{last} {marker}",
    )
    file.write_text(text)
    prepare(file).close()
    with sqlite3.connect(file.with_suffix(".sqlite")) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'secret'", (SECRET,))
    return file


def games(db: Path) -> list[Any]:
    """Every stored game as comparable data: where it sits, who sat where, scores, ranks,
    moves, faults, and its record without the times and the random match id."""
    with sqlite3.connect(db) as connection:
        names = dict(connection.execute("SELECT id, name FROM bots"))
        found = []
        for row in connection.execute(
            "SELECT id, seat_set, deal, rotation, seed, decisions, tiebreak, record FROM games "
            "ORDER BY seat_set, deal, rotation"
        ).fetchall():
            game, seat_set, deal, rotation, seed, decisions, tiebreak, record = row
            seats = connection.execute(
                "SELECT bot, score, rank, moves FROM seats WHERE game = ? ORDER BY seat", (game,)
            ).fetchall()
            faults = connection.execute(
                "SELECT seat, kind, reason, decision FROM faults WHERE game = ? ORDER BY seat",
                (game,),
            ).fetchall()
            lines = [msgspec.json.decode(line) for line in zlib.decompress(record).splitlines()]
            kept = [{k: v for k, v in line.items() if k not in ("ms", "match", "commands")}
                    for line in lines]  # fmt: skip
            for start in kept[0].get("starts", []):  # each game's match id is its own
                start.pop("match", None)
            found.append(
                (
                    ",".join(names[int(bot)] for bot in seat_set.split(",")),
                    deal,
                    rotation,
                    seed,
                    decisions,
                    tiebreak,
                    [(names[bot], score, rank, moves) for bot, score, rank, moves in seats],
                    faults,
                    kept,
                )
            )
    return found


def digest(db: Path) -> str:
    return hashlib.sha256(msgspec.json.encode(games(db))).hexdigest()


def stored(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
