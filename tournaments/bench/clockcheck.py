"""Clocks under load: count false timeouts of bots that always answer well within the limit.

`python -m tournaments.bench.clockcheck --decisions 10000 --move-ms 50 --think-ms 30` plays Azul
games between bots that spend exactly `think_ms` on every decision (burning CPU, or sleeping with
`--sleep`), `concurrency` matches at once (default: one per core), until `decisions` answers
have been given. Every timeout is false by construction; the report also gives the charged time
and the referee's scheduling latency (`MatchOutcome.latency_ms`) as percentiles. The numbers in
docs/benchmarks.md ("Clocks under load") come from this command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Sequence

import msgspec
import trio

from protocol.messages import TimeControl
from referee import BotSpec, Limits, TimeMode, open_bots, play_match

THINKER = """\
import json, sys, time
think_s = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.0
sleep = sys.argv[2:] == ["sleep"]
for raw in sys.stdin:
    message = json.loads(raw)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "name": "thinker"}), flush=True)
    elif message["type"] == "act":
        if sleep:
            time.sleep(think_s)
        else:
            end = time.perf_counter() + think_s
            while time.perf_counter() < end:
                pass
        print(json.dumps({"type": "action", "id": message["id"], "index": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""
"""A bot that takes `think_ms` per decision (0 without arguments), by the wall clock (its own
clock, not ours), and answers the first legal action: the standard library only, so any
`python3` runs it (the league bench uploads it too)."""


class ClockReport(msgspec.Struct):
    decisions: int
    false_timeouts: int
    games: int
    concurrency: int
    cores: int
    charged_ms: dict[str, float]
    """Percentiles (p50, p99, max) of the time charged per decision."""
    latency_ms: dict[str, float]
    """Percentiles of the referee's scheduling latency per decision."""
    timeout_reasons: list[str]
    """The reasons of the first few false timeouts (wall limit missed, or the bot's CPU)."""


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50": statistics.median(ordered), "p99": p99, "max": ordered[-1]}


async def measure(
    decisions: int,
    move_ms: int,
    think_ms: int,
    *,
    concurrency: int = 0,
    sleep: bool = False,
    time_mode: TimeMode = "wall",
) -> ClockReport:
    """Play until `decisions` answers were given; count the timeouts (all of them false)."""
    workers = concurrency or os.cpu_count() or 1
    bot = BotSpec(
        "thinker", [sys.executable, "-c", THINKER, str(think_ms), "sleep" if sleep else "spin"]
    )
    time = TimeControl(move_ms=move_ms, startup_ms=10_000)
    limits = Limits(time_mode=time_mode)
    charged: list[float] = []
    latency: list[float] = []
    timeouts = games = 0
    reasons: list[str] = []

    async def worker(index: int) -> None:
        nonlocal timeouts, games
        async with open_bots([bot, bot], limits) as handles:
            seed = index
            while len(charged) < decisions:
                outcome = await play_match(
                    "azul", {}, seed, handles, time, limits=limits, sample_latency=True
                )
                seed += workers
                games += 1
                late = [fault.reason for fault in outcome.faults if fault.kind == "timeout"]
                timeouts += len(late)
                reasons.extend(late[: 5 - len(reasons)])
                charged.extend(_charged(outcome.record))
                latency.extend(outcome.latency_ms)

    async with trio.open_nursery() as nursery:
        for index in range(workers):
            nursery.start_soon(worker, index)
    return ClockReport(
        decisions=len(charged),
        false_timeouts=timeouts,
        games=games,
        concurrency=workers,
        cores=os.cpu_count() or 1,
        charged_ms=percentiles(charged),
        latency_ms=percentiles(latency),
        timeout_reasons=reasons,
    )


def _charged(record: bytes) -> list[float]:
    """The time charged for every answer of a game record (its `decision` lines)."""
    times: list[float] = []
    for line in record.splitlines():
        entry = msgspec.json.decode(line)
        if entry.get("type") == "decision":
            times.extend(float(ms) for ms in entry.get("ms", {}).values())
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.bench.clockcheck", description=__doc__
    )
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--move-ms", type=int, default=50)
    parser.add_argument("--think-ms", type=int, default=30)
    parser.add_argument("-j", "--concurrency", type=int, default=0, help="0: one per core")
    parser.add_argument("--sleep", action="store_true", help="bots sleep instead of computing")
    parser.add_argument("--time-mode", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args(argv)
    report = trio.run(
        lambda: measure(
            args.decisions,
            args.move_ms,
            args.think_ms,
            concurrency=args.concurrency,
            sleep=args.sleep,
            time_mode=args.time_mode,
        )
    )
    print(msgspec.json.format(msgspec.json.encode(report)).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
