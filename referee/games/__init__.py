"""Rules engines, one module per game, found by id through `find_game`.

Importing this package loads msgspec and the engines' shared base only: no trio, no bot
processes, no match loop (a Python bot imports it, and must start fast).
"""

from __future__ import annotations

import importlib
from typing import Any

import msgspec

from protocol.errors import RequestError
from referee.games.base import (
    BadPlayerCount,
    Game,
    GameResult,
    IllegalAction,
    Policy,
    WrongSeats,
    simulate,
)

__all__ = [
    "GAME_IDS",
    "BadOptions",
    "BadPlayerCount",
    "Game",
    "GameResult",
    "IllegalAction",
    "Policy",
    "UnknownGame",
    "WrongSeats",
    "find_game",
    "parse_options",
    "simulate",
]

_MODULES: dict[str, str] = {
    "azul": "referee.games.azul:Azul",
    "5211": "referee.games.g5211:FiveTwoOneOne",
    "summer-pavilion": "referee.games.summer_pavilion:SummerPavilion",
    "alhambra": "referee.games.alhambra:Alhambra",
}
GAME_IDS: tuple[str, ...] = tuple(_MODULES)
_loaded: dict[str, Game[Any]] = {}


class UnknownGame(RequestError):
    """The game id is not one this framework knows."""


class BadOptions(RequestError):
    """The options do not fit the game's options schema (unknown key or bad value)."""


def find_game(game_id: str) -> Game[Any]:
    """The engine for `game_id`; a game's module loads on first use, so it costs only its users."""
    game = _loaded.get(game_id)
    if game is not None:
        return game
    target = _MODULES.get(game_id)
    if target is None:
        known = ", ".join(GAME_IDS)
        raise UnknownGame(f"unknown game {game_id!r}; known games: {known} (see `arena games`)")
    module_name, class_name = target.split(":")
    game = getattr(importlib.import_module(module_name), class_name)()
    _loaded[game_id] = game
    return game


def parse_options(game: Game[Any], options: dict[str, Any] | None) -> Any:
    """Validate a plain options mapping into the game's Options struct, with a clear error."""
    try:
        return msgspec.convert(options or {}, type=game.Options, strict=False)
    except msgspec.ValidationError as exc:
        why = _options_error(game, options or {}, exc)
        raise BadOptions(f"bad options for {game.id}: {why}") from None


def _options_error(game: Game[Any], options: dict[str, Any], error: Exception) -> str:
    """msgspec's complaint in the user's words: a misspelt key or choice gets its choices and the
    nearest one, as a tournament file's keys do (the imports wait for an error: bots start fast)."""
    import difflib
    import json
    import re
    import typing

    fields = msgspec.structs.fields(game.Options)
    types = {field.name: field.type for field in fields}
    known = ", ".join(f"{field.name}={field.default!r}" for field in fields)
    listing = f"the options are: {known}" if known else f"{game.id} has no options"
    unknown = re.search(r"unknown field `([^`]*)`", str(error))
    if unknown is not None:
        close = difflib.get_close_matches(unknown[1], types, n=1)
        guess = f"; did you mean `{close[0]}`?" if close else ""
        return f"unknown option `{unknown[1]}`{guess} ({listing})"
    at = re.search(r"at `\$\.(\w+)`$", str(error))
    if at is None or typing.get_origin(types.get(at[1])) is not typing.Literal:
        return f"{error}; {listing}"
    key, choices = at[1], [str(choice) for choice in typing.get_args(types[at[1]])]
    close = difflib.get_close_matches(str(options[key]), choices, n=1)
    guess = f"; did you mean {json.dumps(close[0])}?" if close else ""
    listed = ", ".join(map(json.dumps, choices))
    return f"{key} = {json.dumps(options[key], default=str)} is not one of {listed}{guess}"
