"""Alhambra: the tile list's checks, the placement rules, the turn, money, scoring and Dirk.

Worked examples first (each rule violated once), then properties over random games. The rulings
are numbered in docs/games/alhambra.md, and each test names those it tests.
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
    """Ruling 7: no hole of one cell or more, empty cells joined through sides only: (1, 1)
    touching the outside at a corner alone is a hole."""
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
    """Ruling 8: the longest outer wall visits no corner point twice (on arbitrary grids: in a
    legal Alhambra no two buildings touch at a corner only)."""
    # (0, 0) walls E+S and (1, 1) walls N+W meet at the point (1, 1): four wall edges there
    assert longest_outer_wall({(0, 0): 3, (1, 1): 4}) == 2
    # straight through the corner point: S of (0, 0) then N of (1, 1)
    assert longest_outer_wall({(0, 0): 13, (1, 1): 5}) == 2
    # (0, 0) walls N E W: up its W edge, across N, down E to the point, on by one edge of (1, 1)
    assert longest_outer_wall({(0, 0): 1, (1, 1): 4}) == 4


def test_a_closed_ring_counts_all_its_edges_and_inner_walls_do_not_count() -> None:
    """Ruling 8: a closed ring counts all its edges. Ruling 15: a wall facing a building is
    inner and does not count."""
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
    """Ruling 3: the start player holds the fewest cards, then the lowest total, then is the
    lowest seat; the scoring cards lie in their piles."""
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


def test_start_money_is_dealt_from_seat_0_each_seat_until_twenty() -> None:
    """Ruling 1: the shuffled money is dealt from its top, seat 0 first, each seat drawing until
    its cards total at least 20; the offer is the next 4 cards. The money is shuffled with the
    seed the bag's shuffle (from the game's seed) leaves."""
    for players in (2, 3, 6):
        state = GAME.new(players, 21)
        rng = random.Random(21)
        rng.shuffle(list(range(1, 55)))
        money = money_kinds(players == 2)
        random.Random(rng.getrandbits(64)).shuffle(money)
        for hand in state.hands:
            drawn: list[int] = []
            while sum(k % 9 + 1 for k in drawn) < 20:
                drawn.append(money.pop())
            assert hand == sorted(drawn)
        assert state.offer == [money.pop() for _ in range(4)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_five_money_piles_differ_by_at_most_one_card_larger_on_top(players: int) -> None:
    """Ruling 2: pile sizes read from the scoring cards' piles 2 and 4 (deck positions from the
    bottom, where pile 5 lies) differ by at most one card, the larger ones on top."""
    for seed in range(5):
        state = GAME.new(players, seed)
        (low2, high2), (low4, high4) = state.piles
        top_down = [len(state.deck) - high2, high2 - low2 - 1, low2 - high4, high4 - low4 - 1]
        sizes = [*top_down, low4]
        assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1


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
    """Ruling 4: at most 5 actions. Ruling 5: the extra action is optional, `end` ends the phase.
    Ruling 13: after 4 exact purchases the fifth action, a take here, ends the action phase."""
    state = fresh()
    state.market = [7, 14, 22, 23]  # prices 8, 9, 9, 10; all without walls
    state.hands[0] = sorted(
        [kind(0, 8), kind(1, 9), kind(2, 4), kind(2, 5), kind(3, 9), kind(3, 1)]
    )
    buy(state, 0, [8])
    assert state.phase == "action" and state.actions == 1 and End() in GAME.legal(state, 0)
    ended = GAME.clone(state)
    GAME.apply(ended, {0: End()})
    assert ended.phase == "place" and ended.pending[0] == [7]
    buy(state, 1, [9])
    buy(state, 2, [4, 5])
    buy(state, 3, [1, 9])  # exact again: a fifth action may follow
    assert state.actions == 4 and state.extra
    GAME.apply(state, {0: GAME.legal(state, 0)[0]})  # a Take: the fifth action ends the phase
    assert state.actions == 5 and state.phase == "place"
    assert sorted(state.pending[0]) == [7, 14, 22, 23]


def test_overpaying_ends_the_action_phase_and_unneeded_cards_may_be_paid() -> None:
    """Ruling 6: cards beyond what the price needs may be paid, and no change is given."""
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
    """Ruling 12: a reserve building is named first, then its cell (an occupied one swaps)."""
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


def test_a_reserve_building_with_no_legal_cell_is_not_offered_and_removal_is_at_once() -> None:
    """Ruling 12: a reserve building with no legal cell or swap is not offered for a redesign;
    redesigning an Alhambra building moves it to the reserve at once, and that is the action."""
    state = fresh()
    grid = state.alhambras[0]
    grid[(1, 0)] = 21  # arcades 8, wall E
    grid[(1, 1)] = 11  # seraglio 6, walls E S
    state.reserves[0] = [7, 15]  # 15: walls N E S, no cell or swap takes it
    redesigns = [a for a in GAME.legal(state, 0) if isinstance(a, Redesign)]
    assert redesigns == [Redesign(7), Redesign(11)]
    GAME.apply(state, {0: Redesign(11)})
    assert state.reserves[0] == [7, 11, 15] and (1, 1) not in grid
    assert state.current == 1 and state.phase == "action"


def test_purchases_are_placed_in_any_order_each_where_legal_then() -> None:
    """Ruling 14: the second purchase may be placed first, and each placement is checked on the
    Alhambra as it is then: (2, 0) takes 7 only once 14 stands at (1, 0)."""
    state = fresh()
    state.market = [7, 14, 22, 23]  # all without walls
    state.hands[0] = sorted([kind(0, 8), kind(1, 9)])
    buy(state, 0, [8])
    buy(state, 1, [9])
    GAME.apply(state, {0: End()})
    assert state.phase == "place" and state.pending[0] == [7, 14]
    legal = GAME.legal(state, 0)
    assert Place(14, 1, 0) in legal and Place(7, 2, 0) not in legal
    GAME.apply(state, {0: Place(14, 1, 0)})
    assert Place(7, 2, 0) in GAME.legal(state, 0)
    GAME.apply(state, {0: Place(7, 2, 0)})
    assert state.alhambras[0] == {(0, 0): 0, (1, 0): 14, (2, 0): 7} and state.current == 1


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
    """Ruling 10: each market building goes to the highest total value of its currency, not the
    most cards; a tie leaves it out of play. Ruling 16: no scoring card was drawn, and the end
    scores 3."""
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
    assert 36 in state.deck and 37 in state.deck
    assert state.scores == [17, 0, 0]  # scoring 3's seraglio majority, not scoring 1's 2
    assert GAME.result(state) is not None and GAME.to_act(state) == ()


def test_with_dirk_the_end_gives_nothing_to_him_and_an_unheld_currency_to_nobody() -> None:
    """Ruling 10: two players and Dirk: the market goes to the players holding most of each
    currency, a currency nobody holds leaves its building out of play, and the buildings
    received cannot be given to Dirk."""
    state = GAME.new(2, 5)
    state.current = 0
    state.out_of_play += state.bag
    state.bag = []
    state.market = [7, 14, 22, 2]
    state.hands = [[kind(0, 5), kind(1, 1), kind(2, 9)], [kind(0, 2), kind(1, 9)]]
    dirk = state.dirk_buildings.copy()
    buy(state, 2, [9])
    GAME.apply(state, {0: End()})
    assert GiveDirk(22) in GAME.legal(state, 0)  # a purchase may go to him
    GAME.apply(state, {0: Reserve(22)})
    # yellow 5 v 2: seat 0; green 1 v 9: seat 1; orange: nobody holds any
    assert state.phase == "final" and state.pending == [[7], [14]] and state.out_of_play[-1] == 2
    assert GiveDirk(7) not in GAME.legal(state, 0)
    GAME.apply(state, {0: Reserve(7)})
    assert GiveDirk(14) not in GAME.legal(state, 1)
    GAME.apply(state, {1: Reserve(14)})
    assert state.phase == "over" and state.dirk_buildings == dirk


# ---- Dirk ------------------------------------------------------------------------------------


def test_dirk_can_win_a_majority_but_is_not_a_seat() -> None:
    """Ruling 17: Dirk is ranked in the majorities, scores no walls (his towers have some) and
    is not in the result."""
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
    """Ruling 17: 6 buildings at the start, 6 more after scoring 1."""
    state = GAME.new(2, 3)
    assert len(state.dirk_buildings) == 6
    scoring_card_on_top(state, 36)
    seat = state.current
    GAME.apply(state, {seat: GAME.legal(state, seat)[0]})  # a Take
    assert state.scorings == 1 and len(state.offer) == 4
    assert len(state.dirk_buildings) == 12 and GAME.broken_invariants(state) == []


def test_dirk_gets_a_third_of_the_bag_after_scoring_two() -> None:
    """Ruling 17: after scoring 2, a third of the bag, rounded down."""
    state = GAME.new(2, 4)
    state.deck.remove(36)
    state.scorings = 1
    scoring_card_on_top(state, 37)
    bag = len(state.bag)
    seat = state.current
    GAME.apply(state, {seat: GAME.legal(state, seat)[0]})
    assert state.scorings == 2
    assert len(state.dirk_buildings) == 6 + bag // 3


def test_dirk_draws_before_the_market_is_refilled() -> None:
    """Ruling 17: after scoring 1, Dirk's 6 buildings come off the bag before the emptied
    market slot is refilled: the slot gets the seventh from the top."""
    state = GAME.new(2, 3)
    scoring_card_on_top(state, 36)
    seat = state.current
    bought = state.market[0]
    price = PRICE[bought]
    values = [price] if price <= 9 else [9, price - 9]
    state.hands[seat] = sorted(kind(0, value) for value in values)
    top = state.bag[-7:]
    buy(state, 0, values)
    GAME.apply(state, {seat: End()})
    GAME.apply(state, {seat: Reserve(bought)})
    assert state.scorings == 1
    assert state.dirk_buildings[6:] == top[:0:-1] and state.market[0] == top[0]


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
    """Ruling 18: the spectator sees every hand; the deck's and the bag's orders and the scoring
    cards' places are hidden (a twin with others shows the same)."""
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
    """Ruling 9: a card is needed and the deck is empty: the discards become the deck."""
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
    """Ruling 11: `end` is offered at once only when no action at all is possible, and passes.
    Ruling 9: with deck and discards empty, the offer stays short."""
    state = fresh()
    state.hands[0] = []
    state.offer = []
    state.deck = [36, 37]
    state.discard = []
    assert GAME.legal(state, 0) == [End()]
    GAME.apply(state, {0: End()})
    # both scoring cards come up, the offer stays short: deck and discards are empty
    assert state.current == 1 and state.offer == [] and state.scorings == 2
