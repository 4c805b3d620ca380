"""The base class's shared pieces: `returns`, `simulate` and the player-count check."""

from __future__ import annotations

import random

import pytest

from referee.games import BadPlayerCount, find_game, simulate
from referee.games.base import GameResult


def test_returns_share_the_seats_beaten_with_ties_counting_half() -> None:
    game = find_game("5211")
    state = game.new(3, 1)
    state.totals = [9, 4, 4]
    assert game.returns(state) == [1.0, 0.25, 0.25]  # mid-game: from the scores
    simulate(game, state, random.Random(1))
    result = game.result(state)
    assert isinstance(result, GameResult)
    expected = [
        sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0 for theirs in others) / 2
        for mine, others in (
            (rank, result.ranks[:seat] + result.ranks[seat + 1 :])
            for seat, rank in enumerate(result.ranks)
        )
    ]
    assert game.returns(state) == expected  # over: from the ranks, tie-breaks included


def test_simulate_stops_at_the_limit_and_at_the_end() -> None:
    game = find_game("azul")
    state = game.new(2, 5)
    assert simulate(game, state, random.Random(5), limit=3) == 3
    assert not game.is_over(state)
    played = simulate(game, state, random.Random(5))
    assert played > 0 and game.is_over(state)
    assert simulate(game, state, random.Random(5)) == 0


def test_simulate_asks_the_policy_for_every_seat_of_a_simultaneous_decision() -> None:
    game = find_game("5211")
    state = game.new(4, 2)
    asked: list[int] = []

    def first(_state: object, seat: int, legal: list[object]) -> object:
        asked.append(seat)
        return legal[0]

    assert simulate(game, state, random.Random(0), first, limit=1) == 1
    assert asked == [0, 1, 2, 3]


@pytest.mark.parametrize(("game_id", "players"), [("azul", 1), ("azul", 5), ("5211", 6)])
def test_a_wrong_player_count_names_the_range(game_id: str, players: int) -> None:
    game = find_game(game_id)
    with pytest.raises(BadPlayerCount) as caught:
        game.new(players, 1)
    bounds = f"{game.min_players}-{game.max_players}"
    assert str(caught.value) == f"{game_id} is for {bounds} players, not {players}"
