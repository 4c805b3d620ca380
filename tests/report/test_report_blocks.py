"""The report's games in blocks: a block is written once and kept while it holds the same games,
and never mistaken for another.

A report of a large store is a few files, not one per game, and a report written again re-plays
no game whose block has not changed: a large store stays quick to report.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest
from browserhelp import BOARD_DRAWN, wait_for
from crafted import make_store, real_record
from hypothesis import given, settings
from hypothesis import strategies as st
from reporthelp import MISSING, chromium, cli, console_errors, index_rows, page_data, report_games

import tournaments.report.blocks as blocks
import tournaments.report.viewer as viewer
from referee.games import find_game, parse_options
from tournaments.report.page import write_report
from tournaments.report.shell import ASSETS
from tournaments.report.viewer import OPEN_VIEWS, delta, game_data
from tournaments.store.store import Store


def files(games_dir: Path) -> dict[str, int]:
    """Each file of a games directory with the time it was last written."""
    return {entry.name: entry.stat().st_mtime_ns for entry in games_dir.iterdir()}


def refuse_to_replay(record: bytes | str) -> Any:
    raise AssertionError("a game was re-played")


def test_a_report_rewritten_into_its_directory_replays_no_game(
    stores: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(blocks, "BLOCK_IDS", 1)  # a block per game
    index = write_report(stores["5211"], tmp_path / "report")
    written = files(tmp_path / "report" / "games")
    games = report_games(index)
    assert len(written) == len(games) == 3
    monkeypatch.setattr(blocks, "viewer_data", refuse_to_replay)
    assert write_report(stores["5211"], tmp_path / "report") == index
    assert files(tmp_path / "report" / "games") == written  # not one rewritten
    assert report_games(index) == games


def test_another_store_reported_into_the_directory_shows_its_own_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two stores whose games have the same ids, one record differing: only that game's block
    is packed again, and the page shows each store's own game."""
    monkeypatch.setattr(blocks, "BLOCK_IDS", 1)
    azul = [real_record(tmp_path, "azul", ["greedy", "random"], seed) for seed in (1, 2)]
    other = real_record(tmp_path, "azul", ["random", "random"], 3)
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    assert make_store(first, "azul", azul) == make_store(second, "azul", [azul[0], other])
    index = write_report(first, tmp_path / "report")
    kept = page_data(index)["blocks"][0]
    write_report(second, tmp_path / "report")
    names = page_data(index)["blocks"]
    assert names[0] == kept and len(set(names)) == 2
    assert sorted(files(tmp_path / "report" / "games")) == sorted(f"{name}.js" for name in names)
    shown = report_games(index)
    assert [shown[1]["seed"], shown[2]["seed"]] == [
        str(json.loads(record.splitlines()[0])["seed"]) for record in (azul[0], other)
    ]


def test_only_the_games_directorys_stale_scripts_are_removed(
    stores: dict[str, Path], tmp_path: Path
) -> None:
    games_dir = tmp_path / "report" / "games"
    games_dir.mkdir(parents=True)
    stale = ["1.js", "2.js.partial", "0123456789abcdef0123.js"]  # one-game scripts, a block
    mine = ["notes.txt", "1.json", "ABCDEF0123456789ABCD.js"]
    for name in stale + mine:
        (games_dir / name).write_text("x")
    index = write_report(stores["azul"], tmp_path / "report")
    names = [f"{name}.js" for name in page_data(index)["blocks"]]
    assert sorted(files(games_dir)) == sorted(names + mine)


def test_the_games_of_a_removed_bot_leave_the_blocks_too(tmp_path: Path) -> None:
    toml = tmp_path / "three.toml"
    toml.write_text(
        'game = "azul"\nplayers = 2\ndeals = 1\nseed = 3\nsandbox = "none"\n'
        '[participants]\ngreedy = "greedy"\nrandom = "random"\nrandom2 = "random"\n'
    )
    cli("run", toml, "-q")
    store = toml.with_suffix(".sqlite")
    index = write_report(store, tmp_path / "report")
    before = {row["id"]: row["bots"] for row in index_rows(page_data(index))}
    games = report_games(index)
    cli("remove", store, "random2")
    write_report(store, tmp_path / "report")
    kept = {game_id for game_id, bots in before.items() if "random2" not in bots}
    assert 0 < len(kept) < len(before)
    assert sorted(row["id"] for row in index_rows(page_data(index))) == sorted(kept)
    assert report_games(index) == {game_id: games[game_id] for game_id in kept}


def test_a_store_of_many_games_is_a_few_files(tmp_path: Path) -> None:
    """Ids 1 to 250 in three blocks of up to BLOCK_IDS (100) ids; every game is in one."""
    record = real_record(tmp_path, "azul", ["random", "random"], 4)
    ids = make_store(tmp_path / "many.sqlite", "azul", [record] * 250)
    index = write_report(tmp_path / "many.sqlite", tmp_path / "report")
    data = page_data(index)
    assert len(data["blocks"]) == 3 and len(files(tmp_path / "report" / "games")) == 3
    assert [row["block"] for row in index_rows(data)] == [(i - 1) // 100 for i in ids]
    games = report_games(index)
    assert sorted(games) == ids == list(range(1, 251))
    assert games[250] == json.loads(msgspec.json.encode(game_data(record)))


SCALARS = st.none() | st.integers(-2, 2) | st.sampled_from(["", "a", "b"])
"""No booleans among them: Python holds 1 and True equal, so `delta` sees no change between
them (an observation's fields are typed: one never turns from a number into a boolean)."""
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xyz"), inner),
    max_leaves=12,
)


def patched_by_the_page(pairs: list[tuple[Any, Any]]) -> list[Any]:
    """`patched(old, delta(old, new))` of each pair, computed by the page's own function."""
    code = (ASSETS / "report.js").read_text()
    start = code.index("function patched(")
    function = code[start : code.index("\n}\n", start) + 3]
    script = (
        f"{function}\nconst pairs = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(pairs.map(([old, patch]) => patched(old, patch))));"
    )
    given_pairs = json.dumps([[old, delta(old, new)] for old, new in pairs])
    done = subprocess.run(
        ["node", "-e", script], input=given_pairs, capture_output=True, text=True, check=True
    )
    result: list[Any] = json.loads(done.stdout)
    return result


@pytest.mark.needs("node")
@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(VALUES, VALUES), min_size=1, max_size=60))
def test_the_page_rebuilds_any_value_from_its_delta(pairs: list[tuple[Any, Any]]) -> None:
    assert patched_by_the_page(pairs) == [new for _, new in pairs]


def test_a_delta_holds_only_what_changed() -> None:
    old = {"factories": [[1, 2], [0, 3]], "centre": [0, 0], "round": 1, "marker": None}
    new = {"factories": [[1, 2], [0, 0]], "centre": [0, 3], "round": 1, "marker": 0}
    assert delta(old, new) == {"factories": {1: {1: 0}}, "centre": {1: 3}, "marker": 0}
    assert delta(old, old) == {}
    assert delta([1], [1, 2]) == [[1, 2]] and delta({"a": 1}, {"b": 1}) == [{"b": 1}]


@pytest.mark.slow
@pytest.mark.skipif(MISSING is not None, reason=str(MISSING))
@pytest.mark.parametrize("name", ["5211", "azul-grey"])
def test_the_page_opens_every_game_of_every_block_as_the_engine_played_it(
    stores: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """The page's own rebuilding (`gameOf` over `patched`): every step of every game, each in a
    block of its own, is the engine's (5211: with every seat's hand)."""
    monkeypatch.setattr(blocks, "BLOCK_IDS", 1)
    index = write_report(stores[name], tmp_path / "report")
    with Store(stores[name], readonly=True) as store:
        records = {key.id: store.game_record(key.id) for key in store.game_keys()}
    assert len(page_data(index)["blocks"]) == len(records) > 1
    with chromium() as browser:
        for game_id, record in records.items():
            assert record is not None
            browser.get("about:blank")
            browser.get(f"{index.as_uri()}#game-{game_id}")
            wait_for(browser, BOARD_DRAWN)
            shown = browser.execute_script("return current.game;")
            assert shown == json.loads(msgspec.json.encode(game_data(record)))
        assert console_errors(browser) == []


@pytest.mark.parametrize("game_id", sorted(game for game, _ in OPEN_VIEWS))
def test_the_games_said_to_hide_nothing_from_a_spectator_show_each_seat_the_same(
    game_id: str,
) -> None:
    """OPEN_VIEWS spares asking each seat's view at every step: it must hold, at every
    position of random games of every variant and player count, for the rules version named."""
    game = find_game(game_id)
    assert (game.id, game.version) in OPEN_VIEWS
    variants = [{}, {"variant": "grey"}] + (
        [{"variant": "grey", "special_factories": True}] if game_id == "azul" else []
    )
    rng = random.Random(26)
    for options in variants:
        for players in range(game.min_players, game.max_players + 1):
            state = game.new(players, rng.getrandbits(63), parse_options(game, options))
            while True:
                spectator = game.spectate(state)
                for seat in range(players):
                    view = game.observe(state, seat)
                    assert msgspec.structs.replace(view, seat=spectator.seat) == spectator
                if game.is_over(state):
                    break
                seats = game.to_act(state)
                game.apply(state, {seat: rng.choice(game.legal(state, seat)) for seat in seats})


def refuse_to_ask(*args: Any) -> Any:
    raise AssertionError("each seat's view was asked")


def test_a_game_of_open_views_is_packed_as_one_asked_seat_by_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The steps of an Azul game come out the same whether OPEN_VIEWS spares the seats' views
    or each is asked (and found to show nothing more)."""
    record = real_record(tmp_path, "azul", ["greedy", "random"], 5)
    with monkeypatch.context() as patch:
        patch.setattr(viewer, "_private", refuse_to_ask)
        spared = game_data(record)
    monkeypatch.setattr(viewer, "OPEN_VIEWS", frozenset())
    asked = game_data(record)
    assert msgspec.json.encode(spared) == msgspec.json.encode(asked)
    assert all(step["private"] is None for step in asked["steps"])
