"""`arena add FILE NAME COMMAND`: check a bot, add it to a tournament (its file), and play its
games."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tournaments.commands.common import EXIT_CODES, EXIT_ERROR, EXIT_OK, run_trio
from tournaments.commands.tableview import add_table_options
from tournaments.commands.tournament import (
    add_tournament_options,
    open_prepared,
    play_and_report,
)
from tournaments.play.admission import Rejected
from tournaments.play.enrolment import candidate, check, enrol


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "add",
        help="add a bot to a tournament and play its games",
        description="Check the bot (handshake and one game against random; a failing bot is "
        "rejected with the reason), write it into FILE's [participants] (comments and layout "
        "kept; paths made absolute), and play the games it is in: the other games are already "
        "stored. If FILE cannot be written, the store keeps the bot instead, and says so; "
        "either way later runs of FILE include it.",
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
        entrant, command = candidate(prepared, args.name, args.command)
        try:
            run_trio(check, prepared, entrant)
        except Rejected as exc:
            print(f"arena add: {exc}", file=sys.stderr)
            return EXIT_ERROR
        enrolled = enrol(prepared, args.file, entrant, command)
        if enrolled.kept_by_store is not None:
            print(
                f"arena add: could not write {args.name} into {args.file} "
                f"({enrolled.kept_by_store}); it passed its check and joins later runs through "
                "the store",
                file=sys.stderr,
            )
        elif not args.quiet:
            print(
                f"arena add: {args.name} passed its check; added `{enrolled.entry}` to {args.file}",
                file=sys.stderr,
            )
        if args.no_run:
            return EXIT_OK
    finally:
        prepared.close()
    # Open again: the new bot is now among the players (and an earlier version of it, if any,
    # is relabelled name@hash; the file's entry is the same bot: same command, same hash).
    return play_and_report(args, checked={args.name})
