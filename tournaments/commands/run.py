"""`arena run FILE`: play (or resume) a tournament, then print the ladder and the crosstable."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import time
from collections.abc import Collection
from pathlib import Path

from rich.console import Console

from tournaments.admission import check_all
from tournaments.commands.common import (
    EXIT_CODES,
    EXIT_ERROR,
    EXIT_FAULT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    Terminated,
    add_sandbox_option,
    add_time_options,
    positive,
    run_trio,
)
from tournaments.commands.table import add_table_options, print_tables, table_names
from tournaments.config import TIME_RANGES, ConfigError, ExecutorKind
from tournaments.errors import UsageError
from tournaments.exclusion import hidden, visible
from tournaments.executors import Executor, ExecutorError
from tournaments.executors.choose import executor_for
from tournaments.live import LiveView, TextProgress
from tournaments.output import plural
from tournaments.prepare import Prepared, prepare
from tournaments.results import FinishedGame
from tournaments.runner import Runner, Voided

EXECUTORS: tuple[ExecutorKind, ...] = ("local", "inprocess", "dask")
OVERRIDES: tuple[str, ...] = (
    *("db", "concurrency", "executor", "dask", "deals", "seed", "max_seat_sets"),
    *TIME_RANGES,
    *("sandbox", "time_mode"),
)
"""The flags that override the tournament file (by their dest): the command that resumes a run
repeats them, since without them it would be another schedule (or settings the store refuses)."""


def add_tournament_options(parser: argparse.ArgumentParser) -> None:
    """Flags that override the tournament file, and how a run reports (shared with `arena add`)."""
    group = parser.add_argument_group("overriding the tournament file")
    group.add_argument("--db", type=Path, help="the SQLite store (default: FILE with .sqlite)")
    group.add_argument("-j", "--concurrency", type=int, help="matches at once (0: one per core)")
    group.add_argument(
        "--executor",
        choices=EXECUTORS,
        help="where the matches run: local (a referee process per match at once), inprocess "
        "(all in this process), dask (a Dask cluster: --dask ADDRESS, else a LocalCluster)",
    )
    group.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="play on the Dask cluster of this scheduler (tcp://host:8786); implies "
        "--executor dask (see docs/scaling.md)",
    )
    group.add_argument("--deals", type=positive, help="deals per seat-set")
    group.add_argument("--seed", type=int, help="tournament seed (all deal seeds derive from it)")
    group.add_argument("--max-seat-sets", type=positive, help="sample this many seat-sets at most")
    add_time_options(group, None)
    add_sandbox_option(group, None)
    group.add_argument("--time-mode", choices=["wall", "cpu"], help="charge wall or CPU time")
    report = parser.add_argument_group("reporting")
    report.add_argument(
        "-q", "--quiet", action="store_true", help="print only warnings, errors and the tables"
    )
    report.add_argument(
        "--progress-every",
        type=positive,
        metavar="N",
        help="print a line every N finished games (and every faulty game) instead of the live "
        "display; the default without a terminal, with N = 1",
    )
    report.add_argument(
        "--ladder-every",
        type=positive,
        metavar="M",
        help="print the ladder every M finished games (implies line output)",
    )
    report.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with code {EXIT_FAULT} when a bot faulted in a game of this run",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run or resume a tournament",
        description="Play every game of the tournament in FILE that its store does not hold "
        "yet (so running it again resumes), then print the ladder and the crosstable. "
        "Participants without games in the store are checked first (handshake and one game "
        "against random); if one fails, nothing is played.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, metavar="FILE", help="tournament file (TOML)")
    add_tournament_options(parser)
    add_table_options(parser)
    parser.set_defaults(handler=handle)


def open_prepared(args: argparse.Namespace, *, warn: bool = True) -> Prepared:
    """The tournament of `args.file` with the command-line overrides, its store open; `warn`
    prints the sandbox's warning, if any (once per command)."""
    try:
        prepared = prepare(
            args.file,
            db=args.db,
            concurrency=args.concurrency,
            executor="dask" if args.dask else args.executor,
            scheduler=args.dask,
            deals=args.deals,
            seed=args.seed,
            max_seat_sets=args.max_seat_sets,
            move_ms=args.move_ms,
            bank_ms=args.bank_ms,
            increment_ms=args.increment_ms,
            startup_ms=args.startup_ms,
            first_move_ms=args.first_move_ms,
            sandbox=args.sandbox,
            time_mode=args.time_mode,
        )
    except ConfigError as exc:  # a StoreError goes on to `main`: exit 1, the store is unusable
        raise UsageError(str(exc)) from None
    if warn and prepared.sandbox.warning:
        print(f"arena: {prepared.sandbox.warning}", file=sys.stderr)
    return prepared


def check_playable(prepared: Prepared) -> None:
    """The participants left after removals can still make up the games."""
    t = prepared.tournament
    labels = [player.label for player in prepared.players]
    if len(labels) < t.players:
        raise UsageError(
            f"{t.players} players per game, but only {len(labels)} participants are left "
            f"after removing {', '.join(prepared.removed)}"
        )
    names = {player.entrant.name for player in prepared.players}
    if t.candidate is not None and t.candidate not in names:
        raise UsageError(f"the gauntlet's candidate {t.candidate!r} was removed")


def check_newcomers(prepared: Prepared, args: argparse.Namespace, checked: Collection[str]) -> int:
    """Check the participants with no games in the store (but those in `checked`); the exit
    code: 0 when all pass, else EXIT_ERROR after naming each failing bot and why."""
    played = {bot for game in prepared.store.games() for bot in game.bots}
    newcomers = [
        player.entrant
        for player in prepared.players
        if player.label not in played and player.entrant.name not in checked
    ]
    if not newcomers:
        return EXIT_OK
    if not args.quiet:
        names = ", ".join(entrant.name for entrant in newcomers)
        what = plural(len(newcomers), "new participant")
        print(f"arena: checking {what}: {names}", file=sys.stderr)
    rejections = run_trio(check_all, prepared.tournament, newcomers, prepared.limits)
    for rejection in rejections:
        print(f"arena: {rejection}", file=sys.stderr)
    if rejections:
        print(
            f"arena: nothing played; fix the participants above in {args.file} (or take them "
            "out) and run again",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


def resume_command(args: argparse.Namespace) -> str:
    """The `arena run` command line that resumes this run: its file and every flag that
    overrode the file (those of `arena add` too, which plays through `arena run`)."""
    words = ["arena", "run", str(args.file)]
    for dest in OVERRIDES:
        value = getattr(args, dest)
        if value is not None:
            words += ["--" + dest.replace("_", "-"), str(value)]
    return shlex.join(words)


def beyond_schedule(prepared: Prepared, games: list[FinishedGame]) -> str | None:
    """A warning when the store holds games of these participants at deals this run's schedule
    does not reach (a larger run, stopped or not, that this one neither finishes nor plays)."""
    deals = prepared.tournament.deals
    labels = {player.label for player in prepared.players}
    top = max((game.deal for game in games if labels.issuperset(game.bots)), default=-1)
    if top < deals:
        return None
    return (
        f"the store holds games of deals up to {top}; this run's schedule has "
        f"{plural(deals, 'deal')} per seat-set; run with --deals {top + 1} or more (the --deals "
        "of the run that played them) to finish that schedule"
    )


def progress(
    prepared: Prepared, args: argparse.Namespace, stored: list[FinishedGame]
) -> LiveView | TextProgress | None:
    """The live display on a terminal, progress lines elsewhere (or when asked), or nothing."""
    if args.quiet:
        return None
    console = Console(stderr=True)
    lines = args.progress_every is not None or args.ladder_every is not None
    if console.is_terminal and not lines:
        return LiveView(prepared.file.stem, stored, console)
    return TextProgress(
        stored, sys.stderr, every=args.progress_every or 1, ladder_every=args.ladder_every or 0
    )


def play(prepared: Prepared, args: argparse.Namespace, executor: Executor) -> tuple[int, int]:
    """Run the tournament; (exit code so far, games of this run in which a bot faulted).

    Stopped by Ctrl-C or SIGTERM, games finished before are stored; the ones in flight are
    dropped (their bot processes are killed by the referee) and will be played by the next run.
    """
    cores = os.cpu_count() or 1
    t = prepared.tournament
    if t.workers > cores and (t.executor != "dask" or t.scheduler is None):
        print(
            f"arena: warning: {prepared.tournament.workers} matches at once on {cores} cores; "
            "bots will be charged for waiting for a core (false timeouts). "
            f"Use --concurrency {cores} or less.",
            file=sys.stderr,
        )
    games = prepared.store.games()
    warning = beyond_schedule(prepared, games)
    if warning is not None:
        print(f"arena: warning: {warning}", file=sys.stderr)
    hide = hidden(prepared.store, args.exclude)
    view = progress(prepared, args, visible(games, hide))
    faulty = 0

    def on_game(game: FinishedGame) -> None:
        nonlocal faulty
        faulty += bool(game.played.faults)
        if view is not None and hide.isdisjoint(game.bots):
            view.on_game(game)

    began = time.monotonic()
    runner = Runner(
        prepared.tournament,
        prepared.store,
        prepared.players,
        limits=prepared.limits,
        executor=executor,
        on_start=view.on_start if view else None,
        on_game=on_game,
        on_void=report_void,
        on_probation=report_probation,
    )
    try:
        with view if isinstance(view, LiveView) else contextlib.nullcontext():
            report = run_trio(runner.run)
    except BaseException as exc:
        failure = _failure(exc)
        if failure is not None:
            print(
                f"arena run: error: {failure}; {plural(runner.played, 'game')} played and stored",
                file=sys.stderr,
            )
            return EXIT_ERROR, faulty
        stopped = _stopped(exc)
        if stopped is None:
            raise
        how, code = stopped
        print(
            f"arena: {how}; {plural(runner.played, 'game')} played and stored. "
            f"Run `{resume_command(args)}` again to resume.",
            file=sys.stderr,
        )
        return code, faulty
    if not args.quiet:
        print(
            f"arena: {plural(report.played, 'game')} played, {report.stored_before} already "
            f"stored, {report.total} in the schedule ({time.monotonic() - began:.1f} s)",
            file=sys.stderr,
        )
    return EXIT_OK, faulty


def report_void(voided: Voided) -> None:
    """One line a maintainer can paste to reproduce a referee error (no bot is to blame)."""
    print(
        f"arena: referee error, game voided ({', '.join(voided.bots)}, deal {voided.deal}): "
        f"{voided.error}; reproduce with: {voided.command}",
        file=sys.stderr,
    )


def report_probation(label: str, fault: str) -> None:
    print(f"arena: {label} is on probation (faulty games in a row; last {fault})", file=sys.stderr)


def _failure(exc: BaseException) -> ExecutorError | None:
    """The executor's error that stopped the run, possibly wrapped in exception groups by the
    nurseries it crossed; None for any other exception."""
    if isinstance(exc, ExecutorError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for part in exc.exceptions:
            found = _failure(part)
            if found is not None:
                return found
    return None


def _stopped(exc: BaseException) -> tuple[str, int] | None:
    """How a run was stopped from outside — Ctrl-C or SIGTERM, possibly wrapped in exception
    groups by the nurseries it crossed — and its exit code; None for any other error."""
    if isinstance(exc, Terminated):
        return "terminated (SIGTERM)", EXIT_TERMINATED
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", EXIT_INTERRUPTED
    if isinstance(exc, BaseExceptionGroup):
        inner = [_stopped(part) for part in exc.exceptions]
        if inner and all(inner):
            return inner[0]
    return None


def print_results(prepared: Prepared, args: argparse.Namespace) -> None:
    """The ladder and the crosstable (as `arena table` prints them by default), without the
    games of removed or `--exclude`d bots."""
    games = visible(prepared.store.games(), hidden(prepared.store, args.exclude))
    if games:
        print_tables(games, table_names(args), args)


def play_and_report(args: argparse.Namespace, checked: Collection[str] = ()) -> int:
    """Open the tournament, check its new participants (but those `checked` already, by a
    command that warned about the sandbox too), play what is left of it, print the tables; the
    exit code."""
    prepared = open_prepared(args, warn=not checked)
    try:
        if prepared.removed and not args.quiet:
            print(f"arena: not playing removed {', '.join(prepared.removed)}", file=sys.stderr)
        check_playable(prepared)
        try:
            executor = executor_for(prepared.tournament)
        except ExecutorError as exc:  # before checking any bot: Dask not installed here
            print(f"arena {args.subcommand}: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        code = check_newcomers(prepared, args, checked)
        if code != EXIT_OK:
            return code
        code, faulty = play(prepared, args, executor)
        if code != EXIT_OK:
            return code
        print_results(prepared, args)
    finally:
        prepared.close()
    if args.strict and faulty:
        print(
            f"arena: {plural(faulty, 'game')} of this run had a faulty bot (--strict)",
            file=sys.stderr,
        )
        return EXIT_FAULT
    return EXIT_OK


def handle(args: argparse.Namespace) -> int:
    return play_and_report(args)
