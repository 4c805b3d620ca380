"""The store under a full disk and a damaged file: one clean error line, nothing stored lost.

A full disk is SQLite's real SQLITE_FULL, made by capping the store at a few more pages than it
has (`PRAGMA max_page_count` on the connections `arena run` opens); damage is bytes overwritten
in the middle of a store's file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from storehelp import TOURNAMENT, arena, assert_one_clean_line

from referee import BadRecord
from tournaments.cli import main
from tournaments.store.results import Played
from tournaments.store.store import Store, StoreError

GAMES_PER_DEAL = 6  # three seat-sets, two rotations each


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament whose first two deals are played and stored (12 games), played once."""
    file = tmp_path_factory.mktemp("played") / "cup.toml"
    file.write_text(TOURNAMENT)
    assert main(["run", str(file), "-q", "--deals", "2"]) == 0
    return file


@pytest.fixture
def cup(played: Path, tmp_path: Path) -> Path:
    """A copy of the played tournament (its file and its store) for one test to change."""
    for name in ("cup.toml", "cup.sqlite"):
        shutil.copyfile(played.with_name(name), tmp_path / name)
    return tmp_path / "cup.toml"


def stored(db: Path) -> dict[tuple[str, int, int], tuple[str, bytes]]:
    """Every stored game by its key: when it finished and its record (what must not change)."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT seat_set, deal, rotation, finished, record FROM games")
        return {(s, d, r): (finished, record) for s, d, r, finished, record in rows}


STORE_UNUSABLE = (1,)
"""`arena` exits 1 for a store it cannot use (EXIT_CODES), with one line on stderr."""


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """While the yielded list holds a number N, every store opened for writing can grow by N
    pages only: then SQLite fails with "database or disk is full" (SQLITE_FULL)."""
    room: list[int] = []
    connect = Store._connect

    def capped(self: Store) -> sqlite3.Connection:
        db = connect(self)
        if room:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count={pages + room[0]}")
        return db

    monkeypatch.setattr(Store, "_connect", capped)
    yield room


def test_a_full_disk_stops_the_run_cleanly_and_the_next_run_resumes(
    cup: Path, capsys: pytest.CaptureFixture[str], full_disk: list[int]
) -> None:
    db = cup.with_suffix(".sqlite")
    before = stored(db)
    assert len(before) == 2 * GAMES_PER_DEAL

    full_disk.append(2)  # two more pages: far from the 36 more games --deals 8 asks for
    code, err = arena("run", cup, "-q", "--deals", "8")
    assert code == 1
    assert_one_clean_line(
        err, "run", f"the disk holding {db} is full", "database or disk is full", "run the same"
    )
    after_failure = stored(db)
    assert before.items() <= after_failure.items()  # nothing stored before is lost or changed
    assert len(after_failure) < 8 * GAMES_PER_DEAL

    full_disk.clear()  # disk space freed
    code, err = arena("run", cup, "-q", "--deals", "8")
    assert code == 0, err
    resumed = stored(db)
    assert after_failure.items() <= resumed.items()
    assert len(resumed) == 8 * GAMES_PER_DEAL
    with Store(db, readonly=True) as store:
        assert len(store.games()) == 8 * GAMES_PER_DEAL


def test_a_full_disk_while_writing_one_game_keeps_the_others(
    tmp_path: Path, full_disk: list[int]
) -> None:
    """The library's view: add_game raises StoreError, the failed game is not half-written."""
    path = tmp_path / "s.sqlite"
    record = os.urandom(3000)  # incompressible: every game takes pages
    with Store(path) as store:
        a, b = store.bot("a", "random", "1").id, store.bot("b", "random", "2").id
    full_disk.append(8)
    with Store(path) as store:
        written = 0
        with pytest.raises(StoreError, match=r"is full .*every game stored before is kept"):
            for deal in range(100):
                store.add_game(**game(a, b, deal), record=record)
                written += 1
        assert 0 < written < 100
        assert len(store.games()) == written
    full_disk.clear()
    with Store(path) as store:
        assert [g.deal for g in store.games()] == list(range(written))
        assert store.record("1,2", written - 1, 0) == record


def game(a: int, b: int, deal: int) -> dict[str, Any]:
    return {
        "seat_set": f"{a},{b}",
        "deal": deal,
        "rotation": 0,
        "seed": deal,
        "bots": [a, b],
        "played": Played(
            scores=[1, 0], ranks=[1, 2], moves=[3, 3], think_ms=[1.0, 1.0], faults=[], wall_ms=2.0
        ),
        "decisions": 6,
    }


def damage(db: Path) -> None:
    """Overwrite one page in the middle of the file (a checkpointed store: no -wal content)."""
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
    with open(db, "r+b") as file:
        file.seek(pages // 2 * page)
        file.write(b"\xde\xad\xbe\xef" * (page // 4))


def test_a_damaged_store_gives_a_clean_error_for_table_and_run(
    cup: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = cup.with_suffix(".sqlite")
    damage(db)
    damaged_bytes = db.read_bytes()

    code, err = arena("table", db)
    assert code in STORE_UNUSABLE
    assert_one_clean_line(err, "table", f"{db} is damaged", ".recover", "Restore a copy")

    code, err = arena("run", cup, "-q", "--deals", "4")
    assert code in STORE_UNUSABLE
    assert_one_clean_line(err, "run", f"{db} is damaged", ".recover", "--db")
    assert db.read_bytes() == damaged_bytes  # refused before writing anything


def test_damaged_values_that_sqlite_cannot_see_are_store_errors_too(cup: Path) -> None:
    """Bytes flipped inside a value leave the pages valid: the value itself fails to decode (a
    record as that one game's `BadRecord`, so a report shows the others)."""
    db = cup.with_suffix(".sqlite")
    with sqlite3.connect(db) as connection:
        key = connection.execute("SELECT seat_set FROM games LIMIT 1").fetchone()[0]
        connection.execute("UPDATE games SET record = x'789c0000' WHERE deal = 0 AND rotation = 0")
        connection.execute("UPDATE meta SET value = '{\"game\": ' WHERE key = 'settings'")
    with Store(db) as store:
        with pytest.raises(BadRecord, match=r"its stored record is cut short"):
            store.record(key, 0, 0)
        with pytest.raises(StoreError, match="is damaged"):
            store.settings()


def test_table_never_writes_into_a_file_it_only_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    code, err = arena("table", empty)
    assert code in STORE_UNUSABLE
    assert_one_clean_line(err, "table", f"{empty} is not a tournament store (an empty file)")
    assert empty.stat().st_size == 0
    assert sorted(os.listdir(tmp_path)) == ["empty.sqlite"]

    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text)")
    content = other.read_bytes()
    code, err = arena("table", other)
    assert code in STORE_UNUSABLE
    assert_one_clean_line(err, "table", "not a tournament store (another SQLite database)")
    assert other.read_bytes() == content

    with pytest.raises(StoreError, match="no store at"):
        Store(tmp_path / "missing.sqlite", readonly=True)
    assert not (tmp_path / "missing.sqlite").exists()


def test_a_read_only_store_reads_and_refuses_writes(cup: Path) -> None:
    db = cup.with_suffix(".sqlite")
    with Store(db, readonly=True) as store:
        assert len(store.games()) == 2 * GAMES_PER_DEAL
        with pytest.raises(StoreError, match=r"was opened read-only: nothing was changed"):
            store.bot("late", "python3 late.py", "0" * 64)


def test_the_secret_is_stable_private_and_differs_between_stores(tmp_path: Path) -> None:
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    old_umask = os.umask(0o022)
    try:
        with Store(first) as store:
            secret = store.secret()
            modes = {
                name: stat.S_IMODE(os.stat(tmp_path / name).st_mode)
                for name in os.listdir(tmp_path)
            }
    finally:
        os.umask(old_umask)
    assert len(secret) == 32
    assert modes == {"a.sqlite": 0o600, "a.sqlite-wal": 0o600, "a.sqlite-shm": 0o600}
    with Store(first) as store:
        assert store.secret() == secret
    with Store(first, readonly=True) as store:
        assert store.secret() == secret
    with Store(second) as store:
        assert store.secret() != secret


def test_an_older_store_gets_a_secret_and_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with Store(path):
        pass
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM meta WHERE key = 'secret'")
    path.chmod(0o644)
    with Store(path, readonly=True) as store, pytest.raises(StoreError, match="no secret yet"):
        store.secret()
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # a reader changes nothing
    with Store(path) as store:
        secret = store.secret()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with Store(path) as store:
        assert store.secret() == secret


WRITE_UNTIL_IT_FAILS = """
import os, resource, signal, sys
from tournaments.store.results import Played
from tournaments.store.store import Store, StoreError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
written = 0
try:
    with Store(sys.argv[1]) as store:
        for deal in range(1000):
            played = Played(scores=[1, 0], ranks=[1, 2], moves=[1, 1], think_ms=[1.0, 1.0])
            store.add_game(
                seat_set="1,2", deal=deal, rotation=0, seed=deal, bots=[1, 2], played=played,
                decisions=1, record=os.urandom(3000),
            )
            written += 1
except StoreError as exc:
    print(written, exc, sep="\\n")
"""


def test_a_disk_io_error_is_a_clean_store_error_and_keeps_the_games(tmp_path: Path) -> None:
    """A real SQLITE_IOERR: the writer may not grow a file past 200 kB (RLIMIT_FSIZE)."""
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.bot("a", "random", "1")
        store.bot("b", "random", "2")
    done = subprocess.run(
        [sys.executable, "-c", WRITE_UNTIL_IT_FAILS, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    written, message = done.stdout.splitlines()
    assert message.startswith(f"a disk I/O error on {path} (disk I/O error)"), message
    assert "every game stored before is kept" in message
    with Store(path) as store:
        assert len(store.games()) == int(written) > 0
