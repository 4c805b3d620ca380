"""`arena run FILE`: play (or resume) a tournament, then print the ladder and the crosstable."""

from __future__ import annotations

import argparse
from pathlib import Path

from tournaments.commands.common import EXIT_CODES
from tournaments.commands.tableview import add_table_options
from tournaments.commands.tournament import add_tournament_options, play_and_report


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run or resume a tournament",
        description="Play every game of the tournament in FILE that its store does not hold "
        "yet (so running it again resumes), then print the ladder and the crosstable. "
        "Participants without games in the store are checked first (handshake and one game "
        "against random); if one fails, nothing is played.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="tournament file (TOML)")
    add_tournament_options(parser)
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return play_and_report(args)
