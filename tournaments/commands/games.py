"""`arena games`: the games this framework knows, their player counts and options."""

from __future__ import annotations

import argparse
import json
import typing
from typing import Any

import msgspec

from referee.games import GAME_IDS, find_game
from tournaments.output import add_output_options, render_csv, render_json, render_table


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "games", help="list games, variants and options", description=__doc__
    )
    parser.add_argument(
        "game",
        nargs="?",
        metavar="GAME",
        help="one game: its options and the tables of its pieces a bot needs (Alhambra's "
        "buildings), with --json as data",
    )
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def _describe_type(annotation: Any) -> str:
    choices = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return " | ".join(json.dumps(choice) for choice in choices)
    return getattr(annotation, "__name__", str(annotation))


def toml_value(value: Any) -> str:
    """A default as it is written in a tournament file's `options` (TOML: `false`, `"grey"`)."""
    return json.dumps(msgspec.to_builtins(value))


def game_rows() -> list[dict[str, Any]]:
    rows = []
    for game_id in GAME_IDS:
        game = find_game(game_id)
        options = {
            field.name: {"type": _describe_type(field.type), "default": field.default}
            for field in msgspec.structs.fields(game.Options)
        }
        rows.append(
            {
                "id": game.id,
                "title": game.title,
                "players": f"{game.min_players}-{game.max_players}",
                "options": options,
            }
        )
    return rows


def handle(args: argparse.Namespace) -> int:
    if args.game is not None:
        return show_game(args)
    rows = game_rows()
    if args.json:
        print(render_json(rows))
        return 0
    headers = ["game", "title", "players", "options (KEY = default (type))"]
    table = [
        [
            row["id"],
            row["title"],
            row["players"],
            "\n".join(
                f"{name} = {toml_value(spec['default'])} ({spec['type']})"
                for name, spec in row["options"].items()
            ),
        ]
        for row in rows
    ]
    print(render_csv(headers, table) if args.csv else render_table(headers, table, args.fmt))
    return 0


def show_game(args: argparse.Namespace) -> int:
    """One game: its row of the list and each of its reference tables (`Game.reference`)."""
    game = find_game(args.game)
    [row] = [row for row in game_rows() if row["id"] == game.id]
    if args.json:
        print(render_json({**row, **game.reference}))
        return 0
    for name, table in game.reference.items():
        headers = list(table[0]) if table else []
        cells = [[entry[key] for key in headers] for entry in table]
        if args.csv:
            print(render_csv(headers, cells))
        else:
            print(f"{game.title}: {name}")
            print(render_table(headers, cells, args.fmt))
    if not game.reference and not args.csv:
        print(f"{game.title}: every piece a bot needs is in its messages (docs/games/).")
    return 0
