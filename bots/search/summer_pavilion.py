"""Search knowledge for Azul: Summer Pavilion: the greedy strategy's valuations on engine states.

The heuristic is `bots.strategies.summer_pavilion`'s, read from the engine state through
`_Table` (what an observation would show) instead of from an observation, so the tree widens
first to what greedy would do and rollouts choose as greedy would among the actions they
sample. The evaluation is greedy's judgement turned into a value of a state (see `evaluation`),
so that one decision ahead the search agrees with greedy and can only differ by looking further.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bots.search.cache import Bounded
from bots.search.policies import SearchProfile
from bots.strategies import summer_pavilion as greedy
from referee.games.summer_pavilion import (
    Bonus,
    Pass,
    Pay,
    Place,
    SummerPavilion,
    SummerPavilionState,
    Take,
    end_bonus,
)
from referee.games.summer_pavilion_board import (
    CELLS,
    CENTRE_STAR,
    COSTS,
    MULTI_STAR_VALUE,
    NUMBER_BONUS,
    STAR_VALUE,
    STARS,
)

_TAKING, _PAYING = 0, 2
"""`SummerPavilionState.phase` in phase 1, and while a placement's wilds are chosen."""
_GAME = SummerPavilion()
_STAR_COSTS = {
    grey: tuple(tuple(costs[star * 6 : star * 6 + 6]) for star in range(STARS))
    for grey, costs in COSTS.items()
}
"""Per side, the costs star by star, as an observation lists them."""
_SPACES_OF_COST = {
    grey: {cost: [space for space in range(CELLS) if costs[space] == cost] for cost in NUMBER_BONUS}
    for grey, costs in COSTS.items()
}
_PASS_BLOCKED = -100.0
"""A pass that discards tiles while a placement is legal: greedy never does it."""
PROGRESS = 1.0
"""Weight of the unfinished end bonuses (greedy's placement counts their growth fully)."""
DEPTH = 1
"""Decisions a rollout plays before its leaf is evaluated: the next seat's reply. Deeper rollouts
did no better through the referee at the search time of a 100 ms move: their noise outweighs
what they see (docs/strategies.md)."""
SAMPLE = 1000
"""Legal actions a greedy rollout samples (`SearchProfile.sample`): all of them. A phase-2 legal
list is mostly passes (up to 210 actions), so the default best of 8 random ones places poorly;
with 8, rollouts deeper than one reply made the search worse (see `DEPTH`)."""

ITERATIONS = 30
"""Iterations a decision makes at most (`SearchProfile.iterations`): more made the search worse
against greedy. With more, the tree grows deeper within the round, through an evaluation that
only approximates greedy's judgement, whose errors add up."""


class _Table:
    """The `greedy.Table` of an engine state: the fields the valuations read."""

    __slots__ = ("centre", "costs", "factories", "marker", "round", "variant", "wild")

    def __init__(self, state: SummerPavilionState) -> None:
        self.round = state.round
        self.variant = "grey" if state.grey else "standard"
        self.wild = state.round - 1
        self.marker = state.offer.marker
        self.centre = state.offer.centre
        self.factories: Sequence[list[int]] = state.offer.factories
        self.costs: Sequence[Sequence[int]] = _STAR_COSTS[state.grey]


def heuristic(state: SummerPavilionState, seat: int, action: Any) -> float:
    """The greedy bot's value of `action`; a pass ranks as greedy's choice rule does: below any
    placement worth something, and below every placement when it would discard tiles."""
    kind = type(action)
    if kind is Pay:
        return -float(action.wilds)
    if kind is Place:
        return _place_value(state, seat, action)
    table = _Table(state)
    needs = _unmet_needs(state, seat, table)
    if kind is Take:
        return greedy.take_value(table, needs, action)
    if kind is Bonus:
        return greedy.bonus_value(table, needs, action)
    assert kind is Pass, f"no Summer Pavilion action {action!r}"
    keep = _keep_value(table, needs, action) / 100
    if sum(state.hand[seat]) > greedy.STORAGE:
        return _PASS_BLOCKED + keep
    return greedy.PASS_BELOW + keep


_CACHE_SIZE = 50_000
"""Entries a valuation cache holds before it is emptied (a few megabytes)."""
_PLACES: Bounded[tuple[Any, ...], float] = Bounded(_CACHE_SIZE)
"""`greedy.place_value` by side, board and placement: a rollout values every legal action of a
state, a phase-2 state has dozens of placements, and boards recur from world to world (the
searching seat's own board is the same in all of them), so most values are looked up."""
_KEEPS: Bounded[tuple[Any, ...], float] = Bounded(_CACHE_SIZE)
"""`greedy.keep_value` by round, unmet needs and the tiles kept: a phase-2 legal list holds up
to 210 passes, one per set of tiles kept."""


def _place_value(state: SummerPavilionState, seat: int, action: Place) -> float:
    cells = state.board[seat]
    key = (state.grey, action, *cells)
    value = _PLACES.get(key)
    if value is None:
        value = _PLACES.put(key, greedy.place_value(_Table(state), cells, action))
    return value


def _keep_value(table: _Table, needs: list[int], action: Pass) -> float:
    key = (table.round, action.keep, *needs)
    value = _KEEPS.get(key)
    if value is None:
        value = _KEEPS.put(key, greedy.keep_value(table, needs, action))
    return value


_NEEDS: Bounded[tuple[int, ...], list[int]] = Bounded(_CACHE_SIZE)
"""`greedy.unmet_needs` by board, hand and storage: the heuristic values many actions of one
state, and boards recur from world to world."""


def _unmet_needs(state: SummerPavilionState, seat: int, table: _Table) -> list[int]:
    hand, storage, cells = state.hand[seat], state.storage[seat], state.board[seat]
    key = (state.grey, *cells, *hand, *storage)
    needs = _NEEDS.get(key)
    if needs is None:
        needs = _NEEDS.put(key, greedy.unmet_needs(table, cells, hand, storage))
    return needs


def evaluation(state: SummerPavilionState) -> list[float]:
    """Score now, plus the end bonuses already earned, plus what greedy counts as progress:
    `PROGRESS` times the square of each unfinished bonus's share of spaces filled (before the
    last round), the held tiles (`_held`) and the bonus tiles still owed; after the last round,
    the stored tiles' -1 each. One decision ahead, it orders actions as greedy's heuristic does
    (up to its pass rule), so the search starts from greedy's judgement and looks further. A
    placement waiting for its wilds is paid first, with the fewest (greedy's choice)."""
    if state.phase == _PAYING:  # the placement scores once paid: pay as greedy does
        state = state.copy()
        _GAME.apply(state, {state.turn: _GAME.legal(state, state.turn)[0]})
    grey = state.grey
    values = []
    for seat in range(state.players):
        cells = state.board[seat]
        value = float(state.score[seat])
        if state.turn >= 0:  # once the game is over (turn -1) its score has the bonuses
            value += end_bonus(cells, grey)
            if state.round >= greedy.ROUNDS:
                value -= sum(state.storage[seat])
            else:
                value += PROGRESS * _progress(cells, grey) + _held(state, seat)
        values.append(value)
    if state.owed:
        values[state.turn] += greedy.TILE * state.owed
    return values


def horizon(state: SummerPavilionState) -> int:
    """`DEPTH` decisions (see its docstring)."""
    return DEPTH


def _held(state: SummerPavilionState, seat: int) -> float:
    """Held tiles as greedy values them: in phase 1 a take's `TILE` per tile my board needs,
    `WILD` per wild and `SURPLUS` per other tile, and the marker's `MARKER_EDGE`; in phase 2
    `SPEND` per needed tile or wild (what greedy charges a placement per tile paid)."""
    table = _Table(state)
    needs = greedy.colour_needs(table, state.board[seat])
    hand, storage, wild = state.hand[seat], state.storage[seat], table.wild
    taking = state.phase == _TAKING
    tile = greedy.TILE if taking else greedy.SPEND
    value = greedy.MARKER_EDGE if taking and state.offer.marker == seat else 0.0
    for colour, need in enumerate(needs):
        held = hand[colour] + storage[colour]
        if colour == wild:
            value += (greedy.WILD if taking else greedy.SPEND) * held
        else:
            useful = min(held, need)
            value += tile * useful + greedy.SURPLUS * (held - useful)
    return value


def _progress(cells: list[int], grey: bool) -> float:
    """The unfinished end bonuses, each times the square of its share of spaces filled."""
    total = 0.0
    for star in range(STARS):
        ring = cells[star * 6 : star * 6 + 6]
        filled = sum(colour >= 0 for colour in ring)
        if filled < 6:
            value = MULTI_STAR_VALUE if star == CENTRE_STAR or grey else STAR_VALUE[star]
            total += value * filled * filled / 36
    for cost, spaces in _SPACES_OF_COST[grey].items():
        filled = sum(cells[space] >= 0 for space in spaces)
        if filled < len(spaces):
            total += NUMBER_BONUS[cost] * (filled / len(spaces)) ** 2
    return total


PROFILE = SearchProfile(
    heuristic=heuristic,
    evaluation=evaluation,
    horizon=horizon,
    scale=15.0,
    exploration=0.005,
    sample=SAMPLE,
    iterations=ITERATIONS,
)
"""Exploration 0.005: at scale 15 a point of margin is worth little at a leaf, and a larger
constant spreads a root's few visits evenly over its actions instead of following the values."""
