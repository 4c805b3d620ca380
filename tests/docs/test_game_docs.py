"""The game pages and the protocol's games section hold what a bot author in another language
needs, exactly: every JSON example decodes with the game's own message types, every
observation field table lists exactly the fields the engine sends, and Alhambra's building
table is the engine's: a field sent but undocumented, a game missing from the protocol's table
or a building table that differs from the engine's fails here.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.games import GAME_IDS, find_game
from referee.games.alhambra_tiles import building_table
from tournaments.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {
    "azul": "azul.md",
    "5211": "5211.md",
    "summer-pavilion": "summer-pavilion.md",
    "alhambra": "alhambra.md",
}


def page(game_id: str) -> str:
    return (DOCS / "games" / PAGES[game_id]).read_text()


def json_examples(text: str) -> list[dict[str, Any]]:
    """Every JSON object in the page's ```json blocks: one a line, or the block as one."""
    found = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        try:
            found += [json.loads(line) for line in block.splitlines() if line.strip()]
        except json.JSONDecodeError:
            found.append(json.loads(block))
    return found


def section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def documented_fields(text: str) -> set[str]:
    """The backticked names in the first column of the Observation section's field tables
    (`players[s].hand` as is; "`bag`, `tower`" as two)."""
    names = set()
    for row in re.findall(r"^\| ([^|]+) \|", section(text, "Observation"), re.M):
        names |= set(re.findall(r"`([^`]+)`", row))
    return names


def struct_fields(struct: type[msgspec.Struct]) -> set[str]:
    return set(struct.__struct_fields__)


def element_struct(struct: type[msgspec.Struct], field: str) -> type[msgspec.Struct]:
    hints = typing.get_type_hints(struct)
    (element,) = typing.get_args(hints[field])
    return element  # type: ignore[no-any-return]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_json_example_decodes_with_the_games_types(game_id: str) -> None:
    game = find_game(game_id)
    examples = json_examples(page(game_id))
    actions = [e for e in examples if "type" in e and "seat" not in e]
    observations = [e for e in examples if "seat" in e and "type" not in e]
    assert actions and observations
    for action in actions:
        msgspec.convert(action, game.Action)
    for observation in observations:
        msgspec.convert(observation, game.Observation)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_observation_table_lists_exactly_what_is_sent(game_id: str) -> None:
    game = find_game(game_id)
    names = documented_fields(page(game_id))
    top = {name.split("[")[0].split(".")[0] for name in names}
    assert top == struct_fields(game.Observation)
    nested = {name.split(".", 1)[1] for name in names if name.startswith("players[s].")}
    if nested:
        assert nested == struct_fields(element_struct(game.Observation, "players"))


def test_the_protocols_glance_table_names_every_game_and_its_actions_decode() -> None:
    text = section((DOCS / "protocol.md").read_text(), "Games")
    rows = re.findall(r"^\| ([a-z0-9-]+)[^|]* \| [^|]+ \| (.+) \|$", text, re.M)
    rows = [(game_id, cell) for game_id, cell in rows if game_id != "game"]  # not the header
    assert {game_id for game_id, _ in rows} == set(GAME_IDS)
    for game_id, cell in rows:
        for example in re.findall(r"`(\{\"type\".*?\})`", cell):
            msgspec.json.decode(example, type=find_game(game_id).Action)


def test_alhambras_buildings_are_published_from_the_engines_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    capsys.readouterr()
    assert main(["games", "alhambra", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["buildings"] == building_table()
    documented = re.findall(
        r"^\| (\d+) \| (\w+) \| (\d+) \| ([NESW]+|—) \|$", page("alhambra"), re.M
    )
    assert [
        {"id": int(i), "type": kind, "price": int(price), "walls": "" if walls == "—" else walls}
        for i, kind, price, walls in documented
    ] == [{key: row[key] for key in ("id", "type", "price", "walls")} for row in building_table()]
    assert len(documented) == 54


ENGINE_FILES = {
    "azul": ["azul.py", "azul_messages.py", "tiles.py"],
    "5211": ["g5211.py", "g5211_messages.py"],
    "summer-pavilion": [
        "summer_pavilion.py",
        "summer_pavilion_board.py",
        "summer_pavilion_messages.py",
        "tiles.py",
    ],
    "alhambra": [
        "alhambra.py",
        "alhambra_messages.py",
        "alhambra_money.py",
        "alhambra_placement.py",
        "alhambra_scoring.py",
        "alhambra_tiles.py",
    ],
}
"""The modules of each game's engine (tiles.py is Azul's and Summer Pavilion's)."""
RULES_TESTS = {
    "azul": "test_azul_*.py",
    "5211": "test_5211_*.py",
    "summer-pavilion": "test_summer_pavilion_*.py",
    "alhambra": "test_alhambra_*.py",
}
GAMES_ROOT = Path(__file__).resolve().parents[2]


def rulings(text: str) -> set[int]:
    """The numbers of the items of a game page's "Rulings" section."""
    return {int(n) for n in re.findall(r"^(\d+)\. ", section(text, "Rulings"), re.M)}


def named_rulings(text: str) -> set[int]:
    """Every ruling a source names, as `ruling N`."""
    return {int(n) for n in re.findall(r"\bruling (\d+)\b", text, re.I)}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_each_ruling_is_written_once_and_named_by_its_engine_and_tests(game_id: str) -> None:
    """A game page's numbered Rulings are the one list: the engine points there and names each
    ruling where it applies it, a rules test names each ruling it tests, and no source names a
    ruling the page does not have."""
    numbers = rulings(page(game_id))
    assert numbers == set(range(1, len(numbers) + 1)), "rulings are numbered 1, 2, ..."
    engines = {
        name: (GAMES_ROOT / "referee" / "games" / name).read_text()
        for name in ENGINE_FILES[game_id]
    }
    main_engine = engines[ENGINE_FILES[game_id][0]]
    assert f"docs/games/{PAGES[game_id]}" in main_engine.split('"""')[1]
    tests = {
        path.name: path.read_text()
        for path in (GAMES_ROOT / "tests" / "games").glob(RULES_TESTS[game_id])
    }
    in_engine = set().union(*map(named_rulings, engines.values()))
    in_tests = set().union(*map(named_rulings, tests.values()))
    assert numbers - in_engine == set(), "rulings the engine does not name"
    assert numbers - in_tests == set(), "rulings no rules test names"
    assert in_engine | in_tests <= numbers, "named rulings the page does not have"
