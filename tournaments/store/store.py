"""One SQLite file per tournament: settings, bots, every finished game with its record.

Why SQLite: nothing to install, one file to copy, and transactions make resuming trivial. Each
game is written under a unique key (seat-set, deal, rotation), in one transaction or (a runner's
games, `Store.batched`) in a batch committed at least every `BATCH_S`, so a runner killed at any
instant (even `kill -9`) leaves only whole games behind, and a second run plays exactly the
others. WAL mode lets `arena table` read while a run is writing; `synchronous=NORMAL`
is durable against a killed process (only a power cut may lose the last games, never corrupt).

The file holds the store's secret, so it is created private (mode 0600, and so are SQLite's
-wal and -shm files, which take its mode); a store opened for writing is made private if it was
not. `Store(path, readonly=True)` (what `arena table` uses) never writes into the file and
refuses one that is missing, empty or not a tournament store.

Every failure of SQLite (a full disk, an I/O error, a damaged file) surfaces as one `StoreError`
whose message says what happened, to which file, and what to do; a store is first checked with
`PRAGMA quick_check` (unless opened with `check=False` by a process that checked it already: the
league's pages). A failed write loses its game (or its batch's) only: the games committed before
stay, and the next run plays the missing ones.

Schema (version 1)::

    meta(key PRIMARY KEY, value)          -- 'schema' = '1'; 'settings' = JSON (game, players,
                                          --   options, time, seed: what the games depend on);
                                          --   'secret' = 32 random bytes (hex), see secret()
    bots(id PRIMARY KEY, name, command, hash, added, created, UNIQUE(name, hash))
                                          -- a changed bot (new hash) is a new row;
                                          --   added = 1 when it came from `arena add`
    games(id PRIMARY KEY, seat_set, deal, rotation, seed, finished, wall_ms, decisions,
          tiebreak, record, UNIQUE(seat_set, deal, rotation))
                                          -- seat_set: bot ids of rotation 0, comma-separated;
                                          --   record: zlib-compressed game record
    seats(game, seat, bot, score, rank, moves, think_ms, PRIMARY KEY(game, seat))
                                          -- indexed by (bot, game): a bot's newest games
                                          --   read without its older ones (made when a
                                          --   store is opened for writing)
    faults(game, seat, kind, reason, decision)
    excluded(bot PRIMARY KEY, since)      -- made at the first `arena remove`
    logs(game, seat, file, bytes, dropped, PRIMARY KEY(game, seat))
                                          -- made at the first stderr log kept: whose log
                                          --   each file of `<store>.logs/` is
    played_by(game PRIMARY KEY, worker)   -- made at the first game naming its worker
    refused(id PRIMARY KEY, worker, seat_set, deal, rotation, reason, at, record)
                                          -- games that did not replay (`executors.verify`)
                                          --   or were not confirmed: the first
                                          --   `REFUSED_KEPT` bytes of the record
    failed(id PRIMARY KEY, worker, seat_set, rotation, reason, at)
                                          -- units a worker failed (played again elsewhere)
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import secrets
import sqlite3
import time
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import msgspec

from referee import MAX_RECORD_BYTES, BadRecord
from tournaments.store.results import FaultRow, FinishedGame, GameKey, Played
from tournaments.store.sqlitefile import SqliteFile, StoreError, guarded

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
DROP INDEX IF EXISTS seats_bot;
CREATE INDEX IF NOT EXISTS seats_bot_game ON seats (bot, game);
CREATE TABLE IF NOT EXISTS faults (
    game INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    reason TEXT NOT NULL,
    decision INTEGER
);
CREATE INDEX IF NOT EXISTS faults_game ON faults (game);
"""

EXCLUDED_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS excluded "
    "(bot INTEGER PRIMARY KEY REFERENCES bots(id), since TEXT NOT NULL)"
)
"""The removed bots (`Store.exclude`), a table made at the first `arena remove`: a store no bot
was removed from keeps the schema older arenas read."""
LOGS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS logs (game INTEGER NOT NULL REFERENCES games(id), "
    "seat INTEGER NOT NULL, file TEXT NOT NULL, bytes INTEGER NOT NULL, "
    "dropped INTEGER NOT NULL CHECK (dropped IN (0, 1)), PRIMARY KEY (game, seat))"
)
"""The bots' stderr logs of each game (`LogRow`), recorded with the game when it is stored, made
at the first game with a log: which file is whose is read from here, never from file names."""
WORKERS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS played_by (game INTEGER PRIMARY KEY REFERENCES games(id), "
    "worker TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS played_by_worker ON played_by (worker);"
    "CREATE TABLE IF NOT EXISTS refused (id INTEGER PRIMARY KEY, worker TEXT NOT NULL, "
    "seat_set TEXT NOT NULL, deal INTEGER NOT NULL, rotation INTEGER NOT NULL, "
    "reason TEXT NOT NULL, at TEXT NOT NULL, record BLOB NOT NULL);"
    "CREATE TABLE IF NOT EXISTS failed (id INTEGER PRIMARY KEY, worker TEXT NOT NULL, "
    "seat_set TEXT NOT NULL, rotation INTEGER NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL)"
)
"""Which worker played each game, the games refused because they did not replay or were not
confirmed (kept for inspection, never counted), and the units workers failed: made at the
first game that names its worker."""
REFUSED_KEPT = 16 << 10
"""What a refused game keeps of its record: its first 16 KiB (the header and the first
decisions show what it was), so that a worker sending huge records cannot grow the store."""
REASON_KEPT = 1000
"""The characters kept of a refusal's or a failure's reason (it may quote a worker's words)."""
STORE_TABLES = frozenset({"meta", "bots", "games", "seats", "faults"})
BATCH_S = 1.0
"""The longest a batch of games (`Store.batched`) stays uncommitted."""

SECRET_BYTES = 32


P = ParamSpec("P")
R = TypeVar("R")


def _read_back(method: Callable[Concatenate[Store, P], R]) -> Callable[Concatenate[Store, P], R]:
    """`guarded`, and a value read back that is not what we wrote (a store edited by hand: an
    id naming nothing, text where a number goes, a setting that is not an object) raised as the
    store's damage instead of a TypeError deep in a table."""

    @functools.wraps(method)
    def read(self: Store, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except (StoreError, BadRecord, msgspec.DecodeError):
            raise
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise self._damaged(f"a stored value names nothing or is malformed: {exc!r}") from exc

    return guarded(read)


class WorkerRow(msgspec.Struct, frozen=True):
    """What one worker played (`arena workers`): a slow or broken machine stands out."""

    worker: str
    games: int
    decisions: int
    faults: int
    timeouts: int
    refused: int
    failed: int = 0
    """Units it failed (`failed`): played again elsewhere."""


class BotRow(msgspec.Struct, frozen=True):
    id: int
    name: str
    command: str
    hash: str
    added: bool


class LogRow(msgspec.Struct, frozen=True):
    """A seat's stderr log of a game: its file in the store's log folder, its size, and whether
    it was dropped (the bot's logs over their total cap: no file was written)."""

    seat: int
    file: str
    bytes: int
    dropped: bool = False


def log_file(game: int, name: str) -> str:
    """A game's log file name: the game's id first, then `name` (seat and bot, for people
    looking at the folder; nothing reads it back)."""
    return f"{game}-{name}"


def seat_set_key(bot_ids: Sequence[int]) -> str:
    return ",".join(str(bot) for bot in bot_ids)


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


class GameChoice(msgspec.Struct, frozen=True, kw_only=True):
    """Which of a bot's games `Store.games_of` lists (every condition must hold)."""

    content_hash: str | None = None
    """Only those of its version with this content hash."""
    opponent: str | None = None
    """Only those against this bot (any of its versions)."""
    faulted: bool = False
    """Only those where it faulted."""
    result: Literal["win", "draw", "loss"] | None = None
    """Only those it won alone, shared first place in, or did not finish first in."""
    deals: tuple[int, int] | None = None
    """Only games of these deals: (the first, how many) (a scrimmage's)."""
    before: int | None = None
    """Only games older than this id (the next page)."""
    count: int = 50


def bot_of(label: str) -> str:
    """The bot a label of `Store.labels` is a version of (`name@hash`: an older version of
    `name`)."""
    return label.split("@")[0]


class Store(SqliteFile):
    """A tournament's SQLite file. Not thread-safe: use it from one thread (trio's is fine).

    `readonly`: read an existing store without ever writing into it (no schema, no secret).
    `check=False`: no `PRAGMA quick_check` at the opening (a store this process has checked).
    """

    KIND = "tournament store"
    NOUN = "store"
    CALLED = "store"
    LOCKED = "another `arena` is writing it; wait for it to finish, or use another store (--db)"
    RESUMES = True
    RECOVERY = (
        "save the games it still holds into a new store: {recover} (if your sqlite3 has no "
        ".recover: .dump instead, with the dump's last line changed from ROLLBACK to COMMIT;), "
        "then run with --db {saved}: the games lost with the damage are played again"
    )
    MISSING_ADVICE = " (run the tournament first)"
    UNREADABLE = (zlib.error, msgspec.DecodeError)  # ValidationError included
    UNREADABLE_DETAIL = "a stored value cannot be read back"
    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(self, path: Path | str, *, readonly: bool = False, check: bool = True) -> None:
        self._batching = False
        self._batch_began: float | None = None
        self._labels: tuple[object, dict[int, str]] | None = None
        """The labels (`labels`) and the newest bot row (id, name, hash) they were made with."""
        """When the open batch began (`batched`); None: no batch open."""
        self.uncommitted = 0
        """Games in the open batch: stored as far as this connection sees, not yet durable."""
        super().__init__(path, readonly=readonly, check=check)

    def _setup(self) -> None:
        super()._setup()
        if not self.readonly:
            self._check_version()

    def _schema_made(self) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO meta VALUES ('secret', ?)",
            (secrets.token_bytes(SECRET_BYTES).hex(),),
        )

    def _check_ours(self) -> None:
        """Refuse a file that is not a store of ours, or is one with a schema changed by hand,
        before reading a row (`_check_tables`)."""
        objects = self._objects()
        if "meta" not in objects:
            what = "an empty file" if self.path.stat().st_size == 0 else "another SQLite database"
            raise StoreError(f"{self.path} is not a tournament store ({what}); nothing was changed")
        schema = ";".join((_SCHEMA, EXCLUDED_SCHEMA, LOGS_SCHEMA, WORKERS_SCHEMA))
        self._check_tables(objects, schema, STORE_TABLES)

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @guarded
    def secret(self) -> bytes:
        """The store's own 32 random bytes (secrets.token_bytes), made when it was created, or
        when an older store was first opened for writing; the same at every opening.

        What the bots must not predict is derived from it (they cannot read the store)."""
        value = self._meta("secret")
        if value is None:
            raise StoreError(f"{self.path} has no secret yet: run the tournament once to add it")
        try:
            secret = bytes.fromhex(value)
        except ValueError:
            secret = b""  # not hex: damaged, as is a secret of the wrong length
        if len(secret) != SECRET_BYTES:
            raise self._damaged(f"its secret is not {SECRET_BYTES} hex-encoded bytes")
        return secret

    # ---- settings ---------------------------------------------------------------------------

    @_read_back
    def settings(self) -> dict[str, Any] | None:
        """The settings this store is bound to, or None for a new store."""
        value = self._meta("settings")
        return None if value is None else msgspec.json.decode(value, type=dict[str, Any])

    @guarded
    def bind(self, settings: dict[str, Any], carried: Mapping[str, Any] | None = None) -> None:
        """Tie a new store to `settings`, or check an existing store was made with the same.

        Games played under another seed, time control or options would be silently mixed into
        the ratings, so a mismatch is an error that names every differing setting. `carried`
        names older values a store may hold and go on with (key → old value): such a store is
        bound to `settings` from now on.
        """
        stored = self.settings()
        wanted = msgspec.json.decode(msgspec.json.encode(settings))
        if stored is not None:
            differ = [
                f"{key}: stored {stored.get(key)!r}, now {wanted.get(key)!r}"
                for key in sorted(stored.keys() | wanted.keys())
                if stored.get(key) != wanted.get(key)
                and (carried is None or key not in carried or stored.get(key) != carried[key])
            ]
            if differ:
                raise StoreError(
                    f"{self.path} holds a tournament with other settings ({'; '.join(differ)}); "
                    "restore them or use another store (--db)"
                )
            if stored == wanted:
                return
        with self._transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('settings', ?)",
                (msgspec.json.encode(settings).decode(),),
            )

    # ---- bots -------------------------------------------------------------------------------

    @guarded
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

    @_read_back
    def bots(self) -> list[BotRow]:
        rows = self._db.execute("SELECT id, name, command, hash, added FROM bots ORDER BY id")
        return [
            msgspec.convert(
                {"id": r[0], "name": r[1], "command": r[2], "hash": r[3], "added": bool(r[4])},
                BotRow,
            )
            for r in rows
        ]

    @guarded
    def exclude(self, bots: Iterable[int]) -> None:
        """Mark these bot ids as removed (`arena remove`; again is harmless): their games stay,
        counted no more (`tournaments.store.exclusion` says why whole games)."""
        with self._transaction():
            self._db.execute(EXCLUDED_SCHEMA)
            self._db.executemany(
                "INSERT OR IGNORE INTO excluded VALUES (?, ?)", [(bot, _now()) for bot in bots]
            )

    @_read_back
    def excluded(self) -> set[int]:
        """The removed bot ids (none before the first `arena remove` makes their table)."""
        made = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'excluded'"
        ).fetchone()
        if made is None:
            return set()
        return {int(row[0]) for row in self._db.execute("SELECT bot FROM excluded")}

    @_read_back
    def added_bots(self) -> list[BotRow]:
        """Bots added with `arena add` (newest entry per name): they join every later run."""
        newest: dict[str, BotRow] = {}
        for row in self.bots():
            if row.added:
                newest[row.name] = row
        return list(newest.values())

    @_read_back
    def labels(self) -> dict[int, str]:
        """Display name of every bot: its name, or name@hash for a superseded version.

        The newest entry of a name is "the" bot; older versions keep their games (and appear
        in tables) under a label that cannot be confused with it. Bots are only ever added,
        so the labels are made again only when the newest bot row changed (a page's read of a
        store kept open does not read a thousand bots each time).
        """
        newest_id = self._db.execute(
            "SELECT id, name, hash FROM bots ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if self._labels is not None and self._labels[0] == newest_id:
            return dict(self._labels[1])
        rows = self.bots()
        newest = {row.name: row.id for row in rows}
        labels = {
            row.id: row.name if newest[row.name] == row.id else f"{row.name}@{row.hash[:7]}"
            for row in rows
        }
        self._labels = (newest_id, labels)
        return dict(labels)

    # ---- games ------------------------------------------------------------------------------

    @_read_back
    def stored(self, seat_set: str, deals: range) -> dict[tuple[int, int], int]:
        """The seed of each game of `seat_set` within `deals` already stored, by (deal,
        rotation)."""
        rows = self._db.execute(
            "SELECT deal, rotation, seed FROM games WHERE seat_set = ? AND deal >= ? AND deal < ?",
            (seat_set, deals.start, deals.stop),
        )
        return {(deal, rotation): seed for deal, rotation, seed in rows}

    @_read_back
    def count(self, seat_set: str, deals: range) -> int:
        row = self._db.execute(
            "SELECT count(*) FROM games WHERE seat_set = ? AND deal >= ? AND deal < ?",
            (seat_set, deals.start, deals.stop),
        ).fetchone()
        return int(row[0])

    @guarded
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
        logs: Sequence[LogRow] = (),
        worker: str = "",
    ) -> int | None:
        """Store one finished game atomically, with the record of its seats' logs (their `file`
        names made `log_file(id, file)`) and the worker that played it; its id, or None (and
        nothing written) if already stored. Inside `batched`, committed with its batch."""
        with self._batch_or_transaction():
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
            game = cursor.lastrowid
            if cursor.rowcount == 0 or game is None:
                return None
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
            if logs:
                self._db.execute(LOGS_SCHEMA)
                self._db.executemany(
                    "INSERT INTO logs VALUES (?, ?, ?, ?, ?)",
                    [
                        (game, log.seat, log_file(game, log.file), log.bytes, int(log.dropped))
                        for log in logs
                    ],
                )
            if worker:
                self._workers_table()
                self._db.execute("INSERT INTO played_by VALUES (?, ?)", (game, worker))
            self.uncommitted += self._batching
        return game

    def _workers_table(self) -> None:
        for statement in WORKERS_SCHEMA.split(";"):
            self._db.execute(statement)

    @guarded
    def add_refused(
        self, *, worker: str, seat_set: str, deal: int, rotation: int, reason: str, record: bytes
    ) -> None:
        """Keep a game `worker` sent that was refused (`reason`), for inspection: the first
        `REFUSED_KEPT` bytes of its record."""
        reason = reason[:REASON_KEPT]
        if len(record) > REFUSED_KEPT:
            reason += f" (a record of {len(record)} bytes: its first {REFUSED_KEPT} kept)"
        with self._batch_or_transaction():
            self._workers_table()
            self._db.execute(
                "INSERT INTO refused (worker, seat_set, deal, rotation, reason, at, record) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    worker,
                    seat_set,
                    deal,
                    rotation,
                    reason,
                    _now(),
                    zlib.compress(record[:REFUSED_KEPT]),
                ),
            )

    @guarded
    def add_failure(self, *, worker: str, seat_set: str, rotation: int, reason: str) -> None:
        """Count a unit that `worker` failed (`reason`) against it."""
        with self._batch_or_transaction():
            self._workers_table()
            self._db.execute(
                "INSERT INTO failed (worker, seat_set, rotation, reason, at) "
                "VALUES (?, ?, ?, ?, ?)",
                (worker, seat_set, rotation, reason[:REASON_KEPT], _now()),
            )

    @_read_back
    def workers(self) -> list[WorkerRow]:
        """Each worker that played or sent a game, or failed a unit: its games, faults, timeouts
        and decisions, its refused games and its failed units."""
        made = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'played_by'"
        ).fetchone()
        if made is None:
            return []
        rows: dict[str, list[int]] = {}
        for worker, games, decisions in self._db.execute(
            "SELECT worker, count(*), sum(games.decisions) FROM played_by "
            "JOIN games ON games.id = played_by.game GROUP BY worker"
        ):
            rows[str(worker)] = [int(games), int(decisions or 0), 0, 0, 0, 0]
        for worker, faults, timeouts in self._db.execute(
            "SELECT worker, count(*), sum(faults.kind = 'timeout') FROM played_by "
            "JOIN faults ON faults.game = played_by.game GROUP BY worker"
        ):
            rows[str(worker)][2:4] = [int(faults), int(timeouts or 0)]
        for worker, refused in self._db.execute(
            "SELECT worker, count(*) FROM refused GROUP BY worker"
        ):
            rows.setdefault(str(worker), [0, 0, 0, 0, 0, 0])[4] = int(refused)
        if "failed" in self._objects():
            for worker, failed in self._db.execute(
                "SELECT worker, count(*) FROM failed GROUP BY worker"
            ):
                rows.setdefault(str(worker), [0, 0, 0, 0, 0, 0])[5] = int(failed)
        return [WorkerRow(name, *counts) for name, counts in sorted(rows.items())]

    @_read_back
    def refused_games(self) -> list[tuple[str, str, bytes]]:
        """(worker, reason, record) of every refused game, oldest first."""
        if "refused" not in self._objects():
            return []
        rows = self._db.execute("SELECT worker, reason, record FROM refused ORDER BY id")
        return [(str(w), str(r), zlib.decompress(record)) for w, r, record in rows]

    @_read_back
    def failed_units(self) -> list[tuple[str, str]]:
        """(worker, reason) of every unit a worker failed, oldest first."""
        if "failed" not in self._objects():
            return []
        rows = self._db.execute("SELECT worker, reason FROM failed ORDER BY id")
        return [(str(worker), str(reason)) for worker, reason in rows]

    # ---- batches ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """A write of its own commits the open batch first (it never joins or rolls it back).
        A batch holds the file's write lock until it is committed, so whoever writes into a
        store while its games are batched writes through the same connection (a league's
        season: `OpenSeason`): another connection in the thread that commits the batch would
        wait for a lock only that thread can let go."""
        self.commit()
        with super()._transaction():
            yield

    @contextlib.contextmanager
    def batched(self) -> Iterator[None]:
        """Inside, games are committed in batches (`commit_due`, and at the end): one
        transaction per batch instead of per game. A process killed meanwhile loses the games
        of the open batch only, which the next run plays again."""
        self._batching = True
        try:
            yield
        finally:
            self._batching = False
            self.commit()

    @guarded
    def commit(self) -> None:
        """Commit the open batch, if any."""
        if self._batch_began is not None:
            self._batch_began = None
            self._db.execute("COMMIT")
            self.uncommitted = 0

    def commit_due(self) -> None:
        """Commit the open batch if it has been open `BATCH_S` (called at least that often)."""
        if self._batch_began is not None and time.monotonic() - self._batch_began >= BATCH_S:
            self.commit()

    @contextlib.contextmanager
    def _batch_or_transaction(self) -> Iterator[None]:
        """Into the open batch (begun if none), or else a transaction of its own. A write that
        fails inside a batch rolls the batch back: its games are played again."""
        if not self._batching:
            with self._transaction():
                yield
            return
        if self._batch_began is None:
            self._db.execute("BEGIN IMMEDIATE")
            self._batch_began = time.monotonic()
        try:
            yield
        except BaseException:
            self._batch_began, self.uncommitted = None, 0
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise
        self.commit_due()

    def _has_logs(self) -> bool:
        made = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'logs'"
        ).fetchone()
        return made is not None

    @_read_back
    def log_bytes(self) -> dict[str, int]:
        """The bytes of stderr kept so far per bot label (a league's cap per version)."""
        if not self._has_logs():
            return {}
        labels = self.labels()
        rows = self._db.execute(
            "SELECT seats.bot, sum(logs.bytes) FROM logs JOIN seats "
            "ON seats.game = logs.game AND seats.seat = logs.seat "
            "WHERE NOT logs.dropped GROUP BY seats.bot"
        )
        return {labels[int(bot)]: int(total) for bot, total in rows}

    @_read_back
    def logs_of(self, name: str, count: int) -> list[tuple[int, str, LogRow]]:
        """The newest `count` logs of any version of the bot `name` (game id, label, row),
        newest first: the record made with each game, whatever the files are called. Each
        version's seats are walked newest first (the (bot, game) index) until `count` have a
        log, never every log of the store."""
        if not self._has_logs():
            return []
        labels = self.labels()
        found = []
        for (bot,) in self._db.execute("SELECT id FROM bots WHERE name = ?", (name,)).fetchall():
            found += self._db.execute(
                "SELECT logs.game, seats.bot, logs.seat, logs.file, logs.bytes, logs.dropped "
                "FROM seats JOIN logs ON logs.game = seats.game AND logs.seat = seats.seat "
                "WHERE seats.bot = ? ORDER BY seats.game DESC, seats.seat LIMIT ?",
                (bot, count),
            ).fetchall()
        found.sort(key=lambda row: (-row[0], row[2]))
        return [
            (int(game), labels[int(bot)], LogRow(int(seat), str(file), int(size), bool(dropped)))
            for game, bot, seat, file, size, dropped in found[:count]
        ]

    @_read_back
    def games(self) -> list[FinishedGame]:
        """Every stored game in schedule order (seat-set, deal, rotation): input of the tables."""
        return [game for _, game in self._games("", (), "seat_set, deal, rotation")]

    @_read_back
    def games_as_stored(
        self, after: int = 0, through: int | None = None
    ) -> list[tuple[int, FinishedGame]]:
        """Every game stored after the game `after` (ids grow as games are stored), up to the
        game `through` if given, with its id, in the order they were stored: a rating over
        time, kept up to date, or a long store read a slice at a time."""
        if through is None:
            return self._games("WHERE id > ?", (after,), "id")
        return self._games("WHERE id > ? AND id <= ?", (after, through), "id")

    @guarded
    def last_game(self) -> int:
        """The id of the newest game (0 before the first)."""
        return int(self._db.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0])

    @_read_back
    def finish_times(self, game_ids: Collection[int]) -> dict[int, datetime.datetime]:
        """When each of these games was stored (UTC), by id; an id that names no game is
        left out. What `FinishedGame` leaves out: the games' order in time."""
        marks = ",".join("?" * len(game_ids))
        rows = self._db.execute(
            f"SELECT id, finished FROM games WHERE id IN ({marks})", tuple(game_ids)
        )
        return {int(game): datetime.datetime.fromisoformat(at) for game, at in rows}

    @_read_back
    def games_of(self, name: str, chosen: GameChoice) -> list[tuple[int, FinishedGame]]:
        """The newest games (by id, newest first) the bot `name` (any of its versions) sat in
        that `chosen` keeps: a league's list of a bot's games, filtered in SQL.

        Each version's seats are walked newest first on the (bot, game) index and stop at
        `count` kept: the cost of a page grows with the page, not with the store (a filter
        that keeps few games walks further)."""
        with self.snapshot():
            versions = "SELECT id FROM bots WHERE name = ?"
            params: list[Any] = [name]
            if chosen.content_hash is not None:
                versions += " AND hash = ?"
                params.append(chosen.content_hash)
            ids = [int(row[0]) for row in self._db.execute(versions, params)]
            found: set[int] = set()
            seats, extra = self._seat_filter(chosen)
            for bot in ids:
                rows = self._db.execute(
                    f"SELECT s.game FROM seats s WHERE s.bot = ?{seats} "
                    "ORDER BY s.game DESC LIMIT ?",
                    (bot, *extra, chosen.count),
                )
                found.update(int(row[0]) for row in rows)
            newest = sorted(found, reverse=True)[: chosen.count]
            marks = ",".join("?" * len(newest))
            return self._games_now(f"WHERE id IN ({marks})", tuple(newest), "id DESC")

    @staticmethod
    def _seat_filter(chosen: GameChoice) -> tuple[str, list[Any]]:
        """The conditions on a seat `s` of the bot that `chosen` keeps, and their values."""
        sql, params = "", list[Any]()
        if chosen.opponent is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM seats o JOIN bots ob ON ob.id = o.bot "
                "WHERE o.game = s.game AND o.seat != s.seat AND ob.name = ?)"
            )
            params.append(chosen.opponent)
        if chosen.faulted:
            sql += " AND EXISTS (SELECT 1 FROM faults f WHERE f.game = s.game AND f.seat = s.seat)"
        if chosen.result is not None:
            firsts = "(SELECT count(*) FROM seats w WHERE w.game = s.game AND w.rank = 1)"
            sql += {
                "win": f" AND s.rank = 1 AND {firsts} = 1",
                "draw": f" AND s.rank = 1 AND {firsts} > 1",
                "loss": " AND s.rank > 1",
            }[chosen.result]
        if chosen.deals is not None:
            # Correlated: the game's own row, not a pass over every game's deal.
            sql += (
                " AND EXISTS (SELECT 1 FROM games g WHERE g.id = s.game "
                "AND g.deal >= ? AND g.deal < ?)"
            )
            params += [chosen.deals[0], chosen.deals[0] + chosen.deals[1]]
        if chosen.before is not None:
            sql += " AND s.game < ?"
            params.append(chosen.before)
        return sql, params

    def _games(
        self, where: str, params: tuple[Any, ...], order: str
    ) -> list[tuple[int, FinishedGame]]:
        """The games `where` selects (an SQL clause on `games`), in `order`, with their ids."""
        with self.snapshot():
            return self._games_now(where, params, order)

    def _games_now(
        self, where: str, params: tuple[Any, ...], order: str
    ) -> list[tuple[int, FinishedGame]]:
        labels = self.labels()
        chosen = f"SELECT id FROM games {where}"
        seats: dict[int, list[tuple[Any, ...]]] = {}
        for row in self._db.execute(
            "SELECT game, bot, score, rank, moves, think_ms FROM seats "
            f"WHERE game IN ({chosen}) ORDER BY game, seat",
            params,
        ):
            seats.setdefault(row[0], []).append(row[1:])
        faults: dict[int, list[FaultRow]] = {}
        for game, seat, kind, reason, decision in self._db.execute(
            "SELECT game, seat, kind, reason, decision FROM faults "
            f"WHERE game IN ({chosen}) ORDER BY rowid",
            params,
        ):
            fault = {"seat": seat, "kind": kind, "reason": reason, "decision": decision}
            faults.setdefault(game, []).append(msgspec.convert(fault, FaultRow))
        result = []
        for game, seat_set, deal, rotation, tiebreak, wall_ms in self._db.execute(
            f"SELECT id, seat_set, deal, rotation, tiebreak, wall_ms FROM games {where} "
            f"ORDER BY {order}",
            params,
        ):
            rows = seats.get(game)
            if rows is None:  # only a damaged or half-recovered store has a game without seats
                raise self._damaged(f"game {game} has no seats")
            if len(rows) != len(str(seat_set).split(",")):  # a seat's row deleted by hand
                raise self._damaged(
                    f"game {game} has {len(rows)} seats for its seat-set {seat_set}"
                )
            # Converted, not just built: a value of the wrong type (text where a score goes, in
            # a store edited by hand) is the store's damage here, not a TypeError in a table.
            played = {
                "scores": [row[1] for row in rows],
                "ranks": [row[2] for row in rows],
                "tiebreak": tiebreak,
                "moves": [row[3] for row in rows],
                "think_ms": [row[4] for row in rows],
                "faults": faults.get(game, []),
                "wall_ms": wall_ms,
            }
            finished = {
                "seat_set": ",".join(labels[int(b)] for b in str(seat_set).split(",")),
                "deal": deal,
                "rotation": rotation,
                "bots": [labels[row[0]] for row in rows],
                "played": played,
            }
            result.append((int(game), msgspec.convert(finished, FinishedGame)))
        return result

    @guarded
    def record(self, seat_set: str, deal: int, rotation: int) -> bytes | None:
        """The game record of one stored game (decompressed), or None if not stored."""
        row = self._db.execute(
            "SELECT record FROM games WHERE seat_set = ? AND deal = ? AND rotation = ?",
            (seat_set, deal, rotation),
        ).fetchone()
        return None if row is None else _decompressed(row[0], f"game {seat_set}/{deal}/{rotation}")

    @_read_back
    def game_keys(self) -> list[GameKey]:
        """Id, seed and decisions of every stored game, in the order of `games()` (the same
        ORDER BY): what `arena table -t games`, `arena export` and the report name games by."""
        rows = self._db.execute(
            "SELECT id, seed, decisions FROM games ORDER BY seat_set, deal, rotation"
        )
        return [
            msgspec.convert({"id": row[0], "seed": row[1], "decisions": row[2]}, GameKey)
            for row in rows
        ]

    @guarded
    def game_record(self, game_id: int) -> bytes | None:
        """The record of the game with this id (decompressed), or None if there is none."""
        row = self._db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _decompressed(row[0], f"game {game_id}")


def _decompressed(blob: object, game: str) -> bytes:
    """A stored record, decompressed to at most `MAX_RECORD_BYTES` (a few KB of zlib can claim
    gigabytes). One damaged game is that game's `BadRecord` — the report shows it in its error
    viewer and goes on — not the whole store's failure."""
    if not isinstance(blob, bytes):
        raise BadRecord(f"{game}: its stored record is not compressed bytes")
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(blob, MAX_RECORD_BYTES + 1)
    except zlib.error as exc:
        raise BadRecord(f"{game}: its stored record does not decompress ({exc})") from None
    if len(data) > MAX_RECORD_BYTES:
        raise BadRecord(f"{game}: its stored record is over {MAX_RECORD_BYTES} bytes decompressed")
    if not inflate.eof:
        raise BadRecord(f"{game}: its stored record is cut short")
    return data
