"""One game of a greedy strategy against uniform random play, through `simulate`: the shared loop
of the greedy tests (imported by them)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from referee.games import Game, GameResult, simulate

Choose = Callable[[Any, Sequence[Any], random.Random], int]
"""A strategy: (observation, legal actions, rng) to an index into the legal actions."""
Opponent = Callable[[list[Any], random.Random], Any]
"""The other seats' play: (legal actions, rng) to an action."""


def uniform(legal: list[Any], rng: random.Random) -> Any:
    return rng.choice(legal)


def play_against_random(
    game: Game[Any, Any, Any],
    choose: Choose,
    players: int,
    seed: int,
    options: Any = None,
    opponent: Opponent = uniform,
) -> tuple[GameResult, int]:
    """One game with `choose` in seat `seed % players` (so consecutive seeds rotate the seats)
    and `opponent` (uniformly random play) elsewhere; the result and the strategy's seat. The
    strategy sees what a bot sees: its observation and legal list through JSON, as the protocol
    delivers them."""
    as_bot_sees = msgspec.json.Decoder(tuple[game.Observation, list[game.Action]])
    state = game.new(players, seed, options)
    rng = random.Random(seed)
    me = seed % players

    def policy(state: Any, seat: int, legal: list[Any]) -> Any:
        if seat != me:
            return opponent(legal, rng)
        wire = msgspec.json.encode((game.observe(state, seat), legal))
        index = choose(*as_bot_sees.decode(wire), rng)
        assert 0 <= index < len(legal)
        return legal[index]

    simulate(game, state, rng, policy)
    result = game.result(state)
    assert result is not None
    return result, me
