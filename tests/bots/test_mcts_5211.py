"""The 5211 search knowledge (`bots.search.g5211`): greedy, computed from the state, as the model
of the other seats, as the playout policy and as a prior at the root; and the flat search with
common worlds that 5211 asks for (`ismcts.Search._flat`)."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

import pytest

from bots.search import g5211
from bots.search.ismcts import Params, Search
from bots.strategies.g5211 import KEEP, Round, choose
from referee.games import Game, find_game


def _positions(players: int) -> list[tuple[Any, int]]:
    """(state, seat) at every turn of a round and in a last round, from greedy games, each
    also as a world the seat's search may sample (the others' hands and the pile re-dealt)."""
    game = find_game("5211")
    rng = random.Random(players)
    positions = []
    for seed in range(2):
        state = game.new(players, seed)
        while game.to_act(state):
            seats = game.to_act(state)
            positions.append((game.clone(state), seats[0]))
            positions.append((game.determinize(state, seats[-1], rng), seats[-1]))
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


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_prior_is_greedys_own_estimate_to_the_bit(players: int) -> None:
    """Computed from the state's card kinds, the prior equals greedy's value from the seat's
    observation exactly (not approximately: the model's ties must be greedy's ties)."""
    game = find_game("5211")
    for state, seat in _positions(players):
        legal = game.legal(state, seat)
        observation = game.observe(state, seat)
        round_ = Round(observation)
        keep = 0.0 if observation.last_round else KEEP
        expected = [
            round_.expected_points(play.cards) - keep * sum(card.value for card in play.cards)
            for play in legal
        ]
        assert g5211.prior(state, seat, legal) == expected


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
    negated = (lambda s, seat, moves: [-v for v in g5211.prior(s, seat, moves)], weight)
    monkeypatch.setattr(g5211, "PROFILE", dataclasses.replace(g5211.PROFILE, prior=negated))
    search = Search(game, Params())
    action = search.run(state, 0, random.Random(2), time.perf_counter() + 60, iterations=200)
    assert (action == worst) is greedy


def _turn(players: int, turn: int, seed: int = 3) -> Any:
    """A state of the first round at `turn` (0-2), reached by greedy plays."""
    game = find_game("5211")
    state = game.new(players, seed)
    rng = random.Random(seed)
    while state.turn < turn:
        game.apply(state, {s: _greedy(game, state, s, rng) for s in game.to_act(state)})
    return state


def test_every_root_play_is_valued_in_every_sampled_world(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flat search samples one world an iteration and plays each of the seat's plays in it:
    as many worlds as iterations, and each of greedy's `WIDTH` best plays valued in each of
    them (and the answer is one of those)."""
    game = find_game("5211")
    state = _turn(3, 0)
    worlds = []
    determinize = game.determinize

    def spy(root: Any, seat: int, rng: random.Random) -> Any:
        worlds.append(seat)
        return determinize(root, seat, rng)

    monkeypatch.setattr(game, "determinize", spy)
    roots: list[dict[Any, list[float]]] = []
    best = Search._best

    def keep(self: Search, tree: Any, root: Any, seat: int, *rest: Any) -> Any:
        roots.append(tree.stats[seat])
        return best(self, tree, root, seat, *rest)

    monkeypatch.setattr(Search, "_best", keep)
    search = Search(game, Params())
    action = search.run(state, 1, random.Random(5), time.perf_counter() + 60, iterations=12)
    legal = game.legal(state, 1)
    points = g5211.prior(state, 1, legal)
    best = sorted(legal, key=lambda play: -points[legal.index(play)])[: g5211.WIDTH]
    assert len(legal) > g5211.WIDTH
    assert action in best
    assert search.iterations == 12 and worlds == [1] * 12
    (stats,) = roots
    assert set(stats) == set(best)
    assert all(stat[0] == 12 for stat in stats.values())


@pytest.mark.parametrize("turn", [0, 1, 2])
def test_the_playout_plays_the_rest_of_the_round_by_greedy(
    monkeypatch: pytest.MonkeyPatch, turn: int
) -> None:
    """In each world the other seats' plays at the root are greedy's, once for all the seat's
    plays; then every seat plays greedy to the end of the round and no further (turn 3: no
    playout at all)."""
    players, worlds = 3, 4
    calls = {"model": 0, "playout": 0}

    def counted(name: str) -> Any:
        def play(state: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
            calls[name] += 1
            return g5211.model(state, seat, legal, rng)

        return play

    counting = dataclasses.replace(
        g5211.PROFILE, model=counted("model"), playout=counted("playout")
    )
    monkeypatch.setattr(g5211, "PROFILE", counting)
    game = find_game("5211")
    state = _turn(players, turn)
    search = Search(game, Params())
    search.run(state, 0, random.Random(1), time.perf_counter() + 60, iterations=worlds)
    plays = min(g5211.WIDTH, len(game.legal(state, 0)))
    assert calls["model"] == worlds * (players - 1)
    assert calls["playout"] == worlds * plays * players * (2 - turn)


def test_searched_opponents_are_searched_by_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flat search needs the other seats' plays not to depend on the seat's own: it is used
    only when they are modelled, and `--opponents search` still gets the decoupled tree."""
    game = find_game("5211")
    state = _turn(3, 0)
    flat: list[int] = []
    monkeypatch.setattr(Search, "_flat", lambda *args: flat.append(1))
    search = Search(game, Params(opponents="search"))
    action = search.run(state, 1, random.Random(2), time.perf_counter() + 60, iterations=30)
    assert action in game.legal(state, 1) and not flat
    Search(game, Params()).run(state, 1, random.Random(2), time.perf_counter() + 60, 30)
    assert flat == [1]
