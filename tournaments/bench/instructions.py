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
referee); `least` plays the bench's least loop (`tournaments.bench.matches`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GAMES = (5, 25)
"""The two runs whose difference is measured."""


def _play(kind: str, games: int) -> int:
    """Play seeds 0..games (seed 0 starts the bots) and return the decisions of all of them."""
    import trio

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
        return trio.run(referee, logs)


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
