"""Every game as a PettingZoo environment passes PettingZoo's own API tests, deals the games
`arena match` deals, holds 5211's simultaneous choices until every seat chose, and is cut at
its decision limit with the engine's returns as rewards."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test
from researchhelp import params, setups

from bots.research.pettingzoo_env import env, parallel_env
from referee.games import GAME_IDS, find_game

# PettingZoo's api_test names its own classic games (chess, go, ...) whose observation is a dict
# holding the action mask, and warns of any other env doing the same: ours follow that classic
# convention, so these two advisories (and only these) are expected.
CLASSIC_DICT_OBSERVATION = [
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium",
]


@pytest.fixture
def classic_dict_observations() -> Iterator[None]:
    with warnings.catch_warnings():
        for message in CLASSIC_DICT_OBSERVATION:
            warnings.filterwarnings("ignore", message=message)
        yield


@pytest.mark.usefixtures("classic_dict_observations")
@pytest.mark.parametrize(("game_id", "players", "options"), params(setups()))
def test_the_aec_environment_passes_pettingzoo_api_test(
    game_id: str, players: int, options: Any
) -> None:
    api_test(env(game_id, players, options), num_cycles=1000)


PARALLEL = [s for s in setups() if s[0] == "5211" or s[1] == find_game(s[0]).min_players]


@pytest.mark.parametrize(("game_id", "players", "options"), params(PARALLEL))
def test_the_parallel_environment_passes_pettingzoo_parallel_api_test(
    game_id: str, players: int, options: Any
) -> None:
    parallel_api_test(parallel_env(game_id, players, options), num_cycles=1000)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_same_seed_plays_the_same_game(game_id: str) -> None:
    seed_test(lambda: env(game_id, 3), num_cycles=100)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_seeded_reset_deals_the_game_arena_match_deals(game_id: str) -> None:
    environment = env(game_id, 3)
    environment.reset(seed=7)
    game = find_game(game_id)
    dealt = game.new(3, 7)
    for seat, agent in enumerate(environment.possible_agents):
        assert environment.infos[agent]["observation"] == game.observe(dealt, seat)
    first_deal = environment.observe("player_0")["observation"]
    environment.reset()
    assert not np.array_equal(environment.observe("player_0")["observation"], first_deal)


def test_5211_choices_are_held_until_every_seat_chose() -> None:
    environment = env("5211", 3)
    environment.reset(seed=2)
    before = {agent: environment.infos[agent]["observation"] for agent in environment.agents}
    assert environment.agent_selection == "player_0"
    for seat, agent in enumerate(environment.possible_agents[:2]):
        environment.step(int(np.flatnonzero(environment.observe(agent)["action_mask"])[0]))
        assert environment.agent_selection == f"player_{seat + 1}"
        assert not environment.observe(agent)["action_mask"].any(), "it chose: nothing to ask"
        assert {a: environment.infos[a]["observation"] for a in before} == before
    environment.step(int(np.flatnonzero(environment.observe("player_2")["action_mask"])[0]))
    after = environment.infos["player_1"]["observation"]
    assert (after.turn, len(after.hand)) == (2, 5), "the three plays were applied together"
    assert environment.agent_selection == "player_0"


def test_an_index_that_is_not_legal_is_refused() -> None:
    environment = env("azul", 2)
    environment.reset(seed=1)
    illegal = int(np.flatnonzero(environment.observe("player_0")["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {illegal} is not legal for player_0"):
        environment.step(illegal)


def test_a_game_reaching_the_decision_limit_is_truncated_and_scored_as_it_stands() -> None:
    environment = env("alhambra", 2, max_decisions=40)
    environment.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(int(rng.choice(np.flatnonzero(mask))))
    assert all(environment.truncations.values())
    assert not any(environment.terminations.values())
    table = environment.unwrapped._table
    assert not table.setup.game.is_over(table.state)
    assert list(environment.rewards.values()) == table.setup.game.returns(table.state)
    assert environment.render() == table.setup.game.render(table.state)
