"""Every game as an OpenSpiel Python game passes OpenSpiel's random-simulation checks (clones,
serialisation, legal actions, observations, returns), deals the engine's seeds, and shows a
seat only what it may know."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel
import pytest
from researchhelp import params, setups

from bots.research import openspiel_game
from bots.research.spaces import spaces
from referee.games import GAME_IDS, find_game


@pytest.mark.parametrize(
    ("game_id", "players", "options"),
    params(setups()),
)
def test_random_simulations_pass_openspiels_checks(
    game_id: str, players: int, options: Any
) -> None:
    game = openspiel_game.load(game_id, players, options)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_game_is_registered_with_its_setup_as_parameters(game_id: str) -> None:
    engine = find_game(game_id)
    game = pyspiel.load_game(openspiel_game.short_name(game_id), {"players": engine.max_players})
    setup = spaces(game_id, engine.max_players)
    assert isinstance(game, openspiel_game.ArenaGame)
    assert game.num_players() == engine.max_players
    assert game.num_distinct_actions() == len(setup.actions)
    assert game.observation_tensor_size() == setup.encoder.size
    assert game.max_chance_outcomes() == openspiel_game.DEALS
    assert game.get_type().min_num_players == engine.min_players
    simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert simultaneous == (game_id == "5211")


def test_options_are_parameters() -> None:
    game = openspiel_game.load("azul", 3, {"variant": "grey", "special_factories": True})
    assert str(game).startswith("tile_arena_azul(")
    assert "special_factories=True" in str(game) and "variant=grey" in str(game)
    state = game.new_initial_state()
    state.apply_action(11)
    dealt = find_game("azul").new(3, 11, game.setup.options)
    assert str(state) == find_game("azul").render(dealt)


def test_the_deal_is_the_only_chance_node() -> None:
    game = openspiel_game.load("summer-pavilion", 2)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert len(state.chance_outcomes()) == openspiel_game.DEALS
    state.apply_action(4)
    rng = random.Random(0)
    while not state.is_terminal():
        assert not state.is_chance_node()
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == pytest.approx(1.0)


def test_a_seat_sees_its_observation_and_never_another_seats_hand() -> None:
    game = openspiel_game.load("5211", 3)
    state = game.new_initial_state()
    state.apply_action(9)
    engine = find_game("5211")
    seen = engine.observe(state.play.state, 0)
    rebuilt = game.state_from_observation(seen, random.Random(1))
    assert rebuilt.observation_string(0) == state.observation_string(0)
    assert np.array_equal(rebuilt.observation_tensor(0), state.observation_tensor(0))
    assert rebuilt.observation_string(1) != state.observation_string(1), "seat 1's hand redealt"
    assert state.information_state_string(0) != state.information_state_string(1)
    spectator = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
    )
    public = game.make_py_observer(spectator)
    assert public.string_from(rebuilt, 0) == public.string_from(state, 0)


def test_an_information_state_recalls_every_view_and_the_seats_own_choices() -> None:
    game = openspiel_game.load("azul", 2)
    state = game.new_initial_state()
    state.apply_action(3)
    first = state.information_state_string(0)
    rng = random.Random(2)
    for _ in range(3):
        state.apply_action(rng.choice(state.legal_actions()))
    recalled = state.information_state_string(0)
    assert recalled.startswith(first + "\n")
    assert len(recalled.splitlines()) == 1 + 3 + 2, "four views, and its two own choices"
    others = state.information_state_string(1).splitlines()
    assert sum(line.startswith("chose ") for line in others) == 1, "its own choice only"
    copy = state.clone()
    copy.apply_action(rng.choice(copy.legal_actions()))
    assert state.information_state_string(0) == recalled, "a clone recalls on its own"
