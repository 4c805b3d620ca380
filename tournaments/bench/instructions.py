"""Instructions per decision of the referee and of the least loop, counted by callgrind.

CPU time on a shared machine swings 2× with the neighbours' load (docs/benchmarks.md); the
count of instructions a loop executes does not. So

    python -m tournaments.bench.instructions referee [--tree CHECKOUT]
    python -m tournaments.bench.instructions least

runs this file twice under `valgrind --tool=callgrind`, playing 5 and then 25 Azul games of two
`first` bots (the bench's trivial bots), and prints (instructions of the longer run − of the
shorter) ÷ (its decisions − the shorter's): the instructions per decision, with the
interpreter's start, the imports and the bots' first start cancelled out. Only the referee's
process is counted, never the bots'.

`referee` plays through `open_bots` and `play_match`, taken from `--tree` when given (another
checkout, such as an older commit in a `git worktree`: both functions are there since the first
referee), on a trio clock slowed down as callgrind slows the referee (`CLOCK_RATE`); `least`
plays the bench's least loop (`tournaments.bench.matches`), which keeps no time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

import trio

GAMES = (5, 25)
"""The two runs whose difference is measured."""

CLOCK_RATE = 1 / 50
"""How fast the referee's trio clock runs, relative to real time, in the runs counted.

Callgrind runs the referee 13 to 45 times slower than it runs natively (4.7 to 13 ms a
decision against 0.3 to 0.4, with the machine's load), so on the real clock the referee's work that
is paced by time comes that many times as often per decision as in a real game: the guard's
deadline, moved when its request's is more than `GUARD_SLACK_S` (10 ms) past it, and the bots'
resource counters, read every `RESOURCE_CHECK_S` (0.1 s). Counted on the real clock, 25 games
moved the deadline 216 times and read the counters 57 times at a load of 2.6, 539 and 224 times
at a load of 6, against 26 and 52 natively: several thousand instructions a decision that no
real game spends, and as unsteady as the load. On a clock 50 times slower both come as often
as natively (26 and 52 under callgrind too)."""


class _SlowClock(trio.abc.Clock):
    """Real time at `CLOCK_RATE`, read at the cost of trio's own clock (`trio.testing.MockClock`
    with a rate reads the time through one more call, which the count would include)."""

    def __init__(self) -> None:
        self._start = 0.0

    def start_clock(self) -> None:
        self._start = perf_counter()

    def current_time(self) -> float:
        return (perf_counter() - self._start) * CLOCK_RATE

    def deadline_to_sleep_time(self, deadline: float) -> float:
        return max(0.0, (deadline - self.current_time()) / CLOCK_RATE)


def _play(kind: str, games: int) -> int:
    """Play seeds 0..games (seed 0 starts the bots) and return the decisions of all of them."""
    if kind == "least":
        from tournaments.bench.matches import _least_loop

        async def least() -> int:
            async with _least_loop() as play:
                return sum([(await play(seed)).decisions for seed in range(games + 1)])

        return trio.run(least)

    from protocol import TimeControl
    from referee import BotSpec, Limits, open_bots, play_match
    from tournaments.bench.children import command

    async def referee(logs: str) -> int:
        limits = Limits(log_dir=logs, sandbox="none")  # as the bench's referee section
        specs = [BotSpec(name=f"first{seat}", command=command("first")) for seat in range(2)]
        decisions = 0
        async with open_bots(specs, limits) as handles:
            for seed in range(games + 1):
                outcome = await play_match(
                    "azul", None, seed, handles, TimeControl(move_ms=1000), limits=limits
                )
                if outcome.faults:
                    raise RuntimeError(f"a `first` bot faulted: {outcome.faults[0].reason}")
                decisions += outcome.decisions
        return decisions

    with tempfile.TemporaryDirectory(prefix="arena-instructions-") as logs:
        return trio.run(referee, logs, clock=_SlowClock())


def _counted(kind: str, games: int, tree: str | None, valgrind: str) -> tuple[int, int]:
    """Instructions and decisions of one run under callgrind."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [tree, env.get("PYTHONPATH")]))
    print(f"counting {games} games under callgrind (a minute or two)…", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="arena-instructions-") as directory:
        out = Path(directory) / "callgrind.out"
        run = subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                kind,
                f"--play={games}",
            ],
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise SystemExit(f"the {games}-game run under callgrind failed:\n{run.stderr}")
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1]), int(run.stdout.split()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tournaments.bench.instructions",
        description="Instructions per decision of the referee or the least loop (callgrind).",
    )
    parser.add_argument("kind", choices=["referee", "least"])
    parser.add_argument("--tree", help="the checkout whose referee plays (referee only)")
    parser.add_argument(
        "--play",
        type=int,
        metavar="GAMES",
        help="only play seeds 0..GAMES here and print their decisions (each counted run does)",
    )
    args = parser.parse_args(argv)
    if args.play is not None:
        print(_play(args.kind, args.play))
        return
    if args.tree is not None and args.kind != "referee":
        parser.error("--tree is for `referee`: the least loop is this checkout's")
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        parser.error("valgrind is not installed (Debian: apt-get install valgrind)")
    tree = None if args.tree is None else str(Path(args.tree).resolve())
    (short, short_decisions), (long, long_decisions) = (
        _counted(args.kind, games, tree, valgrind) for games in GAMES
    )
    per_decision = (long - short) / (long_decisions - short_decisions)
    print(
        f"{args.kind}{'' if tree is None else f' of {tree}'}: {per_decision / 1000:,.1f}k "
        f"instructions per decision ({long_decisions - short_decisions} decisions, "
        f"{GAMES[1]} games − {GAMES[0]})"
    )


if __name__ == "__main__":
    # Run as a file (how callgrind runs it), this directory is first on sys.path: drop it, so
    # that only the checkout being measured provides `referee` and `protocol`.
    if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    main()
