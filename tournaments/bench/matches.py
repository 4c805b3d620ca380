"""Matches and tournaments through the real referee, with real bot processes.

- `referee_overhead_us`: two trivial bots (`first`: answer `index: 0` at once) play whole games
  on reused processes; per decision, the wall time of the game minus the think time the bots
  themselves report (from having read `act` to just before writing the answer) is the referee's
  overhead: its own work (legal moves, observation, encoding, checking the answer, applying it,
  the record, scheduling) plus the pipe transfer both ways and the bots' reading and writing.
  The older, narrower figure — wall time minus the time the referee *charged* the bots (from
  writing `act` to reading the answer), which leaves the pipe out — is reported beside it.
- `referee_cpu_us`: the same trivial bots, but the referee's own CPU time per decision: the CPU
  time of the referee process (`time.process_time`, which counts its threads and never its
  child processes) over whole games, divided by the decisions. The bots are real processes
  speaking the real protocol over real pipes, started once and reused (the first game, which
  starts them, is dropped), so every per-decision check the referee makes — the bot's cgroup
  counters, its exit watcher, its stderr drain — is the real one, and the bots' own work is
  excluded by the kernel's accounting rather than estimated and subtracted.
- `match_throughput`: the built-in random bot (the SDK, typed decoding and all) in both seats,
  processes reused; one match at a time, then `concurrency` matches at once.
- `tournament_throughput`: the real runner and SQLite store on a temporary file, so the figure
  includes scheduling, process starts per unit and one transaction per stored game.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import msgspec
import trio

from protocol import TimeControl
from referee import BotSpec, Limits, open_bots, play_match
from tournaments.bench.children import command
from tournaments.botcommands import parse_bot

TIME = TimeControl(move_ms=1000)


class Overhead(msgspec.Struct, frozen=True):
    per_decision_us: float
    """Median over games of (wall - the bots' own reported think time) / decisions."""
    referee_only_us: float
    """Median over games of (wall - the time the referee charged the bots) / decisions."""
    bot_think_us: float
    """Median over games of the bots' own reported think time / decisions."""
    decisions_per_game: float


class RefereeCpu(msgspec.Struct, frozen=True):
    per_decision_us: float
    """Median over games of the referee process's CPU time / decisions."""
    lower_quartile_us: float
    """The same, lower quartile: on a shared machine other processes only ever add to it
    (a busy core's caches and context switches cost the referee CPU time too)."""
    wall_per_decision_us: float
    """Median over games of the wall time / decisions, for scale."""


class Throughput(msgspec.Struct, frozen=True):
    match_ms: float
    """Median wall time of one whole game, one match at a time."""
    games_per_s: float
    """One match at a time: games / total wall time."""
    concurrent_games_per_s: float
    """`concurrency` matches at once: games / total wall time."""


class _Played(NamedTuple):
    wall_ms: float
    charged_ms: float
    """The think time the referee charged the bots (from writing `act` to reading the answer)."""
    decisions: int
    cpu_ms: float
    """The referee process's CPU time during the game (all its threads, none of the bots)."""


async def _games(
    specs: list[BotSpec], games: int, log_dir: str, first_seed: int = 0
) -> list[_Played]:
    """Play `games` Azul games on one set of processes and measure each."""
    limits = Limits(log_dir=log_dir, sandbox="none")  # the bench's bots write reports on the host
    out = []
    async with open_bots(specs, limits) as handles:
        for n in range(games + 1):  # game 0 pays the process starts and is dropped
            began, began_cpu = time.perf_counter(), time.process_time()
            outcome = await play_match("azul", None, first_seed + n, handles, TIME, limits=limits)
            cpu_ms = (time.process_time() - began_cpu) * 1000
            wall_ms = (time.perf_counter() - began) * 1000
            if outcome.faults:
                raise RuntimeError(f"benchmark bot faulted: {outcome.faults[0].reason}")
            if n:
                out.append(_Played(wall_ms, sum(outcome.think_ms), outcome.decisions, cpu_ms))
    return out


def _first_bots(reports: list[Path] | None = None) -> list[BotSpec]:
    """The two trivial bots, each appending its think times to its report file when given."""
    return [
        BotSpec(
            name=f"first{seat}",
            command=command("first", *([] if reports is None else [str(reports[seat])])),
        )
        for seat in range(2)
    ]


def referee_overhead_us(games: int) -> Overhead:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        reports = [Path(directory) / f"think{seat}.txt" for seat in range(2)]
        played = trio.run(_games, _first_bots(reports), games, str(Path(directory) / "logs"))
        # One line per game and bot, "<decisions> <think ns>", written at `end`; complete once
        # `open_bots` has returned (the bots were told `quit` and have exited). Game 0 (the
        # warm-up `_games` drops) is dropped here too.
        think = [
            [tuple(map(int, line.split())) for line in report.read_text().splitlines()][1:]
            for report in reports
        ]
    if any(len(per_bot) != len(played) for per_bot in think):
        raise RuntimeError("a benchmark bot did not report its think time for every game")
    per_decision, referee_only, bot_think = [], [], []
    for n, (wall_ms, charged_ms, decisions, _) in enumerate(played):
        answered = sum(per_bot[n][0] for per_bot in think)
        if answered != decisions:
            raise RuntimeError(
                f"the bots answered {answered} decisions, the referee saw {decisions}"
            )
        think_us = sum(per_bot[n][1] for per_bot in think) / 1000
        per_decision.append((wall_ms * 1000 - think_us) / decisions)
        referee_only.append((wall_ms - charged_ms) * 1000 / decisions)
        bot_think.append(think_us / decisions)
    return Overhead(
        per_decision_us=statistics.median(per_decision),
        referee_only_us=statistics.median(referee_only),
        bot_think_us=statistics.median(bot_think),
        decisions_per_game=statistics.mean(game.decisions for game in played),
    )


def referee_cpu_us(games: int) -> RefereeCpu:
    """The referee's own CPU time per decision (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        played = trio.run(_games, _first_bots(), games, logs)
    cpu_us = [1000 * game.cpu_ms / game.decisions for game in played]
    return RefereeCpu(
        per_decision_us=statistics.median(cpu_us),
        lower_quartile_us=statistics.quantiles(cpu_us, n=4)[0] if len(cpu_us) > 1 else cpu_us[0],
        wall_per_decision_us=statistics.median(
            1000 * game.wall_ms / game.decisions for game in played
        ),
    )


def match_throughput(games: int, concurrency: int) -> Throughput:
    specs = [parse_bot("random", name=f"random{seat}") for seat in range(2)]

    async def concurrent(logs: str) -> float:
        began = time.perf_counter()
        async with trio.open_nursery() as nursery:
            for worker in range(concurrency):
                nursery.start_soon(_games, specs, games, logs, worker * 10_000)
        return time.perf_counter() - began

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        played = trio.run(_games, specs, games, logs)
        elapsed = trio.run(concurrent, logs)
    walls = [game.wall_ms for game in played]
    return Throughput(
        match_ms=statistics.median(walls),
        games_per_s=1000 * len(walls) / sum(walls),
        concurrent_games_per_s=concurrency * (games + 1) / elapsed,
    )
