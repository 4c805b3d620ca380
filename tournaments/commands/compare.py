"""`arena compare A B --game G`: is A stronger than B? Play until a sequential test decides."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from protocol import TimeControl
from referee import Limits
from tournaments.commands.common import (
    EXIT_CODES,
    EXIT_FAULT,
    EXIT_OK,
    add_sandbox_option,
    add_time_mode_option,
    add_time_options,
    chosen_sandbox,
    parse_option_pairs,
    run_trio,
)
from tournaments.errors import UsageError
from tournaments.output import add_output_options, render_csv, render_json, render_table
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament, check
from tournaments.plan.entrants import Entrant, entrant
from tournaments.plan.schedule import owner_secret
from tournaments.play.compare import Comparison, compare
from tournaments.rank.sprt import SprtBounds
from tournaments.store.botlogs import log_directory


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="decide whether bot A is stronger than bot B with an SPRT",
        description="Play A against B deal by deal, every deal in all seatings, until a "
        "generalised sequential probability ratio test on the per-deal scores accepts H1 "
        "(A is stronger by ELO1 or more) or H0 (by ELO0 or less), or MAX_DEALS is reached. "
        "For 3+ players the other seats are taken by the field.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A", help="a built-in bot or a command line")
    parser.add_argument("b", metavar="B", help="a built-in bot or a command line")
    parser.add_argument("--game", required=True, help="game id (see `arena games`)")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable; VALUE is read as JSON when it parses",
    )
    parser.add_argument(
        "--field",
        action="append",
        default=[],
        metavar="BOT",
        help="a bot for the other seats with 3+ players, repeatable (default: random)",
    )
    test = parser.add_argument_group("the test")
    test.add_argument("--elo0", type=float, default=0.0, help="H0: Elo of A over B (default 0)")
    test.add_argument("--elo1", type=float, default=20.0, help="H1: Elo of A over B (default 20)")
    test.add_argument("--alpha", type=float, default=0.05, help="false H1 rate (default 0.05)")
    test.add_argument("--beta", type=float, default=0.05, help="false H0 rate (default 0.05)")
    test.add_argument("--max-deals", type=int, default=1000, help="give up after (default 1000)")
    play = parser.add_argument_group("playing")
    play.add_argument(
        "--seed",
        type=int,
        help="makes the deals reproducible (default: fresh random deals); a seed a bot could "
        "guess makes the deals guessable: use a long random one",
    )
    play.add_argument("-j", "--concurrency", type=int, default=0, help="deals at once (0: cores)")
    add_time_options(play, TimeControl())
    add_sandbox_option(play, "auto")
    add_time_mode_option(play, "wall")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    parser.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep the bots' stderr logs in DIR (default: a temporary directory, removed when "
        "no bot wrote to stderr, else named at the end)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit with code {EXIT_FAULT} when a bot faulted in a game of the test",
    )
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def _entrants(texts: list[str]) -> list[Entrant]:
    """Entrants with distinct names (a second `random` becomes `random#2`), each shown in the
    results by the name it gives in `ready`, as `arena match` shows it (`compare.shown_names`)."""
    result: list[Entrant] = []
    for text in texts:
        try:
            # A name is one word without commas (`mcts --ms 45` becomes `mcts-ms-45`).
            base = "-".join(re.findall(r"[^\s,-]+", parse_bot(text).name))[:64] or "bot"
            name, number = base, 1
            while name in {e.name for e in result}:
                number += 1
                name = f"{base}#{number}"
            found = entrant(name, text)
            unnamed = msgspec.structs.replace(found.spec, name_given=False)
            result.append(msgspec.structs.replace(found, spec=unnamed))
        except OSError as exc:  # a file of the bot's that cannot be read to hash it
            raise UsageError(str(exc)) from None
    return result


def _setup(args: argparse.Namespace) -> tuple[Tournament, list[Entrant], SprtBounds]:
    field = (args.field or ["random"]) * max(args.players, 1)
    texts = [args.a, args.b, *field[: max(args.players - 2, 0)]]
    entrants = _entrants(texts)
    try:
        bounds = SprtBounds(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)
        tournament = msgspec.convert(
            {
                "game": args.game,
                "players": args.players,
                "options": parse_option_pairs(args.option),
                "participants": {e.name: e.command for e in entrants},
                "seed": args.seed if args.seed is not None else 0,
                "concurrency": args.concurrency,
                "time": {
                    "move_ms": args.move_ms,
                    "bank_ms": args.bank_ms,
                    "increment_ms": args.increment_ms,
                    "startup_ms": args.startup_ms,
                    "first_move_ms": args.first_move_ms,
                },
            },
            type=Tournament,
        )
        check(tournament, "arena compare")
    except msgspec.ValidationError as exc:
        raise UsageError(str(exc)) from None
    if args.max_deals < 1:
        raise UsageError("--max-deals must be at least 1")
    return tournament, entrants, bounds


def handle(args: argparse.Namespace) -> int:
    tournament, entrants, bounds = _setup(args)
    a, b, *field = entrants
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        TextColumn("{task.completed} deals"),
        TextColumn(
            "LLR {task.fields[llr]:+.2f} in [{task.fields[lower]:.2f}, {task.fields[upper]:.2f}]"
        ),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.quiet or not console.is_terminal,
    )
    task = progress.add_task(
        f"{a.name} vs {b.name}", total=None, llr=0.0, lower=bounds.lower, upper=bounds.upper
    )
    limits = Limits(sandbox=chosen_sandbox(args.sandbox), time_mode=args.time_mode)

    def on_deal(deals: int, value: float) -> None:
        progress.update(task, completed=deals, llr=value)

    with progress, log_directory(args.logs) as log_dir:
        logged = msgspec.structs.replace(limits, log_dir=log_dir)
        result = run_trio(
            lambda: compare(
                tournament,
                a,
                b,
                field,
                bounds=bounds,
                max_deals=args.max_deals,
                limits=logged,
                secret=owner_secret(args.seed),
                on_deal=on_deal,
            )
        )
    print(render(result, args))
    if args.strict and result.faulty_games:
        print(f"arena: {result.faulty_games} games had a faulty bot (--strict)", file=sys.stderr)
        return EXIT_FAULT
    return EXIT_OK


def render(result: Comparison, args: argparse.Namespace) -> str:
    if args.json:
        return render_json(result)
    rows: list[list[Any]] = [
        ["verdict", result.verdict],
        ["deals", result.deals],
        ["games", result.games],
        [f"score of {result.a}", f"{100 * result.score:.1f}%"],
        ["Elo difference", f"{result.elo:+.0f} [{result.elo_lo:+.0f}, {result.elo_hi:+.0f}]"],
        ["LOS", f"{100 * result.los:.1f}%"],
        ["LLR", f"{result.llr:+.2f} in [{result.lower:.2f}, {result.upper:.2f}]"],
        [
            "test",
            f"elo0 {result.bounds.elo0:g}, elo1 {result.bounds.elo1:g}, "
            f"alpha {result.bounds.alpha:g}, beta {result.bounds.beta:g}",
        ],
    ]
    if result.field:
        rows.insert(1, ["field", ", ".join(result.field)])
    if args.csv:
        return render_csv([key for key, _ in rows], [[value for _, value in rows]]).rstrip("\n")
    return render_table(["", f"{result.a} vs {result.b}"], rows, args.fmt)
