"""`arena match`: play one game between bots and print the result."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bots import BUILTIN_BOTS
from protocol import DEFAULT_MAX_LINE_BYTES, TimeControl
from referee import MatchOutcome, ResourceLimits
from tournaments.commands.common import (
    EXIT_CODES,
    EXIT_FAULT,
    EXIT_OK,
    add_sandbox_option,
    add_time_mode_option,
    add_time_options,
    parse_option_pairs,
    positive,
    run_trio,
)
from tournaments.errors import UsageError
from tournaments.output import plural, render_json, render_table
from tournaments.plan.botcommands import command_spec
from tournaments.play.one_match import (
    MatchRequest,
    Settings,
    plan,
    play,
    write_record,
    write_viewer,
)
from tournaments.store.botlogs import announce, log_directory


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play one game between bots",
        description="Play one game between bots. The number of BOTs is the number of players. "
        f"Exits with code {EXIT_FAULT} when a bot faulted (it forfeited the game).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True, help="game id (see `arena games`)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable; VALUE is read as JSON when it parses (true, 3), else text",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="the game's seed: the same seed deals the same game (default: a fresh random one, "
        "printed); a bot that can guess it knows every draw, so keep it secret and long",
    )
    parser.add_argument(
        "--bot-seed",
        type=int,
        help="derive the seeds the bots get for their own randomness from this (default: 0 when "
        "--seed is given, so the same command replays the same game, else random); never "
        "derived from --seed, so a bot learns nothing of the draws from its own seed",
    )
    add_time_options(parser, TimeControl())
    parser.add_argument(
        "--max-line-bytes", type=positive, default=DEFAULT_MAX_LINE_BYTES, help="longest bot line"
    )
    defaults = ResourceLimits()
    for flag, default, meaning in [
        (
            "--memory-mb",
            defaults.memory_mb,
            "total memory of all the bot's processes and in-memory files, in MB (a memory "
            "cgroup; address space per process where no cgroup is available)",
        ),
        ("--cpu-s", defaults.cpu_s, "CPU seconds per game"),
        ("--processes", defaults.processes, "processes per bot at once"),
        ("--file-mb", defaults.file_mb, "largest file a bot may write"),
    ]:
        parser.add_argument(flag, type=amount, default=default, help=f"{meaning}; 0: unlimited")
    add_sandbox_option(parser, "auto")
    add_time_mode_option(parser, "wall")
    parser.add_argument(
        "--record",
        type=Path,
        help="write the game record here; an existing file is refused unless --force "
        "(default: a new arena-records/<game>-<date>-<time>-<random>.jsonl)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing --record")
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write the game's viewer here: one self-contained HTML file (board per step)",
    )
    parser.add_argument(
        "--logs",
        type=Path,
        metavar="DIR",
        help="keep the bots' stderr logs in DIR (default: a temporary directory, removed when "
        "no bot wrote to stderr; the logs that hold something are named on stderr)",
    )
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the result table (no seed, settings or record lines), warnings and "
        "errors; --json is printed whole",
    )
    parser.add_argument(
        "--cwd",
        action="append",
        default=[],
        metavar="SEAT=DIR",
        help="run seat SEAT's bot in DIR (read-only in the sandbox), as a tournament file's "
        "`cwd`; relative paths in its command are then relative to DIR; repeatable",
    )
    parser.add_argument(
        "--files",
        action="append",
        default=[],
        metavar="SEAT=PATH",
        help="a file or directory of seat SEAT's bot that its command does not name (data, a "
        "model): readable in the sandbox, as a tournament file's `files`; repeatable",
    )
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help=f"a built-in bot ({', '.join(BUILTIN_BOTS)}) or a command line in one quoted string",
    )
    parser.set_defaults(handler=handle)


def amount(text: str) -> int:
    """A resource limit: a whole number, 0 meaning unlimited."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (unlimited) or more")
    return value


def seat_values(pairs: list[str], flag: str, seats: int) -> dict[int, list[str]]:
    """`SEAT=VALUE` strings into each seat's values, in the order given."""
    values: dict[int, list[str]] = {}
    for pair in pairs:
        seat, sep, value = pair.partition("=")
        if not sep or not seat.strip().isdigit() or not value:
            raise UsageError(f"{flag} {pair!r}: expected SEAT=PATH, e.g. {flag} 1=bots/java")
        if int(seat) >= seats:
            raise UsageError(
                f"{flag} {pair!r}: there is no seat {int(seat)}; the {plural(seats, 'bot')} "
                f"sit in seats 0-{seats - 1}, in the order given"
            )
        values.setdefault(int(seat), []).append(value)
    return values


def handle(args: argparse.Namespace) -> int:
    cwds = seat_values(args.cwd, "--cwd", len(args.bots))
    files = seat_values(args.files, "--files", len(args.bots))
    for seat, dirs in cwds.items():
        if len(dirs) > 1:
            raise UsageError(f"--cwd: seat {seat} is given {len(dirs)} directories; give one")
    request = MatchRequest(
        game=args.game,
        options=parse_option_pairs(args.option),
        bots=[
            command_spec(text, next(iter(cwds.get(seat, [])), None), files.get(seat))
            for seat, text in enumerate(args.bots)
        ],
        clock=TimeControl(
            move_ms=args.move_ms,
            bank_ms=args.bank_ms,
            increment_ms=args.increment_ms,
            startup_ms=args.startup_ms,
            first_move_ms=args.first_move_ms,
        ),
        resources=ResourceLimits(
            memory_mb=args.memory_mb,
            cpu_s=args.cpu_s,
            processes=args.processes,
            file_mb=args.file_mb,
        ),
        max_line_bytes=args.max_line_bytes,
        sandbox=args.sandbox,
        time_mode=args.time_mode,
        seed=args.seed,
        bot_seed=args.bot_seed,
        record=args.record,
        force=args.force,
    )
    match = plan(request)
    if match.warning:
        print(f"arena: {match.warning}", file=sys.stderr)
    with log_directory(args.logs) as log_dir:
        outcome = run_trio(play, match, log_dir)
        announce(outcome.logs, outcome.names)
    record_path = write_record(outcome, args.record, force=args.force)
    if args.html is not None:
        write_viewer(outcome, args.html)
        if not args.quiet:
            print(f"arena: wrote the game's viewer to {args.html}", file=sys.stderr)
    print(render_outcome(outcome, record_path, match.settings, as_json=args.json, quiet=args.quiet))
    return EXIT_FAULT if outcome.faults else EXIT_OK


def ms_per_decision(outcome: MatchOutcome, seat: int) -> float | None:
    """Mean thinking time of the seat's answered decisions; None when it answered none (the
    time of a decision it timed out on, or of the startup wait, is no decision's)."""
    moves = outcome.moves[seat]
    return outcome.think_ms[seat] / moves if moves else None


def render_outcome(
    outcome: MatchOutcome,
    record_path: Path,
    settings: Settings,
    *,
    as_json: bool,
    quiet: bool = False,
) -> str:
    """The JSON of the outcome, or its table: alone when `quiet`, else under the game, seed and
    settings and over the record's path."""
    if as_json:
        return render_json(
            {
                "game": outcome.game,
                "options": outcome.options,
                "seed": outcome.seed,
                "time": settings.time,
                "sandbox": settings.limits.sandbox,
                "time_mode": settings.limits.time_mode,
                "resources": settings.limits.resources,
                "bots": outcome.names,
                "scores": outcome.result.scores,
                "ranks": outcome.result.ranks,
                "tiebreak": outcome.result.tiebreak,
                "faults": outcome.faults,
                "decisions": outcome.decisions,
                "moves": outcome.moves,
                "think_ms": outcome.think_ms,
                "record": str(record_path),
            }
        )
    faults_by_seat: dict[int, list[str]] = {}
    for fault in outcome.faults:
        faults_by_seat.setdefault(fault.seat, []).append(f"{fault.kind}: {fault.reason}")
    rows = []
    for seat, name in enumerate(outcome.names):
        mean = ms_per_decision(outcome, seat)
        rows.append(
            [
                seat,
                name,
                outcome.result.scores[seat],
                outcome.result.ranks[seat],
                outcome.moves[seat],
                "–" if mean is None else f"{mean:.1f}",
                "; ".join(faults_by_seat.get(seat, [])),
            ]
        )
    table = render_table(
        ["seat", "bot", "score", "rank", "decisions", "ms/decision", "faults"], rows, "simple"
    )
    if quiet:
        return table
    tiebreak = f", tie-break: {outcome.result.tiebreak}" if outcome.result.tiebreak else ""
    return (
        f"{outcome.game} seed {outcome.seed}{tiebreak}\n{settings.header()}\n{table}\n"
        f"record: {record_path}"
    )
