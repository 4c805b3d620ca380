"""A yardstick Azul bot: on a take, the take that puts the most tiles onto a pattern line.

    arena match --game azul "python examples/azul-most-tiles/bot.py" greedy

Take decisions: the take whose tiles fill a pattern line the most (tiles that fit on the line,
not counting the excess that falls to the floor); ties go to the longest line, then to the
first legal take. A take to the floor only when no pattern line can take anything. It weighs
nothing else: no wall points, no floor penalty, no first-player marker, no end bonus. Place
(grey wall) and split (special factories) decisions: the first legal action.
"""

from __future__ import annotations

from typing import Any

from bots.sdk import Context, run
from referee.games.azul import CENTRE, FLOOR_LINE


def choose(observation: Any, legal: list[Any], context: Context) -> int:
    if observation.decision.kind != "take":
        return 0
    lines = observation.players[observation.seat].lines
    best, best_key = 0, (-1, -1)
    for index, take in enumerate(legal):
        if take.line == FLOOR_LINE:
            key = (0, -1)
        else:
            source = (
                observation.centre if take.source == CENTRE else observation.factories[take.source]
            )
            room = take.line + 1 - len(lines[take.line])
            key = (min(source[take.colour], room), take.line)
        if key > best_key:
            best, best_key = index, key
    return best


if __name__ == "__main__":
    run(choose, name="azul-most-tiles")
