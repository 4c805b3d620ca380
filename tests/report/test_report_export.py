"""`arena table -t games`, `arena replay STORE GAME` and `arena export` (with observations)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from reporthelp import TOURNAMENTS, cli

from referee.games import find_game, parse_options
from tournaments.store.store import Store


def as_json(value: object) -> object:
    """`value` as it reads back from JSON (tuples become lists)."""
    return json.loads(msgspec.json.encode(value))


def game_ids(store: Path) -> list[int]:
    listed = json.loads(cli("table", store, "-t", "games", "--json").stdout)["games"]
    return [row["id"] for row in listed]


@pytest.mark.parametrize("name", list(TOURNAMENTS))
def test_every_listed_game_replays_from_the_store(stores: dict[str, Path], name: str) -> None:
    store = stores[name]
    with Store(store, readonly=True) as opened:
        expected = sorted(key.id for key in opened.game_keys())
    ids = game_ids(store)
    assert sorted(ids) == expected and ids
    for game_id in ids:
        done = cli("replay", store, str(game_id))
        assert "result identical" in done.stdout


def test_replay_of_a_store_needs_a_known_game(stores: dict[str, Path], tmp_path: Path) -> None:
    store = stores["azul"]
    assert "name the game" in cli("replay", store, code=2).stderr
    assert "has no game 999" in cli("replay", store, "999", code=2).stderr
    record = tmp_path / "r.jsonl"
    cli("export", store, "-o", tmp_path, "--game", "1")
    (tmp_path / "1.jsonl").rename(record)
    assert "not a store" in cli("replay", record, "1", code=2).stderr


def test_export_writes_the_stored_records(stores: dict[str, Path], tmp_path: Path) -> None:
    store = stores["5211"]
    cli("export", store, "-o", tmp_path)
    with Store(store, readonly=True) as opened:
        for key in opened.game_keys():
            assert (tmp_path / f"{key.id}.jsonl").read_bytes() == opened.game_record(key.id)
    assert "exists" in cli("export", store, "-o", tmp_path, code=2).stderr
    cli("export", store, "-o", tmp_path, "--force")


@pytest.mark.parametrize("name", list(TOURNAMENTS))
def test_observations_are_what_each_seat_was_sent(
    stores: dict[str, Path], tmp_path: Path, name: str
) -> None:
    """The export's observations match the engine's, decision by decision, and the record
    with them still replays identically."""
    store = stores[name]
    game_id = game_ids(store)[0]
    cli("export", store, "-o", tmp_path, "--game", str(game_id), "--observations")
    path = tmp_path / f"{game_id}.jsonl"
    assert "result identical" in cli("replay", path).stdout
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    header = lines[0]
    game = find_game(header["game"])
    state = game.new(len(header["names"]), header["seed"], parse_options(game, header["options"]))
    decisions = [line for line in lines if line["type"] == "decision"]
    assert decisions
    for line in decisions:
        assert set(line["observations"]) == set(line["actions"])  # built-in bots never fault
        for seat, observation in line["observations"].items():
            assert observation == as_json(game.observe(state, int(seat)))
            legal = as_json(game.legal(state, int(seat)))
            assert line["legal"][seat] == legal
            assert line["actions"][seat] in legal  # type: ignore[operator]
        game.apply(
            state,
            {int(s): msgspec.convert(a, type=game.Action) for s, a in line["actions"].items()},
        )
    assert game.result(state) is not None
