"""`arena replay`: re-play a game record (a file, or a game of a store) through the engine and
check it reproduces."""

from __future__ import annotations

import argparse
from pathlib import Path

from referee import BadRecord, replay, replay_states
from referee.games import UnknownGame
from tournaments.errors import UsageError
from tournaments.output import render_json
from tournaments.report.stored import is_store, stored_record
from tournaments.store import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-play a game record and check the result is identical",
        description=(
            "Re-play a game record (written by `arena match --record` or `arena export`, or a "
            "game of a tournament's store) through the rules engine and check that it reaches "
            "exactly the recorded result. Exit code 0 when identical, 1 when the replay diverges."
        ),
    )
    parser.add_argument(
        "record", type=Path, metavar="RECORD", help="a .jsonl game record, or a store (.sqlite)"
    )
    parser.add_argument(
        "game",
        type=int,
        nargs="?",
        metavar="GAME",
        help="with a store: the game's id (`arena table STORE -t games` lists them)",
    )
    parser.add_argument("--show", action="store_true", help="print the state after every decision")
    parser.add_argument("--json", action="store_true", help="print the replay report as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    data = read(args.record, args.game)
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


def read(path: Path, game: int | None) -> bytes:
    """The record in file `path`, or of game `game` of the store at `path`."""
    if is_store(path):
        if game is None:
            raise UsageError(
                f"{path} is a store: name the game to replay (`arena replay {path} GAME`; "
                f"`arena table {path} -t games` lists the ids)"
            )
        with Store(path, readonly=True) as store:
            return stored_record(store, game)
    if game is not None:
        raise UsageError(f"GAME {game}: {path} is a record file, not a store")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
