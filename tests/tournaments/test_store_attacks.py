"""Stores that are not what they claim: someone else's database, a schema changed by hand (an
endless view, a trigger), values of the wrong type, a decompression bomb. Each ends as one clean
line and exit 1 (or, for one game's record, that game's error viewer), and a file that is not
ours is left exactly as it was: never taken over or made private, no command hanging, no
traceback, bounded memory."""

from __future__ import annotations

import base64
import os
import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from storehelp import TOURNAMENT, arena, assert_one_clean_line, craft


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    file = tmp_path_factory.mktemp("played") / "cup.toml"
    file.write_text(TOURNAMENT)
    from tournaments.cli import main

    assert main(["run", str(file), "-q"]) == 0
    return file.with_suffix(".sqlite")


@pytest.fixture
def store(played: Path, tmp_path: Path) -> Path:
    """A copy of a played store for one test to craft."""
    copy = tmp_path / "cup.sqlite"
    shutil.copyfile(played, copy)
    return copy


def test_run_refuses_another_programs_database_and_leaves_it_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = tmp_path / "theirs.db"
    craft(theirs, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    theirs.chmod(0o644)
    before = theirs.read_bytes()
    file = tmp_path / "cup.toml"
    file.write_text(f'db = "{theirs}"\n' + TOURNAMENT)
    code, err = arena("run", file, "-q")
    assert code == 1
    assert_one_clean_line(err, "run", str(theirs), "is not a tournament store", "nothing")
    assert theirs.read_bytes() == before
    assert theirs.stat().st_mode & 0o777 == 0o644
    assert not theirs.with_name("theirs.db-wal").exists()


def test_an_empty_file_or_a_new_path_becomes_a_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for db in (empty, tmp_path / "new.sqlite"):
        file = tmp_path / f"{db.stem}.toml"
        file.write_text(f'db = "{db}"\n' + TOURNAMENT)
        code, err = arena("run", file, "-q")
        assert code == 0, err
        assert arena("table", db)[0] == 0


ENDLESS = (
    "CREATE VIEW games AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
    "SELECT i AS id, '1,2' AS seat_set, 0 AS deal, 0 AS rotation, 0 AS seed, '' AS finished, "
    "0.0 AS wall_ms, 0 AS decisions, '' AS tiebreak, x'' AS record FROM n"
)


@pytest.mark.parametrize(
    ("crafting", "phrase"),
    [
        (("ALTER TABLE games RENAME TO old_games", ENDLESS), "view 'games'"),
        (
            ("CREATE TRIGGER t AFTER INSERT ON seats BEGIN DELETE FROM games; END",),
            "trigger 't'",
        ),
        (("ALTER TABLE seats ADD COLUMN extra TEXT",), "table 'seats'"),
    ],
    ids=["endless view", "trigger", "extra column"],
)
@pytest.mark.parametrize("command", ["table", "report", "run"])
def test_a_schema_changed_by_hand_is_refused_before_any_row_is_read(
    store: Path,
    capsys: pytest.CaptureFixture[str],
    crafting: tuple[str, ...],
    phrase: str,
    command: str,
) -> None:
    craft(store, *crafting)
    before = store.read_bytes()
    target = store if command != "run" else store.with_suffix(".toml")
    if command == "run":
        target.write_text(TOURNAMENT)
    argv = [command, target, "-q"] if command == "run" else [command, target]
    if command == "report":
        argv += ["-o", store.with_name("report")]
    code, err = arena(*argv)
    assert code == 1
    assert_one_clean_line(err, command, str(store), "is damaged", phrase)
    assert store.read_bytes() == before


@pytest.mark.parametrize("command", ["table", "report"])
@pytest.mark.parametrize("value", ["'twelve'", "x'00'", "1.5"], ids=["text", "blob", "real"])
def test_a_score_of_the_wrong_type_is_the_stores_damage(
    store: Path, capsys: pytest.CaptureFixture[str], command: str, value: str
) -> None:
    craft(store, f"UPDATE seats SET score = {value}")
    argv = [command, store] + (["-o", store.with_name("report")] if command == "report" else [])
    code, err = arena(*argv)
    assert code == 1
    assert_one_clean_line(err, command, str(store), "is damaged", "cannot be read back")


def test_a_seat_naming_no_bot_is_the_stores_damage(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    craft(store, "UPDATE seats SET bot = 999 WHERE rowid = 1")
    code, err = arena("table", store)
    assert code == 1
    assert_one_clean_line(err, "table", str(store), "is damaged", "names nothing")


@pytest.mark.parametrize("command", ["table", "report"])
def test_a_game_missing_a_seat_is_the_stores_damage(
    store: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Found by tests/report/test_store_fuzz.py: a game left with one seat gave the ratings no
    pair at all, and `statistics.fmean` raised from inside the ladder."""
    craft(store, "DELETE FROM games WHERE rowid = 1", "DELETE FROM seats WHERE rowid = 3")
    argv = [command, store] + (["-o", store.with_name("report")] if command == "report" else [])
    code, err = arena(*argv)
    assert code == 1
    assert_one_clean_line(err, command, str(store), "is damaged", "seats for its seat-set")


def bomb(size: int) -> bytes:
    """zlib data of `size` zero bytes (about 1 KB per MiB): one MiB compressed and flushed
    whole, so that each further MiB is the same bytes again, then the closing block and the
    checksum of them all (compressing a GiB would be most of the test)."""
    squeeze = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    first = squeeze.compress(chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    again = squeeze.compress(chunk) + squeeze.flush(zlib.Z_FULL_FLUSH)
    assert first.endswith(again)  # the zlib header, then the MiB's block
    checksum = 1
    for _ in range(size >> 20):
        checksum = zlib.adler32(chunk, checksum)
    closing = b"\x03\x00"  # an empty last block of fixed codes
    return first + again * ((size >> 20) - 1) + closing + checksum.to_bytes(4, "big")


def test_a_bomb_is_the_zeros_it_claims() -> None:
    inflate = zlib.decompressobj()
    data, total = bomb(64 << 20), 0
    while data:
        total += len(inflate.decompress(data, 1 << 22))
        data = inflate.unconsumed_tail
    assert total == 64 << 20 and inflate.eof and not inflate.unused_data


@pytest.mark.slow
def test_a_decompression_bomb_is_refused_within_bounded_memory(store: Path) -> None:
    """A 1 GiB bomb (about 1 MB stored) under a 512 MB address-space limit: each command
    decompresses at most 32 MiB + 1 byte of it and says so (the report shows the game's error
    viewer), never a MemoryError."""
    connection = sqlite3.connect(store)
    with connection:
        connection.execute("UPDATE games SET record = ? WHERE id = 1", (bomb(1 << 30),))
    connection.close()
    limit = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20)); "
        "from tournaments.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    report = store.with_name("report")
    for argv, code, phrase in [
        (["replay", str(store), "1"], 1, "over 33554432 bytes"),
        (["export", str(store), "-o", str(store.with_name("out"))], 1, "over 33554432 bytes"),
        (["report", str(store), "-o", str(report), "-j", "1"], 0, ""),
    ]:
        done = subprocess.run(
            [sys.executable, "-c", limit, *argv],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr and phrase in done.stderr
    (block,) = (report / "games").iterdir()  # arenaGames("<name>","<base64 of zlib JSON>");
    shown = zlib.decompress(base64.b64decode(block.read_text().split('"')[3]))
    assert b"over 33554432 bytes" in shown
