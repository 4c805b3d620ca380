"""`arena run FILE`: play (or resume) a tournament, then print the ladder and the crosstable."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import trio
from rich.console import Console

from tournaments.cli import UsageError
from tournaments.commands.table import add_table_options, print_tables, table_names
from tournaments.config import ConfigError
from tournaments.live import LiveView
from tournaments.prepare import Prepared, prepare
from tournaments.runner import Runner, RunReport, Voided
from tournaments.store import StoreError


def add_tournament_options(parser: argparse.ArgumentParser) -> None:
    """Flags that override the tournament file (shared with `arena add`)."""
    group = parser.add_argument_group("overriding the tournament file")
    group.add_argument("--db", type=Path, help="the SQLite store (default: FILE with .sqlite)")
    group.add_argument("-j", "--concurrency", type=int, help="matches at once (0: one per core)")
    group.add_argument("--deals", type=int, help="deals per seat-set")
    group.add_argument("--seed", type=int, help="tournament seed (all deal seeds derive from it)")
    group.add_argument("--max-seat-sets", type=int, help="sample this many seat-sets at most")
    group.add_argument("--move-ms", type=int, help="time per decision (ms)")
    group.add_argument("--bank-ms", type=int, help="time bank (ms)")
    group.add_argument("--increment-ms", type=int, help="bank increment per decision (ms)")
    group.add_argument("--startup-ms", type=int, help="time from start to `ready` (ms)")
    group.add_argument("--sandbox", choices=["none", "bwrap"], help="run bots in bubblewrap")
    group.add_argument("--time-mode", choices=["wall", "cpu"], help="charge wall or CPU time")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run or resume a tournament",
        description="Play every game of the tournament in FILE that its store does not hold "
        "yet (so running it again resumes), then print the ladder and the crosstable.",
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="tournament file (TOML)")
    add_tournament_options(parser)
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def open_prepared(args: argparse.Namespace) -> Prepared:
    """The tournament of `args.file` with the command-line overrides, its store open."""
    try:
        return prepare(
            args.file,
            db=args.db,
            concurrency=args.concurrency,
            deals=args.deals,
            seed=args.seed,
            max_seat_sets=args.max_seat_sets,
            move_ms=args.move_ms,
            bank_ms=args.bank_ms,
            increment_ms=args.increment_ms,
            startup_ms=args.startup_ms,
            sandbox=args.sandbox,
            time_mode=args.time_mode,
        )
    except (ConfigError, StoreError) as exc:
        raise UsageError(str(exc)) from None


def play(prepared: Prepared, args: argparse.Namespace) -> RunReport | None:
    """Run the tournament with a live view on a terminal; None when stopped by Ctrl-C.

    Games finished before the interrupt are stored; the ones in flight are dropped (their bot
    processes are killed by the referee) and will be played by the next run.
    """
    console = Console(stderr=True)
    cores = os.cpu_count() or 1
    if prepared.tournament.workers > cores:
        print(
            f"arena: warning: {prepared.tournament.workers} matches at once on {cores} cores; "
            "bots will be charged for waiting for a core (false timeouts). "
            f"Use --concurrency {cores} or less.",
            file=sys.stderr,
        )
    view = None
    if not args.quiet and console.is_terminal:
        view = LiveView(prepared.file.stem, prepared.store.games(), console)
    began = time.monotonic()
    runner = Runner(
        prepared.tournament,
        prepared.store,
        prepared.players,
        limits=prepared.limits,
        on_start=view.on_start if view else None,
        on_game=view.on_game if view else None,
        on_void=report_void,
        on_probation=report_probation,
    )
    try:
        with view or contextlib.nullcontext():
            report = trio.run(runner.run)
    except BaseException as exc:
        if not _interrupted(exc):
            raise
        print(
            f"arena: interrupted; {runner.played} games played and stored. "
            f"Run `arena run {args.file}` again to resume.",
            file=sys.stderr,
        )
        return None
    if not args.quiet:
        print(
            f"arena: {report.played} games played, {report.stored_before} already stored, "
            f"{report.total} in the schedule ({time.monotonic() - began:.1f} s)",
            file=sys.stderr,
        )
    return report


def report_void(voided: Voided) -> None:
    """One line a maintainer can paste to reproduce a referee error (no bot is to blame)."""
    print(
        f"arena: referee error, game voided ({', '.join(voided.bots)}, deal {voided.deal}): "
        f"{voided.error}; reproduce with: {voided.command}",
        file=sys.stderr,
    )


def report_probation(label: str, fault: str) -> None:
    print(f"arena: {label} is on probation (faulty games in a row; last {fault})", file=sys.stderr)


def _interrupted(exc: BaseException) -> bool:
    """A Ctrl-C, possibly wrapped in exception groups by the nurseries it crossed."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_interrupted(inner) for inner in exc.exceptions)
    return isinstance(exc, KeyboardInterrupt)


def print_results(prepared: Prepared, args: argparse.Namespace) -> None:
    """The ladder and the crosstable, as `arena table` prints them by default."""
    games = prepared.store.games()
    if games:
        print_tables(games, table_names(args), args)


def play_and_report(args: argparse.Namespace) -> int:
    """Open the tournament, play what is left of it, print the tables; the exit code."""
    prepared = open_prepared(args)
    try:
        if play(prepared, args) is None:
            return 130
        print_results(prepared, args)
    finally:
        prepared.close()
    return 0


def handle(args: argparse.Namespace) -> int:
    return play_and_report(args)
