"""`arena league`: a league's authors and bots from the command line — make (or re-issue) an
author's token, disable or enable a bot or an author. It works on the league's files whether
or not its server runs: a league whose server will not start can be mended here."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.common import EXIT_CODES, EXIT_OK
from tournaments.league.league import League


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "league",
        help="a league's authors and bots: tokens, disable and enable",
        description="Manage a league's authors and bots (its server may be running: a change "
        "takes effect at its next ladder round and page).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    token = actions.add_parser(
        "token",
        help="make NAME's upload token (printed once; only its hash is kept)",
        description="Print a new upload token for author NAME; an earlier token of NAME stops "
        "working, and so do the browser sessions it signed in. Only its hash is stored: keep "
        "the printed token, it cannot be shown again.",
    )
    _league_and_name(token, "the author")
    token.add_argument(
        "--organiser", action="store_true", help="the token may also disable bots and authors"
    )
    for action, what in (("disable", "out of"), ("enable", "back into")):
        for kind, effect in (
            ("bot", f"puts an uploaded bot {what} the ladder"),
            ("author", f"lets an author's token {'no longer ' if action == 'disable' else ''}"
             "sign in or upload"),
        ):  # fmt: skip
            command = actions.add_parser(
                f"{action}-{kind}", help=f"{action} a {kind}: {effect}", description=effect
            )
            _league_and_name(command, f"the {kind}")
    parser.set_defaults(handler=handle)


def _league_and_name(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    parser.add_argument("name", metavar="NAME", help=name)


def handle(args: argparse.Namespace) -> int:
    with League(args.file) as league:
        registry = league.registry
        if args.action == "token":
            token = registry.new_token(args.name, organiser=args.organiser)
            author = registry.author(args.name)
            print(token)
            print(
                f"arena league: the upload token of {args.name}; it is not stored: keep it",
                file=sys.stderr,
            )
            if author is not None and author.disabled:
                print(
                    f"arena league: {args.name} is disabled: this token works once they are "
                    f"enabled (arena league enable-author {args.file} {args.name})",
                    file=sys.stderr,
                )
            return EXIT_OK
        action, kind = args.action.split("-")
        disabled = action == "disable"
        if kind == "bot":
            registry.set_bot_disabled(args.name, disabled)
        else:
            registry.set_author_disabled(args.name, disabled)
    print(f"arena league: {kind} {args.name} {action}d", file=sys.stderr)
    return EXIT_OK
