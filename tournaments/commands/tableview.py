"""The table options and output that `arena table`, `arena run` and `arena add` share, and
the store a path names (for `arena report`, `export` and `remove` too)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tournaments.errors import UsageError
from tournaments.output import add_output_options, render_tables, write_csv_files
from tournaments.plan.config import db_path, load
from tournaments.rank.tables import GAMES_TABLE, TABLE_NAMES, build
from tournaments.store.results import FinishedGame, GameKey

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
        help="bootstrap resamples for the 95%% intervals and the rank probabilities "
        "(default 200; 0: none)",
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


def store_path(path: Path) -> Path:
    """The store itself, or the store of a tournament file."""
    if path.suffix == ".toml":
        return db_path(load(path), path)
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


def print_tables(
    games: Sequence[FinishedGame],
    names: list[str],
    args: argparse.Namespace,
    *,
    keys: Sequence[GameKey] | None = None,
) -> None:
    """Print (or write as CSV) the named tables; `keys` (the store's) for the games table."""
    anchor, anchor_elo = anchor_of(args)
    tables = build(
        names, games, anchor=anchor, anchor_elo=anchor_elo, bootstrap=args.bootstrap, keys=keys
    )
    if args.csv_dir:
        for path in write_csv_files(tables, args.csv_dir):
            print(f"arena: wrote {path}", file=sys.stderr)
        return
    if args.json or args.csv:
        print(render_tables(tables, args))
        return
    # For people: each table under its title, its notes under it (a cycle under the standings).
    print("\n\n".join("\n".join([render_tables([table], args), *table.notes]) for table in tables))
