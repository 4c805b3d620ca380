"""Search knowledge for Alhambra: the greedy strategy's valuations on engine states, a horizon
and an evaluation of the scorings to come.

The heuristic is `bots.strategies.alhambra`'s (`View`, `next_payment`), built from the engine
state instead of an observation, so the tree widens first to what greedy would do and rollouts
choose as greedy would among the actions they sample. A game is about 370 decisions for two
players, far too long to play out within a decision's budget: rollouts stop after `DEPTH`
decisions, and the leaf is valued by the points so far plus what the coming scorings would pay
if the Alhambras stayed as they are (majorities, Dirk included, and walls) plus what the money
and the buildings in hand are worth.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from bots.strategies import alhambra as greedy
from referee.games.alhambra import POINTS, Alhambra, Grid, State, longest_outer_wall, rank_points
from referee.games.alhambra_messages import End, Money, Pay, Place
from referee.games.alhambra_tiles import FOUNTAIN, PRICE, TYPE, TYPES

DEPTH = 1
"""Decisions a rollout plays before its leaf is evaluated: the next one. A decision's budget
holds few iterations (one of 24 greedy decisions takes 15-30 ms), and deeper rollouts did no
better against greedy (in-process, 20 iterations a decision, 8 games each: 0.00-0.12 of the
points at 1, 0.00 at 3; with rollouts choosing among all legal actions, 0.00 at 1 and 0.19 at
6): this evaluation, not the search, is what falls short of greedy's judgement."""
LATER = 0.6
"""Weight of the scorings after the next one (the Alhambras will have grown by then)."""
MONEY = 0.25
"""Points per unit of money in hand: less than greedy's `MONEY` for a take, since the money
paid for a building is counted here as lost."""
HELD = 2.0
"""A building in the reserve: greedy's `BASE`, without a majority (it may be placed later)."""
_GAME = Alhambra()
_MONEY = tuple(Money(kind // 9, kind % 9 + 1) for kind in range(36))
"""The card of each money kind (currency · 9 + value − 1)."""


_last: tuple[tuple[object, ...], greedy.View] | None = None
"""The last view built, with its key: the search values many actions of one state in a row."""


def view(state: State, seat: int) -> greedy.View:
    """The greedy valuation's view of `seat`'s decision in an engine state, reused while the
    same state is asked about again (`_key`)."""
    global _last
    key = _key(state, seat)
    if _last is not None and _last[0] == key:
        return _last[1]
    made = _view(state, seat)
    _last = (key, made)
    return made


def _key(state: State, seat: int) -> tuple[object, ...]:
    """What tells apart the states one search asks about in a row: the object, and what any
    decision changes (a take the offer and a hand, a purchase the market, a placement an
    Alhambra or a reserve, a scoring the scores)."""
    return (
        id(state),
        seat,
        state.phase,
        state.actions,
        state.current,
        len(state.deck),
        len(state.hands[seat]),
        len(state.pending[seat]),
        len(state.reserves[seat]),
        *state.offer,
        *state.market,
        *map(len, state.alhambras),
        *state.scores,
    )


def _view(state: State, seat: int) -> greedy.View:

    def elsewhere() -> Iterable[Iterable[int]]:
        return (*state.reserves, *state.pending, state.dirk_buildings, state.out_of_play)

    return greedy.View(
        seat,
        state.alhambras,
        state.pending[seat],
        state.dirk_buildings,
        state.scorings,
        [building or None for building in state.market],
        [_MONEY[kind] for kind in state.hands[seat]],
        state.reserves[seat],
        elsewhere,
    )


def heuristic(state: State, seat: int, action: Any) -> float:
    """The greedy bot's value of `action`: its payment plan's next card (or `end`) in a payment,
    else `View.value`, except that every cell of a placement is worth the same (greedy values
    one by the walls of every building still to come: milliseconds a cell, too slow here), a
    swap out of the Alhambra excepted."""
    if state.phase == "pay":
        price = PRICE[state.market[state.paying]]
        hand = [kind % 9 + 1 for kind in state.hands[seat] if kind // 9 == state.paying]
        wanted = greedy.next_payment(hand, price, [kind % 9 + 1 for kind in state.paid])
        if type(action) is Pay:
            return 1.0 if action.card.value == wanted else 0.0
        return 1.0 if type(action) is End and wanted is None else 0.0
    if type(action) is Place:
        return greedy.OUT if (action.x, action.y) in state.alhambras[seat] else 0.0
    return view(state, seat).value(action)


def horizon(state: State) -> int:
    """`DEPTH` decisions (see its docstring)."""
    return DEPTH


_WALLS: dict[frozenset[tuple[tuple[int, int], int]], int] = {}
"""`longest_outer_wall` by Alhambra: costly, and the same Alhambras recur from leaf to leaf."""
_WALLS_SIZE = 20_000


def _wall(grid: Grid) -> int:
    key = frozenset(grid.items())
    wall = _WALLS.get(key)
    if wall is None:
        if len(_WALLS) >= _WALLS_SIZE:
            _WALLS.clear()
        wall = _WALLS[key] = longest_outer_wall(grid)
    return wall


def evaluation(state: State) -> list[float]:
    """Per seat: points so far, plus the coming scorings as if the Alhambras stayed as they are
    (the next one fully, later ones `LATER`; a purchase being paid is finished first, as greedy
    pays), plus `MONEY` per unit of money in hand, greedy's `BASE` per building in the Alhambra
    or waiting to be placed and `HELD` per building in the reserve."""
    if state.phase == "over":
        return [float(score) for score in state.scores]
    if state.phase == "pay":  # finish the purchase as greedy would: the money goes, it comes
        state = state.copy()
        while state.phase == "pay":
            seat = state.current
            legal = _GAME.legal(state, seat)
            _GAME.apply(state, {seat: max(legal, key=lambda a: heuristic(state, seat, a))})
    players = state.players
    counts = [[0] * len(TYPES) for _ in range(players + state.dirk)]
    for seat, grid in enumerate(state.alhambras):
        row = counts[seat]
        for building in (*grid.values(), *state.pending[seat]):
            if building != FOUNTAIN:
                row[TYPE[building]] += 1
    if state.dirk:
        for building in state.dirk_buildings:
            counts[-1][TYPE[building]] += 1
    values = [
        score
        + MONEY * sum(kind % 9 + 1 for kind in hand)
        + greedy.BASE * (len(grid) - 1 + len(pending))
        + HELD * len(reserve)
        for score, hand, grid, reserve, pending in zip(
            state.scores, state.hands, state.alhambras, state.reserves, state.pending, strict=True
        )
    ]
    walls = [_wall(grid) for grid in state.alhambras]
    for scoring in range(state.scorings, 3):
        weight = 1.0 if scoring == state.scorings else LATER
        for kind in range(len(TYPES)):
            gains = rank_points([row[kind] for row in counts], POINTS[kind][scoring])
            for seat in range(players):
                values[seat] += weight * gains[seat]
        for seat in range(players):
            values[seat] += weight * walls[seat]
    return values


PRIOR_VISITS = 30.0
"""Iterations' worth of evidence greedy's valuation is given at the root (`policies.PRIORS`)."""
PRIOR_FLOOR = 15.0
"""Points below greedy's best at which the prior stops telling actions apart: greedy's -100
for a building moved out would otherwise pull the mean of the estimates far down."""


def prior(root: State, seat: int, legal: list[Any]) -> list[float]:
    """Greedy's own valuation of the root actions, placements by its openness estimate too (a
    few milliseconds a cell: affordable once a decision), and in a payment its plan's card: the
    search keeps greedy's choice unless its iterations find better."""
    observation = _GAME.observe(root, seat)
    if root.phase == "pay":
        pick = greedy.choose(observation, legal, random.Random(0))
        return [PRIOR_FLOOR if index == pick else 0.0 for index in range(len(legal))]
    view_ = greedy.View.of_observation(observation)
    values = [view_.value(action) for action in legal]
    floor = max(values) - PRIOR_FLOOR
    return [max(value, floor) for value in values]
