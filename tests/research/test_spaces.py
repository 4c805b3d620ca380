"""The action index space and the observation encoding cover every game: every legal action of
random games has an index of its own, and every observation an encoding that fits its layout
and tells it apart from the others seen."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import numpy as np
import pytest
from researchhelp import params, setups

from bots.research.actions import OutsideSpace
from bots.research.encoding import LIMIT, EncodingError
from bots.research.spaces import spaces
from bots.research.specs import SPECS
from referee.games import GAME_IDS, find_game


def test_every_registered_game_has_a_table() -> None:
    assert set(SPECS) == set(GAME_IDS)


@pytest.mark.parametrize(("game_id", "players", "options"), params(setups()))
def test_random_games_fit_the_index_space_and_the_encoding(
    game_id: str, players: int, options: Any
) -> None:
    setup = spaces(game_id, players, options)
    game = setup.game
    vectors: dict[bytes, bytes] = {}
    rng = random.Random(players)
    state = game.new(players, players, options)
    while seats := game.to_act(state):
        choices = {}
        for seat in seats:
            legal = game.legal(state, seat)
            assert len(setup.actions.by_index(legal)) == len(legal)
            observation = game.observe(state, seat)
            vector = setup.encoder.encode(observation)
            assert vector.shape == (setup.encoder.size,)
            assert np.abs(vector).max() <= LIMIT
            vectors[msgspec.json.encode(observation)] = vector.tobytes()
            choices[seat] = rng.choice(legal)
        game.apply(state, choices)
    assert len(set(vectors.values())) == len(vectors), "two observations share an encoding"


def test_an_action_keeps_its_index_whatever_the_order_inside_it() -> None:
    setup = spaces("5211", 3)
    play = setup.game.Action
    pair = [{"colour": 2, "value": 5}, {"colour": 0, "value": 1}]
    forward = msgspec.convert({"type": "play", "cards": pair}, type=play)
    backward = msgspec.convert({"type": "play", "cards": pair[::-1]}, type=play)
    assert setup.actions.index(forward) == setup.actions.index(backward)
    assert setup.actions.actions[setup.actions.index(forward)].cards == tuple(
        sorted(forward.cards, key=msgspec.structs.astuple)
    )


def alhambra_place(x: int, y: int) -> Any:
    action_type = find_game("alhambra").Action
    return msgspec.convert({"type": "place", "building": 7, "x": x, "y": y}, type=action_type)


def test_alhambra_cells_wrap_round_and_two_legal_cells_on_one_index_are_refused() -> None:
    actions = spaces("alhambra", 2).actions
    assert actions.index(alhambra_place(12, -3)) == actions.index(alhambra_place(-9, -3))
    assert actions.index(alhambra_place(1, -3)) != actions.index(alhambra_place(-9, -3))
    with pytest.raises(OutsideSpace, match="share an index"):
        actions.by_index([alhambra_place(0, 0), alhambra_place(21, 0)])


def test_an_action_outside_the_table_is_refused() -> None:
    take = msgspec.convert(
        {"type": "take", "source": 0, "colour": 1, "line": 9}, type=find_game("azul").Action
    )
    with pytest.raises(OutsideSpace, match="no index"):
        spaces("azul", 2).actions.index(take)


def test_an_observation_that_does_not_fit_the_layout_is_refused() -> None:
    setup = spaces("azul", 2)
    observation = setup.game.observe(setup.game.new(2, 1), 0)
    observation.players[1].floor = [0] * 8
    with pytest.raises(EncodingError, match=r"players\[\].floor holds 8 items"):
        setup.encoder.encode(observation)
    observation.players[1].floor = []
    observation.powers[0] = "pull9"
    with pytest.raises(EncodingError, match=r"powers\[\] = 'pull9'"):
        setup.encoder.encode(observation)


def test_the_parts_say_where_each_field_lies() -> None:
    setup = spaces("summer-pavilion", 3, {"variant": "grey"})
    state = setup.game.new(3, 5, setup.options)
    observation = setup.game.observe(state, 2)
    vector = setup.encoder.encode(observation)
    assert list(vector[setup.encoder.parts["round"]]) == [1.0]
    assert list(vector[setup.encoder.parts["seat"]]) == [2.0]
    assert list(vector[setup.encoder.parts["variant"]]) == [0.0, 1.0]  # one-hot: grey
    assert list(vector[setup.encoder.parts["bag"]]) == observation.bag
