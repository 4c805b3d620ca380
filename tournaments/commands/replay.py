"""`arena replay`: re-play a game record (a file, or a game of a store) through the engine and
check it reproduces."""

from __future__ import annotations

import argparse
from pathlib import Path

import msgspec

from referee import (
    BadRecord,
    parse_record,
    printable,
    replay,
    replay_states,
)
from tournaments.commands.common import read_record_file
from tournaments.errors import InputError, UsageError
from tournaments.output import render_json
from tournaments.report.stored import is_store, stored_record
from tournaments.store.store import Store


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
    parser.add_argument(
        "--show",
        action="store_true",
        help="print every decision (seat, bot, action) and the state after it",
    )
    parser.add_argument("--json", action="store_true", help="print the replay report as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        data = read(args.record, args.game)
        if args.show:
            show(data)
        report = replay(data)
    except BadRecord as exc:
        where = args.record if args.game is None else f"{args.record} game {args.game}"
        raise InputError(f"{where} is not a valid game record: {exc}") from None
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


def show(data: bytes) -> None:
    """Print every replayed state, each after the actions that made it: the seat, its bot and
    the action as the protocol writes it (what a bot sends), so a reader sees who did what."""
    parsed = parse_record(data)
    names = [printable(name) for name in parsed.header.names]
    lines = iter(parsed.decisions)
    for decision, picture in replay_states(data):
        if decision == 0:
            print(f"=== start ===\n{picture}\n")
            continue
        line = next(lines)  # replay_states yields one state per decision line, in order
        for seat, raw in sorted(line.actions.items()):
            words = msgspec.json.encode(msgspec.json.decode(raw)).decode()
            fallback = " (chosen by the fallback policy)" if seat in line.fallback else ""
            print(f"decision {decision}: seat {seat} ({names[seat]}) plays {words}{fallback}")
        print(f"=== after decision {decision} ===\n{picture}\n")


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
    return read_record_file(path)
