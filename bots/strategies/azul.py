"""Greedy Azul heuristic: the decision with the best immediate score change, from the observation.

No memory and no simulation, so it is fast and stateless. For each legal decision:

- take: if the tiles complete their pattern line, the points the tile will score on the wall now
  (on the grey wall, at its best free space; a line with no space left is worth the floor
  penalty its tiles will cost); if not, `PROGRESS` × the fraction of the line the tiles fill.
  Minus the floor penalty the take adds (excess tiles and the first-player marker, after an
  empty extra floor disc has caught one) and `WASTE` per tile that overflows into the lid.
- place (grey wall): the points of that space.
- split: send the leftovers so that the largest same-colour pile they create is smallest, since
  big piles are what the next player (an opponent) wants.

Ties are broken with the bot's RNG.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from referee.games.azul import CENTRE, FLOOR, FLOOR_LINE, tile_points, wall_column

if TYPE_CHECKING:
    from referee.games.azul import AzulObservation, Place, PlayerView, Split, Take

PROGRESS = 1.5
"""What filling a whole pattern line is worth before it completes (a finished line scores >= 1)."""
WASTE = 0.5
"""Cost of a tile that overflows the floor into the lid: no penalty, but lost to me."""


def choose(observation: AzulObservation, legal: list[Any], rng: random.Random) -> int:
    """Index into `legal` of a decision with the best heuristic value (see the module docstring)."""
    kind = observation.decision.kind
    if kind == "place":
        values = [_place_value(observation, action) for action in legal]
    elif kind == "split":
        values = [-_largest_pile(observation, action) for action in legal]
    else:
        values = [_take_value(observation, action) for action in legal]
    best = max(values)
    return rng.choice([index for index, value in enumerate(values) if value > best - 1e-9])


def _wall_cells(player: PlayerView) -> list[int]:
    return [colour for row in player.wall for colour in row]


def _best_points(observation: AzulObservation, player: PlayerView, row: int, colour: int) -> float:
    """The points a tile of `colour` would score in `row` now (its best space on the grey wall)."""
    cells = _wall_cells(player)
    if observation.variant == "standard":
        return tile_points(cells, row, wall_column(row, colour))
    spaces = [
        column
        for column in range(5)
        if cells[row * 5 + column] < 0
        and all(cells[other * 5 + column] != colour for other in range(5))
    ]
    if not spaces:
        return FLOOR.penalty(len(player.floor) + row + 1) - FLOOR.penalty(len(player.floor))
    return max(tile_points(cells, row, column) for column in spaces)


def _take_value(observation: AzulObservation, action: Take) -> float:
    me = observation.players[observation.seat]
    source = observation.centre if action.source == CENTRE else observation.factories[action.source]
    excess = source[action.colour]
    value = 0.0
    if action.line != FLOOR_LINE:
        have = len(me.lines[action.line])
        size = action.line + 1
        placed = min(excess, size - have)
        excess -= placed
        if have + placed == size:
            value += _best_points(observation, me, action.line, action.colour)
        else:
            value += PROGRESS * placed / size
    disc_empty = me.extra_floor == [] or (
        action.source != CENTRE and observation.powers[action.source] == "extra_floor"
    )
    if excess and disc_empty:
        excess -= 1
    marker = 1 if action.source == CENTRE and observation.marker == -1 else 0
    before = len(me.floor)
    after = before + marker + excess
    value += FLOOR.penalty(after) - FLOOR.penalty(before)
    return value - WASTE * max(0, after - FLOOR.capacity)


def _place_value(observation: AzulObservation, action: Place) -> float:
    me = observation.players[observation.seat]
    return tile_points(_wall_cells(me), action.row, action.column)


def _largest_pile(observation: AzulObservation, action: Split) -> int:
    decision = observation.decision
    leftovers = observation.factories[decision.factory]
    largest = 0
    for colours, target in ((action.left, decision.left), (action.right, decision.right)):
        for colour in colours:
            largest = max(largest, observation.factories[target][colour] + leftovers[colour])
    return largest
