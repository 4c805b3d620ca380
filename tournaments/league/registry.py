"""The league's own records: its authors and their tokens, the uploaded versions of their bots
with the logs of building and checking them, and the uploads each author made lately.

A SQLite file of its own beside the tournament store (the games the versions play stay in
`tournaments.store.store`), kept by the store's rules, written once in
`tournaments.store.sqlitefile`:
changes are `BEGIN IMMEDIATE` transactions (two requests never interleave a check and its
write), WAL mode, the file and its -wal and -shm files private (mode 0600), SQLite's
`trusted_schema` off, every failure of SQLite one `StoreError` saying what, which file and what
to do, and a file that is not a registry (a tournament store, another program's database, a
schema changed by hand) refused before it is written, left exactly as it was.

Tokens are never kept: an author's token is shown once by `new_token`, and only its SHA-256 is
stored (see `new_token`). Nothing here logs.

A version's status flows (`NEXT`)::

    queued -> building -> checking -> playing -> superseded
         \\__________\\__________\\-> rejected (-> queued: uploaded again)

A version reaching `playing` supersedes the bot's older playing version in the same
transaction, so a bot plays with one version at most. An organiser disables a bot or an author,
and enables them again: a disabled bot's versions are neither checked nor played, whatever its
author uploads, until it is enabled; a disabled author's token signs nothing in. Disabling an
author or re-issuing their token ends their browser sessions (`Author.sessions` counts up).

Bot names are unique up to case and punctuation (`name_key`): `AliceBot`, `alicebot.` and
`alice_bot` are one name, owned by the first author who uploads it.

A server killed while building or checking leaves its versions in `building` or `checking`:
opening the registry queues them again (their partial logs dropped), and `queued()` is what is
left to check, in upload order. So one server serves a registry (`arena serve` holds the
league's lock: `tournaments.league.files.ServeLock`): a second one opening it would queue the
first one's checks again. Opened `readonly` (`SqliteFile.readonly`), it is read beside its
server and never written.

Schema (version 3; a version 1 or 2 file is brought up when it is opened)::

    meta(key PRIMARY KEY, value)          -- 'schema' = '3'
    authors(id PRIMARY KEY, name UNIQUE, token_hash UNIQUE, organiser, disabled, created,
            sessions)                     -- token_hash: hex SHA-256 of the token
    bots(name PRIMARY KEY, key UNIQUE, author, disabled, created)
                                          -- key: `name_key(name)`; author: its owner
    versions(id PRIMARY KEY, author, bot, hash, status, reason, command, build, created,
             updated, number, identity, UNIQUE(author, bot, hash), UNIQUE(bot, number))
                                          -- hash: of the uploaded files; number: the bot's
                                          --   1, 2, ...; identity: of its folder once built;
                                          --   reason: public (what and where, no output)
    logs(version, kind, text, dropped, PRIMARY KEY(version, kind))
                                          -- kind: build | check; text: the last 64 KiB at
                                          --   most; dropped: bytes cut from its start
    uploads(author, at)                   -- accepted uploads of the last hour (Unix time)
    seasons(number PRIMARY KEY, opened, frozen, budget, published)
                                          -- frozen: for its final, of `budget` games at most
    finalists(season, version, PRIMARY KEY(season, version))
                                          -- the versions a season's final plays
    sessions(cookie_hash PRIMARY KEY, author, sessions, made, csrf)
                                          -- browser sessions (`league.sessions`): the hex
                                          --   SHA-256 of the cookie, the author's session
                                          --   count then, Unix time made; made at the opening
                                          --   of a file without it (no version change)
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple, get_args

import msgspec

from protocol.errors import RequestError
from tournaments.league.errors import NotFound, RateLimited, Taken
from tournaments.store.sqlitefile import SqliteFile, StoreError, guarded

SCHEMA_VERSION = "3"

Status = Literal["queued", "building", "checking", "playing", "rejected", "superseded"]
STATUSES: frozenset[str] = frozenset(get_args(Status))
WAITING: tuple[Status, ...] = ("queued", "building", "checking")
"""The statuses of a version waiting for its check (`waiting`: the leaderboard lists them)."""
LogKind = Literal["build", "check"]
LOG_KINDS: tuple[str, ...] = get_args(LogKind)

NEXT: Mapping[str, frozenset[str]] = {
    "queued": frozenset({"building", "checking", "rejected"}),
    "building": frozenset({"checking", "rejected", "queued"}),
    "checking": frozenset({"playing", "rejected", "queued"}),
    "playing": frozenset({"superseded", "rejected"}),
    "superseded": frozenset(),
    "rejected": frozenset({"queued"}),
}
"""The statuses a version of each status may take next (setting the same again is allowed)."""

TOKEN_PREFIX = "arena_"
"""Starts every token, so a leaked one is recognisable (and secret scanners can match it)."""

LOG_BYTES = 64 * 1024
"""At most this much of a version's build log, and of its check log (UTF-8, note included)."""
_NOTE_ROOM = 128  # the truncation note's bytes at most
_LINE_SEARCH = 1024  # a truncated log starts at a line's start when one begins this near

MAX_NAME = 100
HOUR = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS authors (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,
    organiser INTEGER NOT NULL CHECK (organiser IN (0, 1)),
    disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created TEXT NOT NULL,
    sessions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    author INTEGER NOT NULL REFERENCES authors(id),
    disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors(id),
    bot TEXT NOT NULL,
    hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'building', 'checking', 'playing',
                                           'rejected', 'superseded')),
    reason TEXT,
    command TEXT NOT NULL,
    build TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    number INTEGER NOT NULL DEFAULT 0,
    identity TEXT,
    UNIQUE (author, bot, hash)
);
CREATE UNIQUE INDEX IF NOT EXISTS versions_number ON versions (bot, number);
CREATE INDEX IF NOT EXISTS versions_bot ON versions (bot, status);
CREATE INDEX IF NOT EXISTS versions_status ON versions (status);
CREATE TABLE IF NOT EXISTS logs (
    version INTEGER NOT NULL REFERENCES versions(id),
    kind TEXT NOT NULL CHECK (kind IN ('build', 'check')),
    text TEXT NOT NULL,
    dropped INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (version, kind)
);
CREATE TABLE IF NOT EXISTS uploads (
    author INTEGER NOT NULL REFERENCES authors(id),
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS uploads_author ON uploads (author, at);
CREATE TABLE IF NOT EXISTS seasons (
    number INTEGER PRIMARY KEY,
    opened TEXT NOT NULL,
    frozen TEXT,
    budget INTEGER,
    published TEXT
);
CREATE TABLE IF NOT EXISTS finalists (
    season INTEGER NOT NULL REFERENCES seasons(number),
    version INTEGER NOT NULL REFERENCES versions(id),
    PRIMARY KEY (season, version)
);
CREATE TABLE IF NOT EXISTS scrimmages (
    id INTEGER PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors(id),
    version INTEGER NOT NULL REFERENCES versions(id),
    opponent TEXT NOT NULL,
    games INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'playing', 'done', 'failed')),
    reason TEXT,
    first_deal INTEGER,
    deals INTEGER,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS scrimmages_author ON scrimmages (author, created);
CREATE TABLE IF NOT EXISTS sessions (
    cookie_hash TEXT PRIMARY KEY,
    author INTEGER NOT NULL REFERENCES authors(id),
    sessions INTEGER NOT NULL,
    made REAL NOT NULL,
    csrf TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_made ON sessions (made);
CREATE INDEX IF NOT EXISTS sessions_author ON sessions (author, made);
"""
REGISTRY_TABLES = frozenset(
    {
        "meta",
        "authors",
        "bots",
        "versions",
        "logs",
        "uploads",
        "seasons",
        "finalists",
        "scrimmages",
    }
)
_VERSION_3_TABLES = ("seasons", "finalists", "scrimmages")
"""What version 3 added."""


class Author(msgspec.Struct, frozen=True):
    id: int
    name: str
    organiser: bool
    disabled: bool
    created: str
    sessions: int = 0
    """Counts up when the token is re-issued or the author disabled: a browser session made
    at another count has ended."""


class Bot(msgspec.Struct, frozen=True):
    """An uploaded bot's name, its owner, and whether an organiser disabled it."""

    name: str
    author: int
    disabled: bool


class Version(msgspec.Struct, frozen=True):
    id: int
    author: int
    bot: str
    hash: str
    status: Status
    reason: str | None
    """Public: what ended a rejection and where, never a bot's output or a path."""
    command: str
    build: str | None
    created: str
    updated: str
    number: int
    """The bot's 1, 2, ... in upload order."""
    identity: str | None
    """The hash of its folder as it runs (after the build), made once by its check."""


ScrimmageStatus = Literal["queued", "playing", "done", "failed"]


class Scrimmage(msgspec.Struct, frozen=True):
    """An author's unranked games of one of their versions against a chosen bot, played apart
    from the ladder (`first_deal` and `deals`: the deals of its pairing it played)."""

    id: int
    author: int
    version: int
    opponent: str
    games: int
    status: ScrimmageStatus
    reason: str | None
    first_deal: int | None
    deals: int | None
    created: str
    updated: str


class SessionRow(NamedTuple):
    """A browser session as stored (`tournaments.league.sessions` keeps their rules)."""

    cookie_hash: str
    """The hex SHA-256 of its cookie (the cookie itself is never stored)."""
    author: int
    sessions: int
    """The author's session count when it was made (`Author.sessions`)."""
    made: float
    """Unix time."""
    csrf: str


class Season(msgspec.Struct, frozen=True):
    """A season of the league: its ladder from `opened`; frozen for its final (`budget` games
    at most) from `frozen`; its final's standings published at `published`, when the next
    season opened."""

    number: int
    opened: str
    frozen: str | None
    budget: int | None
    published: str | None


_AUTHOR_COLUMNS = ", ".join(Author.__struct_fields__)
_VERSION_COLUMNS = ", ".join(Version.__struct_fields__)
_SEASON_COLUMNS = ", ".join(Season.__struct_fields__)
_SCRIMMAGE_COLUMNS = ", ".join(Scrimmage.__struct_fields__)
_PUNCTUATION = re.compile(r"[._-]+")


def name_key(name: str) -> str:
    """What two bot names must not share: `AliceBot`, `alicebot.` and `alice_bot` look alike."""
    return _PUNCTUATION.sub("", name.casefold())


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


def numbers_by_label(versions: Iterable[Version]) -> dict[str, int]:
    """The version number of each of `versions` under the label the store gives an older
    version (`name@` and its hash's first 7 characters: `Store.labels`), for pages that show
    a store's rows by version number."""
    return {f"{v.bot}@{(v.identity or v.hash)[:7]}": v.number for v in versions}


def token_hash(token: str) -> str:
    """What is stored of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def _check_name(what: str, name: str) -> None:
    if not name or name != name.strip() or not name.isprintable() or len(name) > MAX_NAME:
        raise RequestError(
            f"{what} name {name!r} is not usable: give 1 to {MAX_NAME} printable characters, "
            "without spaces around them"
        )


class Registry(SqliteFile):
    """The league's SQLite file. Not thread-safe: use it from one thread (trio's is fine).

    `Registry(path, readonly=True)` reads a registry beside the server that writes it (a
    benchmark, a look at a running league): its opening queues nothing again and brings no
    schema up, and a change asked of it is refused.
    """

    KIND = "league registry"
    NOUN = "registry"
    CALLED = "league registry"
    OPEN_ADVICE = " (check the path and the permissions of its directory)"
    MISSING_ADVICE = " (opening the league for writing makes it: `arena serve`)"
    LOCKED = "another league server is writing it; stop it, or give this one another file"
    RESUMES = False
    RECOVERY = (
        "save what it still holds into a new file: {recover}, then serve the league from {saved}"
    )
    UNREADABLE = (msgspec.ValidationError,)
    UNREADABLE_DETAIL = "a stored value is malformed"
    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION

    def _schema_made(self) -> None:
        self._check_version()
        self._db.execute("INSERT OR IGNORE INTO seasons (number, opened) VALUES (1, ?)", (_now(),))
        self._requeue_interrupted()

    def _requeue_interrupted(self) -> None:
        """Versions a killed server left building or checking are queued again, their partial
        logs dropped (the check starts afresh)."""
        self._db.execute(  # its deals are kept: it goes on where it stopped
            "UPDATE scrimmages SET status = 'queued' WHERE status = 'playing'"
        )
        interrupted = "SELECT id FROM versions WHERE status IN ('building', 'checking')"
        self._db.execute(f"DELETE FROM logs WHERE version IN ({interrupted})")
        self._db.execute(
            "UPDATE versions SET status = 'queued', reason = ?, updated = ? "
            "WHERE status IN ('building', 'checking')",
            ("the server stopped during its build or check: queued again", _now()),
        )

    def _check_ours(self) -> None:
        """Refuse a file that is not a registry (a tournament store, another program's
        database), or one whose schema was changed by hand (`_check_tables`), before reading a
        row; an older registry is brought up first (opened `readonly`, refused)."""
        objects = self._objects()
        if self.readonly and "authors" in objects and not {"bots", "seasons"} <= objects.keys():
            raise StoreError(
                f"{self.path} is a league registry of an older schema: open it for writing "
                "once (`arena serve`) to bring it up; nothing was changed"
            )
        if "authors" in objects and "bots" not in objects:
            self._upgrade_from_1(objects)
            objects = self._objects()
        if "authors" in objects and "seasons" not in objects:
            self._upgrade_from_2()
            objects = self._objects()
        if "authors" not in objects:
            if {"games", "seats"} <= objects.keys():
                what = "a tournament store"
            elif self.path.stat().st_size == 0:
                what = "an empty file"
            else:
                what = "another SQLite database"
            raise StoreError(
                f"{self.path} is not a league registry ({what}); nothing was changed. Give the "
                "league a file of its own"
            )
        self._check_tables(objects, _SCHEMA, REGISTRY_TABLES)

    def _upgrade_from_1(self, objects: dict[str, tuple[str, str]]) -> None:
        """Version 1 to 2: the bots table (owners from their first versions; a bot with a
        version an organiser disabled, disabled), version numbers, identities, session counts.
        A view or trigger is refused first (one could run during the change)."""
        for name, (kind, _) in objects.items():
            if kind not in ("table", "index"):
                raise self._damaged(f"it has a {kind} {name!r} that a {self.NOUN} never has")
        with self._transaction():
            if self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() != ("1",):
                raise self._damaged("it has no bots table but is not a version 1 registry")
            statements = _SCHEMA.split(";")
            self._db.execute(next(st for st in statements if "TABLE IF NOT EXISTS bots" in st))
            self._db.execute("ALTER TABLE authors ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0")
            self._db.execute("ALTER TABLE versions ADD COLUMN number INTEGER NOT NULL DEFAULT 0")
            self._db.execute("ALTER TABLE versions ADD COLUMN identity TEXT")
            rows = self._db.execute(
                "SELECT id, author, bot, status, created FROM versions ORDER BY id"
            ).fetchall()
            numbers: dict[str, int] = {}
            for version_id, author, bot, status, created in rows:
                numbers[bot] = numbers.get(bot, 0) + 1
                self._db.execute(
                    "INSERT OR IGNORE INTO bots (name, key, author, disabled, created) "
                    "VALUES (?, ?, ?, 0, ?)",
                    (bot, name_key(bot), author, created),
                )
                if status == "disabled":
                    self._db.execute("UPDATE bots SET disabled = 1 WHERE name = ?", (bot,))
                    self._db.execute(
                        "UPDATE versions SET status = 'rejected', reason = ? WHERE id = ?",
                        ("disabled by an organiser", version_id),
                    )
                self._db.execute(
                    "UPDATE versions SET number = ? WHERE id = ?", (numbers[bot], version_id)
                )
            self._db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")

    def _upgrade_from_2(self) -> None:
        """Version 2 to 3: seasons (the league so far is season 1, opened when the league was
        made), the finalists of each season's final, and scrimmages."""
        with self._transaction():
            if self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() != ("2",):
                raise self._damaged("it has no seasons table but is not a version 2 registry")
            statements = _SCHEMA.split(";")
            for table in _VERSION_3_TABLES:
                self._db.execute(next(s for s in statements if f"EXISTS {table} (" in s))
            first = self._db.execute("SELECT min(created) FROM authors").fetchone()[0]
            self._db.execute(
                "INSERT INTO seasons (number, opened) VALUES (1, ?)", (first or _now(),)
            )
            self._db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))

    def _author_row(self, row: tuple[Any, ...]) -> Author:
        values = dict(zip(Author.__struct_fields__, row, strict=True))
        for flag in ("organiser", "disabled"):
            if values[flag] not in (0, 1):
                raise self._damaged(f"author {values['id']}'s {flag} is not 0 or 1")
            values[flag] = bool(values[flag])
        return msgspec.convert(values, Author)

    def _version_row(self, row: tuple[Any, ...]) -> Version:
        return msgspec.convert(dict(zip(Version.__struct_fields__, row, strict=True)), Version)

    def _version(self, version_id: int) -> Version:
        found = self.version(version_id)
        if found is None:
            raise RequestError(f"the league has no version {version_id} (in {self.path})")
        return found

    def _check_author(self, author_id: int) -> None:
        row = self._db.execute("SELECT 1 FROM authors WHERE id = ?", (author_id,)).fetchone()
        if row is None:
            raise RequestError(f"the league has no author {author_id} (in {self.path})")

    # ---- authors ----------------------------------------------------------------------------

    @guarded
    def new_token(self, name: str, organiser: bool = False) -> str:
        """A new token for the author `name` (made if new), returned here once and never again.

        A token is `TOKEN_PREFIX` and 32 random bytes (`secrets.token_urlsafe(32)`): only its
        SHA-256 is stored. A token of 256 random bits cannot be guessed from its hash nor found
        by trying, so an unsalted fast hash is the usual practice (salts and slow hashes are for
        guessable passwords), and it lets `author_for` find the author by the hash. Whoever
        reads the file cannot sign in.

        For an existing author this replaces the token (a lost token is re-issued; the old one
        stops working, and so do the sessions it signed in) and sets the organiser flag to
        `organiser`; a disabled author stays disabled (`author` tells).
        """
        _check_name("an author's", name)
        with self._transaction():
            return self._issue(name, organiser)

    @guarded
    def new_tokens(
        self, names: Sequence[str], organiser: bool = False, reissue: bool = False
    ) -> tuple[dict[str, str], list[str]]:
        """Tokens for a roster in one transaction (as `new_token` does for one author): each
        new name's, and with `reissue` also each known name's; and the names that already had
        one, which keep theirs unless `reissue`."""
        for name in names:
            _check_name("an author's", name)
        wanted = list(dict.fromkeys(names))
        known = [name for name in wanted if self.author(name) is not None]
        with self._transaction():
            tokens = {
                name: self._issue(name, organiser)
                for name in wanted
                if reissue or name not in known
            }
        return tokens, known

    def _issue(self, name: str, organiser: bool) -> str:
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        self._db.execute(
            "INSERT INTO authors (name, token_hash, organiser, disabled, created) "
            "VALUES (?, ?, ?, 0, ?) ON CONFLICT (name) DO UPDATE SET "
            "token_hash = excluded.token_hash, organiser = excluded.organiser, "
            "sessions = sessions + 1",
            (name, token_hash(token), int(organiser), _now()),
        )
        return token

    @guarded
    def author_for(self, token: str) -> Author | None:
        """The author this token signs in, or None: an unknown, empty or old token, or a
        disabled author."""
        if not token or not token.isascii():
            return None
        digest = token_hash(token)
        row = self._db.execute(
            f"SELECT {_AUTHOR_COLUMNS}, token_hash FROM authors WHERE token_hash = ?", (digest,)
        ).fetchone()
        if row is None or not hmac.compare_digest(str(row[-1]), digest):
            return None
        author = self._author_row(row[:-1])
        return None if author.disabled else author

    @guarded
    def set_author_disabled(self, name: str, disabled: bool) -> Author:
        """Disable the author (their token signs nothing in and their sessions end; their bots
        play on unless disabled themselves) or enable them again; the author as now stored."""
        with self._transaction():
            cursor = self._db.execute(
                "UPDATE authors SET disabled = ?, sessions = sessions + ? WHERE name = ?",
                (int(disabled), int(disabled), name),
            )
            if cursor.rowcount == 0:
                raise NotFound(f"the league has no author named {name!r}")
            found = self.author(name)
        assert found is not None
        return found

    @guarded
    def author(self, name: str) -> Author | None:
        row = self._db.execute(
            f"SELECT {_AUTHOR_COLUMNS} FROM authors WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else self._author_row(row)

    @guarded
    def author_by_id(self, author_id: int) -> Author | None:
        row = self._db.execute(
            f"SELECT {_AUTHOR_COLUMNS} FROM authors WHERE id = ?", (author_id,)
        ).fetchone()
        return None if row is None else self._author_row(row)

    @guarded
    def authors(self) -> list[Author]:
        rows = self._db.execute(f"SELECT {_AUTHOR_COLUMNS} FROM authors ORDER BY id")
        return [self._author_row(row) for row in rows]

    # ---- bots -------------------------------------------------------------------------------

    @guarded
    def bot(self, name: str) -> Bot | None:
        row = self._db.execute(
            "SELECT name, author, disabled FROM bots WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else Bot(str(row[0]), int(row[1]), bool(row[2]))

    @guarded
    def bots(self) -> dict[str, Bot]:
        """Every uploaded bot by name."""
        rows = self._db.execute("SELECT name, author, disabled FROM bots")
        return {str(name): Bot(str(name), int(author), bool(off)) for name, author, off in rows}

    @guarded
    def look_alike(self, name: str) -> str | None:
        """The uploaded bot whose name looks like `name` (`name_key`), if any."""
        row = self._db.execute("SELECT name FROM bots WHERE key = ?", (name_key(name),)).fetchone()
        return None if row is None else str(row[0])

    @guarded
    def set_bot_disabled(self, name: str, disabled: bool) -> Bot:
        """Disable the bot (out of the ladder, its uploads neither checked nor played, until
        enabled) or enable it again (its newest passing version plays); the bot now."""
        with self._transaction():
            cursor = self._db.execute(
                "UPDATE bots SET disabled = ? WHERE name = ?", (int(disabled), name)
            )
            if cursor.rowcount == 0:
                raise NotFound(f"the league has no uploaded bot named {name!r}")
        found = self.bot(name)
        assert found is not None
        return found

    # ---- versions ---------------------------------------------------------------------------

    @guarded
    def owner(self, bot: str) -> int | None:
        """The id of the author the bot name belongs to (who uploaded it first), or None."""
        found = self.bot(bot)
        return None if found is None else found.author

    @guarded
    def refuse_taken(self, bot: str, author: int) -> None:
        """`Taken` unless the author (an id) may upload under the name `bot`: it is neither
        another author's bot nor looks like another bot's (`name_key`)."""
        alike = self.look_alike(bot)
        if alike is not None and alike != bot:
            raise Taken(
                f"the bot name {bot!r} is too close to the league's bot {alike!r} (names "
                "differing only in case or punctuation are one name): choose another"
            )
        owner = self.owner(bot)
        if owner is not None and owner != author:
            raise Taken(
                f"the bot name {bot!r} belongs to another author: upload your bot under "
                "another name"
            )

    @guarded
    def add_version(
        self, author: int, bot: str, hash: str, command: str, build: str | None
    ) -> Version:
        """A new version of `bot` by `author` (an author id), queued for checking; the same
        upload again (author, bot and content hash) is the version made the first time, queued
        again if it was rejected.

        A bot name belongs to the first author who uploads it: `Taken` for anyone else's, and
        for a name that looks like another bot's (`name_key`).
        """
        _check_name("a bot's", bot)
        with self._transaction():
            self._check_author(author)
            self.refuse_taken(bot, author)
            now = _now()
            self._db.execute(
                "INSERT OR IGNORE INTO bots (name, key, author, disabled, created) "
                "VALUES (?, ?, ?, 0, ?)",
                (bot, name_key(bot), author, now),
            )
            self._db.execute(
                "INSERT OR IGNORE INTO versions (author, bot, hash, status, reason, command, "
                "build, created, updated, number) VALUES (?, ?, ?, 'queued', NULL, ?, ?, ?, ?, "
                "(SELECT coalesce(max(number), 0) + 1 FROM versions WHERE bot = ?))",
                (author, bot, hash, command, build, now, now, bot),
            )
            self._db.execute(
                "UPDATE versions SET status = 'queued', reason = ?, updated = ? "
                "WHERE author = ? AND bot = ? AND hash = ? AND status = 'rejected'",
                ("uploaded again", now, author, bot, hash),
            )
            row = self._db.execute(
                f"SELECT {_VERSION_COLUMNS} FROM versions WHERE author = ? AND bot = ? "
                "AND hash = ?",
                (author, bot, hash),
            ).fetchone()
        return self._version_row(row)

    @guarded
    def version(self, version_id: int) -> Version | None:
        row = self._db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE id = ?", (version_id,)
        ).fetchone()
        return None if row is None else self._version_row(row)

    @guarded
    def set_status(self, version_id: int, status: Status, reason: str | None = None) -> Version:
        """Move a version on (`NEXT` says where to; anything else is a ValueError) with the
        reason shown to its author (None clears it); the version as now stored.

        A version reaching `playing` supersedes the bot's older playing version in the same
        transaction; if a newer version of the bot is already playing, it is superseded itself
        instead.
        """
        if status not in STATUSES:
            raise ValueError(f"{status!r} is not a version's status")
        with self._transaction():
            version = self._version(version_id)
            if status != version.status and status not in NEXT[version.status]:
                raise ValueError(
                    f"version {version_id} of {version.bot} is {version.status}: it cannot "
                    f"become {status}"
                )
            now = _now()
            if status == "playing":
                newer = self._db.execute(
                    "SELECT max(number) FROM versions WHERE bot = ? AND status = 'playing' "
                    "AND id > ?",
                    (version.bot, version_id),
                ).fetchone()[0]
                if newer is not None:
                    status, reason = "superseded", f"version {newer} of {version.bot} plays"
                else:
                    self._db.execute(
                        "UPDATE versions SET status = 'superseded', reason = ?, updated = ? "
                        "WHERE bot = ? AND status = 'playing' AND id < ?",
                        (f"version {version.number} plays", now, version.bot, version_id),
                    )
            self._db.execute(
                "UPDATE versions SET status = ?, reason = ?, updated = ? WHERE id = ?",
                (status, reason, now, version_id),
            )
            return self._version(version_id)

    @guarded
    def versions(self, bot: str | None = None) -> list[Version]:
        """Every version (of `bot`, when given), in upload order."""
        if bot is None:
            rows = self._db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions ORDER BY id")
        else:
            rows = self._db.execute(
                f"SELECT {_VERSION_COLUMNS} FROM versions WHERE bot = ? ORDER BY id", (bot,)
            )
        return [self._version_row(row) for row in rows]

    @guarded
    def set_identity(self, version_id: int, identity: str) -> Version:
        """Record the hash of the version's folder as it runs (made once, by its check)."""
        with self._transaction():
            self._version(version_id)
            self._db.execute(
                "UPDATE versions SET identity = ? WHERE id = ?", (identity, version_id)
            )
            return self._version(version_id)

    @guarded
    def queued(self) -> list[Version]:
        """The versions waiting for their build and check, in upload order (a disabled bot's
        wait until it is enabled)."""
        rows = self._db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE status = 'queued' "
            "AND bot NOT IN (SELECT name FROM bots WHERE disabled) ORDER BY id"
        )
        return [self._version_row(row) for row in rows]

    @guarded
    def waiting(self) -> list[Version]:
        """The versions queued, building or checking (the leaderboard lists them), in upload
        order."""
        rows = self._db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions "
            f"WHERE status IN ({', '.join('?' * len(WAITING))}) ORDER BY id",
            WAITING,
        )
        return [self._version_row(row) for row in rows]

    @guarded
    def playing(self) -> list[Version]:
        """The version each bot plays with (its newest playing one), by bot name; none of a
        disabled bot."""
        rows = self._db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE id IN "
            "(SELECT max(id) FROM versions WHERE status = 'playing' GROUP BY bot) "
            "AND bot NOT IN (SELECT name FROM bots WHERE disabled) ORDER BY bot"
        )
        return [self._version_row(row) for row in rows]

    # ---- seasons ----------------------------------------------------------------------------

    @guarded
    def season(self) -> Season:
        """The season now: the newest."""
        return self.seasons()[-1]

    @guarded
    def seasons(self) -> list[Season]:
        rows = self._db.execute(f"SELECT {_SEASON_COLUMNS} FROM seasons ORDER BY number")
        return [
            msgspec.convert(dict(zip(Season.__struct_fields__, row, strict=True)), Season)
            for row in rows
        ]

    @guarded
    def freeze(self, budget: int, bots: Collection[str] | None = None) -> Season:
        """Freeze the season now for its final of at most `budget` games: its finalists are
        the versions playing now (one a bot, none of a disabled bot), of `bots` only when
        given; the season then."""
        with self._transaction():
            season = self.season()
            if season.frozen is not None:
                raise RequestError(
                    f"season {season.number} is frozen already (since {season.frozen})"
                )
            self._db.execute(
                "UPDATE seasons SET frozen = ?, budget = ? WHERE number = ?",
                (_now(), budget, season.number),
            )
            for version in self.playing():
                if bots is not None and version.bot not in bots:
                    continue
                self._db.execute(
                    "INSERT INTO finalists (season, version) VALUES (?, ?)",
                    (season.number, version.id),
                )
            return self.season()

    @guarded
    def finalists(self, season: int) -> list[Version]:
        """The versions a season's final plays, by bot name."""
        rows = self._db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE id IN "
            "(SELECT version FROM finalists WHERE season = ?) ORDER BY bot",
            (season,),
        )
        return [self._version_row(row) for row in rows]

    @guarded
    def publish(self, season: int) -> Season:
        """The frozen season's final is published: the next season opens (the new one)."""
        with self._transaction():
            current = self.season()
            if current.number != season or current.frozen is None:
                raise RequestError(f"season {season} is not the frozen season now")
            now = _now()
            self._db.execute("UPDATE seasons SET published = ? WHERE number = ?", (now, season))
            self._db.execute(
                "INSERT INTO seasons (number, opened) VALUES (?, ?)", (season + 1, now)
            )
            return self.season()

    # ---- scrimmages -------------------------------------------------------------------------

    @guarded
    def add_scrimmage(
        self, author: int, version: int, opponent: str, games: int, now: float, per_hour: int
    ) -> Scrimmage:
        """Queue a scrimmage, unless the author asked for `per_hour` in the hour before `now`
        (Unix time): then `RateLimited`."""
        since = datetime.datetime.fromtimestamp(now - HOUR, datetime.UTC).isoformat()
        with self._transaction():
            recent = self._db.execute(
                "SELECT count(*) FROM scrimmages WHERE author = ? AND created > ?",
                (author, since),
            ).fetchone()[0]
            if recent >= per_hour:
                raise RateLimited(f"{per_hour} scrimmages an hour at most: ask again later")
            stamp = _now()
            cursor = self._db.execute(
                "INSERT INTO scrimmages (author, version, opponent, games, status, created, "
                "updated) VALUES (?, ?, ?, ?, 'queued', ?, ?)",
                (author, version, opponent, games, stamp, stamp),
            )
            assert cursor.lastrowid is not None
            return self.scrimmage(cursor.lastrowid)

    @guarded
    def scrimmage(self, scrimmage_id: int) -> Scrimmage:
        row = self._db.execute(
            f"SELECT {_SCRIMMAGE_COLUMNS} FROM scrimmages WHERE id = ?", (scrimmage_id,)
        ).fetchone()
        if row is None:
            raise NotFound(f"the league has no scrimmage {scrimmage_id}")
        return msgspec.convert(dict(zip(Scrimmage.__struct_fields__, row, strict=True)), Scrimmage)

    @guarded
    def scrimmages(
        self, status: ScrimmageStatus | None = None, bot: str | None = None
    ) -> list[Scrimmage]:
        """Scrimmages oldest first: those of `status`, of versions of `bot`, if given."""
        where: list[str] = []
        params: list[str] = []
        if status is not None:
            where.append("status = ?")
            params.append(status)
        if bot is not None:
            where.append("version IN (SELECT id FROM versions WHERE bot = ?)")
            params.append(bot)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._db.execute(
            f"SELECT {_SCRIMMAGE_COLUMNS} FROM scrimmages {clause} ORDER BY id", params
        )
        return [
            msgspec.convert(dict(zip(Scrimmage.__struct_fields__, row, strict=True)), Scrimmage)
            for row in rows
        ]

    @guarded
    def set_scrimmage(
        self,
        scrimmage_id: int,
        status: ScrimmageStatus,
        reason: str | None = None,
        deals: tuple[int, int] | None = None,
    ) -> Scrimmage:
        """A scrimmage's progress: its status, its reason (a failure's), the deals it plays."""
        first, count = deals if deals is not None else (None, None)
        with self._transaction():
            self._db.execute(
                "UPDATE scrimmages SET status = ?, reason = ?, first_deal = coalesce(?, "
                "first_deal), deals = coalesce(?, deals), updated = ? WHERE id = ?",
                (status, reason, first, count, _now(), scrimmage_id),
            )
        return self.scrimmage(scrimmage_id)

    # ---- browser sessions (their rules are `tournaments.league.sessions`') ------------------

    @guarded
    def add_session(self, row: SessionRow, ended: Sequence[str]) -> None:
        """Store the session `row`, ending those of the cookie hashes `ended` in the same
        transaction."""
        with self._transaction():
            self._db.executemany(
                "DELETE FROM sessions WHERE cookie_hash = ?", [(h,) for h in ended]
            )
            self._db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)", row)

    @guarded
    def session(self, cookie_hash: str) -> SessionRow | None:
        row = self._db.execute("SELECT * FROM sessions WHERE cookie_hash = ?", (cookie_hash,))
        found = row.fetchone()
        return None if found is None else SessionRow(*found)

    @guarded
    def sessions_of(self, author: int) -> list[str]:
        """The cookie hashes of the author's sessions, oldest first."""
        rows = self._db.execute(
            "SELECT cookie_hash FROM sessions WHERE author = ? ORDER BY made", (author,)
        )
        return [str(row[0]) for row in rows]

    @guarded
    def end_sessions(self, cookie_hash: str = "", made_before: float = 0.0) -> None:
        """End the session of `cookie_hash` and every one made before `made_before`."""
        with self._transaction():
            self._db.execute("DELETE FROM sessions WHERE cookie_hash = ?", (cookie_hash,))
            self._db.execute("DELETE FROM sessions WHERE made < ?", (made_before,))

    @guarded
    def session_count(self) -> int:
        count: int = self._db.execute("SELECT count(*) FROM sessions").fetchone()[0]
        return count

    # ---- logs -------------------------------------------------------------------------------

    @guarded
    def append_log(self, version_id: int, kind: LogKind, text: str) -> None:
        """Add `text` to the version's build or check log, which keeps its last `LOG_BYTES`
        (the oldest text is dropped, and the log says how much)."""
        if kind not in LOG_KINDS:
            raise ValueError(f"{kind!r} is not a log's kind (one of {', '.join(LOG_KINDS)})")
        if not text:
            return
        with self._transaction():
            self._version(version_id)
            row = self._db.execute(
                "SELECT text, dropped FROM logs WHERE version = ? AND kind = ?",
                (version_id, kind),
            ).fetchone()
            old, dropped = ("", 0) if row is None else (str(row[0]), int(row[1]))
            data = (old + text).encode("utf-8", "replace")  # a lone surrogate becomes "?"
            if dropped or len(data) > LOG_BYTES:
                kept = _tail(data, LOG_BYTES - _NOTE_ROOM)
                dropped += len(data) - len(kept)
                data = kept
            self._db.execute(
                "INSERT OR REPLACE INTO logs (version, kind, text, dropped) VALUES (?, ?, ?, ?)",
                (version_id, kind, data.decode(), dropped),
            )

    @guarded
    def logs(self, version_id: int) -> dict[str, str]:
        """The version's logs by kind (a kind it has none of is absent)."""
        rows = self._db.execute(
            "SELECT kind, text, dropped FROM logs WHERE version = ? ORDER BY kind",
            (version_id,),
        )
        return {str(kind): _note(int(dropped)) + str(text) for kind, text, dropped in rows}

    # ---- uploads ----------------------------------------------------------------------------

    @guarded
    def allow_upload(self, author_id: int, now: float, per_hour: int) -> bool:
        """Whether the author may upload at `now` (Unix time): False when they made `per_hour`
        uploads in the hour before; True records this one."""
        with self._transaction():
            self._check_author(author_id)
            self._db.execute("DELETE FROM uploads WHERE at <= ?", (now - HOUR,))
            made = self._db.execute(
                "SELECT count(*) FROM uploads WHERE author = ? AND at > ?",
                (author_id, now - HOUR),
            ).fetchone()[0]
            if made >= per_hour:
                return False
            self._db.execute("INSERT INTO uploads (author, at) VALUES (?, ?)", (author_id, now))
            return True


def _tail(data: bytes, limit: int) -> bytes:
    """The last `limit` bytes of UTF-8 `data` at most, starting at a character, and at a line
    when one starts near the cut."""
    if len(data) <= limit:
        return data
    start = len(data) - limit
    while start < len(data) and data[start] & 0xC0 == 0x80:  # inside a character
        start += 1
    newline = data.find(b"\n", start, start + _LINE_SEARCH)
    if newline != -1:
        start = newline + 1
    return data[start:]


def _note(dropped: int) -> str:
    if not dropped:
        return ""
    note = f"[… {dropped} earlier bytes dropped: a log keeps its last {LOG_BYTES // 1024} KiB]\n"
    assert len(note.encode()) <= _NOTE_ROOM
    return note
