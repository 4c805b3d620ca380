"""A game's parts among the bots, found by its id: no list of games to keep beside the referee's.

Each game's parts are modules named as its engine is (`referee.games.<name>`): its greedy
strategy in `bots/strategies/<name>.py` (`choose`) and its search profile in
`bots/search/<name>.py` (`PROFILE`). tests/games/test_registration.py checks that every
registered game has them.
"""

from __future__ import annotations

import importlib
from types import ModuleType


def module_name(game_id: str) -> str:
    """The name of a game's modules: its id as a Python name ("summer-pavilion" is
    `summer_pavilion`), with a "g" in front when it starts with a digit ("5211" is `g5211`)."""
    name = game_id.replace("-", "_")
    return name if name.isidentifier() else f"g{name}"


def game_module(package: str, game_id: str) -> ModuleType:
    """The game's module in `package` (e.g. "bots.strategies"), loaded on first use."""
    return importlib.import_module(f"{package}.{module_name(game_id)}")
