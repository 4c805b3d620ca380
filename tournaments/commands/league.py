"""`arena league token LEAGUE NAME`: make (or re-issue) an author's upload token."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.common import EXIT_CODES, EXIT_OK
from tournaments.league.league import League


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "league",
        help="a league's authors: make their upload tokens",
        description="Manage a league's authors (the server may be running).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    token = actions.add_parser(
        "token",
        help="make NAME's upload token (printed once; only its hash is kept)",
        description="Print a new upload token for author NAME; an earlier token of NAME stops "
        "working. Only its hash is stored: keep the printed token, it cannot be shown again.",
    )
    token.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    token.add_argument("name", metavar="NAME", help="the author")
    token.add_argument(
        "--organiser", action="store_true", help="the token may also disable bots and authors"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    with League(args.file) as league:
        token = league.registry.new_token(args.name, organiser=args.organiser)
    print(token)
    print(
        f"arena league: the upload token of {args.name}; it is not stored: keep it", file=sys.stderr
    )
    return EXIT_OK
