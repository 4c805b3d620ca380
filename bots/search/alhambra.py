"""Search knowledge for Alhambra: the greedy strategy's valuations on engine states, a horizon,
an evaluation of the scorings to come, and greedy as the model of every seat.

The heuristic is `bots.strategies.alhambra`'s (`View`, `next_payment`), built from the engine
state instead of an observation. A game is far too long to play out within a decision's
budget, and a tree of independent samples could not tell greedy's good actions apart within
one. So Alhambra is searched flat with common worlds (`ismcts.Search._flat`, `PROFILE`): in an
action phase, greedy's `WIDTH` best actions (by `prior`) are each played in the same sampled
worlds, then every seat plays `model` (greedy, placements by their walls) for the rest of
`DEPTH` decisions, and the leaf is valued by the points so far plus what the coming scorings
would pay if the Alhambras stayed as they are (majorities, Dirk included, and walls) plus what
the money and the buildings in hand are worth. Payments and placements are greedy's own choice
(`width`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from bots.search.cache import Bounded
from bots.search.policies import SearchProfile
from bots.strategies import alhambra as greedy
from referee.games.alhambra import Alhambra, State
from referee.games.alhambra_messages import End, Money, Pay, Place
from referee.games.alhambra_placement import Grid, longest_outer_wall
from referee.games.alhambra_scoring import POINTS, rank_points
from referee.games.alhambra_tiles import FOUNTAIN, PRICE, TYPE, TYPES

DEPTH = 16
"""Decisions a playout plays from the root before its leaf is evaluated: about the rest of the turn,
the other seat's turn and most of the next one, so that what a root action changes (the money taken,
a building bought, the offer left) shows in what greedy's continuation does with it; longer
playouts leave fewer worlds."""
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
    return _valuation(state, seat)(action)


def _valuation(state: State, seat: int) -> Callable[[Any], float]:
    """`heuristic` of `seat`'s actions in `state`, what they share (the payment plan, the view)
    computed once: `model` values every legal action."""
    if state.phase == "pay":
        price = PRICE[state.market[state.paying]]
        hand = [kind % 9 + 1 for kind in state.hands[seat] if kind // 9 == state.paying]
        wanted = greedy.next_payment(hand, price, [kind % 9 + 1 for kind in state.paid])

        def paid(action: Any) -> float:
            if type(action) is Pay:
                return 1.0 if action.card.value == wanted else 0.0
            return 1.0 if type(action) is End and wanted is None else 0.0

        return paid
    grid = state.alhambras[seat]
    if state.phase != "action":  # a placement's: a cell, the reserve or Dirk

        def placing(action: Any) -> float:
            if type(action) is Place:
                return greedy.OUT if (action.x, action.y) in grid else 0.0
            return greedy.kept_out(action)

        return placing
    return view(state, seat).value  # an action phase offers no placement


def horizon(state: State) -> int:
    """`DEPTH` decisions (see its docstring)."""
    return DEPTH


_WALLS: Bounded[frozenset[tuple[tuple[int, int], int]], int] = Bounded(20_000)
"""`longest_outer_wall` by Alhambra: costly, and the same Alhambras recur from leaf to leaf."""


def _wall(grid: Grid) -> int:
    key = frozenset(grid.items())
    wall = _WALLS.get(key)
    if wall is None:
        wall = _WALLS.put(key, longest_outer_wall(grid))
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
            _GAME.apply(state, {seat: max(_GAME.legal(state, seat), key=_valuation(state, seat))})
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


PRIOR_VISITS = 2.0
"""Worlds' worth of evidence greedy's valuation is given at the root (`PROFILE`): the flat
search plays few worlds a decision, which a heavier prior would overrule."""
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


def model(state: State, seat: int, legal: list[Any], rng: random.Random) -> Any:
    """Greedy's choice in a sampled world, as cheap as a playout needs: `heuristic`'s best (ties
    at random), except that a placement is valued by the longest-wall gain alone (greedy's
    openness estimate costs milliseconds a cell)."""
    if state.phase in ("place", "final", "redesign"):
        grid = state.alhambras[seat]
        before = _wall(grid)
        left = 3 - state.scorings

        def placed(action: Any) -> float:
            if type(action) is not Place:
                return greedy.kept_out(action)
            cell = (action.x, action.y)
            if cell in grid:
                return greedy.OUT
            grown = dict(grid)
            grown[cell] = action.building
            return greedy.WALL * (_wall(grown) - before) * left

        return max(legal, key=lambda action: (placed(action), rng.random()))
    value = _valuation(state, seat)
    return max(legal, key=lambda action: (value(action), rng.random()))


WIDTH = 4
"""The flat search values greedy's 4 best actions of an action phase: more candidates leave fewer
worlds to each."""


def width(state: State) -> int:
    """Root actions the flat search values: `WIDTH` in an action phase, else greedy's choice
    alone (its payment plan, and its placement by the openness estimate the playouts lack)."""
    return WIDTH if state.phase == "action" else 1


PROFILE = SearchProfile(
    heuristic=heuristic,
    evaluation=evaluation,
    horizon=horizon,
    scale=15.0,
    exploration=0.05,
    opponents="heuristic",
    model=model,
    prior=(prior, PRIOR_VISITS),
    playout=model,
    width=width,
)
"""Searched flat with common worlds, greedy's continuation for every seat (`model`, `width`,
`DEPTH`). The exploration constant serves only a tree, where no value tried made a difference.
The prior, greedy's own valuation at the root (`PRIOR_VISITS`): the search keeps greedy's choice
unless it finds better."""
