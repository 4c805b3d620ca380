"""`arena export STORE -o DIR`: a store's games as JSON-lines records that `arena replay` checks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee import BadRecord
from tournaments.commands.tableview import store_path
from tournaments.errors import InputError, UsageError
from tournaments.report.steps import with_observations
from tournaments.report.stored import is_store, stored_record
from tournaments.store.store import Store


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a store's games as game records (DIR/<id>.jsonl)",
        description="Write stored games as JSON-lines game records, one file per game named by "
        "its id (`arena table STORE -t games` lists them); `arena replay FILE` checks each.",
    )
    parser.add_argument(
        "db", type=Path, metavar="STORE", help="the tournament's store (or its TOML file)"
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True, metavar="DIR", help="directory to write into"
    )
    parser.add_argument(
        "--game",
        type=int,
        action="append",
        metavar="ID",
        help="export this game only, repeatable (default: every stored game)",
    )
    parser.add_argument(
        "--observations",
        action="store_true",
        help="add to every decision line what each asked seat was sent: `observations` and "
        "`legal` by seat (to check a game with your own rules code, or to learn from it)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite existing files")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    path = store_path(args.db)
    if not is_store(path):
        raise UsageError(f"{path} is not a tournament store (an SQLite file)")
    try:
        args.output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {args.output}: {exc.strerror}") from None
    with Store(path, readonly=True) as store:
        ids = args.game or [key.id for key in store.game_keys()]
        for game_id in ids:
            try:
                record = stored_record(store, game_id)
                if args.observations:
                    record = with_observations(record)
            except BadRecord as exc:
                raise InputError(f"{path}: game {game_id} does not replay: {exc}") from None
            write(args.output / f"{game_id}.jsonl", record, force=args.force)
    print(f"arena: wrote {len(ids)} game records to {args.output}", file=sys.stderr)
    return 0


def write(path: Path, data: bytes, *, force: bool) -> None:
    try:
        with path.open("wb" if force else "xb") as file:
            file.write(data)
    except FileExistsError:
        raise UsageError(f"{path} exists; add --force to overwrite it") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
