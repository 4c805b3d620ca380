"""`arena report STORE`: a static HTML report of a tournament, with a viewer for every game."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tournaments.commands.tableview import store_path
from tournaments.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write an HTML report: ladder, tables, game lists and a viewer for every game",
        description="Write a static, self-contained HTML report of a tournament's store "
        "(opens from file://, no network): the ladder with its 95%% intervals, the crosstable "
        "as a heat map, head-to-head, seats, faults and timing (the numbers of `arena table`), "
        "a filterable list of the games and a step-by-step viewer for each. The page is "
        "DIR/index.html; the games' steps are in DIR/games/, a script per block of a hundred "
        "games, loaded when one of them is opened. Written again into the same DIR, the report "
        "re-plays only the games whose blocks changed (new games, a removed bot).",
    )
    parser.add_argument(
        "db", type=Path, metavar="STORE", help="the tournament's store (or its TOML file)"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR|FILE",
        help="the report's directory (default: the store's name with -report), or FILE.html "
        "(its games then go to FILE-games/ beside it)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        metavar="N",
        help="bootstrap resamples for the 95%% intervals (default 200, as `arena table`)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="processes re-playing the games for the viewer (default 0: one per core)",
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="a report to publish, as a league publishes its finals': each fault's kind and "
        "decision but not its reason (which quotes the bot's stderr), each seat by its name, "
        "not its command",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from tournaments.report.page import write_report  # the report's code loads only here

    path = store_path(args.db)
    if not path.is_file():
        raise UsageError(f"no store at {path} (run the tournament first: arena run FILE)")
    out = args.output or path.with_name(path.stem + "-report")
    started = time.monotonic()
    try:
        index = write_report(
            path, out, bootstrap=args.bootstrap, workers=args.jobs, public=args.public
        )
    except OSError as exc:
        raise UsageError(f"cannot write the report into {out}: {exc}") from None
    print(f"arena: wrote {index} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0
