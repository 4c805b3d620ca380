"""Greedy bot: for each game, the one-decision heuristic of its module in `bots.strategies`,
found by the game's id (`bots.game_parts`).

Run as `python -m bots.greedy`. The heuristics are documented in their modules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from bots.game_parts import game_module
from bots.sdk import Context, run


@functools.cache
def _strategy(game: str) -> Callable[..., int]:
    """The game's heuristic, looked up once per game id rather than on every decision."""
    chooser: Callable[..., int] = game_module("bots.strategies", game).choose
    return chooser


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    return _strategy(context.game)(observation, legal, context.rng)


if __name__ == "__main__":
    run(choose, name="greedy")
