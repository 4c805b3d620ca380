"""Greedy bot: for each game, the one-decision heuristic in `bots.strategies.<game>`.

Run as `python -m bots.greedy`. The heuristics are documented in their modules.
"""

from __future__ import annotations

import importlib
from typing import Any

from bots.sdk import Context, run

_STRATEGY_MODULES = {"azul": "bots.strategies.azul", "5211": "bots.strategies.g5211"}


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    strategy = importlib.import_module(_STRATEGY_MODULES[context.game])
    index: int = strategy.choose(observation, legal, context.rng)
    return index


if __name__ == "__main__":
    run(choose, name="greedy")
