"""`arena remove STORE NAME[@HASH]`: take a bot out of a tournament's tables and later runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.tableview import store_path
from tournaments.errors import UsageError
from tournaments.store.exclusion import matching
from tournaments.store.store import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "remove",
        help="remove a bot (e.g. a mistyped one) from a tournament's tables",
        description="Remove a bot from the tournament: every game it sat in is left out of "
        "the tables and the ratings, whole (so its opponents keep no free wins against it), and "
        "later runs do not play it. The games stay in the store. NAME removes every version of "
        "the bot; NAME@HASH (as tables show an old version) only that one.",
    )
    parser.add_argument("db", type=Path, metavar="STORE", help="the store (or its TOML file)")
    parser.add_argument("bot", metavar="NAME[@HASH]", help="the bot to remove")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    path = store_path(args.db)
    if not path.is_file():
        raise UsageError(f"no store at {path}")
    with Store(path) as store:
        rows = matching(store.bots(), args.bot)
        labels = store.labels()
        games = store.games()
        store.exclude(row.id for row in rows)
    for row in rows:
        label = labels[row.id]
        count = sum(1 for game in games if label in game.bots)
        print(f"arena remove: {label} removed; its {count} games no longer count", file=sys.stderr)
    return 0
