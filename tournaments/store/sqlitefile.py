"""An SQLite file of ours: what the tournament store (`tournaments.store.store`) and the league
registry (`tournaments.league.registry`) share, written once.

`SqliteFile` opens the file private (mode 0600, and so are SQLite's -wal and -shm files, which
take its mode) with SQLite's `trusted_schema` off and no implicit transactions; a file that is
not one of ours (another program's database, a schema changed by hand) is refused before
anything writes into it, left exactly as it was. Changes are `BEGIN IMMEDIATE` transactions
(`_transaction`), in WAL mode. Every failure of SQLite, in a method decorated with `guarded`,
surfaces as one `StoreError` whose message says what happened, to which file, and what to do
(`_failure`, `_damaged`): the class attributes say what differs between the kinds of file.

Opened `readonly`, a file is read beside its writer and never written: SQLite opens it with
`mode=ro` and `query_only`, nothing of a writer's opening runs (no schema made or brought up),
and a change is refused with a `StoreError` that says so.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar, Concatenate, ParamSpec, Self, TypeVar
from urllib.parse import quote

from protocol.errors import ArenaError


class StoreError(ArenaError):
    """The store (or the league registry) cannot serve: a full disk, an I/O error, a damaged
    file, another program's file, a newer schema. The message is for the user: what is wrong,
    the file, what to do."""


F = TypeVar("F", bound="SqliteFile")
P = ParamSpec("P")
R = TypeVar("R")


def guarded(method: Callable[Concatenate[F, P], R]) -> Callable[Concatenate[F, P], R]:
    """`method` with SQLite's errors, and the file's values that cannot be read back (the
    class's `UNREADABLE`), raised as a `StoreError`."""

    @functools.wraps(method)
    def guarded(self: F, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise self._failure(exc) from exc
        except self.UNREADABLE as exc:
            raise self._damaged(f"{self.UNREADABLE_DETAIL}: {exc}") from exc

    return guarded


class SqliteFile:
    """An SQLite file of ours, opened for writing (or `readonly`). Not thread-safe: use it
    from one thread.

    A subclass says what its file is, in the messages a user sees, with the class attributes;
    it gives its schema (`SCHEMA`, `SCHEMA_VERSION`; a `meta` table holds the version) and
    `_check_ours`, which refuses a file that is not one of its kind (`_check_tables` checks
    the rest).
    """

    KIND: ClassVar[str]
    """What the file is: "is not a tournament store", "not a usable tournament store"."""
    NOUN: ClassVar[str]
    """The short name: "a view that a store never has", "a store whose first page"."""
    CALLED: ClassVar[str]
    """As named in "cannot open the store …" and "the store … failed"."""
    OPEN_ADVICE: ClassVar[str] = ""
    """After "cannot open the store …: {error}", when the file cannot be opened at all."""
    MISSING_ADVICE: ClassVar[str] = ""
    """After "no store at …", when a file opened `readonly` does not exist."""
    LOCKED: ClassVar[str]
    """What to do about a file that another program is writing."""
    RESUMES: ClassVar[bool]
    """A failed write keeps every game stored before, and the same command again resumes
    (the tournament store); else the user tries the change again (the league registry)."""
    RECOVERY: ClassVar[str]
    """How to save what a damaged file still holds: formatted with `recover`, the `.recover`
    command, and `saved`, the new file it writes."""
    UNREADABLE: ClassVar[tuple[type[Exception], ...]] = ()
    """The errors of a stored value that cannot be read back (`guarded` makes them damage)."""
    UNREADABLE_DETAIL: ClassVar[str] = ""
    SCHEMA: ClassVar[str]
    SCHEMA_VERSION: ClassVar[str]
    ANY_THREAD: ClassVar[bool] = False
    """Used by one thread at a time, not always the same one (trio's worker threads)."""

    def __init__(self, path: Path | str, *, readonly: bool = False, check: bool = True) -> None:
        self.path = Path(path)
        self.readonly = readonly
        """Read an existing file without ever writing into it (nor making it): what a writer's
        opening does is left to the writer, and a change is refused (`_refused`)."""
        self.check = check
        """Run `PRAGMA quick_check` at the opening: off for a file this process checked when it
        first opened it (a page's read must not cost a pass over the whole file)."""
        self._db = self._connect()
        try:
            self._setup()
        except BaseException as exc:
            self._db.close()
            if isinstance(exc, sqlite3.Error):
                raise self._failure(exc, opening=True) from exc
            raise

    @guarded
    def changes(self) -> tuple[int, int]:
        """A token that differs once the file changed: by this connection's writes, or by a
        commit of another connection (`PRAGMA data_version`). What is made from the file may
        be kept under it."""
        (version,) = self._db.execute("PRAGMA data_version").fetchone()
        return self._db.total_changes, int(version)

    def _connect(self) -> sqlite3.Connection:
        if self.readonly:
            if not self.path.is_file():
                raise StoreError(f"no {self.CALLED} at {self.path}{self.MISSING_ADVICE}")
            return self._read_only()
        # isolation_level=None: no implicit transactions; `_transaction` says where they are.
        try:
            create_private(self.path)
            connection = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=not self.ANY_THREAD
            )
            return untrusting(connection)
        except (sqlite3.Error, OSError) as exc:
            raise self._unopenable(exc) from None

    def _read_only(self) -> sqlite3.Connection:
        """A connection that never writes into the file (nor makes it). A reader kept open for
        the pages is used by one thread at a time, not always the same one (trio's worker
        threads)."""
        try:
            uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
            connection = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False
            )
            return untrusting(connection)
        except (sqlite3.Error, OSError) as exc:
            raise self._unopenable(exc) from None

    def _unopenable(self, exc: Exception) -> StoreError:
        return StoreError(f"cannot open the {self.CALLED} {self.path}: {exc}{self.OPEN_ADVICE}")

    def _setup(self) -> None:
        """Make the file ours (a new or empty one), or check it is, and bring its schema up;
        opened `readonly`, only check it is ours and of this schema."""
        self._db.execute("PRAGMA busy_timeout=10000")
        if self.readonly:
            self._db.execute("PRAGMA query_only=ON")
            self._check_ours()
            self._check_version()
            return
        # Before anything writes (WAL mode rewrites the header): only a new or empty file, or
        # one of ours, becomes one; someone else's database is left exactly as it was.
        if self._objects():
            self._check_ours()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._transaction():
            # executescript would COMMIT first; run the statements inside this transaction.
            for statement in self.SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(
                "INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (self.SCHEMA_VERSION,)
            )
            self._schema_made()
        make_private(self.path)

    def _schema_made(self) -> None:
        """What the subclass does in the setup's transaction, after the schema is made."""

    def _check_ours(self) -> None:
        """Refuse a file that is not of this kind (before reading a row)."""
        raise NotImplementedError

    def _check_version(self) -> None:
        """Refuse a file of another schema version than this arena's."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        version = None if row is None else row[0]
        if version != self.SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: {self.CALLED} schema {version}, this arena reads "
                f"{self.SCHEMA_VERSION}; use the arena that made it"
            )

    def _objects(self) -> dict[str, tuple[str, str]]:
        """Name → (type, table) of everything in the file's schema (tables, indexes, views,
        triggers)."""
        rows = self._db.execute("SELECT name, type, tbl_name FROM sqlite_schema")
        return {str(name): (str(kind), str(table)) for name, kind, table in rows}

    def _check_tables(
        self, objects: dict[str, tuple[str, str]], schema: str, tables: frozenset[str]
    ) -> None:
        """Refuse a file whose schema was changed by hand, before reading a row: only the tables
        `schema` may create (with exactly their columns) and their indexes, and every one of
        `tables`. A view or a trigger could run any query — an endless recursive one hangs
        every command — and `PRAGMA quick_check` does not look at what a view computes."""
        expected = expected_columns(schema)
        for name, (kind, table) in sorted(objects.items()):
            if (kind == "index" and table in expected) or name.startswith("sqlite_stat"):
                continue  # our indexes, and the statistics `ANALYZE` keeps
            if kind != "table" or name not in expected:
                raise self._damaged(f"it has a {kind} {name!r} that a {self.NOUN} never has")
            if _columns(self._db, name) != expected[name]:
                raise self._damaged(f"its table {name!r} does not have a {self.NOUN}'s columns")
        missing = sorted(tables - objects.keys())
        if missing:
            raise self._damaged(f"its table {missing[0]!r} is missing")
        if self.check:
            self._check_integrity()

    def _check_integrity(self) -> None:
        """Refuse a damaged file before using it (SQLite would fail later, on some page): a
        pass over the whole file, so done when a process opens it, not at each read."""
        problems = [str(row[0]) for row in self._db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            detail = "; ".join(line for problem in problems for line in problem.splitlines())
            raise self._damaged(f"PRAGMA quick_check: {detail[:300]}")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- failures ---------------------------------------------------------------------------

    def _failure(self, exc: sqlite3.Error, *, opening: bool = False) -> StoreError:
        """The `StoreError` that explains `exc` to the user (what, which file, what to do)."""
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        if self.RESUMES:
            left = "the failed write left nothing behind, every game stored before is kept"
            full_then = "run the same command again: it resumes where it stopped"
            then = "run the same command again to resume"
        else:
            left = "the failed change left nothing behind"
            full_then = then = "try again"
        if code == sqlite3.SQLITE_FULL:
            return StoreError(
                f"the disk holding {self.path} is full ({exc}): {left}. Free disk space, then "
                f"{full_then}"
            )
        if code == sqlite3.SQLITE_IOERR:
            return StoreError(
                f"a disk I/O error on {self.path} ({exc}): {left}. Check the disk (and its free "
                f"space), then {then}"
            )
        if code == sqlite3.SQLITE_CORRUPT:
            return self._damaged(str(exc))
        if code == sqlite3.SQLITE_NOTADB:
            return StoreError(
                f"{self.path}: not a usable {self.KIND} ({exc}): another kind of file, or a "
                f"{self.NOUN} whose first page is damaged (restore a copy of it)"
            )
        if code == sqlite3.SQLITE_READONLY and self.readonly:
            return self._refused()
        if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            return StoreError(f"{self.path} is locked ({exc}): {self.LOCKED}")
        if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
            return StoreError(
                f"cannot write {self.path} ({exc}): check the permissions of the file, its -wal "
                "and -shm files and its directory"
            )
        if opening:
            return StoreError(f"{self.path}: not a usable {self.KIND} ({exc})")
        return StoreError(f"the {self.CALLED} {self.path} failed: {exc}")

    def _refused(self) -> StoreError:
        """The error for a change asked of a file opened `readonly`."""
        return StoreError(
            f"the {self.CALLED} {self.path} was opened read-only: nothing was changed (open it "
            "for writing to change it)"
        )

    def _damaged(self, detail: str) -> StoreError:
        """The error for a damaged file, with the way to save what it still holds."""
        saved = self.path.with_name(self.path.stem + "-recovered" + self.path.suffix)
        recover = f"`sqlite3 {self.path} .recover | sqlite3 {saved}`"
        return StoreError(
            f"{self.path} is damaged ({detail}). Restore a copy of it, or "
            + self.RECOVERY.format(recover=recover, saved=saved)
        )

    # ---- plumbing ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the file: a writer committing meanwhile (WAL
        lets it) adds nothing halfway — no game read without its seats, no list of games paired
        with ids read a moment later. Inside a transaction already, that one is the snapshot."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("COMMIT")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception (KeyboardInterrupt included).

        After some errors (a full disk, an I/O error) SQLite has already rolled back; and if
        ROLLBACK itself fails, the error that caused it is the one worth reporting (SQLite
        finishes the rollback from its journal when the file is next opened)."""
        if self.readonly:
            raise self._refused()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


def create_private(path: Path) -> None:
    """Create the file with mode 0600 unless it exists (SQLite gives -wal and -shm its mode)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def make_private(path: Path) -> None:
    """Take group and others' access away from the file and its -wal and -shm files."""
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        # A file of someone else's cannot be changed; it stays as its owner set it.
        with contextlib.suppress(FileNotFoundError, PermissionError):
            mode = stat.S_IMODE(file.stat().st_mode)
            if mode & 0o077:
                file.chmod(mode & 0o700)


def untrusting(connection: sqlite3.Connection) -> sqlite3.Connection:
    """`connection` with SQLite's `trusted_schema` off: functions with side effects and virtual
    tables named in the file's own schema (a crafted file's defaults, indexes, views) are
    refused instead of run."""
    connection.execute("PRAGMA trusted_schema=OFF")
    return connection


@functools.cache
def expected_columns(schema: str) -> dict[str, list[tuple[str, str]]]:
    """(name, declared type) of every column of every table `schema` creates, read from the
    schema itself (made in memory), so a check cannot drift from what the schema creates."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type='table'")]
        return {name: _columns(db, name) for name in names}
    finally:
        db.close()


def _columns(db: sqlite3.Connection, table: str) -> list[tuple[str, str]]:
    return [
        (str(row[1]), str(row[2]).upper()) for row in db.execute(f'PRAGMA table_info("{table}")')
    ]
