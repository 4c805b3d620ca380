"""What `arena run` and `arena add` share: the flags that override a tournament file, the
tournament opened with them, and a run played on the command line (checks, progress,
resume hint, tables)."""

from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any, get_args

from rich.console import Console

from tournaments.commands.common import (
    EXIT_ERROR,
    EXIT_FAULT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    Terminated,
    add_sandbox_option,
    add_time_mode_option,
    add_time_options,
    positive,
    run_trio,
)
from tournaments.commands.tableview import print_tables, table_names
from tournaments.errors import leaves
from tournaments.executors import Executor, ExecutorError
from tournaments.executors.choose import executor_for
from tournaments.output import plural
from tournaments.plan.config import TIME_RANGES, ExecutorKind
from tournaments.plan.prepare import Prepared, prepare
from tournaments.play.live import LiveView, TextProgress
from tournaments.play.runner import Refused, Voided
from tournaments.play.running import (
    TournamentRun,
    check_newcomers,
    check_playable,
    newcomers,
    warnings,
)
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame

EXECUTORS: tuple[ExecutorKind, ...] = get_args(ExecutorKind)  # the file's kinds, once
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
    add_time_mode_option(group, None)
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


def overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The flags that override the tournament file, by the names `prepare` takes."""
    return {
        "db": args.db,
        "concurrency": args.concurrency,
        "executor": "dask" if args.dask else args.executor,
        "scheduler": args.dask,
        "deals": args.deals,
        "seed": args.seed,
        "max_seat_sets": args.max_seat_sets,
        **{key: getattr(args, key) for key in TIME_RANGES},
        "sandbox": args.sandbox,
        "time_mode": args.time_mode,
    }


def open_prepared(args: argparse.Namespace, *, warn: bool = True) -> Prepared:
    """The tournament of `args.file` with the command-line overrides, its store open; `warn`
    prints the sandbox's warning, if any (once per command)."""
    prepared = prepare(args.file, **overrides(args))
    if warn and prepared.sandbox.warning:
        print(f"arena: {prepared.sandbox.warning}", file=sys.stderr)
    return prepared


def resume_command(args: argparse.Namespace) -> str:
    """The `arena run` command line that resumes this run: its file and every flag that
    overrode the file (those of `arena add` too, which plays through `arena run`)."""
    words = ["arena", "run", str(args.file)]
    for dest in OVERRIDES:
        value = getattr(args, dest)
        if value is not None:
            words += ["--" + dest.replace("_", "-"), str(value)]
    return shlex.join(words)


class Shown:
    """The run's listener on the command line: the live display on a terminal, progress lines
    elsewhere (or when asked), or nothing with -q; games of hidden bots are not shown."""

    def __init__(
        self, prepared: Prepared, args: argparse.Namespace, games: list[FinishedGame]
    ) -> None:
        self.hide = hidden(prepared.store, args.exclude)
        stored = visible(games, self.hide)
        self.view: LiveView | TextProgress | None = None
        if not args.quiet:
            console = Console(stderr=True)
            lines = args.progress_every is not None or args.ladder_every is not None
            if console.is_terminal and not lines:
                self.view = LiveView(prepared.file.stem, stored, console)
            else:
                every, ladder = args.progress_every or 1, args.ladder_every or 0
                self.view = TextProgress(stored, sys.stderr, every=every, ladder_every=ladder)

    def on_start(self, total: int, stored: int) -> None:
        if self.view is not None:
            self.view.on_start(total, stored)

    def on_game(self, game: FinishedGame) -> None:
        if self.view is not None and visible([game], self.hide):
            self.view.on_game(game)

    def on_void(self, voided: Voided) -> None:
        """One line a maintainer can paste to reproduce a referee error (no bot is to blame)."""
        print(
            f"arena: referee error, game voided ({', '.join(voided.bots)}, deal {voided.deal}): "
            f"{voided.error}; reproduce with: {voided.command}",
            file=sys.stderr,
        )

    def on_refused(self, refused: Refused) -> None:
        """A worker's game that did not replay or was not confirmed, or a unit it failed:
        named, and played again elsewhere."""
        then = "it gets no more games" if refused.blocked else "played again elsewhere"
        print(
            f"arena: a game from {refused.worker} was refused ({', '.join(refused.bots)}, deal "
            f"{refused.deal}): {refused.reason}; {then} (arena workers)",
            file=sys.stderr,
        )

    def on_probation(self, label: str, fault: str) -> None:
        print(
            f"arena: {label} is on probation (faulty games in a row; last {fault})",
            file=sys.stderr,
        )


def check(prepared: Prepared, args: argparse.Namespace, checked: Collection[str]) -> int:
    """Check the participants with no games in the store (but those in `checked`); the exit
    code: 0 when all pass, else EXIT_ERROR after naming each failing bot and why."""
    entrants = newcomers(prepared, checked)
    if not entrants:
        return EXIT_OK
    if not args.quiet:
        names = ", ".join(entrant.name for entrant in entrants)
        what = plural(len(entrants), "new participant")
        print(f"arena: checking {what}: {names}", file=sys.stderr)
    rejections = run_trio(check_newcomers, prepared, entrants)
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


def play(prepared: Prepared, args: argparse.Namespace, executor: Executor) -> tuple[int, int]:
    """Run the tournament; (exit code so far, games of this run in which a bot faulted).

    Stopped by Ctrl-C or SIGTERM, games finished before are stored; the ones in flight are
    dropped (their bot processes are killed by the referee) and will be played by the next run.
    """
    games = prepared.store.games()
    for warning in warnings(prepared, games):
        print(f"arena: warning: {warning}", file=sys.stderr)
    shown = Shown(prepared, args, games)
    run = TournamentRun(prepared, executor, shown)
    began = time.monotonic()
    try:
        with shown.view if isinstance(shown.view, LiveView) else contextlib.nullcontext():
            report = run_trio(run.play)
    except BaseException as exc:
        failure = _failure(exc)
        if failure is not None:
            print(
                f"arena run: error: {failure}; {plural(run.played, 'game')} played and stored",
                file=sys.stderr,
            )
            return EXIT_ERROR, run.faulty
        stopped = _stopped(exc)
        if stopped is None:
            raise
        how, code = stopped
        print(
            f"arena: {how}; {plural(run.played, 'game')} played and stored. "
            f"Run `{resume_command(args)}` again to resume.",
            file=sys.stderr,
        )
        return code, run.faulty
    if not args.quiet:
        print(
            f"arena: {plural(report.played, 'game')} played, {report.stored_before} already "
            f"stored, {report.total} in the schedule ({time.monotonic() - began:.1f} s)",
            file=sys.stderr,
        )
    return EXIT_OK, run.faulty


def _failure(exc: BaseException) -> ExecutorError | None:
    """The executor's error that stopped the run, possibly wrapped in exception groups by the
    nurseries it crossed; None for any other exception."""
    return next((part for part in leaves(exc) if isinstance(part, ExecutorError)), None)


def _stopped(exc: BaseException) -> tuple[str, int] | None:
    """How a run was stopped from outside — Ctrl-C or SIGTERM, possibly wrapped in exception
    groups by the nurseries it crossed — and its exit code; None for any other error."""
    parts = leaves(exc)
    if not all(isinstance(part, (Terminated, KeyboardInterrupt)) for part in parts):
        return None
    if isinstance(parts[0], Terminated):
        return "terminated (SIGTERM)", EXIT_TERMINATED
    return "interrupted", EXIT_INTERRUPTED


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
        executor = executor_for(prepared.tournament)  # before any bot: Dask may be missing here
        code = check(prepared, args, checked)
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
