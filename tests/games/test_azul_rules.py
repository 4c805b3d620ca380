"""Azul rules, one test per rule, worked example and ruling (rules/azul.md and the rulebook; the
rulings are numbered in docs/games/azul.md and each test names those it tests).

States are built by editing an engine state directly, then driven through the public
interface (`legal`, `apply`, `observe`, `result`).
"""

from __future__ import annotations

import random
from typing import Literal

import msgspec
import pytest

from referee.games import IllegalAction, WrongSeats, find_game, parse_options, simulate
from referee.games.azul import (
    CENTRE,
    EXTRA_FLOOR,
    FLOOR_LINE,
    MARKER,
    MAX_ROUNDS,
    PLUS_ONE,
    PULL,
    SPLIT,
    STAY,
    Action,
    Azul,
    AzulOptions,
    AzulState,
    Place,
    Split,
    Take,
    _deal,
)

GAME = Azul()
B, Y, R, K, W = range(5)  # blue, yellow, red, black, white
LETTERS = "BYRKW"


def new(
    players: int = 2, variant: Literal["standard", "grey"] = "standard", special: bool = False
) -> AzulState:
    return GAME.new(players, 1, AzulOptions(variant=variant, special_factories=special))


def tiles(*colours: int) -> list[int]:
    """A group of tiles as the engine counts them: tiles(R, R, B) == [1, 0, 2, 0, 0]."""
    return [colours.count(colour) for colour in range(5)]


def offer(
    state: AzulState, factories: dict[int, list[int]], centre: list[int] | None = None
) -> None:
    """Replace the round's offer: the given factories, all others empty."""
    for index, group in enumerate(state.offer.factories):
        group[:] = factories.get(index, tiles())
    state.offer.centre[:] = centre or tiles()
    state.sync()


def set_wall(state: AzulState, seat: int, rows: list[str]) -> None:
    """Rows of 5 characters: "." empty, "x" the coloured wall's colour there, or a letter."""
    for row, text in enumerate(rows):
        for column, char in enumerate(text):
            colour = (
                -1 if char == "." else (column - row) % 5 if char == "x" else LETTERS.index(char)
            )
            state.wall[seat][row * 5 + column] = colour
    state.sync()


def set_line(state: AzulState, seat: int, line: int, colour: int, count: int) -> None:
    state.line_colour[seat][line] = colour if count else -1
    state.line_count[seat][line] = count
    state.sync()


def take(state: AzulState, source: int, colour: int, line: int) -> None:
    (seat,) = GAME.to_act(state)
    GAME.apply(state, {seat: Take(source, colour, line)})


def last_take(state: AzulState, seat: int, colour: int, line: int) -> None:
    """End the offer phase: `seat` takes the only tile left (one `colour` on factory 0)."""
    offer(state, {0: tiles(colour)})
    state.turn = seat
    take(state, 0, colour, line)


def rule_broken(state: AzulState, action: Action) -> str:
    (seat,) = GAME.to_act(state)
    assert action not in GAME.legal(state, seat)
    with pytest.raises(IllegalAction) as caught:
        GAME.apply(state, {seat: action})
    return caught.value.rule


# ---- set-up ----------------------------------------------------------------------------------


def test_registered_with_its_options() -> None:
    assert isinstance(find_game("azul"), Azul)
    options = parse_options(GAME, {"variant": "grey", "special_factories": True})
    assert options == AzulOptions(variant="grey", special_factories=True)


@pytest.mark.parametrize(("players", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_set_up(players: int, factories: int) -> None:
    state = new(players)
    assert len(state.offer.factories) == factories
    assert all(sum(group) == 4 for group in state.offer.factories)
    assert sum(state.bag.tiles) == 100 - 4 * factories
    assert GAME.to_act(state) == (0,)
    assert state.offer.marker == -1 and state.offer.centre == tiles()


def test_seat_0_starts_and_turns_go_round_the_seats() -> None:
    """Ruling 1: seat 0 starts round 1; play goes up the seat numbers and wraps round."""
    state = new(3)
    offer(state, {0: tiles(B), 1: tiles(Y), 2: tiles(R), 3: tiles(K), 4: tiles(W)})
    seats = []
    for source, colour in enumerate((B, Y, R, K)):
        seats.append(GAME.to_act(state)[0])
        take(state, source, colour, FLOOR_LINE)
    assert seats == [0, 1, 2, 0]


def test_coloured_wall_pattern() -> None:
    state = new()
    set_wall(state, 0, ["xxxxx"] * 5)
    rows = GAME.observe(state, 0).players[0].wall
    assert rows == [
        [0, 1, 2, 3, 4],
        [4, 0, 1, 2, 3],
        [3, 4, 0, 1, 2],
        [2, 3, 4, 0, 1],
        [1, 2, 3, 4, 0],
    ]


# ---- the factory offer -----------------------------------------------------------------------


def test_take_from_factory_moves_the_rest_to_the_centre() -> None:
    """Rulebook: Paul takes the 2 black tiles of a factory, the rest goes to the centre."""
    state = new()
    offer(state, {0: tiles(K, K, B, R), 1: tiles(Y, W, W, W)})
    take(state, 0, K, 1)
    assert state.offer.factories[0] == tiles()
    assert state.offer.centre == tiles(B, R)
    assert state.line_count[0][1] == 2 and state.line_colour[0][1] == K
    assert GAME.to_act(state) == (1,)


def test_first_take_from_the_centre_takes_the_marker() -> None:
    """Rulebook: Julia is first to take from the centre, so the marker goes to her floor."""
    state = new(3)
    offer(state, {0: tiles(K, K, B, W), 1: tiles(Y, W, W, B), 2: tiles(R)})
    take(state, 0, K, 1)  # Paul
    take(state, 1, Y, 0)  # Max
    take(state, CENTRE, W, 4)  # Julia: the 3 whites
    assert state.line_count[2][4] == 3
    assert state.floor[2] == [MARKER]
    assert state.offer.marker == 2
    assert GAME.observe(state, 0).marker == 2
    take(state, CENTRE, B, 3)  # Paul again: no marker left
    assert state.floor[0] == []


def test_the_marker_alone_cannot_be_taken() -> None:
    """Ruling 4: a take from the centre needs a tile; the marker alone is not one."""
    state = new()
    offer(state, {0: tiles(B)})
    assert all(action.source != CENTRE for action in GAME.legal(state, 0))
    assert rule_broken(state, Take(CENTRE, B, 0)) == "take a colour the source holds"


def test_line_may_hold_only_one_colour() -> None:
    state = new()
    set_line(state, 0, 2, R, 1)
    offer(state, {0: tiles(B, B)})
    assert rule_broken(state, Take(0, B, 2)) == "a pattern line may hold only one colour"


def test_colour_already_on_the_wall_row_is_refused() -> None:
    state = new()
    set_wall(state, 0, [".....", "x....", ".....", ".....", "....."])  # row 1, column 0: white
    offer(state, {0: tiles(W, W)})
    assert rule_broken(state, Take(0, W, 1)) == "that colour is already on the wall in this row"
    assert Take(0, W, 2) in GAME.legal(state, 0)


def test_complete_line_takes_no_more_tiles() -> None:
    """Ruling 5: a full line is not a choice (it would only mean "all to the floor")."""
    state = new()
    set_line(state, 0, 1, B, 2)
    offer(state, {0: tiles(B)})
    assert rule_broken(state, Take(0, B, 1)) == "a complete pattern line takes no more tiles"


def test_julia_example_legal_lines() -> None:
    """Rulebook: Julia takes 2 tiles of a colour already in wall rows 2 and 3, while line 4
    holds another colour: she may put 1 on line 1 and 1 on the floor, both on line 5, or both
    on the floor (lines 1..5 of the rulebook are 0..4 here)."""
    state = new()
    set_wall(state, 0, [".....", "..K..", "...K.", ".....", "....."])
    set_line(state, 0, 3, B, 1)
    offer(state, {0: tiles(K, K), 4: tiles(Y)})
    legal = GAME.legal(state, 0)
    assert [action.line for action in legal if action.source == 0] == [0, 4, FLOOR_LINE]
    take(state, 0, K, 0)
    assert state.line_count[0][0] == 1 and state.floor[0] == [K]


def test_excess_goes_to_the_floor_and_beyond_it_to_the_lid() -> None:
    state = new()
    state.floor[0][:] = [R] * 5
    offer(state, {0: tiles(B, B, B, B, B), 4: tiles(Y)})  # 5 tiles (as on a "+1" factory)
    take(state, 0, B, 1)  # 2 on the line, 2 on the floor, 1 to the lid
    assert state.line_count[0][1] == 2
    assert state.floor[0] == [R] * 5 + [B, B]
    assert state.bag.lid == tiles(B)


def test_all_to_the_floor_is_always_legal() -> None:
    state = new()
    set_wall(state, 0, ["x....", ".x...", "..x..", "...x.", "....x"])  # blue in every row
    offer(state, {0: tiles(B, B), 4: tiles(Y)})
    assert [action for action in GAME.legal(state, 0) if action.source == 0] == [
        Take(0, B, FLOOR_LINE)
    ]
    take(state, 0, B, FLOOR_LINE)
    assert state.floor[0] == [B, B]


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        (Take(7, B, 0), "no such source"),
        (Take(0, 5, 0), "colours are 0..4"),
        (Take(0, B, 6), "no such line"),
        (Take(0, R, 0), "take a colour the source holds"),
        (Place(0, 0), "a take is expected now"),
        (Split((B,), ()), "a take is expected now"),
    ],
)
def test_malformed_takes_name_the_rule(action: Action, rule: str) -> None:
    state = new()
    offer(state, {0: tiles(B, Y)})
    assert rule_broken(state, action) == rule


def test_acting_out_of_turn_is_refused() -> None:
    state = new()
    action = GAME.legal(state, 0)[0]
    assert GAME.legal(state, 1) == []
    for actions in ({1: action}, {0: action, 1: action}):
        with pytest.raises(WrongSeats, match=r"seats \[0\] act now"):
            GAME.apply(state, actions)


# ---- wall-tiling and scoring -----------------------------------------------------------------


def test_four_in_a_row_and_three_in_a_column_score_seven() -> None:
    """Rulebook: the placed tile has 4 in its row and 3 in its column: 4 + 3 = 7 points."""
    state = new()
    set_wall(state, 0, ["..x..", "..x..", "xx.x.", ".....", "....."])
    set_line(state, 0, 2, B, 2)  # blue goes to row 2, column 2
    last_take(state, 0, B, 2)
    assert state.score[0] == 7
    assert state.wall[0][2 * 5 + 2] == B


@pytest.mark.parametrize(
    ("wall", "points"),
    [
        (["....x", ".....", ".....", ".....", "....."], 1),  # rulebook: nothing adjacent
        ([".....", ".....", "xx...", ".....", "....."], 3),  # rulebook: 3 in the row
        (["..x..", "..x..", ".....", ".....", "....."], 3),  # rulebook: 3 in the column
        (["..x..", ".....", ".x.x.", ".....", "....."], 3),  # a gap breaks the column
    ],
)
def test_placed_tile_scores_its_runs(wall: list[str], points: int) -> None:
    state = new()
    set_wall(state, 0, wall)
    set_line(state, 0, 2, B, 2)
    last_take(state, 0, B, 2)
    assert state.score[0] == points


def test_wall_tiling_moves_complete_lines_only() -> None:
    """Rulebook: Paul's lines 2 and 4 are complete: one tile each to the wall (1 point each),
    the rest to the lid; lines 3 and 5 are incomplete and keep their tiles."""
    state = new()
    set_line(state, 0, 1, W, 2)
    set_line(state, 0, 2, R, 1)
    set_line(state, 0, 3, B, 4)
    set_line(state, 0, 4, Y, 3)
    last_take(state, 1, K, 4)
    assert state.score[0] == 2
    assert state.wall[0][1 * 5 + 0] == W and state.wall[0][3 * 5 + 3] == B
    assert state.line_count[0] == [0, 0, 1, 0, 3]
    assert state.bag.lid == tiles(W, B, B, B)


def test_floor_with_marker_and_four_tiles_costs_eight() -> None:
    """Rulebook: the marker and 4 tiles on Paul's floor cost 1 + 1 + 2 + 2 + 2 = 8 points; the
    tiles go to the lid, the marker stays with him and he starts the next round."""
    state = new()
    state.score[1] = 10
    state.floor[1][:] = [MARKER, Y, Y, Y, Y]
    state.offer.marker = 1
    last_take(state, 0, R, 4)
    assert state.score[1] == 2
    assert state.floor[1] == []
    assert state.bag.lid == tiles(Y, Y, Y, Y)
    assert GAME.to_act(state) == (1,)
    assert state.start == 1
    assert state.offer.marker == -1  # back in the centre for the new round


def test_full_floor_costs_fourteen_and_score_stays_above_zero() -> None:
    state = new()
    state.score[:] = [20, 3]
    state.floor[0][:] = [R] * 7
    state.floor[1][:] = [R] * 3
    last_take(state, 0, B, 4)
    assert state.score == [6, 0]


def test_marker_taken_onto_a_full_floor_costs_nothing_more() -> None:
    """Ruling 2: with 7 floor spaces full, the player still takes the marker, without penalty."""
    state = new()
    state.score[1] = 20
    state.floor[1][:] = [R] * 7
    offer(state, {4: tiles(Y)}, centre=tiles(B))
    state.turn = 1
    take(state, CENTRE, B, FLOOR_LINE)
    assert state.offer.marker == 1
    assert state.floor[1] == [R] * 7
    assert state.bag.lid == tiles(B)
    last_take(state, 0, Y, 4)
    assert state.score[1] == 6
    assert GAME.to_act(state) == (1,)
    assert state.bag.lid == tiles(R, R, R, R, R, R, R, B)


def test_without_a_centre_take_the_start_player_stays() -> None:
    """Ruling 3: nobody took from the centre this round, so its start player starts again."""
    state = new(3)
    state.start = 2
    last_take(state, 0, B, 4)
    assert state.start == 2
    assert GAME.to_act(state) == (2,)


# ---- the next round --------------------------------------------------------------------------


def test_empty_bag_is_refilled_from_the_lid() -> None:
    state = new()
    state.bag.tiles[:] = tiles(R, R)
    state.bag.lid[:] = tiles(*[B] * 30)
    last_take(state, 0, Y, 4)
    assert all(sum(group) == 4 for group in state.offer.factories)
    assert sum(map(sum, state.offer.factories)) + sum(state.bag.tiles) == 32
    assert state.bag.lid == tiles()


def test_short_factories_when_bag_and_lid_run_out() -> None:
    """Ruling 6: the round starts with the factories that could be filled, in order."""
    state = new()
    state.bag.tiles[:] = tiles(R, R, R)
    state.bag.lid[:] = tiles(B, B, B, B, B, B)
    last_take(state, 0, Y, 4)
    assert [sum(group) for group in state.offer.factories] == [4, 4, 1, 0, 0]
    assert GAME.to_act(state) == (0,)


def test_no_tile_left_at_all_ends_the_game() -> None:
    """Ruling 7: a round with no tile to offer could never be played."""
    state = new()
    state.bag.tiles[:] = tiles()
    last_take(state, 0, Y, 4)
    assert GAME.to_act(state) == ()
    assert GAME.result(state) is not None


def test_round_limit_ends_the_game() -> None:
    """Ruling 8: the game ends after round 100 even though nobody completed a row."""
    state = new()
    state.round = MAX_ROUNDS
    last_take(state, 0, Y, 4)
    assert GAME.is_over(state)


# ---- end of the game -------------------------------------------------------------------------


def test_complete_row_ends_the_game_after_everyone_tiles() -> None:
    state = new()
    set_wall(state, 0, ["xxxx.", ".....", ".....", ".....", "....."])
    set_line(state, 1, 0, B, 1)
    last_take(state, 0, W, 0)
    assert GAME.to_act(state) == ()
    assert GAME.legal(state, 0) == []
    assert state.wall[1][0] == B  # seat 1 tiled in the same phase
    assert GAME.observe(state, 0).decision.kind == "over"
    with pytest.raises(IllegalAction, match="over"):
        GAME.apply(state, {0: Take(0, B, 0)})


def test_end_bonuses() -> None:
    """+2 per complete row, +7 per complete column, +10 per colour with all 5 tiles."""
    state = new()
    set_wall(state, 0, ["xxxx.", "xx...", "x.x..", "x..x.", "x...x"])
    last_take(state, 0, W, 0)  # completes row 0: 5 points
    result = GAME.result(state)
    assert result is not None
    assert result.scores == [5 + 2 + 7 + 10, 0]
    assert result.ranks == [1, 2]
    assert result.tiebreak == ""


def finished(players: int, scores: list[int], rows: list[int]) -> AzulState:
    """An ended game with the given final scores and numbers of complete wall rows."""
    state = new(players)
    for seat, count in enumerate(rows):
        set_wall(state, seat, ["xxxxx"] * count + ["....."] * (5 - count))
    state.round = MAX_ROUNDS
    last_take(state, 0, Y, 4)
    state.score[:] = scores
    return state


def test_tie_broken_by_complete_rows() -> None:
    """Ruling 9: a tie on score goes to the most complete rows, and `tiebreak` says so."""
    result = GAME.result(finished(3, [40, 40, 12], [1, 2, 0]))
    assert result is not None
    assert result.ranks == [2, 1, 3]
    assert result.tiebreak == "most complete wall rows"


def test_tie_on_score_and_rows_shares_the_rank() -> None:
    """Ruling 9: tied on score and rows, the rank is shared."""
    result = GAME.result(finished(3, [40, 40, 41], [1, 1, 0]))
    assert result is not None
    assert result.ranks == [2, 2, 1]
    assert result.tiebreak == "most complete wall rows; still tied: shared rank"


# ---- grey wall -------------------------------------------------------------------------------


def test_grey_wall_asks_for_the_space() -> None:
    state = new(variant="grey")
    set_wall(state, 0, [".....", ".....", ".....", ".R...", "....."])
    set_line(state, 0, 0, R, 1)
    last_take(state, 1, K, 4)
    assert GAME.to_act(state) == (0,)
    observation = GAME.observe(state, 1)
    assert (observation.decision.kind, observation.decision.row, observation.decision.colour) == (
        "place",
        0,
        R,
    )
    assert GAME.legal(state, 0) == [Place(0, 0), Place(0, 2), Place(0, 3), Place(0, 4)]
    assert rule_broken(state, Place(0, 1)) == "a wall column may not hold a colour twice"
    assert rule_broken(state, Place(1, 0)) == "wall-tiling goes top to bottom"
    assert rule_broken(state, Take(0, B, 0)) == "a wall space must be chosen now"
    GAME.apply(state, {0: Place(0, 3)})
    assert state.wall[0][3] == R
    assert state.score[0] == 1
    assert observation.round == 1 and state.round == 2  # the next round has begun


def test_grey_wall_single_space_is_not_asked() -> None:
    """Ruling 12: a choice of one is made without asking."""
    state = new(variant="grey")
    set_wall(state, 0, [".....", ".RBY.", ".....", "W....", "....."])
    set_line(state, 0, 1, W, 2)
    last_take(state, 1, K, 4)
    assert state.wall[0][1 * 5 + 4] == W  # column 0 holds white already
    assert state.score[0] == 4
    assert GAME.to_act(state) == (0,)  # the next round, not a placement


def test_grey_wall_without_a_legal_space_drops_the_line_to_the_floor() -> None:
    """Ruling 11: every free space of the row has the colour in its column, so all the line's
    tiles go to the floor, and those beyond the floor to the lid."""
    state = new(variant="grey")
    set_wall(state, 0, ["...R.", "BY...", "....R", "..R..", "....."])
    state.score[0] = 20
    state.floor[0][:] = [K] * 6
    set_line(state, 0, 1, R, 1)
    last_take(state, 0, R, 1)  # a line whose colour has no space left may still be filled
    assert state.wall[0][5:10] == [B, Y, -1, -1, -1]
    assert state.line_count[0][1] == 0
    assert state.score[0] == 20 - 14  # one red on the 7th floor space, one to the lid
    assert state.bag.lid == tiles(*[K] * 6, R, R)


def test_grey_wall_tiling_goes_seat_by_seat_from_seat_0_top_to_bottom() -> None:
    """Ruling 12: seat 1 ends the offer, yet seat 0 places first, row 0 then row 1; then seat 1."""
    state = new(variant="grey")
    set_line(state, 0, 0, R, 1)
    set_line(state, 0, 1, B, 2)
    set_line(state, 1, 0, Y, 1)
    last_take(state, 1, K, 4)
    asked = []
    while GAME.observe(state, 0).decision.kind == "place":
        decision = GAME.observe(state, 0).decision
        asked.append((decision.seat, decision.row))
        GAME.apply(state, {decision.seat: GAME.legal(state, decision.seat)[0]})
    assert asked == [(0, 0), (0, 1), (1, 0)]


def test_grey_wall_keeps_the_pattern_line_restriction() -> None:
    """Ruling 10: a line may not take a colour already in its wall row, as on the coloured wall."""
    state = new(variant="grey")
    set_wall(state, 0, [".....", "..Y..", ".....", ".....", "....."])
    offer(state, {0: tiles(Y)})
    assert rule_broken(state, Take(0, Y, 1)) == "that colour is already on the wall in this row"


def test_grey_wall_game_ends_when_no_row_can_be_completed() -> None:
    """Ruling 13: each row misses a colour that every free space's column already holds,
    (row 0 misses B, Y, K and its free column 1 holds them all), so the game could never end."""
    state = new(variant="grey")
    dead = ["R.W..", "..BRW", ".K.B.", ".Y..R", ".BK.Y"]
    set_wall(state, 0, dead)
    set_wall(state, 1, dead)
    last_take(state, 0, W, FLOOR_LINE)
    assert GAME.is_over(state)


# ---- special factories -----------------------------------------------------------------------


def special_round(
    powers: dict[int, int], bag: list[int], lid: list[int] | None = None
) -> AzulState:
    """A 2-player special-factory state dealt afresh with the given powers, bag and lid."""
    state = new(special=True)
    state.powers[:] = [powers.get(index, 0) for index in range(5)]
    offer(state, {})
    state.bag.tiles[:] = bag
    state.bag.lid[:] = lid or tiles()
    _deal(state, random.Random(0))
    return state


def test_plus_one_draws_a_fifth_tile() -> None:
    state = special_round({2: PLUS_ONE}, tiles(*[B] * 30))
    assert [sum(group) for group in state.offer.factories] == [4, 4, 5, 4, 4]
    assert state.offer.table == 21


def test_plus_one_acts_before_the_pulls() -> None:
    """Ruling 14: "+1" first. Its fifth tile (the lid's only yellow, once the bag is empty) is
    there for the neighbouring "pull yellow" to take."""
    state = special_round({0: PLUS_ONE, 1: PULL + Y}, tiles(*[B] * 20), tiles(Y))
    assert (
        state.offer.factories == [tiles(B, B, B, B), tiles(B, B, B, B, Y)] + [tiles(B, B, B, B)] * 3
    )


def test_pull_takes_one_tile_from_each_neighbour_round_the_circle() -> None:
    state = special_round({0: PULL + B}, tiles(*[B] * 20))
    assert [group[B] for group in state.offer.factories] == [6, 3, 4, 4, 3]


def test_pulls_act_in_circle_order_and_can_pull_a_pulled_tile() -> None:
    """Ruling 14: factory 2 pulls first (from factory 1), then factory 3 pulls that tile."""
    state = special_round({2: PULL + B, 3: PULL + B}, tiles(*[B] * 6))
    assert [group[B] for group in state.offer.factories] == [4, 1, 0, 1, 0]


def test_stay_keeps_the_rest_on_the_factory() -> None:
    state = new(special=True)
    state.powers[:] = [0, 0, STAY, 0, 0]
    offer(state, {2: tiles(B, B, R, Y), 4: tiles(K)})
    take(state, 2, B, 1)
    assert state.offer.factories[2] == tiles(R, Y)
    assert state.offer.centre == tiles()
    assert Take(2, R, 0) in GAME.legal(state, 1)


def test_split_asks_where_each_leftover_colour_goes() -> None:
    """Ruling 15: "left" of factory 2 is factory 1, "right" is factory 3."""
    state = new(special=True)
    state.powers[:] = [0, 0, SPLIT, 0, 0]
    offer(state, {1: tiles(Y), 2: tiles(B, B, R, K), 3: tiles(W)})
    take(state, 2, B, 1)
    assert GAME.to_act(state) == (0,)
    decision = GAME.observe(state, 0).decision
    assert (decision.kind, decision.factory, decision.left, decision.right) == ("split", 2, 1, 3)
    assert GAME.legal(state, 0) == [
        Split((), (R, K)),
        Split((R,), (K,)),
        Split((K,), (R,)),
        Split((R, K), ()),
    ]
    assert (
        rule_broken(state, Split((R,), (R, K)))
        == "all tiles of one colour go to the same neighbour"
    )
    assert (
        rule_broken(state, Split((R,), ())) == "a split sends every leftover colour to a neighbour"
    )
    assert rule_broken(state, Take(1, Y, 0)) == "the split factory's leftovers must be split now"
    GAME.apply(state, {0: Split(left=(K,), right=(R,))})
    assert state.offer.factories[1:4] == [tiles(Y, K), tiles(), tiles(W, R)]
    assert state.offer.centre == tiles()
    assert GAME.to_act(state) == (1,)


def test_split_without_leftovers_asks_nothing() -> None:
    """Ruling 15: the split decision is asked only when tiles remain on the split factory."""
    state = new(special=True)
    state.powers[:] = [0, 0, SPLIT, 0, 0]
    offer(state, {2: tiles(B, B, B, B), 3: tiles(W)})
    take(state, 2, B, 3)
    assert GAME.to_act(state) == (1,)
    assert GAME.observe(state, 1).decision.kind == "take"


def test_split_skips_a_taken_extra_floor_disc() -> None:
    """Ruling 15: the extra floor disc left the circle when it was taken."""
    state = new(special=True)
    state.powers[:] = [0, EXTRA_FLOOR, SPLIT, 0, 0]
    offer(state, {0: tiles(R), 1: tiles(Y, R), 2: tiles(B, K), 3: tiles(W)})
    take(state, 1, Y, 0)
    take(state, 2, B, 0)
    decision = GAME.observe(state, 1).decision
    assert (decision.left, decision.right) == (0, 3)
    assert "1(extra_floor): taken" in GAME.render(state)


def test_extra_floor_disc_catches_the_overflow_of_its_own_take() -> None:
    state = new(special=True)
    state.powers[:] = [0, EXTRA_FLOOR, 0, 0, 0]
    offer(state, {1: tiles(R, R, R, B), 4: tiles(K)})
    take(state, 1, R, 0)
    me = GAME.observe(state, 0).players[0]
    assert (me.lines[0], me.extra_floor, me.floor) == ([R], [R], [R])
    assert state.offer.centre == tiles(B)
    assert all(action.source != 1 for action in GAME.legal(state, 1))


def test_extra_floor_disc_never_holds_the_marker_and_is_free() -> None:
    state = new(special=True)
    state.powers[:] = [0, EXTRA_FLOOR, 0, 0, 0]
    offer(state, {1: tiles(R, B), 4: tiles(K)}, centre=tiles(Y, Y, Y))
    take(state, 1, R, 0)  # seat 0 takes the disc; nothing overflows
    assert GAME.observe(state, 0).players[0].extra_floor == []
    take(state, 4, K, 0)
    take(state, CENTRE, Y, 1)  # the marker to the floor, the third yellow onto the disc
    me = GAME.observe(state, 0).players[0]
    assert (me.floor, me.extra_floor) == ([MARKER], [Y])
    take(state, CENTRE, B, 1)  # the round ends
    # Seat 0: red (1) and yellow under it (2), the marker -1; the disc's tile costs nothing.
    assert state.score[0] == 2
    assert GAME.observe(state, 0).players[0].extra_floor is None
    assert state.bag.lid == tiles(Y, Y)
    assert GAME.to_act(state) == (0,)


def test_extra_floor_disc_catches_a_grey_line_dropped_at_wall_tiling() -> None:
    """Ruling 16: the disc is held through wall-tiling, so the first tile of a line with no
    legal space lands on it, free, and only the second costs a floor space."""
    state = new(variant="grey", special=True)
    state.powers[:] = [0, EXTRA_FLOOR, 0, 0, 0]
    set_wall(state, 0, ["...R.", "BY...", "....R", "..R..", "....."])  # no room for red in row 1
    set_line(state, 0, 1, R, 2)
    state.score[0] = 10
    offer(state, {1: tiles(B)})
    take(state, 1, B, 4)  # seat 0 takes the disc (nothing overflows); the offer phase ends
    assert state.round == 2
    assert state.score[0] == 10 - 1
    assert state.bag.lid == tiles(R, R)
    assert GAME.observe(state, 0).players[0].extra_floor is None  # given back after tiling


@pytest.mark.parametrize("players", [2, 3, 4])
def test_discs_are_shuffled_every_round(players: int) -> None:
    """Each round: 2 * players + 1 discs, exactly `players` of them gold, drawn afresh."""
    layouts = set()
    for seed in range(10):
        state = GAME.new(players, seed, AzulOptions(special_factories=True))
        rng = random.Random(seed)
        round_ = 0
        while not GAME.is_over(state):
            if state.round != round_:
                round_ = state.round
                powers = GAME.observe(state, 0).powers
                gold = [power for power in powers if power]
                assert len(powers) == 2 * players + 1
                assert len(gold) == len(set(gold)) == players
                layouts.add(tuple(powers))
            simulate(GAME, state, rng, limit=1)
    assert len(layouts) > 20
    assert {power for layout in layouts for power in layout} == {
        "",
        "+1",
        "stay",
        "split",
        "extra_floor",
        "pull0",
        "pull1",
        "pull2",
        "pull3",
        "pull4",
    }


# ---- the wire --------------------------------------------------------------------------------


def test_actions_on_the_wire() -> None:
    decode = msgspec.json.Decoder(Action).decode
    assert msgspec.json.encode(Take(2, Y, 3)) == b'{"type":"take","source":2,"colour":1,"line":3}'
    assert decode(b'{"type":"place","row":1,"column":4}') == Place(1, 4)
    assert decode(b'{"type":"split","left":[3],"right":[0,2]}') == Split((K,), (B, R))
    with pytest.raises(msgspec.ValidationError, match="unknown field"):
        decode(b'{"type":"take","source":2,"colour":1,"line":3,"row":0}')


def test_render_shows_the_table_and_every_board() -> None:
    state = new()
    set_line(state, 1, 2, R, 2)
    text = GAME.render(state)
    assert "seat 0 to take" in text
    assert "factories" in text and "centre" in text
    assert "seat 1: score 0" in text
    assert "  .RR | " in text
    assert text.count("floor: -") == 2
