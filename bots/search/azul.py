"""Search knowledge for Azul: a cheap heuristic, an evaluation of a state cut mid-round, a short
horizon and little exploration (measurements at `PROFILE`)."""

from __future__ import annotations

from typing import Any

from bots.search.policies import SearchProfile
from referee.games.azul import (
    CENTRE,
    FLOOR,
    FLOOR_LINE,
    AzulState,
    Place,
    Take,
    end_bonus,
    tile_points,
    wall_column,
)

_PROGRESS = 0.6
"""What filling a whole pattern line is worth before it completes."""
_PENALTY, _FULL = FLOOR.totals, FLOOR.capacity
"""The summed floor penalty of the first k spaces, and the spaces there are."""
_GREY_TILE = 1.5
"""Grey wall: what a complete line is worth before its wall space is chosen."""
HORIZON = 12
"""Decisions a rollout plays: about the rest of a 2-player round; the evaluation counts what the
wall tiling will score, so longer rollouts mostly add the noise of random draws and cost
iterations (measured against greedy, in-process, 45 ms of CPU a decision, 100 games each: 0.81
of the points at 30 decisions, 0.96 at 12, 0.98 at 8; 55 points a game at 8 and 12)."""


def heuristic(state: AzulState, seat: int, action: Any) -> float:
    """Points a take or a wall space earns now, less the floor penalty of the tiles it drops."""
    kind = type(action)
    if kind is Take:
        offer = state.offer
        source = action.source
        group = offer.centre if source == CENTRE else offer.factories[source]
        count = group[action.colour]
        value = 0.0
        line = action.line
        if line != FLOOR_LINE:
            room = line + 1 - state.line_count[seat][line]
            if count >= room:
                value = 1.0 + (line + 1) * 0.25
                count -= room
            else:
                value = _PROGRESS * count / (line + 1)
                count = 0
        if source == CENTRE and offer.marker < 0:
            count += 1
        if not count:
            return value
        floor = len(state.floor[seat])
        return value + _PENALTY[min(floor + count, _FULL)] - _PENALTY[floor]
    if kind is Place:
        return float(tile_points(state.wall[seat], action.row, action.column))
    return 0.0  # a split: no cheap way to tell one from another


def evaluation(state: AzulState) -> list[float]:
    """Score now, plus what the complete pattern lines will score at wall-tiling, the floor
    penalty due then and the end bonuses already earned: Azul's score moves in jumps at the end
    of a round, so the plain score of a state cut mid-round misleads."""
    values = []
    for seat in range(state.players):
        value = float(state.score[seat] + end_bonus(state, seat))
        cells = state.wall[seat]
        counts = state.line_count[seat]
        for row in range(5):
            if counts[row] == row + 1:
                if state.grey:
                    value += _GREY_TILE
                else:
                    column = wall_column(row, state.line_colour[seat][row])
                    value += tile_points(cells, row, column)
            elif counts[row]:
                value += _PROGRESS * counts[row] / (row + 1)
        value += FLOOR.penalty(len(state.floor[seat]))
        values.append(value)
    return values


def horizon(state: AzulState) -> int:
    """`HORIZON` decisions from any state."""
    return HORIZON


PROFILE = SearchProfile(
    heuristic=heuristic,
    evaluation=evaluation,
    horizon=horizon,
    scale=15.0,
    exploration=0.3,
)
"""Scale 15: wide enough that a few points still matter when one seat leads by many (against
greedy at 200 iterations: 0.95 of the points and 52 points a game at 15, 0.90 and 45 at 6).
Exploration 0.3: many actions of which few are good want little (0.95 of the points and 57
points a game at 0.3, 0.85 and 45 at 1.2). The other seats stay searched: modelled, the search
beat greedy more (1.00 of the points and 57.8 points a game against 0.96 and 55.4, 100 games,
horizon 12) but random less (40 iterations a decision, 8 games: by 46 points a game against
54), a sign that the model fits the heuristic's own kind of player and costs against others."""
