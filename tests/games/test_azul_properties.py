"""Azul invariants over random playouts: 2-4 players, every combination of the variants."""

from __future__ import annotations

import random
from itertools import product
from typing import Literal

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.azul import (
    MAX_ROUNDS,
    Azul,
    AzulObservation,
    AzulOptions,
    AzulState,
    Place,
    Split,
    Take,
)
from referee.games.base import IllegalAction

GAME = Azul()
VARIANTS: tuple[Literal["standard", "grey"], ...] = ("standard", "grey")
OPTIONS = [
    AzulOptions(variant=variant, special_factories=special)
    for variant, special in product(VARIANTS, (False, True))
]
SUBSETS = [tuple(c for c in range(5) if mask >> c & 1) for mask in range(32)]
EVERY_ACTION: list[object] = [
    *(Take(s, c, line) for s, c, line in product(range(-2, 10), range(-1, 6), range(-1, 7))),
    *(Place(row, column) for row, column in product(range(-1, 6), range(-1, 6))),
    *(Split(left, right) for left, right in product(SUBSETS, SUBSETS)),
    Split((0, 0), ()),
    Split((5,), ()),
]
"""Well-formed actions, legal or not, from every part of the action space."""

games = given(
    players=st.integers(2, 4),
    options=st.sampled_from(OPTIONS),
    seed=st.integers(0, 2**32),
)


def encoded(state: AzulState, seat: int) -> bytes:
    return msgspec.json.encode(GAME.observe(state, seat))


def decision_bound(state: AzulState) -> int:
    """Each take removes a tile from the table and may add a split; each wall row a placement."""
    tiles_on_table = 5 + 4 * len(state.offer.factories)
    return MAX_ROUNDS * (2 * tiles_on_table + 5 * state.players)


@settings(max_examples=40, deadline=None)
@games
def test_random_playouts_keep_the_invariants(players: int, options: AzulOptions, seed: int) -> None:
    state = GAME.new(players, seed, options)
    rng = random.Random(seed)
    decisions = 0
    while not GAME.is_over(state):
        assert GAME.broken_invariants(state) == []  # tiles, scores, marker, derived fields
        (seat,) = GAME.to_act(state)
        assert all(GAME.legal(state, other) == [] for other in range(players) if other != seat)
        legal = GAME.legal(state, seat)
        assert legal
        assert len(set(legal)) == len(legal)
        assert GAME.legal(state, seat) == legal
        before = encoded(state, seat)
        for action in rng.sample(EVERY_ACTION, 8):
            if action not in legal:
                try:
                    GAME.apply(state, {seat: action})
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{action} is not legal but was applied")
                assert encoded(state, seat) == before
        for action in legal:
            GAME.apply(GAME.clone(state), {seat: action})
        assert encoded(state, seat) == before
        GAME.apply(state, {seat: rng.choice(legal)})
        decisions += 1
        assert decisions <= decision_bound(state)
    assert GAME.broken_invariants(state) == []
    result = GAME.result(state)
    assert result is not None
    assert result.scores == GAME.scores(state)
    assert all(score >= 0 for score in result.scores)
    for a, b in product(range(players), repeat=2):
        if result.scores[a] > result.scores[b]:
            assert result.ranks[a] < result.ranks[b]


def test_the_seed_does_decide_the_draws() -> None:
    """So the conformance suite's secrecy test (Azul's `determinize` draws a new seed) is not
    vacuous: another seed, other factories."""
    deals = {encoded(GAME.new(2, seed, AzulOptions()), 0) for seed in range(20)}
    assert len(deals) == 20
    assert set(AzulObservation.__struct_fields__).isdisjoint({"seed", "rng", "random"})
