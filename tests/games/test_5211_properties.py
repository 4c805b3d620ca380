"""5211 invariants over random playouts, and secrecy of hands, the draw pile and removed cards."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games import simulate
from referee.games.g5211 import (
    DECK,
    LONG_TARGET,
    VARIANTS,
    FiveTwoOneOne,
    G5211Options,
    State,
    Variant,
)

GAME = FiveTwoOneOne()
ROUNDS = {2: 11, 3: 7, 4: 6, 5: 4}
MAX_APPLIES = 2000
"""Far more than any game needs (a long 2-player game plays about 20 rounds of 3 turns)."""

games = st.tuples(
    st.integers(min_value=2, max_value=5),
    st.sampled_from(VARIANTS),
    st.integers(min_value=0, max_value=2**32),
)


def all_cards(state: State) -> Counter[int]:
    places = [
        *state.hands,
        *state.played,
        *state.piles,
        state.pile,
        state.removed,
        state.discard,
        state.hidden_discard,
    ]
    return Counter(card for place in places for card in place)


def playout(players: int, variant: Variant, seed: int) -> tuple[list[dict[int, Any]], State]:
    """A random game checked after every apply; returns the actions played and the end state."""
    options = G5211Options(variant=variant)
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    history: list[dict[int, Any]] = []
    round_ends: list[tuple[int, bool, int]] = []  # (best total, checking, deal) after each round
    for _ in range(MAX_APPLIES):
        seats = GAME.to_act(state)
        if not seats:
            break
        actions = {}
        for seat in seats:
            legal = GAME.legal(state, seat)
            assert legal, f"seat {seat} must act but has no legal action"
            assert len(set(map(msgspec.json.encode, legal))) == len(legal)
            actions[seat] = rng.choice(legal)
        history.append(actions)
        before = state.round, state.deal
        GAME.apply(state, actions)
        assert all_cards(state) == Counter(DECK)
        assert all(score >= 0 for score in GAME.scores(state))
        if (state.round, state.deal) != before or GAME.is_over(state):
            assert state.turn == 0 and not any(state.played)
            round_ends.append((max(state.totals), state.checking, state.deal))
    assert GAME.is_over(state), "the game did not end"
    result = GAME.result(state)
    assert result is not None and result.scores == state.totals
    if variant == "standard":
        assert state.round == ROUNDS[players]
        assert len(round_ends) == ROUNDS[players]
    else:
        *earlier, (final_best, _, final_deal) = round_ends
        assert final_best >= LONG_TARGET
        # Rounds before the last: either under 50, or still in the first deal before exhaustion.
        for best, checking, deal in earlier:
            assert best < LONG_TARGET or (deal == 1 and not checking)
        assert final_deal == 1 or state.checking
    return history, state


@settings(max_examples=200, deadline=None)
@given(games)
def test_random_playouts_keep_every_invariant(game: tuple[int, Variant, int]) -> None:
    playout(*game)


@settings(max_examples=60, deadline=None)
@given(games)
def test_observations_reveal_no_hidden_card(game: tuple[int, Variant, int]) -> None:
    players, variant, seed = game
    state = GAME.new(players, seed, G5211Options(variant=variant))
    rng = random.Random(seed)
    hidden_changes = 0
    while not GAME.is_over(state):
        for seat in range(players):
            other = GAME.determinize(state, seat, rng)
            encode = msgspec.json.encode
            assert encode(GAME.observe(other, seat)) == encode(GAME.observe(state, seat))
            assert GAME.legal(other, seat) == GAME.legal(state, seat)
            neighbour = (seat + 1) % players
            hidden_changes += other.hands[neighbour] != state.hands[neighbour]
            hidden_changes += other.pile != state.pile
        simulate(GAME, state, rng, limit=1)
    # The determinization really moved hidden cards (else the comparison above proves nothing).
    assert hidden_changes > 0
