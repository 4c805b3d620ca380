"""A published game must never help a later bot: every seed the tools wrote (the report's game
list, exported records) belongs to tables a bot added afterwards never sits at, so it plays
only deals never dealt before. Before deal seeds were keyed by the table, deal k was the same
at every table and a newcomer replayed the published deals."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from tournaments.cli import main
from tournaments.store.store import Store

TOURNAMENT = """
game = "5211"
players = 2
deals = 2
seed = 11
concurrency = 1
sandbox = "none"

[participants]
random = "random"
greedy = "greedy"
"""


def seeds_in(directory: Path) -> set[int]:
    """Every integer of 6 digits or more in the files under `directory`: any seed written."""
    found: set[int] = set()
    for path in directory.rglob("*"):
        if path.is_file():
            found |= {int(n) for n in re.findall(rb"\d{6,}", path.read_bytes())}
    return found


def stored_seeds(store: Path) -> dict[tuple[str, int, int], int]:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT seat_set, deal, rotation, seed FROM games").fetchall()
    return {(table, deal, rotation): seed for table, deal, rotation, seed in rows}


@pytest.mark.slow
def test_a_bot_added_after_a_report_plays_only_fresh_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)
    store = tmp_path / "cup.sqlite"
    assert main(["run", str(file), "-q"]) == 0
    published = tmp_path / "published"
    assert main(["report", str(store), "-o", str(published / "report"), "-j", "1"]) == 0
    assert main(["export", str(store), "-o", str(published / "export")]) == 0
    before = stored_seeds(store)
    assert set(before.values()) <= seeds_in(published)  # the outputs do show every seed

    assert main(["add", str(file), "newcomer", "random", "-q"]) == 0
    capsys.readouterr()
    after = stored_seeds(store)
    with Store(store) as opened:
        newcomer = next(row.id for row in opened.bots() if row.name == "newcomer")
    new_games = {key: seed for key, seed in after.items() if key not in before}
    assert new_games and all(str(newcomer) in key[0].split(",") for key in new_games)
    assert not set(new_games.values()) & seeds_in(published)
    # Each new table deals its own deals, each shared by its two rotations.
    deals = {(table, deal): seed for (table, deal, _), seed in new_games.items()}
    assert len(set(deals.values())) == len(deals) == 4
    assert all(new_games[(t, d, r)] == deals[(t, d)] for t, d, r in new_games)


@pytest.mark.slow
def test_a_store_of_the_old_dealing_goes_on_and_its_begun_deal_keeps_its_seed(
    tmp_path: Path,
) -> None:
    """A store of dealing version 2 (one seed per deal number, whatever the table) whose deal
    was half played finishes it on that seed, so its rotations still share the draws; from then
    on the store is bound to version 3."""
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)
    store = tmp_path / "cup.sqlite"
    assert main(["run", str(file), "-q"]) == 0
    old_seed = 123456789
    with sqlite3.connect(store) as db:
        [settings] = db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        old = json.dumps({**json.loads(settings), "dealing": 2})
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (old,))
        db.execute("UPDATE games SET seed = ? WHERE deal = 0", (old_seed,))
        db.execute("DELETE FROM games WHERE deal = 0 AND rotation = 1")
        for table in ("seats", "faults"):
            db.execute(f"DELETE FROM {table} WHERE game NOT IN (SELECT id FROM games)")
    assert main(["run", str(file), "-q"]) == 0
    assert {seed for (_, deal, _), seed in stored_seeds(store).items() if deal == 0} == {old_seed}
    with Store(store) as opened:
        assert (opened.settings() or {})["dealing"] == 3
