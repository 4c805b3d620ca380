"""`arena replay`: re-play a game record through the engine and check it reproduces."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee import BadRecord, replay, replay_states
from referee.games import UnknownGame
from tournaments.cli import UsageError
from tournaments.output import render_json


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-play a game record and check the result is identical",
        description=(
            "Re-play a game record (written by `arena match --record` or stored by a tournament) "
            "through the rules engine and check that it reaches exactly the recorded result. "
            "Exit code 0 when identical, 1 when the replay diverges."
        ),
    )
    parser.add_argument("record", type=Path, metavar="RECORD", help="a .jsonl game record")
    parser.add_argument("--show", action="store_true", help="print the state after every decision")
    parser.add_argument("--json", action="store_true", help="print the replay report as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        data = args.record.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {args.record}: {exc.strerror}") from None
    try:
        if args.show:
            for decision, picture in replay_states(data):
                heading = "start" if decision == 0 else f"after decision {decision}"
                print(f"=== {heading} ===\n{picture}\n")
        report = replay(data)
    except (BadRecord, UnknownGame) as exc:
        raise UsageError(f"{args.record} is not a valid game record: {exc}") from None
    if args.json:
        print(render_json(report))
    elif report.identical:
        result = report.replayed
        assert result is not None
        print(
            f"{report.game} seed {report.seed}: {report.decisions} decisions replayed, "
            f"result identical (scores {result.scores}, ranks {result.ranks})"
        )
    else:
        print(f"{report.game} seed {report.seed}: replay DIVERGES: {report.divergence}")
    return 0 if report.identical else 1
