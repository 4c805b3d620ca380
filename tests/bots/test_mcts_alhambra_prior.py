"""`bots.search.alhambra.prior`: the search's root estimate in Alhambra is greedy's own
valuation, so that with its weight the search keeps greedy's choice unless it finds better."""

from __future__ import annotations

import random

from bots.search import alhambra as searched
from bots.strategies import alhambra as greedy
from referee.games import find_game
from referee.games.alhambra import State


def _decisions() -> list[tuple[State, int]]:
    """(state, seat) of a 2-player game of greedy play, every decision with a choice."""
    game = find_game("alhambra")
    rng = random.Random(3)
    state = game.new(2, 3, game.Options())
    found = []
    while seats := game.to_act(state):
        seat = seats[0]
        legal = game.legal(state, seat)
        if len(legal) > 1 and rng.random() < 0.15:
            found.append((game.clone(state), seat))
        action = legal[greedy.choose(game.observe(state, seat), legal, rng)]
        game.apply(state, {seat: action})
    return found


def test_the_prior_ranks_greedys_choice_first() -> None:
    game = find_game("alhambra")
    decisions = _decisions()
    phases = {state.phase for state, _ in decisions}
    assert {"action", "pay", "place"} <= phases
    for state, seat in decisions:
        legal = game.legal(state, seat)
        points = searched.prior(state, seat, legal)
        assert len(points) == len(legal)
        best = max(points)
        chosen = greedy.choose(game.observe(state, seat), legal, random.Random(1))
        assert points[chosen] == best, (state.phase, legal[chosen])
        assert min(points) >= best - searched.PRIOR_FLOOR
