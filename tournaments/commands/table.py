"""`arena table DB`: the tables of a tournament's store, in any tabulate format, JSON or CSV."""

from __future__ import annotations

import argparse
from pathlib import Path

from tournaments.commands.tableview import add_table_options, print_tables, store_path, table_names
from tournaments.errors import UsageError
from tournaments.rank.tables import GAMES_TABLE
from tournaments.store.exclusion import hidden, visible
from tournaments.store.store import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "table",
        help="print a tournament's tables",
        description="Print tables of the games stored so far (a run may be going on).",
    )
    parser.add_argument(
        "db", type=Path, metavar="DB", help="the tournament's store (or its TOML file)"
    )
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    names = table_names(args)
    path = store_path(args.db)
    if not path.is_file():
        raise UsageError(f"no store at {path} (run the tournament first: arena run FILE)")
    # One snapshot: a run storing games meanwhile cannot shift the keys against the games.
    with Store(path, readonly=True) as store, store.snapshot():  # StoreError: exit 1 in `main`
        everything = store.games()
        games = visible(everything, hidden(store, args.exclude))
        keys = store.game_keys() if GAMES_TABLE in names else None
    if not games:
        raise UsageError(f"{path} holds no finished games yet")
    if keys is not None:  # the keys of the games shown, in their order
        shown = {id(game) for game in games}
        keys = [key for game, key in zip(everything, keys, strict=True) if id(game) in shown]
    print_tables(games, names, args, keys=keys)
    return 0
