"""`arena rerun RECORD BOT`: run a bot again on one seat of a recorded game — a seat record
downloaded with `arena fetch --out` — and say whether it answers as the recorded bot did, where
it first differs, or that it faults just as in the game."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from referee import Limits
from tournaments.commands.common import (
    EXIT_ERROR,
    EXIT_FAULT,
    EXIT_OK,
    EXIT_USAGE,
    add_sandbox_option,
    add_time_mode_option,
    chosen_sandbox,
    read_record_file,
    run_trio,
)
from tournaments.errors import InputError, UsageError
from tournaments.output import render_json
from tournaments.plan.botcommands import BotCommandError, parse_bot
from tournaments.store.botlogs import announce, log_directory

if TYPE_CHECKING:  # the rerun's fakes (and trio.testing) load when it runs
    from referee import RerunReport

EPILOG = f"""\
examples:
  arena fetch http://league:8000 my-bot --faulted --out games/
  arena rerun games/game-33-seat1.jsonl 'python3 my_bot.py'

exit codes:
  {EXIT_OK}    the bot answered every request as the recorded bot did, and neither faulted
  {EXIT_ERROR}    it diverges: another answer, or a fault the recorded bot did not make (or
       none where it did); the decision is named. Also: the record cannot be read, or
       holds no `start` of the seat
  {EXIT_USAGE}    a mistake in the command line (a missing file, a bot command that cannot run)
  {EXIT_FAULT}    it faulted just as in the game: the same kind of fault at the same decision"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "rerun",
        help="run a bot again on a seat of a recorded game, to reproduce what it did",
        description=(
            "Play the game of RECORD again with BOT in one seat: the recorded game, options "
            "and seed, the seat's own recorded `start` (its seed), and the other seats "
            "answering as they did in the game. The real referee asks BOT as it asked the "
            "recorded bot (the same requests, for as long as it answers the same), judges "
            "its answers as in the game (crash, bad answer, illegal action, timeout), and "
            "compares them with the recorded ones: it says where BOT first answers "
            "otherwise, or that it faulted at decision N just as in the game. RECORD is a "
            "seat record (`arena fetch --out` with your token: game-ID-seatN.jsonl) or any "
            "record holding that seat's `start` (`arena match --record`, with --seat)."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("record", type=Path, metavar="RECORD", help="a .jsonl game record")
    parser.add_argument(
        "bot",
        metavar="BOT",
        help="the bot to run: a built-in bot's name or a command line in one string, as in "
        "`arena match`",
    )
    parser.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="the seat to re-run (default: the seat of a seat record, the one whose `start` "
        "it holds)",
    )
    add_time_mode_option(parser, "cpu")
    add_sandbox_option(parser, "auto")
    parser.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep the bot's stderr log in DIR (default: a temporary directory, kept and "
        "named when the bot wrote to stderr)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from referee import BadRecord, rerun_seat

    data = read_record_file(args.record)
    try:
        spec = parse_bot(args.bot)
    except BotCommandError as exc:
        raise UsageError(str(exc)) from None
    sandbox = chosen_sandbox(args.sandbox)
    with log_directory(args.logs) as log_dir:
        limits = Limits(sandbox=sandbox, time_mode=args.time_mode, log_dir=log_dir)
        try:
            report = run_trio(rerun_seat, data, args.seat, spec, limits)
        except BadRecord as exc:
            raise InputError(f"{args.record} cannot be re-run: {exc}") from None
        announce([report.logs], [spec.name])
    print(render_json(report) if args.json else words(report))
    return {"same": EXIT_OK, "fault": EXIT_FAULT}.get(report.verdict, EXIT_ERROR)


def words(report: RerunReport) -> str:
    """The report as a person reads it."""
    seat = f"seat {report.seat}"
    if report.verdict == "same":
        return f"{seat}: the same {report.answered} answers as the recorded bot, and no fault"
    if report.verdict == "fault":
        assert report.fault is not None
        return (
            f"{seat}: reproduced: after the same {report.answered} answers, it faulted at "
            f"decision {report.decision} as the recorded bot did: {report.fault.kind}: "
            f"{report.fault.reason}"
        )
    lines = [
        f"{seat}: DIVERGES at decision {report.decision}, after the same {report.answered} of "
        f"{report.recorded} recorded answers: {report.divergence}"
    ]
    if report.fault is not None:
        lines.append(f"its fault: {report.fault.kind}: {report.fault.reason}")
    return "\n".join(lines)
