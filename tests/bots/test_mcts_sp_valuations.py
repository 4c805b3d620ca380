"""`bots.search.summer_pavilion`'s heuristic is greedy's valuation, cached: the cached values
must be the very numbers greedy's functions give, on both sides of the board, after the boards
have changed and when a value is looked up again."""

from __future__ import annotations

import random

import pytest

from bots.search import summer_pavilion as searched
from bots.strategies import summer_pavilion as greedy
from referee.games import find_game
from referee.games.summer_pavilion import Pass, Place, SummerPavilionState


def _phase_two_states(variant: str) -> list[tuple[SummerPavilionState, int]]:
    """(state, seat) of phase-2 decisions with placements and passes, from games of greedy
    play with a few random moves."""
    game = find_game("summer-pavilion")
    found = []
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new(2, seed, game.Options(variant=variant))
        while seats := game.to_act(state):
            seat = seats[0]
            legal = game.legal(state, seat)
            kinds = {type(action) for action in legal}
            if {Place, Pass} <= kinds and rng.random() < 0.3:
                found.append((game.clone(state), seat))
            if rng.random() < 0.85:
                action = legal[greedy.choose(game.observe(state, seat), legal, rng)]
            else:
                action = rng.choice(legal)
            game.apply(state, {seat: action})
    return found


@pytest.mark.parametrize("variant", ["standard", "grey"])
def test_cached_values_are_greedys(variant: str) -> None:
    game = find_game("summer-pavilion")
    states = _phase_two_states(variant)
    assert len(states) > 10
    for _round in range(2):  # the second pass reads the caches
        for state, seat in states:
            table = searched._Table(state)
            cells = state.board[seat]
            needs = greedy.unmet_needs(table, cells, state.hand[seat], state.storage[seat])
            blocked = sum(state.hand[seat]) > greedy.STORAGE
            for action in game.legal(state, seat):
                value = searched.heuristic(state, seat, action)
                if isinstance(action, Place):
                    assert value == greedy.place_value(table, cells, action)
                elif isinstance(action, Pass):
                    keep = greedy.keep_value(table, needs, action) / 100
                    floor = searched._PASS_BLOCKED if blocked else greedy.PASS_BELOW
                    assert value == floor + keep
