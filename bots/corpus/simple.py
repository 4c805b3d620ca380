"""Small Azul heuristics written for the clone corpus, each its own idea of a good take.

Run as `python -m bots.corpus.simple RULE`:
- `floor`: the take that drops the fewest tiles to the floor, then the longest line;
- `bottom`: the longest pattern line that takes the tiles, then the most tiles;
- `finish`: the take that completes a pattern line with the fewest tiles, else the most
  tiles placed on a line;
- `few`: the take that drops the fewest tiles to the floor, then the fewest tiles, then the
  shortest line (slow and safe).
Place and split decisions: the first legal action. Ties go to the first legal take.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from bots.sdk import Context, run
from referee.games.azul import CENTRE, FLOOR_LINE

Key = tuple[float, ...]


def _counts(observation: Any, take: Any) -> tuple[int, int]:
    """The tiles taken, and the room left on the target line (0 for the floor)."""
    source = observation.centre if take.source == CENTRE else observation.factories[take.source]
    if take.line == FLOOR_LINE:
        return source[take.colour], 0
    line = observation.players[observation.seat].lines[take.line]
    return source[take.colour], take.line + 1 - len(line)


def floor(observation: Any, take: Any) -> Key:
    tiles, room = _counts(observation, take)
    return (-max(0, tiles - room), take.line if take.line != FLOOR_LINE else -1)


def bottom(observation: Any, take: Any) -> Key:
    tiles, room = _counts(observation, take)
    return (take.line if take.line != FLOOR_LINE else -1, min(tiles, room))


def finish(observation: Any, take: Any) -> Key:
    tiles, room = _counts(observation, take)
    completes = room > 0 and tiles >= room
    return (1, -tiles) if completes else (0, min(tiles, room))


def few(observation: Any, take: Any) -> Key:
    tiles, room = _counts(observation, take)
    return (-max(0, tiles - room), -tiles, -take.line if take.line != FLOOR_LINE else -9)


RULES: dict[str, Callable[[Any, Any], Key]] = {
    "floor": floor,
    "bottom": bottom,
    "finish": finish,
    "few": few,
}


def chooser(rule: Callable[[Any, Any], Key]) -> Callable[[Any, list[Any], Context], int]:
    def choose(observation: Any, legal: list[Any], context: Context) -> int:
        if observation.decision.kind != "take":
            return 0
        return max(range(len(legal)), key=lambda index: (rule(observation, legal[index]), -index))

    return choose


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "floor"
    run(chooser(RULES[name]), name=f"simple-{name}")
