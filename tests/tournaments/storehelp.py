"""The damaged-store tests' shared tournament, their one-line-error check, and `craft` (an
SQLite file edited by hand, for the store's and the league registry's attack tests)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tourhelp import in_process

TOURNAMENT = """
game = "5211"
players = 2
deals = 1
seed = 5
concurrency = 1

[participants]
greedy = "greedy"
random = "random"
random-twin = "random"

[time]
move_ms = 5000
"""


def arena(*argv: str | Path) -> tuple[int, str]:
    """`arena ARGV...` in this process (`tourhelp.in_process`): exit code and stderr."""
    code, _, err = in_process(*argv)
    return code, err


def assert_one_clean_line(err: str, command: str, *phrases: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"arena {command}: error: "), err
    assert "Traceback" not in err
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


def craft(db: Path, *statements: str) -> None:
    """Run `statements` on `db` as someone editing it by hand would, and close it (its WAL
    checkpointed into the file)."""
    connection = sqlite3.connect(db)
    try:
        with connection:
            for statement in statements:
                connection.execute(statement)
    finally:
        connection.close()
