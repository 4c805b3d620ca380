"""The optional per-game parts of the search: a cheap action heuristic and a leaf evaluation.

A game without an entry here is still searched: its rollouts are uniformly random and its
leaves are valued by `Game.scores`. A heuristic scores one action of a seat in a state (higher
is better); the search uses it twice, to play its "greedy" rollouts and to order the actions a
node widens to first. An evaluation gives every seat's expected final score from a state, so a
rollout cut short still has a value.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from bots.search import alhambra, g5211, summer_pavilion
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
from referee.games.g5211 import TURN_CARDS, State

Heuristic = Callable[[Any, int, Any], float]
"""(state, seat, action) -> how promising the action looks; higher is better."""
Evaluation = Callable[[Any], list[float]]
"""state -> every seat's estimated final score."""

_PROGRESS = 0.6
"""Azul: what filling a whole pattern line is worth before it completes."""
_KEEP = 0.35
"""5211: what a card played without scoring costs, per point of its value."""
_PENALTY, _FULL = FLOOR.totals, FLOOR.capacity
"""Azul: the summed floor penalty of the first k spaces, and the spaces there are."""
_GREY_TILE = 1.5
"""Azul, grey wall: what a complete line is worth before its wall space is chosen."""


def azul_heuristic(state: AzulState, seat: int, action: Any) -> float:
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


def azul_evaluation(state: AzulState) -> list[float]:
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


def g5211_heuristic(state: State, seat: int, action: Any) -> float:
    """The points the play adds if the round's cards so far (its own included) decided the
    majority, less `_KEEP` of the value of each card that does not score: high cards follow the
    leading colour, and low cards are dumped when nothing leads."""
    counts = [0] * 5
    for cards in state.played:
        for kind in cards:
            counts[kind >> 3] += 1
    for card in action.cards:
        counts[card.colour] += 1
    limit = state.players + 3
    top, leader = 0, -1
    for colour, count in enumerate(counts):
        if count >= limit:
            continue
        if count > top:
            top, leader = count, colour
        elif count == top:
            leader = -1
    value = 0.0
    for card in action.cards:
        value += card.value if card.colour == leader else -_KEEP * card.value
    return value


def g5211_evaluation(state: State) -> list[float]:
    """Running totals, plus `_KEEP` of the value of the cards in hand (they may score in a later
    round, unless this is the last one): what the greedy heuristic also counts a card as."""
    if state.over or state.last_round:
        return [float(total) for total in state.totals]
    return [
        total + _KEEP * sum(kind & 7 for kind in hand)
        for total, hand in zip(state.totals, state.hands, strict=True)
    ]


HEURISTICS: dict[str, Heuristic] = {"azul": azul_heuristic, "5211": g5211_heuristic}
EVALUATIONS: dict[str, Evaluation] = {"azul": azul_evaluation, "5211": g5211_evaluation}
Horizon = Callable[[Any], int]
"""state -> decisions a rollout plays from it before its leaf is evaluated (0: to the end)."""

HORIZONS: dict[str, Horizon] = {
    "azul": lambda state: 12,
    "5211": lambda state: len(TURN_CARDS) - state.turn,
}
"""Azul: 12 decisions, about the rest of a 2-player round; the evaluation counts what the wall
tiling will score, so longer rollouts mostly add the noise of random draws and cost iterations
(measured against greedy, in-process, 45 ms of CPU a decision, 100 games each: 0.81 of the points
at 30 decisions, 0.96 at 12, 0.98 at 8; 55 points a game at 8 and 12). 5211: to the end of the
round, when its cards have scored; the leaves of later rounds are mostly the noise of unseen
draws (measured against greedy at 400 iterations: 0.64 of the points to the end of the round and
0.48 over two rounds)."""
SCALES: dict[str, float] = {"azul": 15.0, "5211": 20.0}
"""A score margin of one scale is worth 73% (a logistic curve) at a leaf; default 10. Wide
enough that a few points still matter when one seat leads by many (measured against greedy at
300 iterations: 5211 5p 0.58 of the points at 20 and 0.46 at 4; Azul at 200 iterations, 0.95
and 52 points a game at 15, 0.90 and 45 at 6)."""
EXPLORATION: dict[str, float] = {"azul": 0.3, "5211": 0.7}
"""The UCB constant by game; default 0.7. Azul's many actions of which few are good want little
exploration (0.95 of the points and 57 points a game at 0.3, 0.85 and 45 at 1.2)."""
OPPONENTS: dict[str, str] = {"5211": "heuristic"}
"""How the search treats the other seats (`ismcts.Params.opponents`); default "search".
5211 3p against two greedy bots (in-process, 45 ms of CPU a decision, 120 games): 0.571 of the
points modelled, 0.529 searched (see `ismcts`). Azul stays searched: modelled, it beat greedy
more (1.00 of the points and 57.8 points a game against 0.96 and 55.4, 100 games, horizon 12)
but random less (40 iterations a decision, 8 games: by 46 points a game against 54), a sign
that the model fits the heuristic's own kind of player and costs against others."""
Model = Callable[[Any, int, list[Any], random.Random], Any]
"""(world, seat, legal, rng) -> the action a modelled seat plays there."""
MODELS: dict[str, Model] = {"5211": g5211.model}
"""How a modelled seat chooses, by game; default the heuristic's best (see `OPPONENTS`)."""
Prior = Callable[[Any, int, list[Any]], list[float]]
"""(root, seat, legal) -> an estimate of each action's points, on the evaluation's scale."""
PRIORS: dict[str, tuple[Prior, float]] = {"5211": (g5211.prior, g5211.PRIOR_VISITS)}
"""A root estimate per game and the iterations' worth of evidence it is given (see `ismcts`)."""
FLAT: dict[str, tuple[Model, int | Callable[[Any], int]]] = {"5211": (g5211.model, g5211.WIDTH)}
"""Games searched flat with common worlds (`ismcts.Search._flat`) instead of by a tree: the
model every seat plays there after the root decision, up to the horizon, and how many of the
best root actions are valued (a number, or a function of the root state). 5211: greedy (see
`bots.search.g5211`)."""
SAMPLES: dict[str, int] = {}
"""Legal actions a greedy rollout samples to pick the heuristic's best from, by game
(`ismcts.Params.sample`); default 8. Summer Pavilion's sets its own (see its module)."""
ITERATIONS: dict[str, int] = {}
"""Iterations a decision makes at most, by game, when the bot sets no number of its own
(`ismcts.Search.run`); default: as many as the clock allows. Summer Pavilion's is in its
module."""

# Summer Pavilion and Alhambra keep their knowledge in their own modules (measurements there).
# Exploration: at scale 15 a point of margin is worth about 0.017 at a leaf; at 0.1 a Summer
# Pavilion root's 40 visits spread evenly over its actions (the most played one was noise), at
# 0.005 they follow the values. Alhambra measured alike from 0.005 to 5 (in-process against
# greedy: 0.00-0.31 of the points, 8-12 games each).
for _id, _module, _scale, _c in (
    ("summer-pavilion", summer_pavilion, 15.0, 0.005),
    ("alhambra", alhambra, 15.0, 0.05),
):
    HEURISTICS[_id] = _module.heuristic
    EVALUATIONS[_id] = _module.evaluation
    HORIZONS[_id] = _module.horizon
    SCALES[_id] = _scale
    EXPLORATION[_id] = _c
SAMPLES["summer-pavilion"] = summer_pavilion.SAMPLE
ITERATIONS["summer-pavilion"] = summer_pavilion.ITERATIONS
PRIORS["alhambra"] = (alhambra.prior, alhambra.PRIOR_VISITS)
"""Alhambra: greedy's own valuation at the root (in-process against greedy, 40 iterations a
decision, 12 games each: 0.46 of the points at 30 iterations' worth, 0.42 at 10; without a
prior, 0.00-0.31 at 20 iterations; through the referee, 49.4% of 90 games against 7.7% of 26
without): the search keeps greedy's choice unless it finds better. Those weights were the
tree's; the flat search's is `alhambra.PRIOR_VISITS`."""
FLAT["alhambra"] = (alhambra.model, alhambra.width)
MODELS["alhambra"] = alhambra.model
OPPONENTS["alhambra"] = "heuristic"
"""Alhambra is searched flat with common worlds, greedy's continuation for every seat (see
`bots.search.alhambra`: `model`, `width`, `DEPTH`)."""
