"""The rows of the leaderboard too many for the server to hold, or to be sent at each refresh:
every bot's head-to-head rows and its rating over time, in an SQLite file beside the store
(`shelf_path`). The board's child writes them — all of them when it starts its tallies anew,
then only the rows its new games changed — and the pages' reads child reads one bot's at a
time, a page of its opponents at a time. The board's child also keeps there every bot's whole
rating series, which its thinned history is drawn from again as games come (`series`).

Why a file: at a thousand bots the head to head has half a million pairs; sent whole at each
refresh it took the server's thread seconds to decode and hundreds of megabytes to hold, for a
page that shows one bot's rows.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from tournaments.store.sqlitefile import SqliteFile, StoreError, guarded

SCHEMA_VERSION = "2"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pairs (
    bot TEXT NOT NULL, opponent TEXT NOT NULL, row BLOB NOT NULL,
    PRIMARY KEY (bot, opponent)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS places (bot TEXT PRIMARY KEY, place INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS histories (
    bot TEXT PRIMARY KEY, games INTEGER NOT NULL, points BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS series (bot TEXT PRIMARY KEY, mu BLOB NOT NULL) WITHOUT ROWID;
"""


class History(msgspec.Struct, frozen=True):
    """A bot's openskill mu over its games, thinned as the report thins it (the last kept)."""

    games: int
    points: list[float]


class Opponents(msgspec.Struct, frozen=True):
    """A page of a bot's head-to-head rows, its opponents by their place on the board."""

    rows: list[dict[str, Any]]
    more: bool
    """Opponents after these."""


NO_OPPONENTS = Opponents([], False)

_encode = msgspec.msgpack.Encoder().encode
_points = msgspec.msgpack.Decoder(list[float]).decode
_values = msgspec.msgpack.Decoder(list[Any]).decode


def shelf_path(store: Path) -> Path:
    """The shelf of the board of the store at `store`."""
    return store.with_name(store.stem + ".board" + store.suffix)


class Shelf(SqliteFile):
    """The shelf at `path` (made if none): written by one board child, read by any number."""

    KIND = "board shelf"
    NOUN = "board shelf"
    CALLED = "board shelf"
    LOCKED = "another league server is writing it; stop it"
    RESUMES = False
    RECOVERY = "delete it: the league server writes it again from its store"
    UNREADABLE = (msgspec.DecodeError, json.JSONDecodeError)
    UNREADABLE_DETAIL = "a kept row cannot be read back"
    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION
    ANY_THREAD = True

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        """`readonly`: read without ever writing (the pages' reads child): its opening never
        waits for the board's child's writes."""
        super().__init__(path, readonly=readonly, check=False)

    def _check_ours(self) -> None:
        self._check_tables(
            self._objects(),
            _SCHEMA,
            frozenset({"meta", "pairs", "places", "histories", "series"}),
        )

    @classmethod
    def anew(cls, path: Path) -> Shelf:
        """The shelf at `path`, or, if the file there is not one (damaged, not ours), a new
        one in its place: it holds nothing that its store cannot give again."""
        try:
            return cls(path)
        except StoreError:
            for stale in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm"))):
                stale.unlink(missing_ok=True)
            return cls(path)

    @guarded
    def write(
        self,
        columns: Sequence[str],
        rows: Iterable[dict[str, Any]],
        order: Sequence[str],
        histories: dict[str, History],
        *,
        anew: bool = False,
        gone: Collection[str] = (),
    ) -> None:
        """Keep `rows` (records of these `columns`: bot, opponent, then the rest), the board's
        `order` and `histories`, in one transaction: readers see the shelf before or after.
        `anew`: every row kept before goes; `gone`: the rows of these bots go (renamed)."""
        with self._transaction():
            if anew:
                for table in ("pairs", "histories"):
                    self._db.execute(f"DELETE FROM {table}")
            for bot in gone:
                self._db.execute("DELETE FROM pairs WHERE bot = ? OR opponent = ?", (bot, bot))
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('columns', ?)", (json.dumps(list(columns)),)
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)",
                (
                    (row["bot"], row["opponent"], _encode([row[key] for key in columns[2:]]))
                    for row in rows
                ),
            )
            self._db.execute("DELETE FROM places")
            self._db.executemany(
                "INSERT INTO places VALUES (?, ?)", ((bot, n) for n, bot in enumerate(order))
            )
            self._db.executemany(
                "INSERT OR REPLACE INTO histories VALUES (?, ?, ?)",
                ((bot, h.games, _encode(h.points)) for bot, h in histories.items()),
            )

    @guarded
    def extend(self, series: Mapping[str, array[float]], *, anew: bool = False) -> None:
        """Add `series`' values to the end of each bot's whole rating series, in one
        transaction (`anew`: every series kept before goes first). Why here: a league of a
        million games holds two million values, which its board's child would otherwise keep
        for as long as it runs."""
        with self._transaction():
            if anew:
                self._db.execute("DELETE FROM series")
            self._db.executemany(
                "INSERT INTO series VALUES (?, ?) "
                "ON CONFLICT (bot) DO UPDATE SET mu = CAST(mu || excluded.mu AS BLOB)",
                ((bot, values.tobytes()) for bot, values in series.items() if values),
            )

    @guarded
    def series(self, bot: str) -> array[float]:
        """`bot`'s whole rating series (`extend`), empty if it has none."""
        found = self._db.execute("SELECT mu FROM series WHERE bot = ?", (bot,)).fetchone()
        values = array("d")
        if found is not None:
            values.frombytes(found[0])
        return values

    @guarded
    def opponents(self, bot: str, start: int, count: int) -> Opponents:
        """`count` of `bot`'s head-to-head rows from its `start`-th opponent, by their place."""
        with self.snapshot():
            found = self._db.execute("SELECT value FROM meta WHERE key = 'columns'").fetchone()
            rows = self._db.execute(
                "SELECT pairs.bot, pairs.opponent, pairs.row FROM pairs "
                "JOIN places ON places.bot = pairs.opponent "
                "WHERE pairs.bot = ? AND EXISTS (SELECT 1 FROM places WHERE bot = ?) "
                "ORDER BY places.place LIMIT ? OFFSET ?",
                (bot, bot, count + 1, start),
            ).fetchall()
        if found is None:
            return NO_OPPONENTS
        columns = json.loads(found[0])
        made = [
            dict(zip(columns, [name, opponent, *_values(values)], strict=True))
            for name, opponent, values in rows[:count]
        ]
        return Opponents(made, len(rows) > count)

    @guarded
    def history(self, bot: str) -> History | None:
        """`bot`'s rating over time (None: it has no games)."""
        found = self._db.execute(
            "SELECT games, points FROM histories WHERE bot = ?", (bot,)
        ).fetchone()
        return None if found is None else History(int(found[0]), _points(found[1]))
