"""Search knowledge for Azul: a cheap heuristic, an evaluation of what the wall-tiling will
score and of the points still to come (fitted to self-play), a short horizon that a short search
cuts at the round's end, and little exploration (measurements in docs/strategies.md)."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import msgspec

from bots.search.azul_messages import WeightsFile
from bots.search.policies import SearchProfile
from referee.games.azul import (
    CENTRE,
    COLOUR_BONUS,
    COLUMN_BONUS,
    FLOOR,
    FLOOR_LINE,
    ROW_BONUS,
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
"""A partial pattern line on a grey wall: this share of a complete one, by how full it is."""
_SHARE = tuple(k * k / 25 for k in range(6))
"""_SHARE[k]: the share of a bonus counted for a row, column or colour with k of its 5 tiles
(whole at 5; the k-th tile adds (k² − (k − 1)²)/25, as greedy's `BONUS_SHARE`): a feature of
the fitted evaluation, and the grey wall's estimate."""
_GREY_TILE = 1.5
"""Grey wall: what a complete line is worth before its wall space is chosen."""
HORIZON = 12
"""Decisions a rollout plays at most: about the rest of a 2-player round, often into the next
one, dealt from the world's seed (a short search stops at the round's end: `STAGE_MS`). Longer
rollouts add the noise of random draws and cost iterations."""
STAGE_MS = 200.0
"""A search shorter than this stops its tree and its rollouts at the round's end (`round_of`);
a longer one runs on into the next round: the round's end helps a short search and costs a long
one. The threshold lies between the budgets measured and is not tuned."""

OWN_POINTS = 0.003
"""What a leaf's value gains for each point of the seat's own score, beside the margin's
logistic: far ahead, that logistic is flat and a point of its own counts for little. Kept for
the points it scores, not for strength (docs/strategies.md, "Points of its own")."""


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


FEATURES = (
    "constant",
    "line points",
    "line fill",
    "line gaps",
    "partial lines",
    "row shares",
    "column shares",
    "colour shares",
    "rows of 4",
    "columns of 4",
    "colours of 4",
    "columns of 3",
    "colours of 3",
    "wall tiles",
    "reach",
    "first player",
    "longest row",
    "others' longest row",
)
"""What `board_features` measures of a seat's board, its wall tiled: 1; over its partial pattern
lines, the points each tile would score on the wall now times how full the line is, the
fullness, the tiles missing and the lines; the end bonuses by `_SHARE` of each row (2), column
(7) and colour (10); the rows, columns and colours with 4 tiles, the columns and colours with
3; the tiles on the wall; the mean of what a tile would score on each free space; whether the
seat holds the first-player marker (starts the round, the marker unclaimed); the most tiles in
one of its wall rows, and in one of another seat's."""
WEIGHTS_FILE = "azul_weights.json"
"""The fitted `WEIGHTS`, shipped in this package: `python -m bots.research.azul_fit --out
bots/search/azul_weights.json` regenerates them from a seed."""
PHASES = 5
"""Phases 0 to 4: the most tiles in any seat's wall row (5: the game ends with the round)."""
Weights = tuple[tuple[float, ...], ...]
"""Per phase of the game (`Boards.phase`, 0 to 4), a weight per `FEATURES`."""


def load_weights(data: bytes) -> Weights:
    """The weights of a `WEIGHTS_FILE`: JSON naming the `FEATURES` it was fitted to and a row of
    weights per phase; a file fitted to other features is refused, not misread."""
    try:
        found = msgspec.json.decode(data, type=WeightsFile)
    except msgspec.DecodeError as error:
        raise ValueError(f"not a weights file: {error}") from None
    if tuple(found.features) != FEATURES:
        raise ValueError(f"weights fitted to other features: {found.features}")
    if len(found.phases) != PHASES or any(len(row) != len(FEATURES) for row in found.phases):
        raise ValueError(f"weights need {PHASES} phases of {len(FEATURES)} numbers each")
    return tuple(tuple(row) for row in found.phases)


WEIGHTS = load_weights(files("bots.search").joinpath(WEIGHTS_FILE).read_bytes())
"""The points a seat will still score, by `FEATURES`, per phase of the game: the most tiles in
any seat's wall row (0 to 4; 0 pools all phases). Fitted by least squares to 2-player self-play
of the search before any fit (`bots.research.azul_fit`, docs/research.md); more seats use them
too."""
_HAND = {"line points": _LATER, "row shares": 1.0, "column shares": 1.0, "colour shares": 1.0}
HAND_WEIGHTS: Weights = (tuple(_HAND.get(name, 0.0) for name in FEATURES),) * PHASES
"""The evaluation before any fit, as weights: `_LATER` of what a partial line's tiles would
score now and the end bonuses by `_SHARE`. The self-play the weights are fitted to is valued
by these, so that a seed alone makes `WEIGHTS`, whatever the shipped ones are."""


def evaluation(state: AzulState, weights: Weights = WEIGHTS) -> list[float]:
    """Every seat's final score as it stands (the game over: the score itself): the score, what
    the complete pattern lines will score at wall-tiling (tiled top to bottom, as the rules do)
    and the floor penalty due then; then the points to come on the wall as tiled: the end
    bonuses if a row is complete (the game ends with the round), else the estimate by `weights`
    (`WEIGHTS`, or `HAND_WEIGHTS` for the self-play they are fitted to). Azul's
    score moves in jumps at the end of a round, so the plain score of a state misleads. A grey
    wall is valued by `grey_evaluation` (no fitted estimate: its spaces are chosen later)."""
    if state.turn < 0:
        return [float(score) for score in state.score]
    if state.grey:
        return grey_evaluation(state)
    boards = board_features(state)
    values = boards.values
    if boards.phase == 5:
        return [value + bonus for value, bonus in zip(values, boards.bonuses, strict=True)]
    phase = weights[boards.phase]
    for seat, features in enumerate(boards.features):
        estimate = 0.0
        for weight, feature in zip(phase, features, strict=True):
            estimate += weight * feature
        values[seat] += estimate
    return values


class Boards:
    """Every seat's board, its wall tiled (`board_features`)."""

    def __init__(
        self, values: list[float], bonuses: list[float], features: list[list[float]], phase: int
    ) -> None:
        self.values = values
        """The score, with what the wall-tiling will add and the floor will cost."""
        self.bonuses = bonuses
        """The end bonuses the tiled wall earns now."""
        self.features = features
        """`FEATURES`, per seat."""
        self.phase = phase
        """The most tiles in any seat's wall row (5: the game ends with this round)."""


def board_features(state: AzulState) -> Boards:
    """Every seat's board as the wall-tiling will leave it (complete lines tiled top to bottom,
    the floor scored), measured by `FEATURES`: the evaluation, and `bots.research.azul_fit` at
    a round's start, where the tiling is done."""
    marker = state.offer.marker
    first = marker if marker >= 0 else state.start
    values: list[float] = []
    bonuses: list[float] = []
    features: list[list[float]] = []
    longest: list[int] = []
    for seat in range(state.players):
        cells = state.wall[seat][:]
        counts = state.line_count[seat]
        colours = state.line_colour[seat]
        value = float(state.score[seat] + FLOOR.penalty(len(state.floor[seat])))
        for row in range(5):
            if counts[row] == row + 1:
                column = wall_column(row, colours[row])
                cells[row * 5 + column] = colours[row]
                value += tile_points(cells, row, column)
        line_points = fill = gaps = partial = 0.0
        for row in range(5):
            count = counts[row]
            if count and count <= row:
                line_points += (
                    tile_points(cells, row, wall_column(row, colours[row])) * count / (row + 1)
                )
                fill += count / (row + 1)
                gaps += row + 1 - count
                partial += 1.0
        rows, columns, of_colour = _tiles(cells)
        reach = 0.0
        for index, colour in enumerate(cells):
            if colour < 0:
                reach += tile_points(cells, index // 5, index % 5)
        values.append(value)
        bonuses.append(
            float(
                ROW_BONUS * rows.count(5)
                + COLUMN_BONUS * columns.count(5)
                + COLOUR_BONUS * of_colour.count(5)
            )
        )
        longest.append(max(rows))
        features.append(
            [
                1.0,
                line_points,
                fill,
                gaps,
                partial,
                _shares(rows, ROW_BONUS),
                _shares(columns, COLUMN_BONUS),
                _shares(of_colour, COLOUR_BONUS),
                float(rows.count(4)),
                float(columns.count(4)),
                float(of_colour.count(4)),
                float(columns.count(3)),
                float(of_colour.count(3)),
                float(sum(rows)),
                reach / 25,
                1.0 if first == seat else 0.0,
                float(longest[seat]),
                0.0,
            ]
        )
    for seat, seat_features in enumerate(features):
        seat_features[-1] = float(max(k for other, k in enumerate(longest) if other != seat))
    return Boards(values, bonuses, features, max(longest))


def grey_evaluation(state: AzulState) -> list[float]:
    """A grey wall: the score, `_GREY_TILE` for a complete line and `_LATER` of it by how full a
    partial one is, the floor penalty, and the end bonuses by `_SHARE` of what each row, column
    and colour has."""
    values = []
    for seat in range(state.players):
        value = float(state.score[seat])
        counts = state.line_count[seat]
        for row in range(5):
            count = counts[row]
            if count:
                value += _GREY_TILE * (1.0 if count == row + 1 else _LATER * count / (row + 1))
        rows, columns, of_colour = _tiles(state.wall[seat])
        value += FLOOR.penalty(len(state.floor[seat]))
        value += (
            _shares(rows, ROW_BONUS)
            + _shares(columns, COLUMN_BONUS)
            + _shares(of_colour, COLOUR_BONUS)
        )
        values.append(value)
    return values


def _tiles(cells: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The tiles in each row, each column and of each colour of a wall."""
    rows = [0] * 5
    columns = [0] * 5
    of_colour = [0] * 5
    for index, colour in enumerate(cells):
        if colour >= 0:
            rows[index // 5] += 1
            columns[index % 5] += 1
            of_colour[colour] += 1
    return rows, columns, of_colour


def _shares(counts: list[int], bonus: float) -> float:
    """A bonus by `_SHARE` of each of the rows, columns or colours counted."""
    total = 0.0
    for k in counts:
        total += bonus * _SHARE[k]
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
    own_points=OWN_POINTS,
    exploration=0.1,
)
"""Stage: the round (`round_of`), for searches under `STAGE_MS`. Exploration 0.1: a take's
alternatives differ by a few hundredths of a leaf's value, which more exploration spreads almost
evenly. Scale 15: a few points still matter when one seat leads by many. The other seats stay
searched: a model of them fits the heuristic's own kind of player and costs against others.
Measurements: docs/strategies.md, "Measurements moved from `bots/search/`"."""
