"""Azul: Summer Pavilion's rules: the rulebook's examples and every ruling numbered in
docs/games/summer-pavilion.md (each test names those it tests), on hand-built positions (tiles
are moved from the bag, so all 132 stay counted)."""

from __future__ import annotations

import itertools
import random

import msgspec
import pytest

from referee.games.base import IllegalAction, simulate
from referee.games.summer_pavilion import (
    Bonus,
    Pass,
    Pay,
    Place,
    SummerPavilion,
    SummerPavilionOptions,
    SummerPavilionState,
    Take,
    deduct,
    end_bonus,
    run_length,
)
from referee.games.summer_pavilion_board import CENTRE_STAR, COSTS, FEATURES, cell
from referee.games.tiles import CENTRE, Bag

GAME = SummerPavilion()
PURPLE, GREEN, ORANGE, YELLOW, BLUE, RED = range(6)


def fresh(players: int = 2, grey: bool = False, seed: int = 1) -> SummerPavilionState:
    return GAME.new(players, seed, SummerPavilionOptions("grey" if grey else "standard"))


def from_bag(state: SummerPavilionState, colour: int, count: int = 1) -> None:
    """Take tiles out of the bag (refilled from the tower if short) for a hand-built position."""
    bag = state.bag
    if bag.tiles[colour] < count:
        bag.tiles[colour] += bag.lid[colour]
        bag.lid[colour] = 0
    assert bag.tiles[colour] >= count, "the test ran out of tiles"
    bag.tiles[colour] -= count


def give(state: SummerPavilionState, seat: int, colour: int, count: int = 1) -> None:
    from_bag(state, colour, count)
    state.hand[seat][colour] += count


def put(state: SummerPavilionState, seat: int, star: int, position: int, colour: int) -> None:
    from_bag(state, colour)
    state.board[seat][cell(star, position)] = colour


def clear_offer(state: SummerPavilionState) -> None:
    """Every factory and centre tile back into the bag."""
    for group in [*state.offer.factories, state.offer.centre]:
        for colour, count in enumerate(group):
            state.bag.tiles[colour] += count
            group[colour] = 0
    state.offer.recount()


def to_phase_two(state: SummerPavilionState) -> None:
    """End phase 1 at once: the seat to act takes the only tile left (and gives it back)."""
    clear_offer(state)
    seat = state.turn
    from_bag(state, GREEN)
    state.offer.factories[0][GREEN] = 1
    state.offer.recount()
    GAME.apply(state, {seat: Take(0, GREEN)})
    state.hand[seat][GREEN] -= 1
    state.bag.tiles[GREEN] += 1
    assert GAME.observe(state, 0).decision.kind == "place"


def play(state: SummerPavilionState, action: object) -> None:
    GAME.apply(state, {GAME.to_act(state)[0]: action})


def sound(state: SummerPavilionState) -> None:
    assert GAME.broken_invariants(state) == []


# ---- setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_setup_deals_factories_and_the_supply(players: int, factories: int) -> None:
    """Ruling 1: every score starts at 5."""
    state = fresh(players)
    view = GAME.observe(state, 0)
    assert len(view.factories) == factories
    assert all(sum(group) == 4 for group in view.factories)
    assert sum(view.supply) == 10
    assert sum(view.bag) == 132 - 10 - 4 * factories
    assert [p.score for p in view.players] == [5] * players
    assert (view.round, view.wild, view.decision.kind, view.decision.seat) == (1, PURPLE, "take", 0)
    sound(state)


def test_the_supply_is_drawn_before_the_factories_each_draw_from_its_own_seed() -> None:
    """Ruling 15: the first draw (seed and counter 1) fills the supply, the second the
    factories."""
    state = fresh(seed=7)
    bag = Bag([22] * 6)
    supply = [0] * 6
    bag.draw_into(supply, 10, random.Random("summer-pavilion:7:1"))
    factories = [[0] * 6 for _ in range(5)]
    rng = random.Random("summer-pavilion:7:2")
    for group in factories:
        bag.draw_into(group, 4, rng)
    assert (state.supply, state.offer.factories) == (supply, factories)
    assert state.draws == 2


# ---- phase 1 ---------------------------------------------------------------------------------


def test_a_take_is_one_colour_and_one_wild_and_the_rest_goes_to_the_centre() -> None:
    state = fresh()
    clear_offer(state)
    for colour, count in ((YELLOW, 2), (PURPLE, 2)):  # purple is wild in round 1
        from_bag(state, colour, count)
        state.offer.factories[0][colour] = count
    from_bag(state, BLUE)
    state.offer.factories[1][BLUE] = 1
    state.offer.recount()
    assert GAME.legal(state, 0) == [Take(0, YELLOW), Take(1, BLUE)]
    with pytest.raises(IllegalAction, match="only from a source holding nothing else"):
        play(state, Take(0, PURPLE))
    play(state, Take(0, YELLOW))
    assert state.hand[0] == [1, 0, 0, 2, 0, 0]
    assert state.offer.centre == [1, 0, 0, 0, 0, 0]
    assert state.score[0] == 5  # no marker from a factory
    sound(state)


def test_a_source_of_wilds_only_gives_exactly_one() -> None:
    state = fresh()
    clear_offer(state)
    from_bag(state, PURPLE, 3)
    state.offer.factories[2][PURPLE] = 3
    state.offer.recount()
    assert GAME.legal(state, 0) == [Take(2, PURPLE)]
    play(state, Take(2, PURPLE))
    assert state.hand[0][PURPLE] == 1
    assert state.offer.centre[PURPLE] == 2
    sound(state)


@pytest.mark.parametrize(("before", "after"), [(5, 1), (6, 2), (3, 1), (1, 1)])
def test_the_marker_costs_every_tile_taken_with_the_wild_never_below_one(
    before: int, after: int
) -> None:
    """Ruling 2: 3 yellow + 1 wild from the centre = -4; ruling 1: but never below 1, and 1
    stays 1."""
    state = fresh()
    clear_offer(state)
    for colour, count in ((YELLOW, 3), (PURPLE, 2), (BLUE, 1)):
        from_bag(state, colour, count)
        state.offer.centre[colour] = count
    state.offer.recount()
    state.score[0] = before
    play(state, Take(CENTRE, YELLOW))
    assert state.score[0] == after
    assert state.offer.marker == 0
    assert state.hand[0] == [1, 0, 0, 3, 0, 0]
    play(state, Take(CENTRE, BLUE))  # the second take from the centre costs nothing
    assert state.score[1] == 5
    assert state.hand[1] == [1, 0, 0, 0, 1, 0]


def test_the_marker_holder_starts_phase_two_and_the_next_round() -> None:
    """Ruling 12: the marker's holder starts phase 2 and the next round."""
    state = fresh()
    clear_offer(state)
    from_bag(state, RED)
    from_bag(state, BLUE)
    state.offer.factories[0][BLUE] = 1
    state.offer.centre[RED] = 1
    state.offer.recount()
    play(state, Take(0, BLUE))  # seat 0
    play(state, Take(CENTRE, RED))  # seat 1 takes the marker; the offer is empty
    assert (state.start, GAME.to_act(state)) == (1, (1,))
    assert GAME.observe(state, 0).decision.kind == "place"
    play(state, Pass((RED,)))
    play(state, Pass((BLUE,)))
    assert (state.round, GAME.to_act(state), state.offer.marker) == (2, (1,), -1)
    assert state.hand == [[0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]]  # stored tiles came back
    assert state.storage == [[0] * 6, [0] * 6]
    sound(state)


def test_without_a_centre_take_the_same_player_starts_again() -> None:
    """Ruling 12: nobody took the marker, so the start player starts phase 2 and the next round."""
    state = fresh()
    to_phase_two(state)  # seat 0 took from a factory; nobody took the marker
    assert GAME.to_act(state) == (0,)
    play(state, Pass())
    play(state, Pass())
    assert (state.round, GAME.to_act(state)) == (2, (0,))


# ---- phase 2: placing ------------------------------------------------------------------------


def test_scoring_example_c_counts_the_run_not_only_neighbours() -> None:
    """Ruling 5: blue 4 and 5 are there; a tile on blue 6 touches 5, which touches 4: 3 points.
    Ruling 3: one blue is placed, the other five paid go to the tower."""
    state = fresh()
    to_phase_two(state)
    put(state, 0, BLUE, 4, BLUE)
    put(state, 0, BLUE, 5, BLUE)
    give(state, 0, BLUE, 6)
    play(state, Place(BLUE, 6, BLUE))
    assert state.score[0] == 5 + 3
    assert state.hand[0][BLUE] == 0
    assert state.bag.lid[BLUE] == 5  # one placed, the other five paid to the tower
    view = GAME.observe(state, 0)
    assert (view.decision.kind, view.decision.owed) == ("bonus", 3)  # blue 5-6 close a window
    sound(state)


def test_runs_go_round_the_ring_and_a_full_star_scores_six() -> None:
    """Ruling 5: the run is contiguous round the star's ring (6 touches 1)."""
    cells = [-1] * 42
    for position in (6, 1):
        cells[cell(RED, position)] = RED
    cells[cell(RED, 2)] = RED
    assert run_length(cells, cell(RED, 2)) == 3
    assert run_length(cells, cell(RED, 4)) == 1
    for position in range(1, 7):
        cells[cell(RED, position)] = RED
    assert run_length(cells, cell(RED, 3)) == 6
    cells[cell(GREEN, 1)] = GREEN  # another star never connects
    assert run_length(cells, cell(GREEN, 1)) == 1


def test_the_payment_mixes_wilds_and_needs_one_real_tile() -> None:
    """Ruling 3: cost 4 with 2 yellow and 3 wilds: 2 or 3 wilds, the player's choice (a `pay`
    decision, ruling 4). Ruling 7: no feature completed, so the supply is not refilled."""
    state = fresh()
    to_phase_two(state)
    give(state, 0, YELLOW, 2)
    give(state, 0, PURPLE, 3)  # wild in round 1
    for colour, count in enumerate(state.supply):  # a short supply, to see it is left alone
        state.bag.tiles[colour] += count
        state.supply[colour] = 0
    supply = state.supply[:]
    play(state, Place(YELLOW, 4, YELLOW))
    view = GAME.observe(state, 0)
    assert view.decision.kind == "pay"
    assert (view.decision.min_wilds, view.decision.max_wilds, view.decision.cost) == (2, 3, 4)
    assert GAME.legal(state, 0) == [Pay(2), Pay(3)]
    with pytest.raises(IllegalAction, match="as many wilds"):
        play(state, Pay(1))
    play(state, Pay(3))
    assert state.hand[0] == [0, 0, 0, 1, 0, 0]
    assert state.board[0][cell(YELLOW, 4)] == YELLOW
    assert state.bag.lid[PURPLE] == 3
    assert state.supply == supply  # no feature completed: the supply is not refilled
    assert GAME.to_act(state) == (1,)
    sound(state)


def test_a_wild_is_never_placed_as_another_colour() -> None:
    """Ruling 3: a payment needs a real tile of the colour; the wild colour placed as itself is
    paid with wild-coloured tiles only."""
    state = fresh()
    to_phase_two(state)
    give(state, 0, PURPLE, 5)
    assert Place(YELLOW, 1, YELLOW) not in GAME.legal(state, 0)
    with pytest.raises(IllegalAction, match="at least one of the colour"):
        play(state, Place(YELLOW, 1, YELLOW))
    # ... but the wild colour is placed as itself, paid with wild-coloured tiles only.
    assert Place(PURPLE, 5, PURPLE) in GAME.legal(state, 0)
    assert Place(CENTRE_STAR, 3, PURPLE) in GAME.legal(state, 0)
    play(state, Place(PURPLE, 5, PURPLE))
    assert state.hand[0][PURPLE] == 0
    sound(state)


def test_the_pay_decision_is_asked_only_when_there_is_a_choice() -> None:
    """Ruling 4: 1 real yellow and 3 wilds pay cost 4 one way only (3 wilds): placed at once;
    with 4 yellow it may take 0..3 wilds, so it is asked."""
    state = fresh()
    to_phase_two(state)
    give(state, 0, YELLOW, 1)
    give(state, 0, PURPLE, 3)  # wild in round 1
    assert [a for a in GAME.legal(state, 0) if isinstance(a, Place) and a.star == YELLOW] == [
        Place(YELLOW, position, YELLOW) for position in range(1, 5)
    ]
    play(state, Place(YELLOW, 4, YELLOW))
    assert state.board[0][cell(YELLOW, 4)] == YELLOW
    assert state.hand[0] == [0] * 6
    assert GAME.to_act(state) == (1,)
    give(state, 1, YELLOW, 4)
    give(state, 1, PURPLE, 3)
    play(state, Place(YELLOW, 4, YELLOW))
    decision = GAME.observe(state, 1).decision
    assert (decision.kind, decision.seat, decision.min_wilds, decision.max_wilds) == (
        "pay",
        1,
        0,
        3,
    )
    sound(state)


def test_stars_take_their_colour_and_the_centre_only_new_colours() -> None:
    state = fresh()
    to_phase_two(state)
    give(state, 0, RED, 2)
    put(state, 0, CENTRE_STAR, 1, RED)
    assert Place(BLUE, 1, RED) not in GAME.legal(state, 0)
    with pytest.raises(IllegalAction, match="only its own colour"):
        play(state, Place(BLUE, 1, RED))
    with pytest.raises(IllegalAction, match="only colours not on it"):
        play(state, Place(CENTRE_STAR, 2, RED))
    with pytest.raises(IllegalAction, match="that space is taken"):
        play(state, Place(CENTRE_STAR, 1, GREEN))
    before = msgspec.json.encode(GAME.observe(state, 0))
    with pytest.raises(IllegalAction, match="no such star"):
        play(state, Place(7, 1, RED))
    assert msgspec.json.encode(GAME.observe(state, 0)) == before


def test_a_placement_closing_a_statue_and_a_pillar_pays_both_and_refills_after() -> None:
    """Ruling 6 and ruling 7: orange 2 completes the orange statue (orange 1, 2, red 3, 4) and the
    orange pillar (orange 2, 3, centre 6, 1): 2 + 1 bonus tiles, one decision each, then the
    supply refilled (not in between)."""
    state = fresh()
    to_phase_two(state)
    for star, position, colour in (
        (ORANGE, 1, ORANGE),
        (ORANGE, 3, ORANGE),
        (RED, 3, RED),
        (RED, 4, RED),
        (CENTRE_STAR, 6, GREEN),
        (CENTRE_STAR, 1, BLUE),
    ):
        put(state, 0, star, position, colour)
    give(state, 0, ORANGE, 2)
    supply = state.supply[:]
    play(state, Place(ORANGE, 2, ORANGE))
    assert state.score[0] == 5 + 3  # the run orange 1-2-3
    view = GAME.observe(state, 0)
    assert (view.decision.kind, view.decision.owed) == ("bonus", 3)
    colours = [c for c in range(6) if supply[c]]
    assert GAME.legal(state, 0) == [Bonus(c) for c in colours]
    taken = []
    for _ in range(3):
        colour = next(c for c in range(6) if state.supply[c])
        play(state, Bonus(colour))
        taken.append(colour)
        if len(taken) < 3:
            assert sum(state.supply) == 10 - len(taken)  # no refill between bonus tiles
    assert sum(state.supply) == 10
    assert sum(state.hand[0]) == 3
    assert GAME.to_act(state) == (1,)
    with pytest.raises(IllegalAction):
        GAME.apply(state, {1: Bonus(colours[0])})
    sound(state)


def test_a_short_supply_pays_what_it_has_and_is_refilled_after() -> None:
    """Ruling 7: 3 owed, 2 in the supply: take those 2, then the supply is refilled to 10."""
    state = fresh()
    to_phase_two(state)
    for colour, count in enumerate(state.supply):  # leave two tiles in the supply
        state.bag.tiles[colour] += count
        state.supply[colour] = 0
    from_bag(state, RED, 2)
    state.supply[RED] = 2
    put(state, 0, GREEN, 5, GREEN)
    give(state, 0, GREEN, 6)
    play(state, Place(GREEN, 6, GREEN))  # closes the green window: 3 owed
    play(state, Bonus(RED))
    play(state, Bonus(RED))
    assert state.hand[0][RED] == 2
    assert sum(state.supply) == 10
    assert GAME.to_act(state) == (1,)
    sound(state)


def test_the_features_are_the_board_files_eighteen() -> None:
    kinds = [bonus for bonus, _, _ in FEATURES]
    assert (kinds.count(1), kinds.count(2), kinds.count(3)) == (6, 6, 6)
    names = {name: cells for _, name, cells in FEATURES}
    assert set(names["pillar purple"]) == {
        cell(PURPLE, 2),
        cell(PURPLE, 3),
        cell(CENTRE_STAR, 5),
        cell(CENTRE_STAR, 6),
    }
    assert set(names["statue purple"]) == {
        cell(PURPLE, 1),
        cell(PURPLE, 2),
        cell(ORANGE, 3),
        cell(ORANGE, 4),
    }
    assert set(names["window blue"]) == {cell(BLUE, 5), cell(BLUE, 6)}


# ---- passing ---------------------------------------------------------------------------------


def test_passing_keeps_up_to_four_and_discards_the_rest_at_one_point_each() -> None:
    """Ruling 10 (and ruling 1: the deduction stops at 1)."""
    state = fresh()
    to_phase_two(state)
    give(state, 0, RED, 5)
    give(state, 0, BLUE, 2)
    with pytest.raises(IllegalAction, match="at most 4"):
        play(state, Pass((RED,) * 5))
    with pytest.raises(IllegalAction, match="only tiles of the hand"):
        play(state, Pass((GREEN,)))
    passes = [a for a in GAME.legal(state, 0) if isinstance(a, Pass)]
    assert Pass() in passes and Pass((BLUE, RED, RED, RED)) in passes
    assert len(passes) == 1 + 2 + 3 + 3 + 3  # multisets of <= 4 from 5 red and 2 blue
    play(state, Pass((RED, BLUE)))  # a multiset, in any order: keeps 2 of 7: -5
    assert state.score[0] == 1  # 5 - 5 stops at 1
    assert state.storage[0] == [0, 0, 0, 0, 1, 1]
    assert state.hand[0] == [0] * 6
    assert state.passed[0] and GAME.to_act(state) == (1,)
    assert GAME.legal(state, 0) == []
    sound(state)


def test_passing_is_legal_with_an_empty_hand() -> None:
    """Ruling 11: with nothing in hand the only legal action is to pass, keeping nothing."""
    state = fresh()
    to_phase_two(state)
    assert state.hand[0] == [0] * 6
    assert GAME.legal(state, 0) == [Pass()]
    play(state, Pass())
    assert state.passed[0] and state.score[0] == 5
    assert GAME.to_act(state) == (1,)


def test_deductions_stop_at_one() -> None:
    """Ruling 1: never below 1, and a score at 1 or below is not reduced."""
    assert [deduct(score, 4) for score in (10, 5, 3, 1, 0)] == [6, 1, 1, 1, 0]
    assert deduct(7, 0) == 7


def test_passed_players_are_skipped_until_everyone_has_passed() -> None:
    state = fresh(3)
    to_phase_two(state)
    give(state, 2, RED, 3)
    play(state, Pass())  # seat 0
    play(state, Pass())  # seat 1
    assert GAME.to_act(state) == (2,)
    play(state, Place(RED, 1, RED))
    assert GAME.to_act(state) == (2,)
    play(state, Place(RED, 2, RED))
    assert (state.round, state.score[2]) == (1, 5 + 1 + 2)
    play(state, Pass())
    assert state.round == 2


# ---- rounds and the end ----------------------------------------------------------------------


def test_six_rounds_with_the_wild_colour_of_each() -> None:
    state = fresh()
    wilds = []
    rng = random.Random(3)
    while GAME.to_act(state):
        wilds.append(GAME.observe(state, 0).wild)
        simulate(GAME, state, rng, limit=1)
    assert sorted(set(wilds)) == [0, 1, 2, 3, 4, 5]
    assert wilds == sorted(wilds)
    assert state.round == 6 and GAME.result(state) is not None


def test_the_end_bonuses_come_before_the_stored_tiles() -> None:
    """Ruling 13: score 2, 4 stored tiles, a complete centre star (+12): 2 + 12 - 4 = 10, not
    1 + 12; the stored tiles stay in storage."""
    state = fresh()
    state.round = 6
    to_phase_two(state)
    for position, colour in zip(range(1, 7), range(6), strict=True):
        put(state, 0, CENTRE_STAR, position, colour)
    give(state, 0, RED, 4)
    state.score[0] = 2
    play(state, Pass((RED,) * 4))
    play(state, Pass())
    result = GAME.result(state)
    assert result is not None
    assert result.scores == [10, 5]
    assert state.storage[0][RED] == 4  # they stay in storage
    sound(state)


def test_end_bonuses_per_star_and_per_cost() -> None:
    cells = [-1] * 42
    for position in range(1, 7):
        cells[cell(PURPLE, position)] = PURPLE
    assert end_bonus(cells, grey=False) == 20
    for star in range(7):
        cells[cell(star, 1)] = star if star < 6 else GREEN
    assert end_bonus(cells, grey=False) == 20 + 4  # every cost-1 space
    values = {GREEN: 18, ORANGE: 17, YELLOW: 16, BLUE: 15, RED: 14}
    for colour, value in values.items():
        only = [-1] * 42
        for position in range(1, 7):
            only[cell(colour, position)] = colour
        assert end_bonus(only, grey=False) == value
    centre = [-1] * 42
    for position in range(1, 7):
        centre[cell(CENTRE_STAR, position)] = position - 1
    assert end_bonus(centre, grey=False) == 12


def test_ties_share_the_victory() -> None:
    """Ruling 14: equal final scores share the rank, with no tie-break."""
    state = fresh()
    state.round = 6
    to_phase_two(state)
    play(state, Pass())
    play(state, Pass())
    result = GAME.result(state)
    assert result is not None and result.ranks == [1, 1] and result.scores == [5, 5]
    assert GAME.returns(state) == [0.5, 0.5]


# ---- the grey side ---------------------------------------------------------------------------


def test_grey_costs_are_the_board_files() -> None:
    costs = COSTS[True]
    assert [costs[cell(RED, p)] for p in range(1, 7)] == [3, 2, 1, 4, 5, 6]
    assert [costs[cell(CENTRE_STAR, p)] for p in range(1, 7)] == [3] * 6
    assert [costs.count(c) for c in (1, 2, 3, 4)] == [6, 6, 12, 6]


def test_grey_stars_become_single_or_multi_coloured_as_they_fill() -> None:
    """Ruling 16: 0-1 tiles any colour, two of one colour only it, two colours only new ones."""
    state = fresh(grey=True)
    to_phase_two(state)
    for colour in (RED, BLUE, GREEN):
        give(state, 0, colour, 3)
    # An empty star and a star of one tile take any colour.
    assert {a.colour for a in GAME.legal(state, 0) if isinstance(a, Place) and a.star == 0} == {
        RED,
        BLUE,
        GREEN,
    }
    put(state, 0, YELLOW, 3, RED)
    put(state, 0, YELLOW, 4, RED)  # two reds: red only
    put(state, 0, GREEN, 3, RED)
    put(state, 0, GREEN, 4, BLUE)  # two colours: new colours only
    legal = [a for a in GAME.legal(state, 0) if isinstance(a, Place)]
    assert {a.colour for a in legal if a.star == YELLOW} == {RED}
    assert {a.colour for a in legal if a.star == GREEN} == {GREEN}
    with pytest.raises(IllegalAction, match="a grey star"):
        play(state, Place(YELLOW, 1, BLUE))
    with pytest.raises(IllegalAction, match="a grey star"):
        play(state, Place(GREEN, 1, RED))
    play(state, Place(YELLOW, 1, RED))  # cost 3 on the grey side: all three reds
    assert state.hand[0][RED] == 0 and state.score[0] == 5 + 1
    sound(state)


def test_grey_side_allows_the_chinese_rulebooks_play_but_does_not_enforce_it() -> None:
    """Ruling 17: a one-coloured centre star and a multicoloured outer star are both legal."""
    state = fresh(grey=True)
    to_phase_two(state)
    put(state, 0, CENTRE_STAR, 1, RED)
    put(state, 0, CENTRE_STAR, 2, RED)
    put(state, 0, BLUE, 1, RED)
    put(state, 0, BLUE, 2, GREEN)
    give(state, 0, RED, 3)
    give(state, 0, YELLOW, 3)
    legal = set(GAME.legal(state, 0))
    assert Place(CENTRE_STAR, 3, RED) in legal  # the centre may stay one-coloured
    assert Place(BLUE, 3, YELLOW) in legal  # an outer star may be multicoloured
    play(state, Place(BLUE, 3, YELLOW))
    assert state.board[0][cell(BLUE, 3)] == YELLOW
    sound(state)


def test_grey_star_end_bonuses() -> None:
    """Ruling 16: a complete one-coloured star scores its colour (the centre too), else 12."""
    single = [-1] * 42
    for position in range(1, 7):
        single[cell(CENTRE_STAR, position)] = PURPLE  # a one-colour centre: purple's 20
        single[cell(RED, position)] = position - 1  # a multicoloured outer star: 12
    assert end_bonus(single, grey=True) == 20 + 12
    for star in range(6):  # with every outer position 1, all twelve 3s are filled: +12
        single[cell(star, 1)] = GREEN if star != RED else single[cell(RED, 1)]
    assert end_bonus(single, grey=True) == 20 + 12 + 12
    full = [0] * 42
    assert end_bonus(full, grey=True) == 7 * 20 + 4 + 8 + 12 + 16


# ---- information, protocol sizes, conservation -----------------------------------------------


def test_the_observation_shows_everything_public_but_not_the_seed() -> None:
    state = fresh()
    view = GAME.observe(state, 1)
    encoded = msgspec.json.encode(view)
    assert b"seed" not in encoded and b"draws" not in encoded
    twin = GAME.determinize(state, 1, random.Random(5))
    assert msgspec.json.encode(GAME.observe(twin, 1)) == encoded
    assert twin.seed != state.seed
    assert view.costs[CENTRE_STAR] == [1, 2, 3, 4, 5, 6]
    assert GAME.spectate(state).seat == -1


def test_random_games_keep_132_tiles_and_modest_legal_lists() -> None:
    largest = 0
    for grey in (False, True):
        for players in (2, 3, 4):
            state = fresh(players, grey, seed=players)
            rng = random.Random(players)
            while seats := GAME.to_act(state):
                sound(state)
                legal = GAME.legal(state, seats[0])
                largest = max(largest, len(legal))
                GAME.apply(state, {seats[0]: rng.choice(legal)})
            sound(state)
    assert 0 < largest < 500


def test_the_render_shows_every_star() -> None:
    state = fresh(grey=True)
    put(state, 0, CENTRE_STAR, 2, RED)
    text = GAME.render(state)
    assert "grey side" in text and "wild purple" in text
    assert "centre  1:.(3) 2:R(3)" in text
    assert text.count("grey orange") == 2


def test_the_legal_passes_are_every_keep_of_at_most_four_hand_tiles_in_order() -> None:
    every = [
        keep
        for size in range(5)
        for keep in itertools.combinations_with_replacement(range(6), size)
    ]
    rng = random.Random(9)
    state = fresh()
    to_phase_two(state)
    for _ in range(200):
        hand = [rng.choice((0, 0, 1, 2, 3, 5)) for _ in range(6)]
        state.hand[0] = hand
        passes = [a.keep for a in GAME.legal(state, 0) if isinstance(a, Pass)]
        assert passes == [k for k in every if all(k.count(c) <= hand[c] for c in range(6))]


def empty_bag_into_hand(state: SummerPavilionState, seat: int) -> None:
    """Move the whole bag and tower into `seat`'s hand (the tiles stay counted)."""
    for colour in range(6):
        state.hand[seat][colour] += state.bag.tiles[colour] + state.bag.lid[colour]
        state.bag.tiles[colour] = state.bag.lid[colour] = 0


def test_the_refill_after_a_bonus_draws_the_paid_tiles_from_the_tower() -> None:
    """Ruling 7 and ruling 8: supply, bag and tower empty: the window pays nothing, and the refill
    pours the tower (already holding this placement's payment) into the bag and draws it."""
    state = fresh()
    to_phase_two(state)
    for colour, count in enumerate(state.supply):
        state.hand[1][colour] += count
        state.supply[colour] = 0
    put(state, 0, GREEN, 5, GREEN)
    give(state, 0, GREEN, 6)
    empty_bag_into_hand(state, 1)
    play(state, Place(GREEN, 6, GREEN))
    assert state.supply == [0, 5, 0, 0, 0, 0]
    assert sum(state.bag.tiles) + sum(state.bag.lid) == 0
    assert GAME.to_act(state) == (1,)
    sound(state)


@pytest.mark.parametrize(("left", "filled"), [(6, [4, 2, 0, 0, 0]), (0, [0, 0, 0, 0, 0])])
def test_factories_fill_in_order_and_a_round_without_tiles_starts_placing(
    left: int, filled: list[int]
) -> None:
    """Ruling 8: 6 tiles left, all in the tower: poured into the bag, the factories filled in
    order. Ruling 9: no tile at all, straight to phase 2."""
    state = fresh()
    to_phase_two(state)
    empty_bag_into_hand(state, 1)
    state.hand[1][RED] -= left  # `left` tiles remain for the next deal, in the tower
    state.bag.lid[RED] += left
    state.passed[1] = True  # seat 1 has passed (its hand is the rest of the tiles)
    play(state, Pass())
    assert state.round == 2
    assert [sum(group) for group in state.offer.factories] == filled
    assert GAME.observe(state, 0).decision.kind == ("take" if left else "place")
    assert GAME.to_act(state) == (0,)
    sound(state)
