"""`arena games`, `arena match` and `arena replay` as a user runs them (real processes)."""

from __future__ import annotations

import json
from pathlib import Path

from clihelp import arena


def test_games_lists_every_game_with_its_options(tmp_path: Path) -> None:
    games = json.loads(arena("games", "--json", cwd=tmp_path).stdout)
    by_id = {game["id"]: game for game in games}
    assert by_id["azul"]["players"] == "2-4"
    assert set(by_id["azul"]["options"]) == {"variant", "special_factories"}
    assert by_id["5211"]["players"] == "2-5"
    assert by_id["5211"]["options"]["variant"]["default"] == "standard"
    table = arena("games", cwd=tmp_path).stdout
    assert "azul" in table and "special_factories = false" in table


def test_match_json_then_replay_reproduces_it(tmp_path: Path) -> None:
    out = arena(
        "match", "--game", "azul", "greedy", "random", "--seed", "1", "--json", cwd=tmp_path
    )
    outcome = json.loads(out.stdout)
    assert outcome["bots"] == ["greedy", "random"]
    assert outcome["seed"] == 1
    assert outcome["faults"] == []
    assert sorted(outcome["ranks"]) == [1, 2]
    assert outcome["scores"][0] > outcome["scores"][1], "greedy should beat random on seed 1"
    record = tmp_path / outcome["record"]
    assert record.is_file() and record.parent.name == "arena-records"

    again = json.loads(
        arena(
            "match", "--game", "azul", "greedy", "random", "--seed", "1", "--json", cwd=tmp_path
        ).stdout
    )
    assert (again["scores"], again["ranks"]) == (outcome["scores"], outcome["ranks"])

    replayed = arena("replay", record, cwd=tmp_path).stdout
    assert "result identical" in replayed
    shown = arena("replay", record, "--show", cwd=tmp_path).stdout
    assert shown.count("=== after decision") == outcome["decisions"]
    assert "floor" in shown and "factories" in shown


def test_replay_reports_a_tampered_record(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    arena(
        "match",
        "--game",
        "5211",
        "random",
        "random",
        "random",
        "--seed",
        "4",
        "--record",
        record,
        cwd=tmp_path,
    )
    lines = record.read_text().splitlines()
    result = json.loads(lines[-1])
    result["scores"][0] += 1
    lines[-1] = json.dumps(result)
    record.write_text("\n".join(lines) + "\n")
    out = arena("replay", record, cwd=tmp_path, code=1).stdout
    assert "DIVERGES" in out


def test_match_variants_and_a_table(tmp_path: Path) -> None:
    out = arena(
        "match",
        "--game",
        "azul",
        "--option",
        "variant=grey",
        "--option",
        "special_factories=true",
        "greedy",
        "random",
        "random",
        "--seed",
        "3",
        cwd=tmp_path,
    ).stdout
    assert out.splitlines()[0].startswith("azul seed 3")
    assert (
        len([line for line in out.splitlines() if line.strip().startswith(("0 ", "1 ", "2 "))]) == 3
    )


def test_mistakes_are_one_line_errors(tmp_path: Path) -> None:
    unknown = arena("match", "--game", "chess", "random", "random", cwd=tmp_path, code=2).stderr
    assert "unknown game 'chess'" in unknown and "azul" in unknown
    option = arena(
        "match",
        "--game",
        "azul",
        "--option",
        "variant=blue",
        "random",
        "random",
        cwd=tmp_path,
        code=2,
    ).stderr
    assert "variant" in option and "blue" in option
    count = arena("match", "--game", "azul", "random", cwd=tmp_path, code=2).stderr
    assert "2-4 players" in count
    missing = arena("replay", tmp_path / "nope.jsonl", cwd=tmp_path, code=2).stderr
    assert "cannot read" in missing
