"""Hand-made finished games for the tournaments' tests (imported by them)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tournaments.cli import main
from tournaments.results import FaultRow, FinishedGame, Played

ARENA = [sys.executable, "-c", "import sys; from tournaments.cli import main; sys.exit(main())"]
"""The real `arena` entry point in a fresh interpreter, as the console script calls it."""


def slow_bot(sleep_ms: int) -> str:
    """A participant (a TOML string) that sleeps before each answer: a run long enough to be
    interrupted on a loaded machine, where random bots play a whole schedule in a second."""
    healthy = Path(__file__).resolve().parents[1] / "bots" / "healthy.py"
    return json.dumps(f"{sys.executable} {healthy} sleep_ms={sleep_ms}")


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
    Any exception but `main`'s clean exits escapes to the test: a traceback fails it."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(arg) for arg in argv])
    return code, out.getvalue(), err.getvalue()


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
