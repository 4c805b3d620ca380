"""The mcts tests' shared helpers: a decision's context and its wire form."""

from __future__ import annotations

import random
from typing import Any

import msgspec

from bots.sdk import Context
from protocol import Clock, TimeControl
from referee.games import Game


def _wire(game: Game[Any], state: Any, seat: int) -> tuple[Any, list[Any]]:
    """Observation and legal actions exactly as the bot decodes them from the protocol."""
    decoder = msgspec.json.Decoder(tuple[game.Observation, list[game.Action]])  # type: ignore[name-defined]
    return decoder.decode(msgspec.json.encode((game.observe(state, seat), game.legal(state, seat))))


def _context(game: Game[Any], seat: int, players: int, seed: int, move_ms: int) -> Context:
    return Context(
        game=game.id,
        seat=seat,
        players=players,
        options={},
        time=TimeControl(move_ms=move_ms),
        rng=random.Random(seed),
        clock=Clock(move_ms=move_ms, bank_ms=0),
    )
