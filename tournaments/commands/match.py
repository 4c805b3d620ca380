"""`arena match`: play one game between bots and print the result."""

from __future__ import annotations

import argparse
import functools
import json
import random
import time
from pathlib import Path
from typing import Any

import msgspec
import trio

from protocol import DEFAULT_MAX_LINE_BYTES, TimeControl
from referee import Limits, MatchOutcome, bot_spec, run_match
from referee.games import BadOptions, UnknownGame, find_game, parse_options
from referee.limits import ResourceLimits
from referee.sandbox import SandboxUnavailable, bwrap_path
from tournaments.cli import UsageError
from tournaments.output import render_json, render_table


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play one game between bots",
        description="Play one game between bots. The number of BOTs is the number of players.",
    )
    parser.add_argument("--game", required=True, help="game id (see `arena games`)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable; VALUE is read as JSON when it parses (true, 3), else text",
    )
    parser.add_argument("--seed", type=int, help="deal seed (default: random, printed)")
    parser.add_argument("--move-ms", type=int, default=1000, help="time per decision (ms)")
    parser.add_argument("--bank-ms", type=int, default=0, help="time bank (ms)")
    parser.add_argument("--increment-ms", type=int, default=0, help="bank increment (ms)")
    parser.add_argument("--startup-ms", type=int, default=10_000, help="time to `ready` (ms)")
    parser.add_argument(
        "--max-line-bytes", type=int, default=DEFAULT_MAX_LINE_BYTES, help="longest bot line"
    )
    defaults = ResourceLimits()
    for flag, default, meaning in [
        ("--memory-mb", defaults.memory_mb, "address space per bot process"),
        ("--cpu-s", defaults.cpu_s, "CPU seconds per game"),
        ("--processes", defaults.processes, "processes per bot at once"),
        ("--file-mb", defaults.file_mb, "largest file a bot may write"),
    ]:
        parser.add_argument(flag, type=amount, default=default, help=f"{meaning}; 0: unlimited")
    parser.add_argument(
        "--sandbox", choices=["none", "bwrap"], default="none", help="run bots in bubblewrap"
    )
    parser.add_argument(
        "--time-mode", choices=["wall", "cpu"], default="wall", help="charge wall or CPU time"
    )
    parser.add_argument(
        "--record",
        type=Path,
        help="write the game record here (default: arena-records/<game>-<seed>-<time>.jsonl)",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="a built-in bot (random, greedy) or a command line in one quoted string",
    )
    parser.set_defaults(handler=handle)


def amount(text: str) -> int:
    """A resource limit: a whole number, 0 meaning unlimited."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (unlimited) or more")
    return value


def parse_option_pairs(pairs: list[str]) -> dict[str, Any]:
    """`KEY=VALUE` strings into a mapping; values that parse as JSON keep their JSON type."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE, e.g. variant=grey")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    return options


def handle(args: argparse.Namespace) -> int:
    try:
        game = find_game(args.game)
        options = parse_options(game, parse_option_pairs(args.option))
    except (UnknownGame, BadOptions) as exc:
        raise UsageError(str(exc)) from None
    if not game.min_players <= len(args.bots) <= game.max_players:
        raise UsageError(
            f"{game.id} takes {game.min_players}-{game.max_players} players, "
            f"got {len(args.bots)} bots"
        )
    try:
        specs = [bot_spec(text) for text in args.bots]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    clock = TimeControl(
        move_ms=args.move_ms,
        bank_ms=args.bank_ms,
        increment_ms=args.increment_ms,
        startup_ms=args.startup_ms,
    )
    if args.sandbox == "bwrap":
        try:
            bwrap_path()
        except SandboxUnavailable as exc:
            raise UsageError(str(exc)) from None
    resources = ResourceLimits(
        memory_mb=args.memory_mb,
        cpu_s=args.cpu_s,
        processes=args.processes,
        file_mb=args.file_mb,
    )
    limits = Limits(
        max_line_bytes=args.max_line_bytes,
        resources=resources,
        sandbox=args.sandbox,
        time_mode=args.time_mode,
    )
    play = functools.partial(
        run_match, game.id, msgspec.to_builtins(options), seed, specs, clock, limits=limits
    )
    outcome = trio.run(play)
    record_path = args.record or Path(
        "arena-records", f"{game.id}-{seed}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    )
    record_path.parent.mkdir(parents=True, exist_ok=True)
    record_path.write_bytes(outcome.record)
    print(render_outcome(outcome, record_path, as_json=args.json))
    return 0


def render_outcome(outcome: MatchOutcome, record_path: Path, *, as_json: bool) -> str:
    if as_json:
        return render_json(
            {
                "game": outcome.game,
                "options": outcome.options,
                "seed": outcome.seed,
                "bots": outcome.names,
                "scores": outcome.result.scores,
                "ranks": outcome.result.ranks,
                "tiebreak": outcome.result.tiebreak,
                "faults": outcome.faults,
                "decisions": outcome.decisions,
                "think_ms": outcome.think_ms,
                "record": str(record_path),
            }
        )
    faults_by_seat: dict[int, list[str]] = {}
    for fault in outcome.faults:
        faults_by_seat.setdefault(fault.seat, []).append(f"{fault.kind}: {fault.reason}")
    rows = [
        [
            seat,
            name,
            outcome.result.scores[seat],
            outcome.result.ranks[seat],
            outcome.moves[seat],
            outcome.think_ms[seat] / max(outcome.moves[seat], 1),
            "; ".join(faults_by_seat.get(seat, [])),
        ]
        for seat, name in enumerate(outcome.names)
    ]
    table = render_table(
        ["seat", "bot", "score", "rank", "decisions", "ms/decision", "faults"], rows, "simple"
    )
    tiebreak = f", tie-break: {outcome.result.tiebreak}" if outcome.result.tiebreak else ""
    return f"{outcome.game} seed {outcome.seed}{tiebreak}\n{table}\nrecord: {record_path}"
