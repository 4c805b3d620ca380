"""Alhambra: the tile list's checks, the placement rules, the turn, money, scoring and Dirk.

Worked examples first (each rule violated once), then properties over random games.
"""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.alhambra import Alhambra, State, score_round
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
from referee.games.alhambra_money import money_kinds
from referee.games.alhambra_placement import (
    Grid,
    alhambra_problems,
    by_row,
    can_place,
    can_redesign,
    can_remove,
    can_swap,
    longest_outer_wall,
    redesign_spots,
    spots,
)
from referee.games.alhambra_scoring import rank_points
from referee.games.alhambra_tiles import BUILDINGS, DIRECTIONS, PRICE, TYPE, TYPES, WALLS
from referee.games.base import IllegalAction, simulate

GAME = Alhambra()
OPEN = [b for b in range(1, 55) if WALLS[b] == 0]
"""Buildings without walls (7, 14, 22, 23, 31, 32, 41, 42, 52, 53)."""


def kind(currency: int, value: int) -> int:
    return currency * 9 + value - 1


# ---- the tile list ---------------------------------------------------------------------------


def test_the_tile_lists_checks_hold() -> None:
    assert [b[0] for b in BUILDINGS] == list(range(1, 55))
    assert Counter(TYPE[1:]) == {0: 7, 1: 7, 2: 9, 3: 9, 4: 11, 5: 11}
    walls = Counter(bin(WALLS[b]).count("1") for b in range(1, 55))
    assert walls == {0: 10, 1: 16, 2: 20, 3: 8}
    for side in DIRECTIONS:
        assert sum(bool(WALLS[b] & side) for b in range(1, 55)) == 20
    assert WALLS[0] == 0


def test_prices_per_type_are_the_components_table() -> None:
    table = {
        "pavilion": [2, 3, 4, 5, 6, 7, 8],
        "seraglio": [3, 4, 5, 6, 7, 8, 9],
        "arcades": [4, 5, 6, 6, 7, 8, 8, 9, 10],
        "chambers": [5, 6, 7, 7, 8, 9, 9, 10, 11],
        "garden": [6, 7, 8, 8, 8, 9, 10, 10, 10, 11, 12],
        "tower": [7, 8, 9, 9, 9, 10, 11, 11, 11, 12, 13],
    }
    for index, name in enumerate(TYPES):
        assert sorted(PRICE[b] for b in range(1, 55) if TYPE[b] == index) == table[name]


# ---- placement: each rule violated once ------------------------------------------------------


def test_corner_contact_alone_is_not_enough() -> None:
    grid: Grid = {(0, 0): 0}
    assert not can_place(grid, (1, 1), OPEN[0])
    assert can_place(grid, (1, 0), OPEN[0])
    assert spots(grid, OPEN[0]) == [(0, -1), (-1, 0), (1, 0), (0, 1)]


def test_a_wall_may_not_meet_an_open_side() -> None:
    grid: Grid = {(0, 0): 0}
    east_wall = 6  # pavilion 7, wall E
    assert not can_place(grid, (-1, 0), east_wall)  # its wall would face the open fountain
    assert can_place(grid, (1, 0), east_wall)


def test_a_spot_reached_only_across_a_wall_is_unreachable() -> None:
    grid: Grid = {(0, 0): 0, (1, 0): 13}  # seraglio 8: wall S
    north_wall = 5  # pavilion 6: wall N, meets 13's wall S correctly
    assert not can_place(grid, (1, 1), north_wall)
    grid[(0, 1)] = OPEN[0]  # now an open path leads in from the west
    assert can_place(grid, (1, 1), north_wall)


def test_no_hole_of_any_size() -> None:
    grid: Grid = {(0, 0): 0}
    for cell, building in zip([(1, 0), (2, 0), (0, 1), (2, 1), (0, 2)], OPEN, strict=False):
        assert can_place(grid, cell, building)
        grid[cell] = building
    assert not can_place(grid, (1, 2), OPEN[5])  # would enclose (1, 1)
    assert can_place(grid, (1, 1), OPEN[5])
    grid[(3, 0)] = OPEN[6]
    grid[(3, 1)] = OPEN[7]
    # a two-cell area: closing (1, 2)-(1, 1) with (2, 2) is blocked the same way
    assert alhambra_problems({**grid, (1, 2): OPEN[8]}) == ["an empty area is enclosed (a hole)"]


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=3, max_value=30))
def test_the_quick_checks_agree_with_the_whole_alhambras_rules(seed: int, size: int) -> None:
    """Random legal Alhambras: the quick checks of placing, removing (redesign b) and swapping
    (redesign c) say yes exactly when the whole resulting Alhambra is legal; the lists and the
    redesign check read from one `Layout` (shared by equal grids) give the same cells, row by
    row."""
    rng = random.Random(seed)
    grid: Grid = {(0, 0): 0}
    pool = list(range(1, 55))
    rng.shuffle(pool)
    for building in pool[:size]:
        xs = [x for x, _ in grid]
        ys = [y for _, y in grid]
        placeable = []
        for cell in sorted(
            (
                (x, y)
                for x in range(min(xs) - 1, max(xs) + 2)
                for y in range(min(ys) - 1, max(ys) + 2)
                if (x, y) not in grid
            ),
            key=lambda c: (c[1], c[0]),
        ):
            legal = not alhambra_problems({**grid, cell: building})
            assert can_place(grid, cell, building) == legal, (grid, cell, building)
            if legal:
                placeable.append(cell)
        swappable = []
        for cell, there in sorted(grid.items(), key=by_row):
            rest = {c: b for c, b in grid.items() if c != cell}
            assert can_remove(grid, cell) == (there != 0 and not alhambra_problems(rest))
            swapped = {**grid, cell: building}
            legal = there != 0 and not alhambra_problems(swapped)
            assert can_swap(grid, cell, building) == legal
            if legal:
                swappable.append(cell)
        assert spots(grid, building) == placeable
        assert redesign_spots(grid, building) == placeable + swappable
        assert can_redesign(grid, building) == bool(placeable + swappable)
        reversed_grid = dict(reversed(grid.items()))  # another order shares the cached layout
        assert spots(reversed_grid, building) == placeable
        if placeable:
            grid[rng.choice(placeable)] = building
        assert alhambra_problems(grid) == []


# ---- longest outer wall ----------------------------------------------------------------------


def test_longest_wall_passes_a_corner_point_once() -> None:
    # (0, 0) walls E+S and (1, 1) walls N+W meet at the point (1, 1): four wall edges there
    assert longest_outer_wall({(0, 0): 3, (1, 1): 4}) == 2
    # straight through the corner point: S of (0, 0) then N of (1, 1)
    assert longest_outer_wall({(0, 0): 13, (1, 1): 5}) == 2
    # (0, 0) walls N E W: up its W edge, across N, down E to the point, on by one edge of (1, 1)
    assert longest_outer_wall({(0, 0): 1, (1, 1): 4}) == 4


def test_a_closed_ring_counts_all_its_edges_and_inner_walls_do_not_count() -> None:
    assert longest_outer_wall({(0, 0): 1, (0, 1): 8}) == 6  # NEW above ESW
    # 13 (wall S) above 5 (wall N): the walls face each other, inside
    assert longest_outer_wall({(0, 0): 13, (0, 1): 5}) == 0


# ---- scoring tables --------------------------------------------------------------------------


def test_ties_share_the_places_they_occupy_rounded_down() -> None:
    pavilion3 = (16, 8, 1)
    assert rank_points([3, 3, 1], pavilion3) == [12, 12, 1]  # two-way tie, the next is 3rd
    garden3 = (20, 12, 5)
    assert rank_points([2, 2, 2, 1], garden3) == [12, 12, 12, 0]  # 37 // 3, 4th scores nothing
    tower2 = (13, 6)
    assert rank_points([3, 1, 1, 0], tower2) == [13, 3, 3, 0]  # tied 2nds: 6 // 2
    assert rank_points([2, 2, 0], (2,)) == [1, 1, 0]  # scoring 1: 2 // 2
    assert rank_points([0, 0], (6,)) == [0, 0]


# ---- set-up ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_deals_start_money_and_the_deck(players: int) -> None:
    for seed in range(5):
        state = GAME.new(players, seed)
        assert GAME.broken_invariants(state) == []
        assert len(money_kinds(players == 2)) == (72 if players == 2 else 108)
        for hand in state.hands:
            assert sum(k % 9 + 1 for k in hand) >= 20
        assert len(state.offer) == 4 and all(state.market)
        assert len(state.dirk_buildings) == (6 if players == 2 else 0)
        for card, (low, high) in zip((36, 37), state.piles, strict=True):
            assert low <= state.deck.index(card) < high
        keys = [(len(h), sum(k % 9 + 1 for k in h), s) for s, h in enumerate(state.hands)]
        assert state.current == min(keys)[2]


# ---- the turn --------------------------------------------------------------------------------


def fresh(players: int = 3) -> State:
    state = GAME.new(players, 11)
    state.current = 0
    return state


def test_take_one_card_of_any_value_or_several_summing_to_at_most_five() -> None:
    state = fresh()
    state.offer = [kind(0, 9), kind(1, 2), kind(2, 3), kind(3, 4)]
    takes = {
        tuple(sorted((c.currency, c.value) for c in a.cards))
        for a in GAME.legal(state, 0)
        if isinstance(a, Take)
    }
    assert ((0, 9),) in takes and ((1, 2), (2, 3)) in takes
    assert ((1, 2), (3, 4)) not in takes and ((0, 9), (1, 2)) not in takes
    with pytest.raises(IllegalAction, match="summing to at most 5"):
        GAME.apply(state, {0: Take((Money(1, 2), Money(3, 4)))})
    hand = list(state.hands[0])
    GAME.apply(state, {0: Take((Money(1, 2), Money(2, 3)))})
    assert sorted(state.hands[0]) == sorted([*hand, kind(1, 2), kind(2, 3)])
    assert state.current == 1 and state.phase == "action" and len(state.offer) == 4


def buy(state: State, slot: int, values: list[int]) -> None:
    GAME.apply(state, {state.current: Buy(slot)})
    for value in sorted(values):
        GAME.apply(state, {state.current: Pay(Money(slot, value))})
    GAME.apply(state, {state.current: End()})


def test_exact_payment_gives_another_action_up_to_five() -> None:
    state = fresh()
    state.market = [7, 14, 22, 23]  # prices 8, 9, 9, 10; all without walls
    state.hands[0] = sorted(
        [kind(0, 8), kind(1, 9), kind(2, 4), kind(2, 5), kind(3, 9), kind(3, 1)]
    )
    buy(state, 0, [8])
    assert state.phase == "action" and state.actions == 1 and End() in GAME.legal(state, 0)
    buy(state, 1, [9])
    buy(state, 2, [4, 5])
    buy(state, 3, [1, 9])  # exact again: a fifth action may follow
    assert state.actions == 4 and state.extra
    GAME.apply(state, {0: GAME.legal(state, 0)[0]})  # a Take: the fifth action ends the phase
    assert state.actions == 5 and state.phase == "place"
    assert sorted(state.pending[0]) == [7, 14, 22, 23]


def test_overpaying_ends_the_action_phase_and_unneeded_cards_may_be_paid() -> None:
    state = fresh()
    state.market[0] = 7  # price 8
    state.hands[0] = sorted([kind(0, 5), kind(0, 4), kind(0, 3)])
    GAME.apply(state, {0: Buy(0)})
    assert End() not in GAME.legal(state, 0)
    for value in (3, 4, 5):  # 4 + 5 would do; the 3 may be paid too
        GAME.apply(state, {0: Pay(Money(0, value))})
    with pytest.raises(IllegalAction, match="increasing order"):
        GAME.apply(state, {0: Pay(Money(0, 3))})
    GAME.apply(state, {0: End()})
    assert state.phase == "place" and state.hands[0] == []
    assert set(GAME.legal(state, 0)) >= {Reserve(7), Place(7, 1, 0)}
    assert GiveDirk(7) not in GAME.legal(state, 0)  # only with Dirk


def test_a_payment_is_never_led_into_a_dead_end() -> None:
    state = fresh()
    state.market[0] = 3  # pavilion 4
    state.hands[0] = [kind(0, 1), kind(0, 3)]
    GAME.apply(state, {0: Buy(0)})
    assert GAME.legal(state, 0) == [Pay(Money(0, 1))]  # starting with the 3 could not reach 4


def test_redesign_keeps_the_alhambra_legal() -> None:
    state = fresh()
    grid = state.alhambras[0]
    grid[(1, 0)] = 7
    grid[(2, 0)] = 14  # reachable only through 7
    state.reserves[0] = [22]
    legal = GAME.legal(state, 0)
    assert Redesign(14) in legal and Redesign(7) not in legal  # 7 would cut off 14
    GAME.apply(state, {0: Redesign(22)})
    assert state.phase == "redesign"
    choices = GAME.legal(state, 0)
    assert Place(22, 1, 0) in choices and Place(22, 0, 1) in choices  # a swap and a spot
    GAME.apply(state, {0: Place(22, 1, 0)})
    assert grid[(1, 0)] == 22 and state.reserves[0] == [7]
    assert state.current == 1 and alhambra_problems(grid) == []


# ---- scoring and the end ---------------------------------------------------------------------


def test_a_scoring_card_scores_after_the_offer_is_refilled() -> None:
    state = fresh()
    state.alhambras[0][(0, -1)] = 1  # pavilion with walls N E W, open towards the fountain
    state.alhambras[1][(1, 0)] = 7
    state.alhambras[1][(2, 0)] = 14
    assert not alhambra_problems(state.alhambras[0]) and not alhambra_problems(state.alhambras[1])
    state.offer = [kind(1, 1), kind(1, 2), kind(1, 3), kind(1, 9)]
    state.deck.remove(36)
    state.deck += [kind(0, 1), 36]  # the deck's top is its end
    GAME.apply(state, {0: Take((Money(1, 9),))})
    assert state.scorings == 1 and len(state.offer) == 4
    # pavilion: seat 0 and seat 1 tie for 1st with one each: 1 // 2 = 0; seraglio: seat 1 (2)
    assert state.scores == [0 + 3, 2, 0]  # seat 0's three outer wall edges
    assert kind(0, 1) in state.offer


def test_the_end_gives_the_market_to_the_highest_value_and_a_tie_to_nobody() -> None:
    state = fresh()
    state.out_of_play += state.bag
    state.bag = []
    state.market = [7, 14, 22, 2]
    state.hands = [
        [kind(0, 5), kind(1, 9), kind(3, 3)],
        [kind(0, 2), kind(0, 3), kind(1, 1), kind(1, 1), kind(1, 1), kind(1, 1)],
        [kind(2, 1)],
    ]
    buy(state, 3, [3])  # the last purchase: its slot cannot be refilled
    GAME.apply(state, {0: End()})
    GAME.apply(state, {0: Reserve(2)})
    # yellow 5 v 2 + 3: a tie, nobody; green 9 v four 1s: the value wins; blue: seat 2 alone
    assert state.phase == "final" and state.current == 0
    assert state.pending == [[14], [], [22]] and state.out_of_play[-1] == 7
    assert GiveDirk(14) not in GAME.legal(state, 0)
    GAME.apply(state, {0: Place(14, 1, 0)})
    assert state.current == 2
    GAME.apply(state, {2: Reserve(22)})
    assert state.phase == "over" and state.scorings == 3
    assert GAME.result(state) is not None and GAME.to_act(state) == ()


# ---- Dirk ------------------------------------------------------------------------------------


def test_dirk_can_win_a_majority_but_is_not_a_seat() -> None:
    state = GAME.new(2, 5)
    state.dirk_buildings = [44, 45, 1]  # two towers, a pavilion
    state.alhambras[0][(1, 0)] = 52  # one tower
    state.alhambras[1][(1, 0)] = 7  # one pavilion
    score_round(state, 1)
    assert state.dirk_score == 6 + 0  # tower majority; pavilion tie 1 // 2 = 0
    assert state.scores == [0, 0]
    score_round(state, 2)  # scoring 2: towers 13 to Dirk, 6 to seat 0; pavilions (8+1)//2
    assert state.dirk_score == 6 + 13 + 4 and state.scores == [6, 4]
    state.phase = "over"
    result = GAME.result(state)
    assert result is not None and result.scores == [6, 4] and result.ranks == [1, 2]


def scoring_card_on_top(state: State, card: int) -> None:
    """Move a scoring card to the top of the deck and leave the offer one card short."""
    state.deck.remove(card)
    state.deck.append(card)
    state.discard.append(state.offer.pop())


def test_dirk_draws_six_after_scoring_one() -> None:
    state = GAME.new(2, 3)
    assert len(state.dirk_buildings) == 6
    scoring_card_on_top(state, 36)
    seat = state.current
    GAME.apply(state, {seat: GAME.legal(state, seat)[0]})  # a Take
    assert state.scorings == 1 and len(state.offer) == 4
    assert len(state.dirk_buildings) == 12 and GAME.broken_invariants(state) == []


def test_dirk_gets_a_third_of_the_bag_after_scoring_two() -> None:
    state = GAME.new(2, 4)
    state.deck.remove(36)
    state.scorings = 1
    scoring_card_on_top(state, 37)
    bag = len(state.bag)
    seat = state.current
    GAME.apply(state, {seat: GAME.legal(state, seat)[0]})
    assert state.scorings == 2
    assert len(state.dirk_buildings) == 6 + bag // 3


def test_a_purchase_may_be_given_to_dirk() -> None:
    state = GAME.new(2, 3)
    seat = state.current
    state.market[0] = 7
    state.hands[seat] = [kind(0, 8)]
    buy(state, 0, [8])
    GAME.apply(state, {seat: End()})
    assert GiveDirk(7) in GAME.legal(state, seat)
    GAME.apply(state, {seat: GiveDirk(7)})
    assert 7 in state.dirk_buildings and state.current == 1 - seat


# ---- properties over whole games -------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=2, max_value=6), st.integers(min_value=0, max_value=2**32))
def test_every_reachable_state_is_sound(players: int, seed: int) -> None:
    """Conservation of money cards and buildings, every Alhambra legal (redesign included)."""
    state = GAME.new(players, seed)
    rng = random.Random(seed)
    while GAME.to_act(state):
        assert GAME.broken_invariants(state) == []
        assert state.actions <= 5
        simulate(GAME, state, rng, limit=1)
    assert GAME.broken_invariants(state) == []
    assert state.scorings == 3


def test_decisions_stay_small() -> None:
    largest = 0
    for seed in range(3):
        state = GAME.new(6, seed)
        rng = random.Random(seed)
        while seats := GAME.to_act(state):
            legal = GAME.legal(state, seats[0])
            largest = max(largest, len(legal))
            GAME.apply(state, {seats[0]: rng.choice(legal)})
    assert largest <= 300


# ---- hostile actions and what is shown -------------------------------------------------------


def test_hostile_actions_are_refused_and_change_nothing() -> None:
    state = fresh()
    before = GAME.render(state), msgspec.json.encode(GAME.observe(state, 0))
    for action, rule in [
        (Take((Money(7, 12),)), "take one card"),
        (Take(()), "take one card"),
        (Pay(Money(0, 1)), "not an action of this phase"),
        (Buy(9), "buy from a filled slot"),
        (Redesign(0), "redesign"),
        (Place(7, 5, 5), "not an action of this phase"),
        (End(), "ends only after an exact payment"),
        ("take", "not an action of this phase"),
    ]:
        with pytest.raises(IllegalAction, match=rule):
            GAME.apply(state, {0: action})
        assert (GAME.render(state), msgspec.json.encode(GAME.observe(state, 0))) == before
    state.market[0] = 7
    state.hands[0] = [kind(0, 8)]
    GAME.apply(state, {0: Buy(0)})
    GAME.apply(state, {0: Pay(Money(0, 8))})
    GAME.apply(state, {0: End()})
    GAME.apply(state, {0: End()})
    with pytest.raises(IllegalAction, match="legal spot"):
        GAME.apply(state, {0: Place(7, 1, 1)})  # corner contact only
    with pytest.raises(IllegalAction, match="legal spot"):
        GAME.apply(state, {0: GiveDirk(7)})  # no Dirk with 3 players


def test_every_hand_is_public_but_not_the_deck_or_bag_order() -> None:
    state = GAME.new(4, 9)
    spectator = GAME.spectate(state)
    assert spectator.seat == -1
    assert [len(hand) for hand in spectator.hands] == [len(hand) for hand in state.hands]
    text = msgspec.json.encode(spectator)
    observed = msgspec.json.decode(text)
    assert observed["deck"] == len(state.deck) and observed["bag"] == len(state.bag)
    twin = GAME.determinize(state, 0, random.Random(1))
    assert msgspec.json.encode(GAME.spectate(twin)) == text
    assert twin.deck != state.deck and twin.bag != state.bag
    for card, (low, high) in zip((36, 37), twin.piles, strict=True):
        assert low <= twin.deck.index(card) < high


def test_an_empty_deck_is_refilled_from_the_discards() -> None:
    state = fresh()
    state.scorings = 2  # both scoring cards are out of the deck
    state.deck = [card for card in state.deck if card < 36]
    state.discard += state.deck
    state.deck = []
    offer = state.offer.pop()
    state.hands[0] = sorted([*state.hands[0], offer])
    discard = len(state.discard)
    GAME.apply(state, {0: GAME.legal(state, 0)[0]})  # a Take: the offer needs cards
    assert len(state.offer) == 4 and state.discard == []
    assert len(state.deck) == discard - 2  # 3 in the offer, 1 taken: 2 drawn
    assert GAME.broken_invariants(state) == []


def test_with_no_action_possible_the_turn_passes() -> None:
    state = fresh()
    state.hands[0] = []
    state.offer = []
    state.deck = [36, 37]
    state.discard = []
    assert GAME.legal(state, 0) == [End()]
    GAME.apply(state, {0: End()})
    # both scoring cards come up, the offer stays short: deck and discards are empty
    assert state.current == 1 and state.offer == [] and state.scorings == 2
