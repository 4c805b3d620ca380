"""A copy of examples/azul-most-tiles (reformatted) that tries to tell a fingerprint game from
any other and plays at random there: in the first game of its process (the order of games),
in a game that begins long after its last decision of the game before (the timing) and in a
game whose first factories it has seen before (a bank of deals played again)."""

from __future__ import annotations

import time
from typing import Any

from bots.sdk import Context, run
from referee.games.azul import CENTRE, FLOOR_LINE

GAP_S = 0.5
seen: set[str] = set()
games: list[bool] = []
"""Per game so far: whether it looked like a fingerprint game."""
last = {"context": 0, "at": time.monotonic()}


def suspicious(observation: Any) -> bool:
    deal = repr(observation.factories)
    again = deal in seen
    seen.add(deal)
    first = not games
    late = time.monotonic() - last["at"] > GAP_S
    return first or late or again


def most_tiles(observation: Any, legal: list[Any]) -> int:
    if observation.decision.kind != "take":
        return 0
    pattern = observation.players[observation.seat].lines

    def value(take: Any) -> tuple[int, int]:
        if take.line == FLOOR_LINE:
            return (0, -1)
        pile = observation.centre if take.source == CENTRE else observation.factories[take.source]
        return (min(pile[take.colour], take.line + 1 - len(pattern[take.line])), take.line)

    return max(range(len(legal)), key=lambda index: (value(legal[index]), -index))


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    if id(context) != last["context"]:
        last["context"] = id(context)
        games.append(suspicious(observation))
    last["at"] = time.monotonic()
    if games[-1]:
        return context.rng.randrange(len(legal))
    return most_tiles(observation, legal)


if __name__ == "__main__":
    run(choose, name="evasive")
