"""Greedy bot: for each game, the one-decision heuristic in `bots.strategies.<game>`.

Run as `python -m bots.greedy`. The heuristics are documented in their modules.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from bots.sdk import Context, run

_STRATEGY_MODULES = {
    "azul": "bots.strategies.azul",
    "5211": "bots.strategies.g5211",
    "summer-pavilion": "bots.strategies.summer_pavilion",
    "alhambra": "bots.strategies.alhambra",
}


@functools.cache
def _strategy(game: str) -> Callable[..., int]:
    """The game's heuristic, looked up once per game id rather than on every decision."""
    chooser: Callable[..., int] = importlib.import_module(_STRATEGY_MODULES[game]).choose
    return chooser


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    return _strategy(context.game)(observation, legal, context.rng)


if __name__ == "__main__":
    run(choose, name="greedy")
