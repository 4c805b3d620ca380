"""What the research tests share: the game set-ups they cover, and a replay through the engine
alone (no adapter) that their playthroughs are checked against."""

from __future__ import annotations

import itertools
import typing
from typing import Any

import msgspec
import pytest

from bots.research.spaces import Spaces
from referee.games import GAME_IDS, find_game

Setup = tuple[str, int, Any]


def variants(game_id: str) -> list[Any]:
    """Every combination of the game's options (Literal and bool fields), defaults first."""
    game = find_game(game_id)
    fields = msgspec.structs.fields(game.Options)
    choices = []
    for field in fields:
        values = list(typing.get_args(field.type)) if field.type is not bool else [False, True]
        choices.append(sorted(values, key=lambda value: value != field.default))
    return [
        game.Options(**dict(zip([f.name for f in fields], combo, strict=True)))
        for combo in itertools.product(*choices)
    ]


def setups() -> list[Setup]:
    """Every game at every player count with its default options, and every other combination
    of options at the game's smallest player count."""
    found: list[Setup] = []
    for game_id in GAME_IDS:
        game = find_game(game_id)
        default, *others = variants(game_id)
        found += [(game_id, n, default) for n in range(game.min_players, game.max_players + 1)]
        found += [(game_id, game.min_players, options) for options in others]
    return found


def params(found: list[Setup]) -> list[Any]:
    """pytest params named `game-players-options`."""
    return [
        pytest.param(
            game_id,
            players,
            options,
            id="-".join([game_id, str(players), *map(str, msgspec.structs.astuple(options))]),
        )
        for game_id, players, options in found
    ]


def replay(setup: Spaces, deal: int, indices: list[int]) -> Any:
    """The engine state after `indices` from deal `deal`: each seat asked, in seat order, takes
    the next index, mapped to the engine's legal action of that index."""
    game = setup.game
    state = game.new(setup.players, deal, setup.options)
    position = 0
    while position < len(indices):
        choices = {}
        for seat in game.to_act(state):
            choices[seat] = setup.actions.by_index(game.legal(state, seat))[indices[position]]
            position += 1
        game.apply(state, choices)
    return state
