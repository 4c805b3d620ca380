"""The report's data: steps re-played through the engines, the page's tables and game index,
the games table, and the bots' log directories."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from reporthelp import TOURNAMENTS, cli, index_rows, page_data, report_games
from tourhelp import game as made_game

from referee.games import find_game, parse_options
from tournaments.rank.tables import TABLE_NAMES, game_list
from tournaments.report.page import write_report
from tournaments.report.viewer import game_data
from tournaments.store.botlogs import log_directory
from tournaments.store.results import GameKey
from tournaments.store.store import Store


def as_json(value: object) -> Any:
    """`value` as it reads back from JSON (tuples become lists)."""
    return json.loads(msgspec.json.encode(value))


@pytest.mark.parametrize("name", list(TOURNAMENTS))
def test_steps_are_the_engine_states_after_each_decision(
    stores: dict[str, Path], name: str
) -> None:
    with Store(stores[name], readonly=True) as store:
        key = store.game_keys()[0]
        record = store.game_record(key.id)
    assert record is not None
    data = game_data(record)
    assert data["error"] is None
    steps = data["steps"]
    assert len(steps) == key.decisions + 1
    game = find_game(data["game"])
    state = game.new(len(data["names"]), int(data["seed"]), parse_options(game, data["options"]))
    assert steps[0]["state"] == msgspec.to_builtins(game.spectate(state))
    assert steps[0]["actions"] is None
    first = {int(s): msgspec.convert(a, type=game.Action) for s, a in steps[1]["actions"].items()}
    game.apply(state, first)
    assert steps[1]["state"] == msgspec.to_builtins(game.spectate(state))
    assert steps[1]["state"] != steps[0]["state"]
    assert steps[-1]["to_act"] == [] and steps[-1]["scores"] == data["result"]["scores"]


def test_a_record_that_does_not_replay_is_shown_up_to_where_it_breaks(
    stores: dict[str, Path],
) -> None:
    with Store(stores["azul"], readonly=True) as store:
        record = store.game_record(store.game_keys()[0].id)
    assert record is not None
    lines = record.splitlines()
    third = json.loads(lines[3])
    assert third["type"] == "decision"
    third["actions"] = {
        seat: {"type": "take", "source": 0, "colour": 9, "line": 0} for seat in third["actions"]
    }
    lines[3] = json.dumps(third).encode()
    data = game_data(b"\n".join(lines) + b"\n")
    assert data["error"] is not None and "decision 3" in data["error"]
    assert len(data["steps"]) == 3  # the start and the two decisions before


def test_hands_are_shown_only_for_a_finished_game(stores: dict[str, Path]) -> None:
    """A finished 5211 game carries every seat's hand for the viewer's "every hand" switch; the
    same record without its result line (a game still being played) carries none."""
    with Store(stores["5211"], readonly=True) as store:
        record = store.game_record(store.game_keys()[0].id)
    assert record is not None
    finished = game_data(record)
    hands = [step["private"] for step in finished["steps"] if step["private"]]
    assert hands and all(len(seats) == len(finished["names"]) for seats in hands)
    assert all("hand" in seat for seats in hands for seat in seats)
    lines = record.splitlines()
    assert json.loads(lines[-1])["type"] == "result"
    playing = game_data(b"\n".join(lines[:-1]) + b"\n")
    assert playing["result"] is None and len(playing["steps"]) == len(finished["steps"])
    assert all(step["private"] is None for step in playing["steps"])


@pytest.mark.parametrize("name", list(TOURNAMENTS))
def test_the_report_holds_the_tables_of_arena_table_and_every_game(
    stores: dict[str, Path], tmp_path: Path, name: str
) -> None:
    store = stores[name]
    index = write_report(store, tmp_path / "report")
    data = page_data(index)
    printed = json.loads(cli("table", store, "-t", "all", "--json").stdout)
    tables = {table["name"]: table for table in data["tables"]}
    assert set(printed) <= set(tables)
    for table_name, rows in printed.items():
        table = tables[table_name]
        assert [dict(zip(table["keys"], row, strict=True)) for row in table["rows"]] == rows
    with Store(store, readonly=True) as opened:
        keys = opened.game_keys()
        records = {key.id: opened.game_record(key.id) for key in keys}
    assert [entry["id"] for entry in index_rows(data)] == [key.id for key in keys]
    assert [table["name"] for table in data["tables"]] == list(TABLE_NAMES)
    standings = tables["standings"]
    assert standings["notes"] == [note for note in standings["notes"] if note.startswith("Cycle ")]
    played = Counter(bot for entry in index_rows(data) for bot in entry["bots"])
    assert {bot: points[-1][0] for bot, points in data["history"].items()} == played
    games = report_games(index)
    for key in keys:
        record = records[key.id]
        assert record is not None and len(games[key.id]["steps"]) == key.decisions + 1
        assert games[key.id] == as_json(game_data(record))  # every step, as the engine made it
    assert "http://" not in index.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_games_table_names_each_game_by_its_store_id() -> None:
    games = [
        made_game(["a", "b"], [1, 2]),
        made_game(["b", "a"], [2, 1], faults=[]),
    ]
    keys = [GameKey(7, 11, 40), GameKey(3, 12, 41)]
    table = game_list(games, keys)
    assert [row["id"] for row in table.records()] == [7, 3]
    assert table.records()[1]["bots"] == "b a" and table.records()[1]["decisions"] == 41
    with pytest.raises(ValueError, match="key of every game"):
        game_list(games, keys[:1])


def test_an_unused_temporary_log_directory_is_removed(capsys: pytest.CaptureFixture[str]) -> None:
    with log_directory(None) as empty:
        (Path(empty) / "seat0.log").write_bytes(b"")
    assert not Path(empty).exists()
    with log_directory(None) as used:
        (Path(used) / "seat0.log").write_bytes(b"thinking\n")
    assert Path(used).is_dir()
    assert used in capsys.readouterr().err
    (Path(used) / "seat0.log").unlink()
    Path(used).rmdir()


def test_worker_processes_write_the_same_games(
    stores: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tournaments.report.blocks as blocks

    store = stores["5211"]
    monkeypatch.setattr(blocks, "BLOCK_IDS", 2)  # 3 games: 2 blocks, one task each
    write_report(store, tmp_path / "one", workers=1)
    monkeypatch.setattr(blocks, "PARALLEL_FROM", 1)
    write_report(store, tmp_path / "two", workers=2)
    one = sorted((tmp_path / "one" / "games").iterdir())
    two = sorted((tmp_path / "two" / "games").iterdir())
    assert [p.name for p in one] == [p.name for p in two] and len(one) == 2
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(one, two, strict=True))


def test_text_from_outside_cannot_end_the_pages_script() -> None:
    from tournaments.report.shell import render_page

    hostile = "</script><script>alert(1)</script><!--"
    page = render_page({"mode": "report", "title": hostile, "tables": [], "games": []})
    assert hostile not in page and "<script>alert" not in page
    found = re.search(r"const ARENA_DATA = (.*?);\n", page)
    assert found is not None and json.loads(found.group(1))["title"] == hostile
