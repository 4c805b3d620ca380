"""The greedy Alhambra heuristic beats uniform random play, from what a bot sees."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from greedyhelp import play_against_random

from bots.strategies import alhambra as greedy
from referee.games.alhambra import Alhambra
from referee.games.alhambra_messages import GiveDirk, Observation, Place, Redesign, Reserve

GAME = Alhambra()


def checked_choose(observation: Observation, legal: Sequence[Any], rng: random.Random) -> int:
    """greedy.choose, asserting the rules it promises on every decision it makes."""
    index = greedy.choose(observation, list(legal), rng)
    action = legal[index]
    if isinstance(action, Reserve | GiveDirk):
        assert not any(isinstance(a, Place) for a in legal), "reserved with a cell free"
    # Never a building out of the Alhambra: no removal, no swap.
    if isinstance(action, Redesign):
        assert action.building in observation.reserves[observation.seat]
    if isinstance(action, Place) and observation.phase == "redesign":
        cells = {(p.x, p.y) for p in observation.alhambras[observation.seat]}
        assert (action.x, action.y) not in cells
    return index


def greedy_rank(players: int, seed: int) -> int:
    """One game with greedy in seat `seed % players` and random elsewhere: greedy's rank."""
    result, me = play_against_random(GAME, checked_choose, players, seed)
    return result.ranks[me]


def test_cheapest_payment_prefers_exact_then_fewest_cards() -> None:
    assert greedy.cheapest_payment([1, 2, 3, 5], 5) == (5,)
    assert greedy.cheapest_payment([2, 4, 9], 5) == (2, 4)  # surplus 1 beats 9's surplus 4
    assert greedy.cheapest_payment([3, 3], 7) is None


def test_greedy_beats_random_in_every_seat() -> None:
    """12 seeded 3-player games, greedy in each seat in turn. Measured on 201 games (67 deals in
    all rotations, docs/games/alhambra.md): greedy won all 201, mean 219 points against 52."""
    ranks = [greedy_rank(3, seed) for seed in range(12)]
    wins = sum(rank == 1 for rank in ranks)
    assert wins >= 10, f"greedy won {wins} of 12 (ranks {ranks})"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_greedy_wins_at_other_player_counts(players: int) -> None:
    """Dirk with 2 players, a crowded market with 6: greedy still wins from every seat tried."""
    assert [greedy_rank(players, seed) for seed in range(3)] == [1, 1, 1]
