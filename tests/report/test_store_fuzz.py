"""Fuzzing what reads a store: a real store with one thing changed by hand — a value of any
type in any cell of any table (text where a score goes, a blob for an id, a number beyond 64
bits, a record that is not zlib or a zlib bomb), a row gone, or an object added to the schema (a
view, a trigger, a table, an index) — fed to `arena table`, `arena report`, `arena export` and
`arena replay STORE GAME`. The only outcomes allowed: success (the report may show a game's
error viewer), or a clean refusal — `main` returns 1 or 2 with its one error line last. A
traceback fails the test (it escapes `main`), and so does a hang (an alarm stops any command).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import zlib
from pathlib import Path

import pytest
from crafted import arena
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TOURNAMENT = """
game = "azul"
players = 2
deals = 1
seed = 8
concurrency = 1
sandbox = "none"

[participants]
greedy = "greedy"
random = "random"
"""

TABLES = {
    "meta": ["key", "value"],
    "bots": ["id", "name", "command", "hash", "added", "created"],
    "games": [
        "id",
        "seat_set",
        "deal",
        "rotation",
        "seed",
        "finished",
        "wall_ms",
        "decisions",
        "tiebreak",
        "record",
    ],
    "seats": ["game", "seat", "bot", "score", "rank", "moves", "think_ms"],
    "faults": ["game", "seat", "kind", "reason", "decision"],
}

VALUES = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([0, -1, 1, 2, 999, 2**63 - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["1,2", "1,2,3", "999", "a,b", "", '{"game": "azul"}', "1" * 400]),
    st.binary(max_size=30),
    st.sampled_from(
        [zlib.compress(b"not a record"), zlib.compress(bytes(40 << 20), 9), b"x\x9c\x00\x00"]
    ),
)

SCHEMA_ADDITIONS = st.sampled_from(
    [
        "CREATE VIEW seen AS SELECT * FROM games",
        "CREATE TRIGGER gone AFTER UPDATE ON meta BEGIN DELETE FROM games; END",
        "CREATE TABLE extra (x)",
        "CREATE INDEX by_seed ON games (seed)",
        "CREATE INDEX odd ON extra_missing (x)",
        "ALTER TABLE faults ADD COLUMN more TEXT",
        "DROP TABLE faults",
    ]
)


@st.composite
def change(draw: st.DrawFn) -> tuple[str, tuple[object, ...]]:
    """One SQL statement (with its parameters) that changes the store by hand."""
    kind = draw(st.integers(0, 3))
    table = draw(st.sampled_from(sorted(TABLES)))
    if kind <= 1:
        column = draw(st.sampled_from(TABLES[table]))
        row = draw(st.integers(1, 8))
        return f"UPDATE {table} SET {column} = ? WHERE rowid = {row}", (draw(VALUES),)
    if kind == 2:
        return f"DELETE FROM {table} WHERE rowid = {draw(st.integers(1, 8))}", ()
    return draw(SCHEMA_ADDITIONS), ()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    file = tmp_path_factory.mktemp("store-fuzz") / "cup.toml"
    file.write_text(TOURNAMENT)
    code, _, err = arena("run", file, "-q")
    assert code == 0, err
    return file.with_suffix(".sqlite")


def clean(code: int, err: str, command: str) -> None:
    """Success, or a refusal whose last line is `main`'s one error line."""
    assert code in (0, 1, 2), err
    assert "Traceback" not in err
    if code != 0 and command != "replay":  # replay's 1 may be a divergence, said on stdout
        assert err.strip().splitlines()[-1].startswith(f"arena {command}: error: "), err


@pytest.mark.slow
def test_any_store_changed_by_hand_is_read_or_refused_cleanly(played: Path) -> None:
    @settings(
        max_examples=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(st.lists(change(), min_size=1, max_size=3))
    def check(changes: list[tuple[str, tuple[object, ...]]]) -> None:
        with tempfile.TemporaryDirectory() as directory:
            store = Path(directory) / "cup.sqlite"
            shutil.copyfile(played, store)
            connection = sqlite3.connect(store)
            for statement, parameters in changes:
                try:
                    with connection:
                        connection.execute(statement, parameters)
                except sqlite3.Error:
                    pass  # refused by SQLite itself (a NOT NULL, a unique key): not a store change
            connection.close()
            out = Path(directory)
            for argv in (
                ["table", store],
                ["report", store, "-o", out / "report", "-j", "1"],
                ["export", store, "-o", out / "export"],
                ["replay", store, 1],
            ):
                code, _, err = arena(*argv)
                clean(code, err, str(argv[0]))

    check()
