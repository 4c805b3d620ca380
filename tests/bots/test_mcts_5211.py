"""The 5211 search knowledge (`bots.search.g5211`): greedy as the model of the other seats and
as a prior at the root."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from bots.search import g5211, policies
from bots.search.ismcts import Params, Search
from bots.strategies.g5211 import choose
from referee.games import Game, find_game


def _positions(players: int) -> list[tuple[Any, int]]:
    """(state, seat) at every turn of a round and in a last round, from greedy games."""
    game = find_game("5211")
    rng = random.Random(players)
    positions = []
    for seed in range(2):
        state = game.new(players, seed)
        while game.to_act(state):
            seats = game.to_act(state)
            positions.append((game.clone(state), seats[0]))
            game.apply(state, {s: _greedy(game, state, s, rng) for s in seats})
    return positions


def _greedy(game: Game[Any], state: Any, seat: int, rng: random.Random) -> Any:
    legal = game.legal(state, seat)
    return legal[choose(game.observe(state, seat), legal, rng)]


@pytest.mark.parametrize("players", [3, 5])
def test_the_model_plays_what_greedy_plays_from_the_seats_observation(players: int) -> None:
    game = find_game("5211")
    for state, seat in _positions(players):
        legal = game.legal(state, seat)
        assert g5211.model(state, seat, legal, random.Random(7)) == _greedy(
            game, state, seat, random.Random(7)
        )


@pytest.mark.parametrize("players", [3, 5])
def test_greedys_choice_has_the_best_prior(players: int) -> None:
    """The prior is greedy's own value: its choice is always among the best by the prior, and
    the plays differ (the last round, where nothing is kept, included)."""
    game = find_game("5211")
    spread = 0.0
    for state, seat in _positions(players):
        legal = game.legal(state, seat)
        values = g5211.prior(state, seat, legal)
        chosen = values[legal.index(_greedy(game, state, seat, random.Random(1)))]
        assert chosen == pytest.approx(max(values))
        spread = max(spread, max(values) - min(values))
    assert spread > 1.0


@pytest.mark.parametrize(("weight", "greedy"), [(1e9, True), (0.0, False)])
def test_the_prior_weighs_against_the_samples(
    monkeypatch: pytest.MonkeyPatch, weight: float, greedy: bool
) -> None:
    """With overwhelming weight the search answers greedy's favourite whatever it sampled; with
    none it answers the best sampled mean. A prior that disagrees with greedy (its negation)
    tells the two apart."""
    game = find_game("5211")
    state = game.new(3, 11)
    legal = game.legal(state, 0)
    values = g5211.prior(state, 0, legal)
    worst = legal[min(range(len(legal)), key=values.__getitem__)]
    monkeypatch.setitem(
        policies.PRIORS,
        "5211",
        (lambda s, seat, moves: [-v for v in g5211.prior(s, seat, moves)], weight),
    )
    search = Search(game, Params())
    action = search.run(state, 0, random.Random(2), time.perf_counter() + 60, iterations=200)
    assert (action == worst) is greedy
