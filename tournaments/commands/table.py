"""`arena table DB`: the tables of a tournament's store, in any tabulate format, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tournaments.config import ConfigError, db_path, load
from tournaments.errors import UsageError
from tournaments.exclusion import hidden, visible
from tournaments.output import add_output_options, render_tables, write_csv_files
from tournaments.results import FinishedGame
from tournaments.store import GameKey, Store
from tournaments.tables import GAMES_TABLE, TABLE_NAMES, build

DEFAULT_TABLES = ("standings", "crosstable")


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """Which tables and how to rate (shared with `arena run` and `arena add`)."""
    parser.add_argument(
        "-t",
        "--table",
        action="append",
        choices=(*TABLE_NAMES, GAMES_TABLE, "all"),
        help=f"a table to print, repeatable: {', '.join(TABLE_NAMES)} or all "
        f"(default: {' and '.join(DEFAULT_TABLES)}; standings alone with --csv); "
        f"{GAMES_TABLE}: every game with its id (for `arena replay STORE GAME`), not in all",
    )
    parser.add_argument(
        "--csv-dir",
        type=Path,
        metavar="DIR",
        help="write every table asked (default: all) as DIR/<table>.csv instead of printing",
    )
    parser.add_argument(
        "--anchor",
        metavar="BOT[=ELO]",
        help="give BOT this Elo (default 1500) instead of anchoring the mean at 1500",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        metavar="N",
        help="bootstrap resamples for the 95%% intervals (default 200; 0: none)",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="NAME[@HASH]",
        help="leave out every game this bot sat in, repeatable (as `arena remove` does for "
        "good: whole games, so its opponents keep no wins against it)",
    )
    add_output_options(parser)


def anchor_of(args: argparse.Namespace) -> tuple[str | None, float]:
    if args.anchor is None:
        return None, 1500.0
    name, _, elo = args.anchor.partition("=")
    try:
        return name, float(elo) if elo else 1500.0
    except ValueError:
        raise UsageError(f"--anchor {args.anchor!r}: expected BOT or BOT=ELO") from None


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


def store_path(path: Path) -> Path:
    """The store itself, or the store of a tournament file."""
    if path.suffix == ".toml":
        try:
            return db_path(load(path), path)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    return path


def table_names(args: argparse.Namespace) -> list[str]:
    default = ["all"] if args.csv_dir else ["standings"] if args.csv else list(DEFAULT_TABLES)
    asked = args.table or default
    names = list(TABLE_NAMES) if "all" in asked else list(dict.fromkeys(asked))
    if args.csv and len(names) > 1:
        raise UsageError(
            "--csv prints one table; choose it with --table, or write each table to its own "
            "file with --csv-dir DIR"
        )
    return names


def handle(args: argparse.Namespace) -> int:
    names = table_names(args)
    path = store_path(args.db)
    if not path.is_file():
        raise UsageError(f"no store at {path} (run the tournament first: arena run FILE)")
    with Store(path, readonly=True) as store:  # a StoreError goes on to `main`: exit 1
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


def print_tables(
    games: Sequence[FinishedGame],
    names: list[str],
    args: argparse.Namespace,
    *,
    keys: Sequence[GameKey] | None = None,
) -> None:
    """Print (or write as CSV) the named tables; `keys` (the store's) for the games table."""
    anchor, anchor_elo = anchor_of(args)
    try:
        tables = build(
            names, games, anchor=anchor, anchor_elo=anchor_elo, bootstrap=args.bootstrap, keys=keys
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.csv_dir:
        for path in write_csv_files(tables, args.csv_dir):
            print(f"arena: wrote {path}", file=sys.stderr)
        return
    print(render_tables(tables, args))
