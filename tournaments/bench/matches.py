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
  excluded by the kernel's accounting rather than estimated and subtracted. Interleaved with
  those games, the same deals are played by `_least_loop`, the least any trio referee must do
  per decision — the engine's legal actions, observation and `act` encoding, one write, one
  wait for the pipe, one read, the answer's decoding (no checks) and the engine's apply — on two
  more `first` bots: the difference is what the referee's own bookkeeping costs (clocks,
  deadlines, the answer's checks, the record, resource checks, the start and end of a game).
- `match_throughput`: the built-in random bot (the SDK, typed decoding and all) in both seats,
  processes reused; one match at a time, then `concurrency` matches at once.
- `tournament_throughput`: the real runner and SQLite store on a temporary file, so the figure
  includes scheduling, process starts per unit and one transaction per stored game.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

import msgspec
import trio

from protocol import TimeControl
from protocol.messages import Answer, Clock, encode_act, from_bot_decoder
from referee import BotSpec, Limits, open_bots, play_match
from referee.games import find_game
from tournaments.bench.children import command
from tournaments.plan.botcommands import parse_bot

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
    least_loop_us: float
    """Median over the same deals of the CPU time / decisions of `_least_loop`."""
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


PlayOne = Callable[[int], Awaitable[_Played]]
"""Play and measure one game from its seed."""


@contextlib.asynccontextmanager
async def _referee(specs: list[BotSpec], log_dir: str) -> AsyncIterator[PlayOne]:
    """Bots for whole Azul games on one set of processes: yields `play(seed)`, which plays and
    measures one game (the caller drops the first, which starts the processes)."""
    limits = Limits(log_dir=log_dir, sandbox="none")  # the bench's bots write reports on the host
    async with open_bots(specs, limits) as handles:

        async def play(seed: int) -> _Played:
            began, began_cpu = time.perf_counter(), time.process_time()
            outcome = await play_match("azul", None, seed, handles, TIME, limits=limits)
            cpu_ms = (time.process_time() - began_cpu) * 1000
            wall_ms = (time.perf_counter() - began) * 1000
            if outcome.faults:
                raise RuntimeError(f"benchmark bot faulted: {outcome.faults[0].reason}")
            return _Played(wall_ms, sum(outcome.think_ms), outcome.decisions, cpu_ms)

        yield play


async def _games(
    specs: list[BotSpec], games: int, log_dir: str, first_seed: int = 0
) -> list[_Played]:
    """Play `games` Azul games on one set of processes and measure each."""
    async with _referee(specs, log_dir) as play:
        await play(first_seed)  # pays the process starts
        return [await play(first_seed + n) for n in range(1, games + 1)]


@contextlib.asynccontextmanager
async def _least_loop() -> AsyncIterator[PlayOne]:
    """The least a trio referee must do per decision (see the module docstring), with two
    `first` bots on raw pipes: yields `play(seed)`, which plays one Azul game and measures it
    (`wall_ms` and `charged_ms` are not measured: 0)."""
    game = find_game("azul")
    clock = Clock(move_ms=TIME.move_ms, bank_ms=TIME.bank_ms)
    bots = [
        subprocess.Popen(command("first"), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    pipes = []
    for bot in bots:
        assert bot.stdin is not None and bot.stdout is not None
        os.set_blocking(bot.stdout.fileno(), False)
        pipes.append((bot.stdin.fileno(), bot.stdout.fileno()))

    async def answer(seat: int, line: bytes) -> bytes:
        to_bot, from_bot = pipes[seat]
        os.write(to_bot, line)
        reply = b""
        while not reply.endswith(b"\n"):
            await trio.lowlevel.wait_readable(from_bot)
            reply += os.read(from_bot, 1 << 16)
        return reply[:-1]

    async def play(seed: int) -> _Played:
        began_cpu = time.process_time()
        state, decision = game.new(2, seed), 0
        while to_act := game.to_act(state):
            [seat] = to_act
            decision += 1
            legal = game.legal(state, seat)
            act = encode_act(decision, game.observe(state, seat), legal, clock)
            reply = from_bot_decoder.decode(await answer(seat, act))
            assert isinstance(reply, Answer) and reply.index is not None, "`first` answers so"
            game.apply(state, {seat: legal[reply.index]})
        return _Played(0.0, 0.0, decision, (time.process_time() - began_cpu) * 1000)

    try:
        for seat in range(2):
            await answer(seat, b'{"type":"start"}\n')
        yield play
    finally:
        for bot in bots:
            bot.kill()
            bot.wait()


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
    """The referee's own CPU time per decision, and the least loop's on the same deals, a game
    of each in turn (see the module docstring)."""
    played: list[_Played] = []
    least: list[_Played] = []

    async def interleaved(logs: str) -> None:
        async with _referee(_first_bots(), logs) as referee, _least_loop() as least_loop:
            await referee(0)  # each pays its process starts
            await least_loop(0)
            for seed in range(1, games + 1):
                played.append(await referee(seed))
                least.append(await least_loop(seed))

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        trio.run(interleaved, logs)
    cpu_us = [1000 * game.cpu_ms / game.decisions for game in played]
    return RefereeCpu(
        per_decision_us=statistics.median(cpu_us),
        least_loop_us=statistics.median(1000 * game.cpu_ms / game.decisions for game in least),
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
