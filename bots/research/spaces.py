"""One game set-up (game, players, options) as the adapters see it: the engine, the action index
space and the observation encoding, built once per set-up and shared."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from bots.research.actions import ActionSpace
from bots.research.encoding import Encoder
from bots.research.specs import SEATS, SPECS, Spec
from referee.games import Game, find_game, parse_options

__all__ = ["Spaces", "spaces"]


@dataclass(frozen=True)
class Spaces:
    game: Game[Any]
    players: int
    options: Any
    """The game's Options struct."""
    spec: Spec
    actions: ActionSpace
    encoder: Encoder


def spaces(game_id: str, players: int, options: Any = None) -> Spaces:
    """The set-up's spaces; `options` is the game's Options struct, a plain mapping of options,
    or None for the defaults."""
    game = find_game(game_id)
    if not isinstance(options, game.Options):
        options = parse_options(game, options)
    return _spaces(game_id, players, options)


@functools.cache
def _spaces(game_id: str, players: int, options: Any) -> Spaces:
    game = find_game(game_id)
    spec = SPECS[game_id]
    first = game.observe(game.new(players, 0, options), 0)
    lengths = {path: players if n == SEATS else n for path, n in spec.lengths.items()}
    return Spaces(
        game=game,
        players=players,
        options=options,
        spec=spec,
        actions=ActionSpace(game.Action, spec.universe(game.reference, first), spec.key),
        encoder=Encoder(game.Observation, first, lengths, spec.words),
    )
