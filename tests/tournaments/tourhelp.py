"""Shared helpers of the tournaments' tests: hand-made finished games, the real `arena`, and a
tournament played to its end with an executor (imported by them)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
from patience import Deadline

from tournaments.cli import main
from tournaments.executors import Executor
from tournaments.plan.prepare import Prepared, prepare
from tournaments.play.runner import Runner, RunReport
from tournaments.store.results import FaultRow, FinishedGame, Played

ARENA = [sys.executable, "-c", "import sys; from tournaments.cli import main; sys.exit(main())"]
"""The real `arena` entry point in a fresh interpreter, as the console script calls it."""

ARENA_CTRL_C = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from tournaments.cli import main; sys.exit(main())",
]
"""`ARENA` as a terminal's foreground process has it, where Ctrl-C raises KeyboardInterrupt:
also when the tests were started with SIGINT ignored (a background job of a script, `nohup`),
which a child inherits and Python keeps. An interrupt test run that way once saw its run play
every game after the SIGINT and exit 0."""


GATED = """
import fcntl, importlib, os, sys, time
from bots.sdk import run

options = dict(word[2:].split("=", 1) for word in sys.argv[1:])
policy = importlib.import_module("bots." + options["policy"]).choose
gate = options.get("gate")
game = None


def ticket():
    with open(os.path.join(gate, "tickets"), "a+") as tickets:
        fcntl.flock(tickets, fcntl.LOCK_EX)
        tickets.write("game\\n")
        tickets.flush()
        tickets.seek(0)
        return len(tickets.read().split())


def held(path):
    try:
        with open(os.path.join(gate, "limit")) as limit:
            return ticket() > int(limit.read()) and not os.path.exists(path)
    except FileNotFoundError:
        return False


def choose(observation, legal, context):
    global game
    release = os.path.join(gate or "", "release")
    if gate and context is not game:
        game = context
        if held(release):
            open(os.path.join(gate, "held"), "a").close()
            while not os.path.exists(release):
                time.sleep(0.01)
    return policy(observation, legal, context)


run(choose, name=options["policy"])
"""


class Gate:
    """Built-in bots' policies behind a gate: after `limit` games begun (counted by seat, over
    all the gated bots' processes), a gated bot's next games wait at their first decision until
    the test opens the gate. A run with more games of gated bots than that cannot end before the
    test has stopped it, however fast or slow the machine. Give the run a long move time (a
    held decision must not time out). The gate's folder is an option, never a bot's file: what
    changes in it makes no new version of the bot."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "gate"
        self.directory.mkdir()
        self.script = directory / "gated.py"
        self.script.write_text(GATED)

    def bot(self, policy: str, gated: bool = True) -> str:
        """A participant playing as built-in `policy` (a TOML string); ungated, it never waits."""
        words = f"{sys.executable} {self.script} --policy={policy}"
        return json.dumps(f"{words} --gate={self.directory}" if gated else words)

    def limit(self, games: int) -> None:
        """From now on, let the gated bots begin `games` games (counted by seat: a game of two
        gated bots counts two; `arena run`'s check of a new bot counts too), then hold."""
        (self.directory / "tickets").unlink(missing_ok=True)
        (self.directory / "held").unlink(missing_ok=True)
        (self.directory / "limit").write_text(str(games))

    def wait_held(self, db: Path, games: int, timeout: float = 120) -> int:
        """Until a game is held and the store at `db` holds `games` games (a run unable to end:
        a signal now stops it mid-way); the games stored. The timeout only ends a hung test."""
        deadline = Deadline(timeout)
        while not (self.directory / "held").exists() or stored_games(db) < games:
            assert not deadline.passed(), f"no game held and {games} stored in {timeout} s"
            time.sleep(0.01)
        return stored_games(db)

    def open(self) -> None:
        """Let every held game, and those to come, go on."""
        (self.directory / "release").touch()


def stored_games(db: Path) -> int:
    """How many games the store at `db` holds now (0 while it is being made): read-only, so a
    test can watch a running tournament."""
    if not db.exists():
        return 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        try:
            return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
        except sqlite3.OperationalError:  # the schema is being created
            return 0


def in_process(*argv: str | Path | int) -> tuple[int, str, str]:
    """`arena ARGV` through `tournaments.cli.main` in this process — the one way the tests
    check parsing, messages and exit codes without a subprocess: exit code, stdout, stderr.
    Any exception but `main`'s clean exits (argparse's among them) escapes to the test: a
    traceback fails it."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(arg) for arg in argv])
        except SystemExit as exit:  # a usage error, or --help
            code = exit.code if isinstance(exit.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def cli(*args: str | Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    """`arena(ARGS...)` in this process (`in_process`), for a test of what a command does and
    says rather than of its process (signals, kills): the interpreter's start is spared."""
    returned, out, err = in_process(*args)
    assert returned == code, err
    return subprocess.CompletedProcess([*ARENA, *map(str, args)], returned, out, err)


def arena(*args: str | Path, code: int = 0) -> subprocess.CompletedProcess[str]:
    """Run `arena ARGS...` and check its exit code."""
    done = subprocess.run(
        [*ARENA, *map(str, args)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == code, done.stderr
    return done


def game(
    bots: Sequence[str],
    ranks: Sequence[int],
    *,
    deal: int = 0,
    rotation: int = 0,
    seat_set: str | None = None,
    scores: Sequence[int] | None = None,
    moves: int = 10,
    think_ms: float = 5.0,
    faults: Sequence[FaultRow] = (),
) -> FinishedGame:
    """One game; by default each game is its own deal of a seat-set named after its bots."""
    return FinishedGame(
        seat_set=seat_set if seat_set is not None else ",".join(sorted(bots)),
        deal=deal,
        rotation=rotation,
        bots=tuple(bots),
        played=Played(
            scores=list(scores) if scores is not None else [10 * (5 - r) for r in ranks],
            ranks=list(ranks),
            moves=[moves] * len(bots),
            think_ms=[think_ms * moves] * len(bots),
            faults=list(faults),
        ),
    )


def series(a: str, b: str, wins: int, losses: int, draws: int = 0) -> list[FinishedGame]:
    """Two-player games of a against b, one deal each, seats alternating."""
    outcomes = [(1, 2)] * wins + [(2, 1)] * losses + [(1, 1)] * draws
    result = []
    for deal, (rank_a, rank_b) in enumerate(outcomes):
        if deal % 2:
            result.append(game([b, a], [rank_b, rank_a], deal=deal, seat_set=f"{a},{b}"))
        else:
            result.append(game([a, b], [rank_a, rank_b], deal=deal, seat_set=f"{a},{b}"))
    return result


def run(file: Path, executor: Executor, **callbacks: Any) -> RunReport:
    """Play the tournament of `file` to its end with `executor`."""
    prepared = prepare(file)
    try:
        return play(prepared, executor, **callbacks)
    finally:
        prepared.close()


def play(prepared: Prepared, executor: Executor, **callbacks: Any) -> RunReport:
    """Play a prepared tournament (store open, bots hashed) to its end with `executor`."""
    runner = Runner(
        prepared.tournament,
        prepared.store,
        prepared.players,
        limits=prepared.limits,
        executor=executor,
        **callbacks,
    )
    return trio.run(runner.run)
