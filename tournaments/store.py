"""One SQLite file per tournament: settings, bots, every finished game with its record.

Why SQLite: nothing to install, one file to copy, and transactions make resuming trivial. Each
game is written in one transaction under a unique key (seat-set, deal, rotation), so a runner
killed at any instant (even `kill -9`) leaves only whole games behind, and a second run skips
exactly those. WAL mode lets `arena table` read while a run is writing; `synchronous=NORMAL`
is durable against a killed process (only a power cut may lose the last games, never corrupt).

Schema (version 1)::

    meta(key PRIMARY KEY, value)          -- 'schema' = '1'; 'settings' = JSON (game, players,
                                          --   options, time, seed: what the games depend on);
                                          --   'config' = JSON of the tournament file last run
    bots(id PRIMARY KEY, name, command, hash, added, created, UNIQUE(name, hash))
                                          -- a changed bot (new hash) is a new row;
                                          --   added = 1 when it came from `arena add`
    games(id PRIMARY KEY, seat_set, deal, rotation, seed, finished, wall_ms, decisions,
          tiebreak, record, UNIQUE(seat_set, deal, rotation))
                                          -- seat_set: bot ids of rotation 0, comma-separated;
                                          --   record: zlib-compressed game record
    seats(game, seat, bot, score, rank, moves, think_ms, PRIMARY KEY(game, seat))
    faults(game, seat, kind, reason, decision)
"""

from __future__ import annotations

import datetime
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from tournaments.results import FaultRow, FinishedGame, Played

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    command TEXT NOT NULL,
    hash TEXT NOT NULL,
    added INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    UNIQUE (name, hash)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    seat_set TEXT NOT NULL,
    deal INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    finished TEXT NOT NULL,
    wall_ms REAL NOT NULL,
    decisions INTEGER NOT NULL,
    tiebreak TEXT NOT NULL,
    record BLOB NOT NULL,
    UNIQUE (seat_set, deal, rotation)
);
CREATE TABLE IF NOT EXISTS seats (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    bot INTEGER NOT NULL REFERENCES bots(id),
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    think_ms REAL NOT NULL,
    PRIMARY KEY (game, seat)
);
CREATE INDEX IF NOT EXISTS seats_bot ON seats (bot);
CREATE TABLE IF NOT EXISTS faults (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    decision INTEGER
);
CREATE INDEX IF NOT EXISTS faults_game ON faults (game);
"""


class StoreError(Exception):
    """The store cannot serve this tournament: another tournament's file, or a newer schema."""


class BotRow(msgspec.Struct, frozen=True):
    id: int
    name: str
    command: str
    hash: str
    added: bool


def seat_set_key(bot_ids: Sequence[int]) -> str:
    return ",".join(str(bot) for bot in bot_ids)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


class Store:
    """A tournament's SQLite file. Not thread-safe: use it from one thread (trio's is fine)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        # isolation_level=None: no implicit transactions; `_transaction` says where they are.
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the store {self.path}: {exc}") from None
        try:
            self._setup()
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"{self.path}: not a usable tournament store ({exc})") from None
            raise

    def _setup(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA busy_timeout=10000")
        with self._transaction():
            # executescript would COMMIT first; run the statements inside this transaction.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        version = self._meta("schema")
        if version != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema {version}, this arena reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (KeyboardInterrupt included)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # ---- settings ---------------------------------------------------------------------------

    def settings(self) -> dict[str, Any] | None:
        """The settings this store is bound to, or None for a new store."""
        value = self._meta("settings")
        return None if value is None else dict(msgspec.json.decode(value))

    def bind(self, settings: dict[str, Any]) -> None:
        """Tie a new store to `settings`, or check an existing store was made with the same.

        Games played under another seed, time control or options would be silently mixed into
        the ratings, so a mismatch is an error that names every differing setting.
        """
        stored = self.settings()
        if stored is None:
            with self._transaction():
                self._db.execute(
                    "INSERT INTO meta VALUES ('settings', ?)",
                    (msgspec.json.encode(settings).decode(),),
                )
            return
        wanted = msgspec.json.decode(msgspec.json.encode(settings))
        differ = [
            f"{key}: stored {stored.get(key)!r}, now {wanted.get(key)!r}"
            for key in sorted(stored.keys() | wanted.keys())
            if stored.get(key) != wanted.get(key)
        ]
        if differ:
            raise StoreError(
                f"{self.path} holds a tournament with other settings ({'; '.join(differ)}); "
                "restore them or use another store (--db)"
            )

    def save_config(self, config: dict[str, Any]) -> None:
        """Keep the tournament file as last run (participants and deals may change per run)."""
        with self._transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('config', ?)",
                (msgspec.json.encode(config).decode(),),
            )

    def config(self) -> dict[str, Any] | None:
        value = self._meta("config")
        return None if value is None else dict(msgspec.json.decode(value))

    # ---- bots -------------------------------------------------------------------------------

    def bot(self, name: str, command: str, content_hash: str, *, added: bool = False) -> BotRow:
        """The row of this exact bot (name and content hash), created if new."""
        with self._transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO bots (name, command, hash, added, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, command, content_hash, int(added), _now()),
            )
            if added:
                self._db.execute(
                    "UPDATE bots SET added = 1 WHERE name = ? AND hash = ?", (name, content_hash)
                )
        row = self._db.execute(
            "SELECT id, name, command, hash, added FROM bots WHERE name = ? AND hash = ?",
            (name, content_hash),
        ).fetchone()
        return BotRow(row[0], row[1], row[2], row[3], bool(row[4]))

    def bots(self) -> list[BotRow]:
        rows = self._db.execute("SELECT id, name, command, hash, added FROM bots ORDER BY id")
        return [BotRow(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def added_bots(self) -> list[BotRow]:
        """Bots added with `arena add` (newest entry per name): they join every later run."""
        newest: dict[str, BotRow] = {}
        for row in self.bots():
            if row.added:
                newest[row.name] = row
        return list(newest.values())

    def labels(self) -> dict[int, str]:
        """Display name of every bot: its name, or name@hash for a superseded version.

        The newest entry of a name is "the" bot; older versions keep their games (and appear
        in tables) under a label that cannot be confused with it.
        """
        rows = self.bots()
        newest = {row.name: row.id for row in rows}
        return {
            row.id: row.name if newest[row.name] == row.id else f"{row.name}@{row.hash[:7]}"
            for row in rows
        }

    # ---- games ------------------------------------------------------------------------------

    def stored(self, seat_set: str, deals: range) -> set[tuple[int, int]]:
        """(deal, rotation) of the games of `seat_set` within `deals` already stored."""
        rows = self._db.execute(
            "SELECT deal, rotation FROM games WHERE seat_set = ? AND deal >= ? AND deal < ?",
            (seat_set, deals.start, deals.stop),
        )
        return {(deal, rotation) for deal, rotation in rows}

    def count(self, seat_set: str, deals: range) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM games WHERE seat_set = ? AND deal >= ? AND deal < ?",
            (seat_set, deals.start, deals.stop),
        ).fetchone()
        return int(row[0])

    def add_game(
        self,
        *,
        seat_set: str,
        deal: int,
        rotation: int,
        seed: int,
        bots: Sequence[int],
        played: Played,
        decisions: int,
        record: bytes,
    ) -> bool:
        """Store one finished game atomically; False (and nothing written) if already stored."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO games (seat_set, deal, rotation, seed, finished, wall_ms, "
                "decisions, tiebreak, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    seat_set,
                    deal,
                    rotation,
                    seed,
                    _now(),
                    played.wall_ms,
                    decisions,
                    played.tiebreak,
                    zlib.compress(record),
                ),
            )
            if cursor.rowcount == 0:
                return False
            game = cursor.lastrowid
            self._db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (game, seat, bot, score, rank, moves, think)
                    for seat, (bot, score, rank, moves, think) in enumerate(
                        zip(
                            bots,
                            played.scores,
                            played.ranks,
                            played.moves,
                            played.think_ms,
                            strict=True,
                        )
                    )
                ],
            )
            self._db.executemany(
                "INSERT INTO faults VALUES (?, ?, ?, ?, ?)",
                [(game, f.seat, f.kind, f.reason, f.decision) for f in played.faults],
            )
        return True

    def games(self) -> list[FinishedGame]:
        """Every stored game in schedule order (seat-set, deal, rotation): input of the tables."""
        labels = self.labels()
        seats: dict[int, list[tuple[Any, ...]]] = {}
        for row in self._db.execute(
            "SELECT game, bot, score, rank, moves, think_ms FROM seats ORDER BY game, seat"
        ):
            seats.setdefault(row[0], []).append(row[1:])
        faults: dict[int, list[FaultRow]] = {}
        for game, seat, kind, reason, decision in self._db.execute(
            "SELECT game, seat, kind, reason, decision FROM faults ORDER BY rowid"
        ):
            faults.setdefault(game, []).append(FaultRow(seat, kind, reason, decision))
        result = []
        for game, seat_set, deal, rotation, tiebreak, wall_ms in self._db.execute(
            "SELECT id, seat_set, deal, rotation, tiebreak, wall_ms FROM games "
            "ORDER BY seat_set, deal, rotation"
        ):
            rows = seats[game]
            result.append(
                FinishedGame(
                    seat_set=",".join(labels[int(b)] for b in seat_set.split(",")),
                    deal=deal,
                    rotation=rotation,
                    bots=tuple(labels[row[0]] for row in rows),
                    played=Played(
                        scores=[row[1] for row in rows],
                        ranks=[row[2] for row in rows],
                        tiebreak=tiebreak,
                        moves=[row[3] for row in rows],
                        think_ms=[row[4] for row in rows],
                        faults=faults.get(game, []),
                        wall_ms=wall_ms,
                    ),
                )
            )
        return result

    def record(self, seat_set: str, deal: int, rotation: int) -> bytes | None:
        """The game record of one stored game (decompressed), or None if not stored."""
        row = self._db.execute(
            "SELECT record FROM games WHERE seat_set = ? AND deal = ? AND rotation = ?",
            (seat_set, deal, rotation),
        ).fetchone()
        return None if row is None else zlib.decompress(row[0])
