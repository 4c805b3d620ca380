"""5211 rules: the rulebook's worked examples, the tables, and every ruling of the engine (the
rulings are numbered in docs/games/5211.md, and each test names those it tests).

Colour ids follow the rulebook's names: 0 yellow (黃), 1 green (綠), 2 orange (橘), 3 dark blue
(深藍), 4 teal (藍綠). Cards are written "G3" (green 3); value 1 is a rooster.
"""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest

from referee.games import BadOptions, find_game, parse_options, simulate
from referee.games.base import IllegalAction, WrongSeats
from referee.games.g5211 import (
    COLOUR_LETTERS,
    COLOURS,
    DECK,
    Card,
    FiveTwoOneOne,
    G5211Observation,
    G5211Options,
    Play,
    State,
    card_kind,
    score_round,
)

GAME = FiveTwoOneOne()
LONG = G5211Options(variant="long")


def k(name: str) -> int:
    """The card kind of "G3"."""
    return card_kind(COLOUR_LETTERS.index(name[0]), int(name[1:]))


def ks(names: str) -> list[int]:
    return sorted(k(name) for name in names.split())


def play(names: str) -> Play:
    return Play(tuple(Card(COLOUR_LETTERS.index(n[0]), int(n[1:])) for n in names.split()))


def last_turn(played: list[str], hands: list[str], pile: str = "", seed: int = 0) -> State:
    """A state at turn 3 of a round, seats having revealed `played` and holding `hands`."""
    state = GAME.new(len(played), seed)
    state.played = [ks(cards) for cards in played]
    state.hands = [ks(cards) for cards in hands]
    state.pile = ks(pile)
    state.turn = 2
    state.last_round = False
    return state


def test_colour_ids_follow_the_rulebook_names() -> None:
    assert COLOURS == ("yellow", "green", "orange", "dark blue", "teal")
    assert COLOUR_LETTERS == "YGODT"


def test_deck_has_100_cards_of_five_colours_with_the_printed_values() -> None:
    assert len(DECK) == 100
    for colour in range(5):
        values = Counter(kind & 7 for kind in DECK if kind >> 3 == colour)
        assert values == {1: 5, 2: 6, 3: 5, 4: 2, 5: 1, 6: 1}


@pytest.mark.parametrize(("players", "removed"), [(2, 10), (3, 13), (4, 0), (5, 15)])
def test_setup_removes_cards_per_table_and_deals_five(players: int, removed: int) -> None:
    state = GAME.new(players, 7)
    assert len(state.removed) == removed
    assert [len(hand) for hand in state.hands] == [5] * players
    assert len(state.pile) == 100 - removed - 5 * players
    everything = state.removed + state.pile + [c for hand in state.hands for c in hand]
    assert Counter(everything) == Counter(DECK)
    observation = GAME.observe(state, 0)
    assert observation.removed == removed
    assert observation.draw_pile == len(state.pile)


# ---- the rulebook's worked examples (2.1 and 2.2) --------------------------------------------


def test_four_players_exactly_six_roosters_only_roosters_score() -> None:
    # Book: "in a 4-player game exactly 6 roosters were played: only those roosters score".
    state = last_turn(
        ["Y1 G1 Y6", "O1 D5 D6", "T1 G6 G5", "D1 Y5 Y4"],
        ["Y3 Y2 Y2 Y2 Y2", "O2 O2 O2 O2 G1", "T2 T2 T2 T2 D2", "D2 D2 D2 D2 D3"],
        pile="T3 T3 T3 T3 T4 T4",
    )
    GAME.apply(state, {0: play("Y2"), 1: play("G1"), 2: play("T2"), 3: play("D2")})
    assert [sorted(pile) for pile in state.piles] == [ks("Y1 G1"), ks("O1 G1"), ks("T1"), ks("D1")]
    assert state.totals == [2, 2, 1, 1]
    assert sorted(state.discard) == ks("Y6 D5 D6 G6 G5 Y5 Y4 Y2 T2 D2")
    report = GAME.observe(state, 0).previous
    assert report is not None
    assert (report.outcome, report.colour, report.points) == ("roosters", None, (2, 2, 1, 1))


def test_five_or_seven_roosters_in_a_four_player_game_is_not_the_rooster_case() -> None:
    played = [ks("Y1 G1 Y6 Y2"), ks("O1 D5 D6 O2"), ks("T1 G6 G5 T2"), ks("Y4 Y5 Y3 D2")]
    assert score_round(4, played) == ("majority", 0)
    played = [ks("Y1 G1 Y6 Y2"), ks("O1 D1 O2 O3"), ks("T1 Y1 Y3 D2"), ks("G1 T2 T3 D3")]
    assert score_round(4, played) == ("majority", 0)


def test_eight_green_over_the_limit_of_seven_leaves_yellow_with_four() -> None:
    # Book: "4 players, 8 green cards exceed the limit of 7: all green is discarded; the next
    # majority is yellow with 4 cards, and only those yellow cards score".
    state = last_turn(
        ["G2 G3 Y6", "G4 G5 Y2", "G2 G3 O3", "G6 Y1 D4"],
        ["G2 O2 O2 O2 O2", "Y3 O3 O3 O3 O3", "O4 T3 T3 T3 T3", "T2 T2 T2 T2 D3"],
        pile="D2 D2 D2 D2",
    )
    GAME.apply(state, {0: play("G2"), 1: play("Y3"), 2: play("O4"), 3: play("T2")})
    assert [sorted(pile) for pile in state.piles] == [ks("Y6"), ks("Y2 Y3"), [], ks("Y1")]
    assert state.totals == [6, 5, 0, 1]
    assert GAME.observe(state, 2).previous == GAME.observe(state, 0).previous
    report = GAME.observe(state, 0).previous
    assert report is not None
    assert (report.outcome, report.colour) == ("majority", COLOURS.index("yellow"))


def test_yellow_and_green_tied_at_five_leave_orange_with_three() -> None:
    # Book, example 1: yellow and green tie with 5 each; orange (3 cards) is the majority.
    played = [ks("Y2 Y3 G2 O6"), ks("Y4 G3 G4 O2"), ks("Y5 G5 O3 D2"), ks("Y6 G6 D3 T2")]
    assert score_round(4, played) == ("majority", COLOURS.index("orange"))
    state = last_turn(
        ["Y2 Y3 G2", "Y4 G3 G4", "Y5 G5 O3", "Y6 G6 D3"],
        ["O6 Y3 Y3 Y3 Y3", "O2 Y3 Y3 Y3 Y3", "D2 T3 T3 T3 T3", "T2 T3 T3 T3 T3"],
    )
    GAME.apply(state, {0: play("O6"), 1: play("O2"), 2: play("D2"), 3: play("T2")})
    assert state.totals == [6, 2, 3, 0]


def test_remaining_colours_all_tied_nothing_scores() -> None:
    """Ruling 1: ties remove all tied colours, repeatedly; with no colour left nothing scores."""
    # Book, example 2: yellow and green tie, then dark blue, orange and teal tie: no majority.
    played = [ks("Y2 Y3 G2 O6"), ks("Y4 G3 G4 O2"), ks("Y5 G5 D3 D2"), ks("Y6 G6 T3 T2")]
    assert score_round(4, played) == ("none", None)
    state = last_turn(
        ["Y2 Y3 G2", "Y4 G3 G4", "Y5 G5 D3", "Y6 G6 T3"],
        ["O6 O3 O3 O3 O3", "O2 O3 O3 O3 O3", "D2 T4 T4 T4 T4", "T2 T4 T4 T4 T4"],
    )
    GAME.apply(state, {0: play("O6"), 1: play("O2"), 2: play("D2"), 3: play("T2")})
    assert state.totals == [0, 0, 0, 0]
    assert state.piles == [[], [], [], []]
    assert len(state.discard) == 16


def test_limit_applies_to_every_colour_before_ties() -> None:
    """Ruling 1: the limit removes every colour over it first, which may expose the next one."""
    # 2 players (limit 5): green 6 and yellow 5 are both out; orange 2 beats teal 1.
    played = [ks("G2 G3 G4 Y2 Y3 O2 T2"), ks("G5 G6 G2 Y4 Y5 Y6 O3")]
    assert score_round(2, played) == ("majority", COLOURS.index("orange"))
    # Removing the colour over the limit exposes dark blue, or a tie of the rest (nothing).
    assert score_round(2, [ks("G2 G3 G4 G5"), ks("G6 D2 D3 D4")]) == ("majority", 3)
    assert score_round(2, [ks("G2 G3 G4 G5"), ks("G6 D3 T4")]) == ("none", None)


def test_roosters_count_for_their_colour_in_the_majority() -> None:
    state = last_turn(["Y1 Y2 G3", "Y4 D2 D3"], ["Y5 O2 O2 O2 O2", "T2 O3 O3 O3 O3"])
    GAME.apply(state, {0: play("Y5"), 1: play("T2")})
    assert state.totals == [1 + 2 + 5, 4]
    assert state.scored == [3, 1]


# ---- drawing, short hands, the last round ------------------------------------------------------


def test_draws_go_in_seat_order_one_card_at_a_time_and_stop_when_the_pile_ends() -> None:
    """Ruling 2: one card at a time in seat order; the later seats draw fewer."""
    state = GAME.new(3, 1)
    state.hands = [ks("Y2 Y3 Y4 Y5 Y6"), ks("G2 G3 G4 G5 G6"), ks("O2 O3 O4 O5 O6")]
    state.pile = [k("T2"), k("T3"), k("T4"), k("D2")]  # the top is the end
    GAME.apply(state, {0: play("Y2 Y3"), 1: play("G2 G3"), 2: play("O2 O3")})
    # Seat 0 draws D2, seat 1 T4, seat 2 T3, then seat 0 draws T2; the pile is empty.
    assert state.hands == [ks("Y4 Y5 Y6 D2 T2"), ks("G4 G5 G6 T4"), ks("O4 O5 O6 T3")]
    assert state.pile == []
    assert GAME.observe(state, 1).hand_sizes == [5, 4, 4]
    # The round goes on without draws; the next round is the last one.
    GAME.apply(state, {0: play("Y4"), 1: play("G4"), 2: play("O4")})
    assert [len(hand) for hand in state.hands] == [4, 3, 3]
    assert not state.last_round
    GAME.apply(state, {0: play("Y5"), 1: play("G5"), 2: play("O5")})
    assert state.round == 2 and state.turn == 0 and state.last_round
    assert GAME.observe(state, 0).last_round


def test_a_seat_short_of_cards_plays_what_it_has_and_an_empty_hand_is_not_asked() -> None:
    """Ruling 3: a short seat plays what it has, an empty hand is not asked, and a turn in which
    nobody holds a card passes."""
    state = GAME.new(3, 2)
    state.pile = []
    state.last_round = True
    state.hands = [ks("Y2 Y3 Y4"), ks("G2"), []]
    assert GAME.to_act(state) == (0, 1)
    assert GAME.legal(state, 1) == [play("G2")]
    assert GAME.observe(state, 1).to_play == 1
    assert GAME.observe(state, 2).to_play == 0
    with pytest.raises(IllegalAction, match="turn 1 plays 2"):
        GAME.apply(state, {0: play("Y2"), 1: play("G2")})
    with pytest.raises(WrongSeats, match=r"seats \[0, 1\] act now"):
        GAME.apply(state, {0: play("Y2 Y3"), 1: play("G2"), 2: play("G2")})
    GAME.apply(state, {0: play("Y2 Y3"), 1: play("G2")})
    assert GAME.to_act(state) == (0,)
    GAME.apply(state, {0: play("Y4")})
    # Nobody holds a card: turn 3 passes, the round is scored and, as the last round, ends it.
    assert GAME.is_over(state)
    assert state.totals == [2 + 3 + 4, 0, 0]


def test_last_round_has_no_refills_and_discards_the_last_card_unseen() -> None:
    """Ruling 4: the cards left in hand after a last round are discarded face down, unseen."""
    state = GAME.new(2, 3)
    rng = random.Random(3)
    while not state.last_round:
        simulate(GAME, state, rng, limit=1)
    assert state.round == 11 and state.pile == []
    sizes = []
    for _ in range(3):
        GAME.apply(state, {s: GAME.legal(state, s)[0] for s in GAME.to_act(state)})
        sizes.append([len(hand) for hand in state.hands])
    assert sizes == [[3, 3], [2, 2], [0, 0]]
    assert len(state.hidden_discard) == 2
    assert GAME.is_over(state) and state.round == 11
    assert all(len(GAME.observe(state, seat).discard) == len(state.discard) for seat in (0, 1))
    assert GAME.observe(state, 0).over


def test_score_piles_and_the_discard_are_public_to_every_seat() -> None:
    """Ruling 5: every seat and a spectator see each score pile and the discard, card by card."""
    state = last_turn(["Y6 D2 D3", "Y2 Y4 T3"], ["O2 G2 G2 G2 G2", "O3 G3 G3 G3 G3"], "T2 T2")
    GAME.apply(state, {0: play("O2"), 1: play("O3")})
    # yellow (3 cards) is the majority; the rest is discarded
    for observation in (GAME.observe(state, 0), GAME.observe(state, 1), GAME.spectate(state)):
        assert observation.score_piles == [list(play("Y6").cards), list(play("Y2 Y4").cards)]
        assert observation.discard == list(play("O2 O3 D2 D3 T3").cards)


@pytest.mark.parametrize(("players", "rounds"), [(2, 11), (3, 7), (4, 6), (5, 4)])
def test_the_pile_empties_exactly_at_a_round_end(players: int, rounds: int) -> None:
    state = GAME.new(players, 4)
    rng = random.Random(4)
    while not GAME.is_over(state):
        before = state.round
        assert state.last_round == (before == rounds)
        simulate(GAME, state, rng, limit=1)
        if state.round != before:
            assert [len(hand) for hand in state.hands] == [5] * players
    assert state.round == rounds


# ---- legality ----------------------------------------------------------------------------------


def test_legal_plays_are_deduplicated_and_ordered() -> None:
    state = GAME.new(2, 5)
    state.hands[0] = ks("Y2 Y2 G3 G3 D6")
    assert GAME.legal(state, 0) == [
        play("Y2 Y2"),
        play("Y2 G3"),
        play("Y2 D6"),
        play("G3 G3"),
        play("G3 D6"),
    ]
    state.turn = 1
    assert GAME.legal(state, 0) == [play("Y2"), play("G3"), play("D6")]


def test_illegal_plays_name_the_rule_and_the_seat_and_change_nothing() -> None:
    state = GAME.new(3, 6)
    state.hands = [ks("Y2 Y3 Y4 Y5 Y6"), ks("G2 G3 G4 G5 G6"), ks("O2 O3 O4 O5 O6")]
    before = GAME.render(state)
    good = {0: play("Y2 Y3"), 1: play("G2 G3")}
    cases = [
        (play("O2 O2"), "only cards from your hand"),
        (play("O2"), "turn 1 plays 2"),
        (Play((Card(5, 2), Card(2, 2))), "no such card"),
        (Play((Card(2, 7), Card(2, 2))), "no such card"),
        ("O2 O3", "must be a play"),
    ]
    for bad, rule in cases:
        with pytest.raises(IllegalAction, match=rule) as caught:
            GAME.apply(state, {**good, 2: bad})  # type: ignore[dict-item]  # bad on purpose
        assert caught.value.detail.startswith("seat 2")
        assert GAME.render(state) == before
    GAME.apply(state, {**good, 2: play("O3 O2")})  # any order of the two cards
    assert state.played[2] == ks("O2 O3")


def test_actions_and_observations_round_trip_as_documented_json() -> None:
    action = msgspec.json.decode(
        b'{"type":"play","cards":[{"colour":1,"value":3},{"colour":4,"value":1}]}', type=Play
    )
    assert action == play("G3 T1")
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type":"play","cards":[{"colour":1,"value":3,"x":0}]}', type=Play)
    state = GAME.new(4, 8)
    observation = GAME.observe(state, 2)
    encoded = msgspec.json.encode(observation)
    assert msgspec.json.decode(encoded, type=G5211Observation) == observation
    assert set(msgspec.json.decode(encoded)) >= {"hand", "played", "score_piles", "to_play"}


def test_options_reject_unknown_keys_and_variants() -> None:
    game = find_game("5211")
    assert parse_options(game, {"variant": "long"}) == LONG
    for bad in ({"variant": "short"}, {"varient": "long"}):
        with pytest.raises(BadOptions):
            parse_options(game, bad)


# ---- end of game ---------------------------------------------------------------------------


def test_tie_break_is_the_number_of_cards_in_the_score_pile() -> None:
    state = last_turn(["Y6 D2 D3", "Y2 Y4 T3"], ["O2 O2 O2 O2 O2", "O3 O3 O3 O3 O3"])
    state.last_round = True
    GAME.apply(state, {0: play("O2"), 1: play("O3")})
    result = GAME.result(state)
    assert result is not None
    assert result.scores == [6, 6]
    assert result.ranks == [2, 1]
    assert result.tiebreak == "most cards in the score pile"


def test_a_full_tie_is_a_shared_victory() -> None:
    state = last_turn(["Y6 Y2 G2", "Y4 Y4 D3"], ["O2 O2 O2 O2 O2", "O3 O3 O3 O3 O3"])
    state.last_round = True
    GAME.apply(state, {0: play("O2"), 1: play("O3")})
    result = GAME.result(state)
    assert result is not None
    assert (result.scores, result.ranks) == ([8, 8], [1, 1])
    assert "shared" in result.tiebreak


def test_long_variant_reshuffles_when_nobody_has_fifty_keeping_totals() -> None:
    """Ruling 6: after a pile's last round with nobody at 50, all 100 cards are dealt again; the
    totals and the cards scored (the tie-break) are kept."""
    state = GAME.new(2, 9, LONG)
    state.played = [ks("Y6 Y5 G2"), ks("Y4 D3 D2")]
    state.hands = [ks("Y3 O2"), ks("T2 O3")]
    state.pile = []
    state.turn = 2
    state.last_round = True
    state.totals = [30, 45]
    state.scored = [10, 14]
    GAME.apply(state, {0: play("Y3"), 1: play("T2")})
    assert not GAME.is_over(state)
    assert state.totals == [30 + 14, 45 + 4]
    assert (state.deal, state.round, state.turn) == (2, 2, 0)
    assert len(state.removed) == 10 and [len(hand) for hand in state.hands] == [5, 5]
    assert state.piles == [[], []] and state.discard == [] and len(state.pile) == 80
    assert state.checking
    assert state.scored == [10 + 3, 14 + 1]


def test_long_variant_first_deal_does_not_end_before_the_pile_is_exhausted() -> None:
    """Ruling 6: before the first exhaustion, 50 does not end the game."""
    state = last_turn(["Y6 Y5 G2", "Y4 D3 D2"], ["Y3 O2 O2 O2 O2", "T2 O3 O3 O3 O3"], "T3 T3")
    state.long = True
    state.totals = [48, 10]
    GAME.apply(state, {0: play("Y3"), 1: play("T2")})
    assert state.totals == [62, 14]
    assert not GAME.is_over(state)
    state.pile = []
    state.last_round = True
    while not GAME.is_over(state):
        GAME.apply(state, {s: GAME.legal(state, s)[0] for s in GAME.to_act(state)})
    assert state.deal == 1


def test_long_variant_ends_at_the_first_round_end_with_fifty_after_an_exhaustion() -> None:
    """Ruling 6: from the first exhaustion on, the first round end with 50 ends the game."""
    state = last_turn(["Y6 Y5 G2", "Y4 D3 D2"], ["Y3 O2 O2 O2 O2", "T2 O3 O3 O3 O3"], "T3 T3")
    state.long = True
    state.checking = True
    state.totals = [35, 10]
    GAME.apply(state, {0: play("Y3"), 1: play("T2")})
    assert state.totals == [49, 14] and not GAME.is_over(state)
    state.played = [ks("Y2 G2 G3"), ks("G4 D5 T2")]
    state.turn = 2
    GAME.apply(state, {0: GAME.legal(state, 0)[0], 1: GAME.legal(state, 1)[0]})
    assert GAME.is_over(state)
    result = GAME.result(state)
    assert result is not None and max(result.scores) >= 50
