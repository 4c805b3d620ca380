"""`arena league`: a league's authors and bots from the command line — make (or re-issue) an
author's token, disable or enable a bot or an author, freeze the season for its final. It
works on the league's files whether or not its server runs (a league whose server will not
start can be mended here), but for `freeze`, which needs the server stopped."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.common import EXIT_CODES, EXIT_OK
from tournaments.league.files import League
from tournaments.league.service import LeagueService


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
    freeze = actions.add_parser(
        "freeze",
        help="freeze the season for its final (with the server stopped)",
        description="Freeze the league's season: its ladder stops, and the next `arena serve` "
        "plays its final — the bots playing now, on fresh deals, every seat-set in every "
        "rotation, until every two neighbours in its standings are told apart or BUDGET games "
        "are played — then publishes its standings and opens the next season. A running "
        "server is frozen from its /league page or POST /api/league/freeze instead.",
    )
    freeze.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    freeze.add_argument(
        "--budget", type=int, required=True, metavar="GAMES", help="the final's most games"
    )
    parser.set_defaults(handler=handle)


def _league_and_name(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("file", type=Path, metavar="LEAGUE", help="the league file (TOML)")
    parser.add_argument("name", metavar="NAME", help=name)


def handle(args: argparse.Namespace) -> int:
    if args.action == "freeze":
        return freeze(args.file, args.budget)
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


def freeze(file: Path, budget: int) -> int:
    """Freeze the season, holding the league's lock: a running server keeps its season in
    memory, so it must be frozen through its own pages or API."""
    with LeagueService.opened(file) as service:
        season = service.freeze_offline(budget)
    print(
        f"arena league: season {season.number} frozen for its final of at most {budget} games; "
        f"`arena serve {file}` plays it",
        file=sys.stderr,
    )
    return EXIT_OK
