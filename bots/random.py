"""Uniformly random bot: a legal action chosen with the seeded RNG the referee gives each game.

Run as `python -m bots.random`; plays every game of the framework.
"""

from __future__ import annotations

from typing import Any

from bots.sdk import Context, run


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    return context.rng.randrange(len(legal))


if __name__ == "__main__":
    run(choose, name="random")
