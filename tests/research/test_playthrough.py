"""Whole games through each library end as the engine alone ends them: an OpenSpiel MCTS game and
a random PettingZoo game per registered game, each replayed through the other library and
through the engine with the same deal and the same action indices."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot
from researchhelp import replay

from bots.research import openspiel_game
from bots.research.pettingzoo_env import env
from referee.games import GAME_IDS, find_game


def searchable(game: openspiel_game.ArenaGame) -> Any:
    """The game MCTS can search: 5211's simultaneous turns made sequential, seat by seat."""
    simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    return pyspiel.convert_to_turn_based(game) if simultaneous else game


def pettingzoo_game(game_id: str, players: int, deal: int, moves: list[int]) -> Any:
    """The AEC environment after `moves` from `deal` (the seats asked in seat order, as the
    turn-based OpenSpiel game asks them)."""
    environment = env(game_id, players)
    environment.reset(seed=deal)
    for move in moves:
        environment.step(move)
    return environment


def assert_same_end(game_id: str, players: int, deal: int, moves: list[int], os_state: Any) -> None:
    """OpenSpiel's final state, the PettingZoo environment's and the engine's agree."""
    setup = openspiel_game.load(game_id, players).setup
    engine = replay(setup, deal, moves)
    game = setup.game
    result = game.result(engine)
    assert result is not None, "the replay reached the end"
    environment = pettingzoo_game(game_id, players, deal, moves)
    table = environment.unwrapped._table
    assert game.result(table.state) == result
    assert all(environment.terminations.values())
    assert list(environment.rewards.values()) == game.returns(engine)
    assert os_state.is_terminal()
    assert os_state.returns() == game.returns(engine)
    assert str(os_state).endswith(game.render(engine))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_openspiel_mcts_game_ends_as_the_engine_ends_it(game_id: str) -> None:
    players = find_game(game_id).min_players
    game = openspiel_game.load(game_id, players)
    searched = searchable(game)
    rng = np.random.RandomState(5)
    if searched is game:
        leaves: Any = openspiel_game.ReturnsEvaluator()
    else:  # 5211 behind the turn-based wrapper, which hides the engine: rollouts (games are short)
        leaves = mcts.RandomRolloutEvaluator(1, rng)
    bots = [mcts.MCTSBot(searched, 2.0, 6, leaves, random_state=rng)]
    bots += [UniformRandomBot(seat, rng) for seat in range(1, players)]
    state = searched.new_initial_state()
    evaluate_bots.evaluate_bots(state, bots, rng)
    deal, *moves = state.history()
    assert_same_end(game_id, players, deal, moves, state)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_random_pettingzoo_game_ends_as_the_engine_ends_it(game_id: str) -> None:
    players = find_game(game_id).max_players
    environment = env(game_id, players)
    deal = 31
    environment.reset(seed=deal)
    rng = np.random.default_rng(deal)
    moves = []
    for _ in environment.agent_iter():
        observation, _, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            environment.step(None)
            continue
        moves.append(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        environment.step(moves[-1])
    assert not environment.agents
    state = searchable(openspiel_game.load(game_id, players)).new_initial_state()
    for action in [deal, *moves]:
        state.apply_action(action)
    assert_same_end(game_id, players, deal, moves, state)
