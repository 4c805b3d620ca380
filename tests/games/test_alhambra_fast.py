"""Alhambra's quick paths against what they replace: `apply` checks the one action it is given
(it must accept exactly the actions of `legal`), and the caches behind the checks (takes by
offer, layouts by Alhambra, majority points) give what a fresh computation gives.

The placement checks themselves are tested against the whole-Alhambra rules in
test_alhambra_rules.py (`test_the_quick_checks_agree_with_the_whole_alhambras_rules`).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.alhambra import Alhambra, State
from referee.games.alhambra_messages import (
    Buy,
    End,
    GiveDirk,
    Money,
    Pay,
    Place,
    Redesign,
    Reserve,
    Take,
)
from referee.games.alhambra_money import card_of, takes
from referee.games.alhambra_placement import Grid, Layout, can_place, can_remove, spots
from referee.games.alhambra_scoring import rank_points
from referee.games.alhambra_tiles import WALLS
from referee.games.base import IllegalAction

GAME = Alhambra()
EVERY = 4
"""Every 4th decision of a playout is checked whole (each one costs hundreds of applies)."""
REFUSED = 40
"""Actions outside the legal list tried per checked decision, at most."""


def candidates(state: State, seat: int) -> list[Any]:
    """Actions of every kind near the state: the offer's takes of any size (and cards it does
    not hold), every slot, card, building and reserve move, and placements of the buildings in
    play on every cell around the seat's Alhambra."""
    offer = [card_of(kind) for kind in sorted(state.offer)]
    found: list[Any] = [End(), Take(()), Buy(-1), Buy(4), "take"]
    # no such cards, though their kinds (currency·9 + value − 1) are those of green 1, yellow 9
    found += [Take((Money(0, 10),)), Pay(Money(0, 10)), Pay(Money(1, 0))]
    for size in range(1, len(offer) + 1):
        found += [Take(combo) for combo in combinations(offer, size)]
    found += [Take((card_of(kind),)) for kind in range(36)]
    found += [Buy(slot) for slot in range(4)]
    found += [Pay(card_of(kind)) for kind in range(36)]
    found += [make(b) for b in range(55) for make in (Redesign, Reserve, GiveDirk)]
    grid = state.alhambras[seat]
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    moving = [state.moving] if state.moving >= 0 else []
    buildings = {*state.pending[seat], *state.reserves[seat], *moving, *grid.values(), 7}
    found += [
        Place(building, x, y)
        for building in sorted(buildings)
        for x in range(min(xs) - 1, max(xs) + 2)
        for y in range(min(ys) - 1, max(ys) + 2)
    ]
    return found


@settings(max_examples=12, deadline=None)
@given(st.integers(min_value=2, max_value=6), st.integers(min_value=0, max_value=2**32))
def test_apply_accepts_exactly_the_legal_actions(players: int, seed: int) -> None:
    """On the states of a random game: every legal action is applied without complaint, and a
    sample of the other actions near the state is refused with IllegalAction."""
    state = GAME.new(players, seed)
    rng = random.Random(seed)
    decision = 0
    while GAME.to_act(state):
        seat = state.current
        legal = GAME.legal(state, seat)
        if decision % EVERY == 0:
            for action in legal:
                GAME.apply(GAME.clone(state), {seat: action})
            others = [action for action in candidates(state, seat) if action not in legal]
            for action in rng.sample(others, min(REFUSED, len(others))):
                with pytest.raises(IllegalAction):
                    GAME.apply(GAME.clone(state), {seat: action})
        GAME.apply(state, {seat: rng.choice(legal)})
        decision += 1


def test_a_card_is_known_by_its_currency_and_value() -> None:
    """Yellow 10 has the kind number of green 1 (currency·9 + value − 1), but no such card
    exists: paying with it is refused even while green 1 could be paid."""
    state = GAME.new(3, 11)
    state.current = 0
    state.market[1] = 14  # seraglio 9
    state.hands[0] = [9, 17]  # green 1 and green 9
    GAME.apply(state, {0: Buy(1)})
    assert GAME.legal(state, 0) == [Pay(Money(1, 1)), Pay(Money(1, 9))]
    for card in (Money(0, 10), Money(1, 0), Money(1, 10)):
        with pytest.raises(IllegalAction, match="pay with cards"):
            GAME.apply(state, {0: Pay(card)})
    GAME.apply(state, {0: Pay(Money(1, 1))})
    assert state.paid == [9]


def test_takes_are_every_set_once_in_increasing_order_and_shared() -> None:
    """`takes` from its cache equals the plain enumeration (one card, or several summing to at
    most 5, each set once, by size then in the sorted offer's order), and is immutable."""
    rng = random.Random(3)
    for _ in range(300):
        offer = [rng.randrange(36) for _ in range(rng.randrange(5))]
        plain: dict[tuple[int, ...], None] = {}
        for size in range(1, len(offer) + 1):
            for combo in combinations(sorted(offer), size):
                if size == 1 or sum(kind % 9 + 1 for kind in combo) <= 5:
                    plain[combo] = None
        expected = tuple(Take(tuple(card_of(kind) for kind in combo)) for combo in plain)
        assert takes(offer) == expected
        assert takes(list(reversed(offer))) is takes(offer)
        assert isinstance(takes(offer), tuple)


def test_an_alhambra_changed_in_place_is_worked_out_afresh() -> None:
    """The layout kept for a grid object is checked against its cells: a grid changed in place
    after a question gets the answers of its new cells, as a layout made afresh gives them."""
    grid: Grid = {(0, 0): 0}

    def removable() -> list[tuple[int, int]]:
        found = [cell for cell in grid if can_remove(grid, cell)]
        assert sorted(found) == sorted(Layout(dict(grid)).removable())
        return found

    assert spots(grid, 7) == [(0, -1), (-1, 0), (1, 0), (0, 1)]
    assert removable() == []
    grid[(1, 0)] = 7
    assert spots(grid, 14) == [(0, -1), (1, -1), (-1, 0), (2, 0), (0, 1), (1, 1)]
    assert spots(grid, 14) == Layout(dict(grid)).spots(WALLS[14])
    assert removable() == [(1, 0)]
    grid[(2, 0)] = 14  # 7 now stands between the fountain and 14
    assert removable() == [(2, 0)]
    del grid[(2, 0)]
    assert removable() == [(1, 0)]
    assert can_place(grid, (2, 0), 14) and not can_place(grid, (2, 1), 14)  # corner only


def test_shared_majority_points_are_handed_out_as_fresh_lists() -> None:
    first = rank_points([3, 3, 1], (16, 8, 1))
    assert first == [12, 12, 1]
    first[0] = 99
    assert rank_points([3, 3, 1], (16, 8, 1)) == [12, 12, 1]
    assert rank_points([3, 3, 1], [16, 8, 1]) == [12, 12, 1]  # any sequence as the table
