"""`arena workers STORE`: who played the games, so that a slow or broken machine stands out."""

from __future__ import annotations

import argparse
from pathlib import Path

import msgspec
from tabulate import tabulate

from tournaments.commands.tableview import store_path
from tournaments.errors import UsageError
from tournaments.executors.ondask import MAX_FAILURES
from tournaments.store.store import Store, WorkerRow


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "workers",
        help="the workers that played a tournament's games, with their faults and refusals",
        description="Each worker that played or sent a game of the tournament: its games, its "
        "bots' faults and timeouts per 1,000 decisions (a machine slower or busier than the "
        "others times out more), the games refused because they did not replay or were not "
        "confirmed by the coordinator's own play, and the units it failed (a task that raised, "
        "never answered, or sent results too large or unreadable). A worker with a refused game, "
        f"or {MAX_FAILURES} failed units, was blocked: sent no more units by the server or run "
        "that saw it. --refused prints the reasons.",
    )
    parser.add_argument("db", type=Path, metavar="STORE", help="the store (or its TOML file)")
    parser.add_argument("--json", action="store_true", help="the rows as JSON")
    parser.add_argument("--refused", action="store_true", help="each refused game's reason")
    parser.add_argument(
        "--save",
        type=Path,
        metavar="DIR",
        help="write each refused game's record to DIR/refused-N.jsonl (for `arena replay`)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    path = store_path(args.db)
    if not path.is_file():
        raise UsageError(f"no store at {path}")
    with Store(path, readonly=True) as store, store.snapshot():
        rows = store.workers()
        refused = store.refused_games() if args.refused or args.save else []
        failed = store.failed_units() if args.refused else []
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
        for number, (_, _, record) in enumerate(refused, start=1):
            (args.save / f"refused-{number}.jsonl").write_bytes(record)
        print(f"arena workers: {len(refused)} refused records written to {args.save}")
    if args.json:
        print(msgspec.json.encode(rows).decode())
        return 0
    if not rows:
        print("no game of this store names its worker (stored before workers were recorded)")
        return 0
    print(tabulate([_line(row) for row in rows], headers=HEADERS, disable_numparse=True))
    for worker, reason, _ in refused if args.refused else []:
        print(f"refused from {worker}: {reason}")
    for worker, reason in failed:
        print(f"failed on {worker}: {reason}")
    return 0


HEADERS = (
    "worker", "games", "faults", "timeouts", "timeouts/1k decisions", "refused", "failed",
    "blocked",
)  # fmt: skip


def blocked(row: WorkerRow) -> bool:
    """Whether the worker was sent no more units: a game of it refused, or too many failures."""
    return row.refused > 0 or row.failed >= MAX_FAILURES


def _line(row: WorkerRow) -> tuple[str, ...]:
    per_1k = 1000 * row.timeouts / row.decisions if row.decisions else 0.0
    return (
        row.worker,
        str(row.games),
        str(row.faults),
        str(row.timeouts),
        f"{per_1k:.2f}",
        str(row.refused),
        str(row.failed),
        "yes" if blocked(row) else "",
    )
