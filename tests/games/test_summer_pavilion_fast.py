"""Summer Pavilion's fast paths against slow references, on random reachable states: the passes
`legal` takes from its cache against a plain enumeration of the hand's keeps, and `apply`
against `legal` (every well-formed action is applied exactly when `legal` lists it, a keep in
another order included), with `legal` in its fixed order."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any, Literal

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.base import IllegalAction
from referee.games.summer_pavilion import (
    Bonus,
    Pass,
    Pay,
    Place,
    SummerPavilion,
    SummerPavilionOptions,
    SummerPavilionState,
    Take,
)

GAME = SummerPavilion()
COLOURS = range(-1, 7)
"""Colour ids with one wrong at each end."""
SORTED_KEEPS = [
    keep for size in range(6) for keep in itertools.combinations_with_replacement(range(6), size)
]
ACTIONS: dict[type, list[Any]] = {
    Take: [Take(source, colour) for source in range(-2, 10) for colour in COLOURS],
    Place: [
        Place(star, space, colour)
        for star in range(-1, 8)
        for space in range(8)
        for colour in COLOURS
    ],
    Pay: [Pay(wilds) for wilds in range(-1, 8)],
    Bonus: [Bonus(colour) for colour in COLOURS],
    Pass: [*(Pass(keep) for keep in SORTED_KEEPS), Pass((-1,)), Pass((6,)), Pass((0, 6))],
}
"""Well-formed actions, legal or not, of every kind (every sorted keep of at most 5 tiles)."""
RESPELLED = [Pass(keep[::-1]) for keep in SORTED_KEEPS if keep[::-1] != keep]
"""Keeps in descending order (a few are tried at each decision to place)."""
EXPECTED = {"take": (Take,), "place": (Place, Pass), "pay": (Pay,), "bonus": (Bonus,)}
"""The kinds of action each decision takes (all of them are tried; of the others, a few)."""


def keeps(hand: list[int], size: int, first: int = 0) -> Iterator[tuple[int, ...]]:
    """Every keep of `size` hand tiles of colours `first` and after, as a sorted tuple, in
    lexicographic order (`hand` is borrowed from and given back)."""
    if not size:
        yield ()
        return
    for colour in range(first, 6):
        if hand[colour]:
            hand[colour] -= 1
            for rest in keeps(hand, size - 1, colour):
                yield (colour, *rest)
            hand[colour] += 1


def reference_passes(hand: list[int]) -> list[Pass]:
    """The passes a hand allows, enumerated afresh: by size, then in lexicographic order."""
    return [Pass(keep) for size in range(min(4, sum(hand)) + 1) for keep in keeps(hand[:], size)]


def passes_of(state: SummerPavilionState, seat: int) -> list[Any]:
    return [action for action in GAME.legal(state, seat) if isinstance(action, Pass)]


def order(action: Any) -> tuple[Any, ...]:
    """Where `legal` lists an action: takes by source (the centre first) and colour, places by
    star, space and colour before the passes, by size and keep; pays and bonuses ascending."""
    if isinstance(action, Take):
        return (action.source, action.colour)
    if isinstance(action, Place):
        return (0, action.star, action.space, action.colour)
    if isinstance(action, Pass):
        return (1, len(action.keep), action.keep)
    return (action.wilds,) if isinstance(action, Pay) else (action.colour,)


def spelled_as_legal(action: Any) -> Any:
    """A keep as `legal` spells it (sorted); every other action as it is."""
    return Pass(tuple(sorted(action.keep))) if isinstance(action, Pass) else action


def encoded(state: SummerPavilionState) -> bytes:
    return msgspec.json.encode(GAME.spectate(state))


games = given(
    players=st.integers(2, 4),
    variant=st.sampled_from(("standard", "grey")),
    seed=st.integers(0, 2**32),
)


@settings(max_examples=30, deadline=None)
@games
def test_the_cached_passes_are_the_enumerated_ones_at_every_decision(
    players: int, variant: Literal["standard", "grey"], seed: int
) -> None:
    state = GAME.new(players, seed, SummerPavilionOptions(variant))
    rng = random.Random(seed)
    passing = 0
    while seats := GAME.to_act(state):
        (seat,) = seats
        legal = GAME.legal(state, seat)
        if GAME.observe(state, seat).decision.kind == "place":
            passing += 1
            assert passes_of(state, seat) == reference_passes(state.hand[seat])
            legal.clear()  # the caller's own list: the cache behind it is untouched
            assert passes_of(state, seat) == reference_passes(state.hand[seat])
            legal = GAME.legal(state, seat)
        GAME.apply(state, {seat: rng.choice(legal)})
    assert passing >= 6 * players  # every player passes once a round


@settings(max_examples=200, deadline=None)
@given(hand=st.lists(st.integers(0, 9), min_size=6, max_size=6))
def test_the_cached_passes_are_the_enumerated_ones_for_any_hand(hand: list[int]) -> None:
    """Hands beyond 4 of a colour share a cache entry with 4 of it: still their own passes."""
    state = GAME.new(2, 1, SummerPavilionOptions())
    while GAME.observe(state, 0).decision.kind != "place":
        GAME.apply(state, {state.turn: GAME.legal(state, state.turn)[0]})
    state.hand[state.turn] = hand
    assert passes_of(state, state.turn) == reference_passes(hand)


@settings(max_examples=10, deadline=None)
@games
def test_apply_accepts_exactly_the_legal_actions(
    players: int, variant: Literal["standard", "grey"], seed: int
) -> None:
    state = GAME.new(players, seed, SummerPavilionOptions(variant))
    rng = random.Random(seed)
    kinds_seen = set()
    while seats := GAME.to_act(state):
        (seat,) = seats
        legal = GAME.legal(state, seat)
        assert legal == sorted(legal, key=order)
        assert len(set(legal)) == len(legal)
        kind = GAME.observe(state, seat).decision.kind
        kinds_seen.add(kind)
        expected = EXPECTED[kind]
        tried = [action for cls in expected for action in ACTIONS[cls]]
        for cls in ACTIONS.keys() - set(expected):
            tried += rng.sample(ACTIONS[cls], 3)
        tried += rng.sample(RESPELLED, 20 if kind == "place" else 3)
        listed = set(legal)
        before = encoded(state)
        for action in tried:
            if action in listed:
                continue  # applied below, with the rest of `legal`
            if spelled_as_legal(action) in listed:
                GAME.apply(GAME.clone(state), {seat: action})
                continue
            with pytest.raises(IllegalAction):  # not legal: refused
                GAME.apply(state, {seat: action})
        assert encoded(state) == before  # the refusals changed nothing
        for action in legal:
            GAME.apply(GAME.clone(state), {seat: action})
        assert encoded(state) == before
        GAME.apply(state, {seat: rng.choice(legal)})
    assert {"take", "place"} <= kinds_seen
