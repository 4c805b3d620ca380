"""Alhambra's search (`bots.search.alhambra`): greedy's own valuation is the root prior, and
the flat search with common worlds (`model`, `width`) plays greedy's choices in its playouts,
searches only an action phase and answers one of greedy's best there."""

from __future__ import annotations

import gc
import random
import time

import pytest

from bots.search import alhambra as searched
from bots.search.ismcts import Params, Search
from bots.strategies import alhambra as greedy
from referee.games import find_game
from referee.games.alhambra import State
from referee.games.alhambra_messages import Place
from referee.games.alhambra_placement import longest_outer_wall

_GAME = find_game("alhambra")


def _decisions(seed: int = 3, share: float = 0.15) -> list[tuple[State, int]]:
    """(state, seat) of a 2-player game of greedy play, decisions with a choice, about `share`
    of them."""
    rng = random.Random(seed)
    state = _GAME.new(2, seed, _GAME.Options())
    found = []
    while seats := _GAME.to_act(state):
        seat = seats[0]
        legal = _GAME.legal(state, seat)
        if len(legal) > 1 and rng.random() < share:
            found.append((_GAME.clone(state), seat))
        action = legal[greedy.choose(_GAME.observe(state, seat), legal, rng)]
        _GAME.apply(state, {seat: action})
    return found


def _wall_gain(state: State, seat: int, action: Place) -> int:
    grid = state.alhambras[seat]
    return longest_outer_wall({**grid, (action.x, action.y): action.building}) - (
        longest_outer_wall(grid)
    )


def test_the_prior_ranks_greedys_choice_first() -> None:
    decisions = _decisions()
    phases = {state.phase for state, _ in decisions}
    assert {"action", "pay", "place"} <= phases
    for state, seat in decisions:
        legal = _GAME.legal(state, seat)
        points = searched.prior(state, seat, legal)
        assert len(points) == len(legal)
        best = max(points)
        chosen = greedy.choose(_GAME.observe(state, seat), legal, random.Random(1))
        assert points[chosen] == best, (state.phase, legal[chosen])
        assert min(points) >= best - searched.PRIOR_FLOOR


def test_the_model_plays_greedys_choice_but_for_a_placement_by_its_walls() -> None:
    decisions = _decisions()
    assert {"action", "pay", "place"} <= {state.phase for state, _ in decisions}
    for state, seat in decisions:
        legal = _GAME.legal(state, seat)
        action = searched.model(state, seat, legal, random.Random(0))
        assert action in legal
        observation = _GAME.observe(state, seat)
        if state.phase == "pay":
            assert action == legal[greedy.choose(observation, legal, random.Random(0))]
        elif state.phase == "action":
            view = greedy.View.of_observation(observation)
            values = [view.value(a) for a in legal]
            assert view.value(action) == max(values), action
        else:
            cells = [
                a for a in legal if isinstance(a, Place) and (a.x, a.y) not in state.alhambras[seat]
            ]
            if cells:  # the best wall gain among the empty cells (a swap or reserve is worse)
                assert isinstance(action, Place)
                assert _wall_gain(state, seat, action) == max(
                    _wall_gain(state, seat, a) for a in cells
                )


def test_only_an_action_phase_is_searched() -> None:
    """A payment or a placement is greedy's own choice, answered without a world sampled; an
    action phase samples the worlds asked for and answers one of greedy's `WIDTH` best."""
    search = Search(_GAME, Params())
    searched_phases = set()
    for state, seat in _decisions():
        legal = _GAME.legal(state, seat)
        points = searched.prior(state, seat, legal)
        action = search.run(state, seat, random.Random(0), float("inf"), iterations=3)
        assert action in legal
        if state.phase == "action":
            searched_phases.add(state.phase)
            assert search.iterations == 3
            ranked = sorted(points, reverse=True)
            assert points[legal.index(action)] >= ranked[min(searched.WIDTH, len(ranked)) - 1]
        else:
            assert search.iterations == 0, state.phase
            assert points[legal.index(action)] == max(points), (state.phase, action)
    assert searched_phases == {"action"}


def test_out_of_time_the_answer_is_greedys_choice() -> None:
    """With its deadline already past, no world is played and greedy's best is answered."""
    search = Search(_GAME, Params())
    for state, seat in _decisions():
        if state.phase != "action":
            continue
        legal = _GAME.legal(state, seat)
        points = searched.prior(state, seat, legal)
        action = search.run(state, seat, random.Random(0), 0.0)
        assert search.iterations == 0
        assert points[legal.index(action)] == max(points), action


@pytest.mark.alone  # wall-clock bounds: run without the other tests' load
def test_a_decision_ends_soon_after_its_deadline() -> None:
    """The deadline is checked before each world and each of its root actions (a world cut
    short is dropped), so an answer is late by one playout at most: over 5 games' action phases
    at 45 ms (the search time of a 100 ms clock), at most 1.6 ms in-process; the bound here is
    generous for a loaded machine. Late in a game a world takes 25-40 ms, so a decision may
    keep none of its worlds (greedy's choice is then the answer); early ones keep several."""
    search = Search(_GAME, Params())
    late: list[float] = []
    kept: list[int] = []
    gc.disable()  # as the bot does (`bots.mcts.main`): no collection of the test's heap lands here
    try:
        for state, seat in _decisions(seed=5, share=0.3):
            if state.phase != "action":
                continue
            deadline = time.perf_counter() + 0.045
            legal = _GAME.legal(state, seat)
            assert search.run(state, seat, random.Random(0), deadline) in legal
            late.append(time.perf_counter() - deadline)
            kept.append(search.iterations)
    finally:
        gc.enable()
    assert len(late) > 10
    assert max(late) < 0.05, max(late)
    assert max(kept) >= 2, kept
