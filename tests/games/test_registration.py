"""Every registered game has its parts beyond the engine, each found by the game's id: its
greedy strategy, its search profile and its viewer (docs/games/adding.md). A game registered
in `referee.games` without one of them fails here rather than in a bot or a report."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import referee.games
from bots.game_parts import game_module, module_name
from bots.search.policies import SearchProfile
from referee.games import GAME_IDS, find_game
from tournaments.report.shell import ASSETS

REGISTERED = re.compile(r'window\.ARENA_VIEWERS \|\| \{\}\)\[("[^"]*")\] =')
"""A viewer's registration under its game's id (the file's last line)."""


def _part(package: str, game_id: str, attribute: str) -> Any:
    """`attribute` of the game's module in `package`, found as the bots find it; None when
    either is missing (an error inside the module still fails the test)."""
    try:
        module = game_module(package, game_id)
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.{module_name(game_id)}":
            raise
        return None
    return getattr(module, attribute, None)


def missing(game_id: str) -> list[str]:
    """What the game lacks, in words (nothing for a complete game)."""
    name = module_name(game_id)
    gaps = []
    engine = type(find_game(game_id)).__module__
    if engine != f"referee.games.{name}":
        gaps.append(f"its engine in referee/games/{name}.py (it is in {engine})")
    if not callable(_part("bots.strategies", game_id, "choose")):
        gaps.append(f"a greedy strategy: `choose` in bots/strategies/{name}.py")
    if not isinstance(_part("bots.search", game_id, "PROFILE"), SearchProfile):
        gaps.append(f"a search profile: `PROFILE` in bots/search/{name}.py")
    viewer = ASSETS / "viewers" / f"{game_id}.js"
    hooks = REGISTERED.findall(viewer.read_text(encoding="utf-8")) if viewer.is_file() else []
    if [json.loads(hook) for hook in hooks] != [game_id]:
        gaps.append(f"a viewer registered as {game_id!r} in {viewer.name}")
    return gaps


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_has_its_parts(game_id: str) -> None:
    assert missing(game_id) == []


def test_a_game_registered_without_its_parts_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake game, registered for this test only with Azul's engine, lacks every part."""
    monkeypatch.setitem(referee.games._MODULES, "fake-game", "referee.games.azul:Azul")
    monkeypatch.setattr(referee.games, "GAME_IDS", (*GAME_IDS, "fake-game"))
    monkeypatch.setattr(referee.games, "_loaded", {})  # its engine is not kept after the test
    gaps = {game_id: missing(game_id) for game_id in referee.games.GAME_IDS}
    assert gaps == {
        **{game_id: [] for game_id in GAME_IDS},
        "fake-game": [
            "its engine in referee/games/fake_game.py (it is in referee.games.azul)",
            "a greedy strategy: `choose` in bots/strategies/fake_game.py",
            "a search profile: `PROFILE` in bots/search/fake_game.py",
            "a viewer registered as 'fake-game' in fake-game.js",
        ],
    }
