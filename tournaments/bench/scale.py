"""Tournament throughput by executor, and the per-game costs that bound scaling out.

- `executor_throughput`: the same Azul 2p round-robin of random bots, on a fresh store each
  time, played by the local executor with 1 and with 2 referee processes and by the in-process
  executor with 2 matches at once, interleaved (1, 2, in-process, 1, 2, ...), so that a change
  of the machine's load falls on all three alike; the ratio is the median of the per-round
  ratios. Worker process starts count (they are part of a run). It also reads what a game
  costs: the coordinator's CPU (scheduling, decoding the results, the store) and the workers'
  (referees and bots: their processes are reaped children, so `RUSAGE_CHILDREN` holds them).
- `store_games_per_s`: `Store.add_game` of a real game, one transaction each: the ceiling of
  one coordinator whatever the number of workers.
- `dask_games_per_s`: the same round-robin on a `LocalCluster` of 2 worker processes, the
  cluster's start left out (it is paid once per cluster, not per tournament).
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import msgspec
import trio

from referee import BotSpec, Limits, open_bots, parse_record, play_match
from tournaments.bench.matches import TIME
from tournaments.executors import Executor, ExecutorError
from tournaments.executors.checking import Checker, checking, refusals
from tournaments.executors.inprocess import InProcess
from tournaments.executors.local import Local
from tournaments.executors.ondask import OnDask, local_cluster, require_dask
from tournaments.executors.verify import refusal
from tournaments.executors.work import Deal, GameDone, Seat, UnitWork, played_from
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament
from tournaments.plan.entrants import Entrant, Player, entrant
from tournaments.play.runner import Runner, in_batches
from tournaments.store.results import Played
from tournaments.store.store import Store


class Run(msgspec.Struct, frozen=True):
    games_per_s: float
    coordinator_ms: float
    """CPU of this process per game."""
    workers_ms: float
    """CPU of the reaped child processes (worker referees and their bots) per game."""


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def round_robin(executor: Executor, bots: int, deals: int, workers: int) -> Run:
    """One 2-player round-robin of `bots` random bots played by `executor`, store and all."""
    participants = {f"random{n}": "random" for n in range(bots)}
    tournament = Tournament(
        game="azul",
        participants=dict(participants),
        deals=deals,
        concurrency=workers,
        seed=1,
        time=TIME,
    )
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as directory,
        Store(Path(directory) / "bench.sqlite") as store,
    ):
        entrants = [entrant(name, command) for name, command in participants.items()]
        rows = [(store.bot(e.name, e.command, e.hash), e) for e in entrants]
        labels = store.labels()
        players = [Player(row.id, labels[row.id], e) for row, e in rows]
        limits = Limits(log_dir=str(Path(directory) / "logs"))
        runner = Runner(tournament, store, players, limits=limits, executor=executor)
        began, cpu, children = time.perf_counter(), time.process_time(), _children_cpu_s()
        report = trio.run(runner.run)
        elapsed = time.perf_counter() - began
        cpu, children = time.process_time() - cpu, _children_cpu_s() - children
    games = report.played
    return Run(games / elapsed, 1000 * cpu / games, 1000 * children / games)


class Scaling(msgspec.Struct, frozen=True):
    one: Run
    two: Run
    in_process: Run
    ratio: float
    """Median over rounds of (2 workers' games/s ÷ 1 worker's)."""


def executor_throughput(bots: int, deals: int, rounds: int) -> Scaling:
    ones, twos, in_process = [], [], []
    for _ in range(rounds):
        ones.append(round_robin(Local(1), bots, deals, 1))
        twos.append(round_robin(Local(2), bots, deals, 2))
        in_process.append(round_robin(InProcess(2), bots, deals, 2))
    ratios = [two.games_per_s / one.games_per_s for one, two in zip(ones, twos, strict=True)]
    return Scaling(_median(ones), _median(twos), _median(in_process), statistics.median(ratios))


def _median(runs: list[Run]) -> Run:
    return Run(
        statistics.median(run.games_per_s for run in runs),
        statistics.median(run.coordinator_ms for run in runs),
        statistics.median(run.workers_ms for run in runs),
    )


async def _one_game(specs: list[BotSpec]) -> tuple[Played, int, bytes]:
    """One Azul game of the bots `specs`: its record names them, as a worker's would."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        async with open_bots(specs, Limits(log_dir=logs)) as handles:
            began = time.perf_counter()
            outcome = await play_match("azul", {}, 1, handles, TIME)
    played = played_from(outcome, (time.perf_counter() - began) * 1000)
    return played, outcome.decisions, outcome.record


def store_games_per_s(games: int) -> float:
    """`Store.add_game` of one real Azul game under `games` keys, one transaction each."""
    played, decisions, record = trio.run(_one_game, [parse_bot("random")] * 2)
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as directory,
        Store(Path(directory) / "bench.sqlite") as store,
    ):
        ids = [store.bot(f"random{n}", "random", f"{n:016x}").id for n in range(2)]
        began = time.perf_counter()
        for deal in range(games):
            store.add_game(
                seat_set=f"{ids[0]},{ids[1]}",
                deal=deal,
                rotation=0,
                seed=deal,
                bots=ids,
                played=played,
                decisions=decisions,
                record=record,
            )
        return games / (time.perf_counter() - began)


class Checked(NamedTuple):
    verify_ms: float
    """The coordinator's replay check of one quick game (`executors.verify.refusal`)."""
    in_thread: float
    """Games checked in the coordinator's thread and stored in batches, per second."""
    in_processes: float
    """The same with the checks in a `Checker` of `processes` processes, per second."""
    processes: int


def verified_store(games: int, processes: int) -> Checked:
    """`games` deliveries of one real Azul game (each under its own deal, all dealt its seed, in
    units of `UNIT_DEALS` deals) through `Runner.deliver` — the replay check, then the store in
    batches — as a coordinator takes them from its workers: checked in its own thread, then in
    `processes` checking processes (started before the clock); and the check alone, per game."""
    entrants = [entrant(f"random{n}", "random") for n in range(2)]
    played, decisions, record = trio.run(_one_game, [e.spec for e in entrants])
    seed = parse_record(record).header.seed
    seats = [Seat(e.spec, e.command, e.hash) for e in entrants]  # as the runner sends them
    done = []
    for first in range(0, games, UNIT_DEALS):
        deals = range(first, min(first + UNIT_DEALS, games))
        unit = UnitWork(
            game="azul", options={}, seat_set=(1, 2), seats=seats, rotation=0,
            deals=[Deal(deal, seed, [0, 0]) for deal in deals], limits=Limits(), tag="",
        )  # fmt: skip
        done += [(unit, GameDone(deal, 0, seed, played, decisions, record, [], "bench"))
                 for deal in deals]  # fmt: skip
    began = time.perf_counter()
    for unit, game in done[: games // 4]:
        refusal(unit, game)
    verify_ms = 1000 * (time.perf_counter() - began) / (games // 4)
    in_thread = trio.run(_deliver_all, entrants, done, None)
    with checking(processes) as checker:
        in_processes = trio.run(_deliver_all, entrants, done, checker)
    return Checked(verify_ms, in_thread, in_processes, processes)


async def _deliver_all(
    entrants: list[Entrant], done: list[tuple[UnitWork, GameDone]], checker: Checker | None
) -> float:
    """Games/s of `done` delivered to a runner on a fresh store, each checked (by `checker`,
    warmed up first, or in this thread) and stored in batches."""
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-") as directory,
        Store(Path(directory) / "bench.sqlite") as store,
    ):
        rows = [store.bot(e.name, e.command, e.hash) for e in entrants]
        players = [Player(row.id, row.name, e) for row, e in zip(rows, entrants, strict=True)]
        tournament = Tournament(game="azul", participants={}, deals=len(done), seed=1, time=TIME)
        runner = Runner(tournament, store, players, limits=Limits(), checker=checker)
        if checker is not None:  # its processes started and their engines imported
            warm = [checker.pool.submit(refusals, [(unit, [game])]) for unit, game in done[:16]]
            for future in warm:
                await trio.to_thread.run_sync(future.result)

        async def deliver() -> None:
            for unit, game in done:
                runner.deliver(unit, game)
                if checker is not None:
                    await trio.lowlevel.checkpoint()  # a worker's results arrive over time

        began = time.perf_counter()
        await in_batches(store, deliver, checker)
        games_per_s = len(done) / (time.perf_counter() - began)
        assert runner.played == len(done), "every game checked and stored"
    return games_per_s


UNIT_DEALS = 16
"""Deals of a unit in `verified_store` (a tournament's units hold 8 or more)."""


def dask_available() -> bool:
    """Whether the optional `dask` extra is installed (a plain `pip install .` has no Dask)."""
    try:
        require_dask()
    except ExecutorError:
        return False
    return True


def dask_games_per_s(bots: int, deals: int) -> float:
    """The round-robin on a `LocalCluster` of 2 single-threaded worker processes."""
    from distributed import Client

    with local_cluster(2) as cluster, Client(cluster) as client:
        executor = OnDask(str(client.scheduler.address), 2)
        return round_robin(executor, bots, deals, 2).games_per_s
