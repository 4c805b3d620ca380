"""Search knowledge for Azul: a cheap heuristic, an evaluation of what the wall-tiling and the
end bonuses will score, a short horizon that a short search cuts at the round's end, and little
exploration (measurements at `PROFILE`)."""

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
    tile_points,
    wall_column,
)

_PROGRESS = 0.6
"""What filling a whole pattern line is worth before it completes."""
_PENALTY, _FULL = FLOOR.totals, FLOOR.capacity
"""The summed floor penalty of the first k spaces, and the spaces there are."""
_LATER = 0.5
"""A partial pattern line: this share of its tile's points, by how full it is."""
_SHARE = tuple(k * k / 25 for k in range(6))
"""_SHARE[k]: the share of a bonus counted for a row, column or colour with k of its 5 tiles
(whole at 5; the k-th tile adds (k² − (k − 1)²)/25, as greedy's `BONUS_SHARE`)."""
_GREY_TILE = 1.5
"""Grey wall: what a complete line is worth before its wall space is chosen."""
HORIZON = 12
"""Decisions a rollout plays at most: about the rest of a 2-player round, often into the next
one, dealt from the world's seed (a short search stops at the round's end: `STAGE_MS`). Longer
rollouts added the noise of random draws and cost iterations (against greedy, in-process, 45 ms
of CPU a decision, 100 games each: 0.81 of the points at 30 decisions, 0.96 at 12, 0.98 at 8)."""
STAGE_MS = 200.0
"""A search shorter than this stops its tree and its rollouts at the round's end (`round_of`);
a longer one runs on into the next round. Measured at 45 ms (the round's end better) and at
585 ms (running on better), see `PROFILE`; the threshold between them is not tuned."""


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
    """Every seat's final score as it stands (the game over: the score itself): the score, what
    the complete pattern lines will score at wall-tiling (tiled top to bottom, as the rules do),
    the floor penalty due then, `_LATER` of a partial line's tile, and the end bonuses by the
    share of each row, column and colour filled (`_SHARE`: a complete one counts whole). Azul's
    score moves in jumps at the end of a round, so the plain score of a state misleads."""
    if state.turn < 0:
        return [float(score) for score in state.score]
    values = []
    grey = state.grey
    for seat in range(state.players):
        value = float(state.score[seat])
        cells = state.wall[seat][:]
        counts = state.line_count[seat]
        colours = state.line_colour[seat]
        for row in range(5):
            count = counts[row]
            if not count:
                continue
            if grey:
                value += _GREY_TILE * (1.0 if count == row + 1 else _LATER * count / (row + 1))
                continue
            column = wall_column(row, colours[row])
            if count == row + 1:
                cells[row * 5 + column] = colours[row]
                value += tile_points(cells, row, column)
            else:
                value += _LATER * tile_points(cells, row, column) * count / (row + 1)
        value += FLOOR.penalty(len(state.floor[seat])) + _bonus_shares(cells)
        values.append(value)
    return values


def _bonus_shares(cells: list[int]) -> float:
    """The end bonuses (+2 a row, +7 a column, +10 a colour) by `_SHARE` of what each has."""
    rows = [0] * 5
    columns = [0] * 5
    colours = [0] * 5
    for index, colour in enumerate(cells):
        if colour >= 0:
            rows[index // 5] += 1
            columns[index % 5] += 1
            colours[colour] += 1
    share = _SHARE
    total = 0.0
    for k in rows:
        total += 2.0 * share[k]
    for k in columns:
        total += 7.0 * share[k]
    for k in colours:
        total += 10.0 * share[k]
    return total


def round_of(state: AzulState) -> int:
    """The round: a short search stops at its end (`SearchProfile.stage`)."""
    return state.round


def horizon(state: AzulState) -> int:
    """`HORIZON` decisions from any state."""
    return HORIZON


PROFILE = SearchProfile(
    heuristic=heuristic,
    evaluation=evaluation,
    horizon=horizon,
    stage=round_of,
    stage_ms=STAGE_MS,
    scale=15.0,
    exploration=0.1,
)
"""Stage: the round (`round_of`), for searches under `STAGE_MS`. Exploration 0.1: the values of
a take's alternatives differ by a few points, a few hundredths of a leaf's value, and at 0.3 a
search of a few hundred iterations spread them almost evenly over its actions. Measured with
`arena compare` (docs/strategies.md, "Azul's search, issue 28"), against the mcts of 0794120 at
100 ms a decision: this evaluation alone +101 Elo [+32, +171], with the round's end +88 [+24,
+152]; exploration 0.1 against 0.3 +83 [+22, +144]; all three +280 [+156, +404]. At 1 s a
decision, against that mcts at 1 s: all three 41.2% of 40 games, −60 [−164, +44]; the same
without the round's end 77.5%, +208 [+100, +316]. Without against with the round's end at 100
ms: −90 [−167, −14] (62 games). Why the round's end costs a long search was not measured (a
guess: with thousands of iterations, rollouts through the first takes of many sampled next
deals tell more than this evaluation of a round's end).
Scale 15: wide enough that a few points still matter when one seat leads by
many (against greedy at 200 iterations: 0.95 of the points and 52 points a game at 15, 0.90
and 45 at 6). The other seats stay searched: modelled, the search beat greedy more (1.00 of the
points and 57.8 points a game against 0.96 and 55.4, 100 games, horizon 12) but random less
(40 iterations a decision, 8 games: by 46 points a game against 54), a sign that the model fits
the heuristic's own kind of player and costs against others."""
