"""The store keeps up: a run's games are committed in batches (one transaction each, closed at
least every `BATCH_S`), a run killed mid-batch loses only that batch's games, and the next run
plays exactly the missing games, none twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from tourhelp import ARENA

from tournaments.store.results import Played
from tournaments.store.store import Store

TOURNAMENT = """
game = "azul"
deals = 20
seed = 3
concurrency = 2

[participants]
random = "random"
twin = "random"
"""
GAMES = 40
"""1 seat-set × 20 deals × 2 rotations."""

PLAYED = Played(
    scores=[3, 1], ranks=[1, 2], tiebreak="", moves=[5, 5], think_ms=[1.0, 1.0], faults=[],
    wall_ms=2.0,
)  # fmt: skip


def add(store: Store, deal: int) -> int | None:
    return store.add_game(
        seat_set="1,2", deal=deal, rotation=0, seed=deal, bots=[1, 2], played=PLAYED,
        decisions=10, record=b"{}", worker="here",
    )  # fmt: skip


def count(path: Path) -> int:
    with Store(path, readonly=True) as store:
        return len(store.games())


def test_a_batch_is_seen_by_others_once_committed_and_a_write_of_its_own_commits_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cup.sqlite"
    with Store(path) as store:
        for bot in ("a", "b"):
            store.bot(bot, bot, bot)
        with store.batched():
            assert add(store, 0) is not None and add(store, 1) is not None
            assert store.uncommitted == 2 and count(path) == 0  # this connection alone sees them
            assert add(store, 1) is None  # never twice, even within a batch
            store.bot("c", "c", "c")  # a transaction of its own: the batch is committed first
            assert store.uncommitted == 0 and count(path) == 2
            add(store, 2)
            monkeypatch.setattr("tournaments.store.store.BATCH_S", 0.0)
            store.commit_due()
            assert count(path) == 3
            add(store, 3)
        assert count(path) == 4  # the end of the batches commits the last one
        assert [row.games for row in store.workers()] == [4]


CHILD = """
import sys, trio
from tournaments.plan.prepare import prepare
from tournaments.play.runner import Runner
from tournaments.executors.inprocess import InProcess

from pathlib import Path
prepared = prepare(Path(sys.argv[1]))
def on_game(game):
    print(prepared.store.uncommitted, flush=True)
runner = Runner(prepared.tournament, prepared.store, prepared.players, limits=prepared.limits,
                executor=InProcess(2), on_game=on_game)
trio.run(runner.run)
"""
"""A run that says, after each game it stores, how many games its open batch holds."""


@pytest.mark.slow
def test_a_run_killed_mid_batch_loses_that_batch_only_and_the_next_plays_exactly_the_rest(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT)
    db = file.with_suffix(".sqlite")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(file)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    told: list[int] = []
    for line in child.stdout:
        told.append(int(line))
        if told[-1] >= 3:  # three games delivered and not yet committed
            os.kill(child.pid, signal.SIGKILL)
            break
    child.wait()
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL, "the run ended before a batch held 3 games"
    stored = count(db)
    assert stored <= len(told) - 3  # the open batch's games are lost, whole
    resumed = subprocess.run(
        [*ARENA, "run", str(file), "--json"], capture_output=True, text=True, check=True
    )
    assert f"{stored} already stored" in resumed.stderr
    with Store(db, readonly=True) as store:
        games = store.games()
        workers = store.workers()
    assert len(games) == GAMES == len({(g.seat_set, g.deal, g.rotation) for g in games})
    assert sum(row.games for row in workers) == GAMES  # each stored game names its worker
