"""A unit of work as plain data, and the one function that plays it.

This is the seam between the runner (schedule, store, probation, reports: the coordinator) and
the executors (where games are played: trio tasks here, referee processes, a Dask cluster).
A `UnitWork` holds everything a referee needs to play one unit — the game, the seats as they
must run (commands, limits, time controls), and each game's deal seed and bot seeds — and
nothing it must not have: the seeds are computed by the coordinator, whose store secret never
leaves it. `play_unit` needs no store and no callbacks, and returns each game as data: the
outcome, and each seat's stderr of that game as text (a worker's log paths would mean nothing
to the coordinator, which writes the logs it keeps).

On another machine (a Dask worker: `play_unit`), the bots are checked before playing: their
files — unpacked from their bundle (`bundles`), or the worker's own for a built-in — must hash
to the identity the coordinator stored them under (`tournaments.plan.entrants.content_hash`). A
worker whose copy of a bot differs refuses the unit (`BotMismatch`) instead of playing games
that would be stored under the wrong bot; one that lacks what a unit needs says which
(`WorkerLacks`). The executors on the coordinator's machine run the very files it hashed.
Whatever a worker sends back is checked again by the coordinator before it is stored
(`verify`).
"""

from __future__ import annotations

import functools
import os
import shutil
import socket
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import trio

from bots import builtin_command
from protocol import TimeControl
from protocol.errors import ArenaError
from referee import BotSpec, Limits, MatchOutcome, open_bots, play_match
from tournaments.plan.entrants import content_hash
from tournaments.plan.schedule import seating
from tournaments.store.results import FaultRow, Played


class Seat(msgspec.Struct, frozen=True):
    """One bot of the unit's seat-set: how it runs and what its files must hash to."""

    spec: BotSpec
    command: str
    """The command as written: with the files, what the identity hash covers."""
    hash: str
    odds: bytes = b""
    """Its own time control, encoded, when it has time odds (part of its identity)."""
    time: TimeControl = TimeControl()


class Deal(msgspec.Struct, frozen=True):
    """One game of a unit: the deal and the seeds the coordinator derived from its secret."""

    deal: int
    seed: int
    bot_seeds: list[int]


class UnitWork(msgspec.Struct, frozen=True, tag=True):
    """One rotation of some deals of one seat-set, to be played on one set of bot processes."""

    game: str
    options: dict[str, Any]
    seat_set: tuple[int, ...]
    """The bots' store ids in schedule order (rotation 0): how the coordinator files results."""
    seats: list[Seat]
    """In the order of `seat_set`."""
    rotation: int
    deals: list[Deal]
    limits: Limits
    tag: str
    """Names the stderr logs (`<tag>.<deal>.<rotation>-seat<n>-<bot>.log`)."""


class GameDone(msgspec.Struct, frozen=True, tag=True):
    """A finished game: what the store keeps, and each seat's stderr of that game."""

    deal: int
    rotation: int
    seed: int
    played: Played
    decisions: int
    record: bytes
    logs: list[tuple[int, str]]
    """(seat, text) of each seat that wrote to stderr, capped like the referee's."""
    worker: str = ""
    """Who played it: set by the executor on the coordinator (never the worker's own word)."""


class GameVoided(msgspec.Struct, frozen=True, tag=True):
    """A game the referee itself failed (a rules engine bug): nothing to store, no bot blamed."""

    deal: int
    rotation: int
    error: str
    """The exception's last line, e.g. "IndexError: list index out of range"."""


class GameUnplayed(msgspec.Struct, frozen=True, tag=True):
    """A game of a unit ended early (its `ends` event set): not played, so its deal and
    rotation are free for a later unit, and nothing is stored or counted."""

    deal: int
    rotation: int


Result = GameDone | GameVoided | GameUnplayed
"""What a referee hands back of one game (and all a worker's results may decode to)."""


class UnitFailed(msgspec.Struct, frozen=True, tag=True):
    """A unit that a worker did not play — its task raised, never answered before its deadline,
    or sent back results too large or unreadable — said by the executor on the coordinator
    (never by a worker): the unit goes to another worker, or to the coordinator, and the worker
    is counted against; `blocked` once it has failed too often to be sent more."""

    worker: str
    reason: str
    blocked: bool


Delivered = Result | UnitFailed
"""What an executor hands the runner: a game's result, or a worker's failure of a unit."""


class ExecutorError(ArenaError):
    """A unit could not be played (a worker refused it, or kept dying): the run stops, with
    this one-line message; the games stored so far are kept."""


class BotMismatch(ExecutorError):
    """A bot's files on this worker are not the ones the coordinator identified it by."""


class WorkerLacks(ExecutorError):
    """This worker lacks what a unit needs (a runtime, bubblewrap): another one may have it."""

    def __init__(self, worker: str, message: str) -> None:
        super().__init__(message)
        self.worker = worker

    def __reduce__(self) -> tuple[type[WorkerLacks], tuple[str, str]]:
        return WorkerLacks, (self.worker, str(self))


class Needs(msgspec.Struct, frozen=True):
    """What a unit needs of a worker's machine beside the project: bubblewrap for a sandbox
    asked for, the league's runtime folders, and the programs its bots' commands start that are
    not their own files (interpreters, runtimes). Units of the same bots' kinds share it."""

    bwrap: bool
    folders: tuple[str, ...]
    programs: tuple[str, ...]


def needs(work: UnitWork) -> Needs:
    """The unit's `Needs` (a built-in bot runs with the worker's own Python: none of its)."""
    programs = {program for seat in work.seats if (program := _foreign(seat)) is not None}
    return Needs(work.limits.sandbox == "bwrap", work.limits.runtimes, tuple(sorted(programs)))


def missing(need: Needs) -> list[str]:
    """What this machine lacks of `need`, in words (none: it can play such units)."""
    found = ["bubblewrap (bwrap)"] if need.bwrap and shutil.which("bwrap") is None else []
    found += [f"the runtime folder {folder}" for folder in need.folders
              if not os.path.isdir(folder)]  # fmt: skip
    return found + [f"{program!r}" for program in need.programs if shutil.which(program) is None]


def lacking(work: UnitWork) -> list[str]:
    """What this machine lacks of what the unit needs, naming the bot of each program."""
    need = needs(work)
    found = missing(msgspec.structs.replace(need, programs=()))
    for seat in work.seats:
        program = _foreign(seat)
        if program is not None and shutil.which(program) is None:
            found.append(f"{program!r}, which bot {seat.spec.name!r} runs")
    return found


def _foreign(seat: Seat) -> str | None:
    """The program the seat's command starts that the worker must have, if any."""
    return None if builtin_command(seat.command) is not None else _program(seat.spec)


def _program(spec: BotSpec) -> str | None:
    """The program a bot's command starts when it is not one of the bot's own files (those
    travel with it): an interpreter, a runtime; None when it is its own."""
    first = spec.command[0] if spec.command else ""
    if spec.folder is not None:  # run in its folder: a relative path is its own file
        return None if not first or ("/" in first and not first.startswith("/")) else first
    own = spec.files == (first,)  # a program alone (a binary of its own); else an interpreter
    return None if not first or own else first


def played_from(outcome: MatchOutcome, wall_ms: float) -> Played:
    """The referee's outcome as the store's plain data."""
    return Played(
        scores=list(outcome.result.scores),
        ranks=list(outcome.result.ranks),
        tiebreak=outcome.result.tiebreak,
        moves=list(outcome.moves),
        think_ms=list(outcome.think_ms),
        faults=[FaultRow(f.seat, f.kind, f.reason, f.decision) for f in outcome.faults],
        wall_ms=round(wall_ms, 3),
    )


def check_bots(work: UnitWork) -> None:
    """Refuse the unit unless every bot's files here hash to the coordinator's identity."""
    for seat in work.seats:
        check_identity(
            seat,
            seat.spec,
            "its files hash to",
            f"(`{seat.command}`); a bot that does not travel (a built-in) needs the same version "
            "of the project on every worker (docs/scaling.md)",
        )


def check_identity(seat: Seat, spec: BotSpec, found_how: str, advice: str) -> None:
    """`BotMismatch` unless the bot run as `spec` here hashes to the seat's identity."""
    found = content_hash(seat.command, spec, seat.odds)
    if found != seat.hash:
        raise BotMismatch(
            f"bot {seat.spec.name!r} on {socket.gethostname()}: {found_how} {found}, not to "
            f"{seat.hash} as on the coordinator {advice}"
        )


def read_log(path: str, cap: int) -> str | None:
    """The text of a seat's stderr log and remove it; None when the bot wrote nothing (the
    referee may not have made the file at all). `cap` bounds what is read, as the referee
    bounds what it writes (plus its note of what it dropped)."""
    try:
        with open(path, "rb") as file:
            data = file.read(cap + 4096)
        os.unlink(path)
    except FileNotFoundError:
        return None
    return data.decode("utf-8", errors="replace") if data else None


LOGS_PREFIX = "arena-unit-"
"""A unit's private log directory: `arena-unit-<pid>-<random>` under the temporary directory."""


@functools.cache
def sweep_log_dirs() -> None:
    """Remove the log directories left by referees that died (`kill -9`) mid-unit; once per
    process (what a live referee leaves is its own to remove)."""
    top = tempfile.gettempdir()
    for name in os.listdir(top):
        pid = name.removeprefix(LOGS_PREFIX).split("-")[0]
        if name.startswith(LOGS_PREFIX) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            shutil.rmtree(os.path.join(top, name), ignore_errors=True)


def finished(work: UnitWork, deal: int, outcome: MatchOutcome, wall_ms: float) -> GameDone:
    """The game as data, with the stderr each seat wrote (its log files read and removed)."""
    cap = work.limits.stderr_cap_bytes
    logs = []
    for seat, path in enumerate(outcome.logs):
        text = read_log(path, cap)
        if text is not None:
            logs.append((seat, text))
    return tampered(
        GameDone(
            deal=deal,
            rotation=work.rotation,
            seed=outcome.seed,
            played=played_from(outcome, wall_ms),
            decisions=outcome.decisions,
            record=outcome.record,
            logs=logs,
        )
    )


TAMPER = "ARENA_TEST_TAMPER"
"""A test hook: a worker started with this variable set to "score" or "action" alters every
game it plays so (the coordinator must refuse them: `verify`)."""


def tampered(game: GameDone) -> GameDone:
    """`game`, altered as `TAMPER` asks (unaltered without it)."""
    how = os.environ.get(TAMPER)
    if how == "score":
        played = msgspec.structs.replace(game.played, scores=[s + 1 for s in game.played.scores])
        return msgspec.structs.replace(game, played=played)
    if how == "action":  # a number of the first decision's action made one out of range
        lines = game.record.split(b"\n")
        decision = msgspec.json.decode(lines[1])
        action = next(iter(decision["actions"].values()))
        numbers = [key for key, value in action.items() if isinstance(value, int)]
        action[numbers[0]] = 99
        lines[1] = msgspec.json.encode(decision)
        return msgspec.structs.replace(game, record=b"\n".join(lines))
    return game


def played_by(worker: str, result: Result) -> Result:
    """`result` with the worker that played it named (the executor's knowledge, not the
    worker's word)."""
    if isinstance(result, GameDone):
        return msgspec.structs.replace(result, worker=worker)
    return result


def this_machine(what: str) -> str:
    """A worker of this machine, named for `arena workers`: the host and `what`."""
    return f"{socket.gethostname()} {what}"


def unplayed(work: UnitWork, deals: Sequence[Deal], emit: Callable[[Result], None]) -> None:
    """Hand back `deals` of `work` unplayed (the unit was ended before them)."""
    for deal in deals:
        emit(GameUnplayed(deal.deal, work.rotation))


async def play_games(
    work: UnitWork, emit: Callable[[Result], None], ends: trio.Event | None = None
) -> None:
    """Play the unit's games on one set of bot processes, `emit`ting each as it finishes.

    Once `ends` is set, the unit ends between two games: the game in play finishes, and the
    rest are emitted as `GameUnplayed` (a league's ladder ends its units so on a new version).

    The stderr logs go to a private temporary directory (read into the results, then removed)
    that the bots cannot see. Each game's logs are closed when it ends (what a bot writes
    before the next game starts opens that game's log, see `referee.stderr`), but the last
    game's stay open until the bots have quit: their last words are in them."""
    if ends is not None and ends.is_set():  # no bot is started for nothing
        unplayed(work, work.deals, emit)
        return
    sweep_log_dirs()
    with tempfile.TemporaryDirectory(prefix=f"{LOGS_PREFIX}{os.getpid()}-") as logs:
        limits = msgspec.structs.replace(
            work.limits, log_dir=logs, hidden=(*work.limits.hidden, logs)
        )
        specs = [seat.spec for seat in work.seats]
        times = [seat.time for seat in work.seats]
        last: tuple[int, MatchOutcome, float] | None = None
        async with open_bots(specs, limits) as handles:
            for index, deal in enumerate(work.deals):
                if ends is not None and ends.is_set():
                    unplayed(work, work.deals[index:], emit)
                    break
                began = time.perf_counter()
                try:
                    outcome = await play_match(
                        work.game,
                        work.options,
                        deal.seed,
                        seating(handles, work.rotation),
                        seating(times, work.rotation),
                        limits=limits,
                        bot_seeds=deal.bot_seeds,
                        log_tag=f"{work.tag}.{deal.deal}.{work.rotation}",
                    )
                except Exception as exc:  # a referee bug: the game is voided, the unit goes on
                    error = traceback.format_exception_only(exc)[-1].strip()
                    emit(GameVoided(deal.deal, work.rotation, error))
                    continue
                wall_ms = (time.perf_counter() - began) * 1000
                if deal is work.deals[-1]:
                    last = (deal.deal, outcome, wall_ms)
                    break
                for handle in handles:  # whole logs, with the cap's note (`finished` reads them)
                    handle.stderr.close()
                emit(finished(work, deal.deal, outcome, wall_ms))
        if last is not None:  # `open_bots` has closed the logs once the bots were gone
            emit(finished(work, *last))


def play_unit(work: UnitWork) -> list[Result]:
    """Check the bots, then play a whole unit in a fresh trio loop (what a Dask task runs on a
    worker); its games' results. `BotMismatch` if a bot's files differ from the coordinator's."""
    check_bots(work)
    results: list[Result] = []
    trio.run(play_games, work, results.append)
    return results
