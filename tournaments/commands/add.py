"""`arena add FILE NAME COMMAND`: check a bot, add it to a tournament, and play its games."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.admission import Rejected, check_bot
from tournaments.commands.common import EXIT_CODES, EXIT_ERROR, EXIT_OK, run_trio
from tournaments.commands.run import (
    add_tournament_options,
    open_prepared,
    play_and_report,
)
from tournaments.commands.table import add_table_options
from tournaments.config import ConfigError
from tournaments.entrants import portable_command
from tournaments.errors import UsageError
from tournaments.prepare import resolve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "add",
        help="add a bot to a tournament and play its games",
        description="Check the bot (handshake and one game against random; a failing bot is "
        "rejected with the reason), add it to the tournament's store, and play the games it "
        "is in: the other games are already stored. Later runs of FILE include it.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="tournament file (TOML)")
    parser.add_argument("name", metavar="NAME", help="the bot's name in tables")
    parser.add_argument("command", metavar="COMMAND", help="a built-in bot or a command line")
    parser.add_argument(
        "--no-run", action="store_true", help="only check and add; play its games later"
    )
    add_tournament_options(parser)
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    prepared = open_prepared(args)
    try:
        tournament = prepared.tournament
        if args.name in tournament.participants:
            raise UsageError(f"{args.name!r} is already a participant in {args.file}")
        try:
            command = portable_command(args.command)
            candidate = resolve(args.name, command, None)
        except (ConfigError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        try:
            run_trio(check_bot, tournament, candidate, prepared.limits)
        except Rejected as exc:
            print(f"arena add: {exc}", file=sys.stderr)
            return EXIT_ERROR
        store = prepared.store
        store.bot(candidate.name, candidate.command, candidate.hash, added=True)
        if not args.quiet:
            print(
                f"arena add: {args.name} passed its check and joins the tournament", file=sys.stderr
            )
        if args.no_run:
            return EXIT_OK
    finally:
        prepared.close()
    # Open again: the new bot is now among the players (and an earlier version of it, if any,
    # is relabelled name@hash).
    return play_and_report(args, checked={args.name})
