"""The greedy Alhambra heuristic beats uniform random play, from what a bot sees."""

from __future__ import annotations

import random

import msgspec
import pytest

from bots.strategies import alhambra as greedy
from referee.games.alhambra import Alhambra
from referee.games.alhambra_messages import (
    Action,
    GiveDirk,
    Observation,
    Place,
    Redesign,
    Reserve,
)

GAME = Alhambra()
as_bot_sees = msgspec.json.Decoder(tuple[Observation, list[Action]])


def greedy_game(players: int, seed: int, seat: int) -> tuple[int, list[int]]:
    """One game with greedy in `seat` and random elsewhere: greedy's rank and the scores."""
    state = GAME.new(players, seed)
    rng = random.Random(seed)
    while not GAME.is_over(state):
        (acting,) = GAME.to_act(state)
        legal = GAME.legal(state, acting)
        if acting == seat:
            # Through JSON, as the bot receives them over the protocol.
            wire = msgspec.json.encode((GAME.observe(state, acting), legal))
            observation, typed_legal = as_bot_sees.decode(wire)
            index = greedy.choose(observation, typed_legal, rng)
            assert 0 <= index < len(legal)
            action = legal[index]
            if isinstance(action, Reserve | GiveDirk):
                assert not any(isinstance(a, Place) for a in legal), "reserved with a cell free"
            # Never a building out of the Alhambra: no removal, no swap.
            if isinstance(action, Redesign):
                assert action.building in observation.reserves[seat]
            if isinstance(action, Place) and observation.phase == "redesign":
                cells = {(p.x, p.y) for p in observation.alhambras[seat]}
                assert (action.x, action.y) not in cells
        else:
            action = rng.choice(legal)
        GAME.apply(state, {acting: action})
    result = GAME.result(state)
    assert result is not None
    return result.ranks[seat], result.scores


def test_cheapest_payment_prefers_exact_then_fewest_cards() -> None:
    assert greedy.cheapest_payment([1, 2, 3, 5], 5) == (5,)
    assert greedy.cheapest_payment([2, 4, 9], 5) == (2, 4)  # surplus 1 beats 9's surplus 4
    assert greedy.cheapest_payment([3, 3], 7) is None


def test_greedy_beats_random_in_every_seat() -> None:
    """12 seeded 3-player games, greedy in each seat in turn (measured on 201: see the docs)."""
    ranks = [greedy_game(3, seed, seed % 3)[0] for seed in range(12)]
    wins = sum(rank == 1 for rank in ranks)
    assert wins >= 10, f"greedy won {wins} of 12 (ranks {ranks})"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_greedy_wins_at_other_player_counts(players: int) -> None:
    """Dirk with 2 players, a crowded market with 6: greedy still wins from every seat tried."""
    ranks = [greedy_game(players, seed, seed % players)[0] for seed in range(3)]
    assert ranks == [1, 1, 1]
