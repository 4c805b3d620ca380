"""A Dask league whose workers lie or fail, made so in the test: each worker of a real
`LocalCluster` loads `dishonest_worker.py` (a Dask preload) that patches its task as the file
of its name in a folder of this test says (raise, hang, play a stand-in for a bot, swap the
record's names, bloat the records). The coordinator is the real one, in this process; and the
server whose scheduler was killed is a real `arena serve`."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from distributed import Client
from leaguehelp import DASK_LEAGUE, Running
from patience import Deadline

from tournaments.cli import main
from tournaments.commands.common import EXIT_TERMINATED
from tournaments.executors import ondask
from tournaments.executors.here import COORDINATOR
from tournaments.executors.ondask import local_cluster
from tournaments.server.testing import in_process, until
from tournaments.store.store import REFUSED_KEPT, Store

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:Mismatched versions found")]

HOUSE_LEAGUE = (
    DASK_LEAGUE
    + """
[participants]
a = "random"
b = "random"

[time]
startup_ms = 3000
move_ms = 5000                  # a random bot never times out, even on a busy machine

[league]
batch = 2
"""
)
PRELOAD = Path(__file__).with_name("dishonest_worker.py")


class Cluster:
    """A `LocalCluster` of two single-threaded workers, `0` and `1`, that load the preload
    `dishonest_worker.py`: each behaves as `modes` (a folder) says, per test (`behave`)."""

    def __init__(self, modes: Path) -> None:
        self.modes = modes
        self.cluster = local_cluster(2, preload=[str(PRELOAD)])
        self.address = str(self.cluster.scheduler_address)
        with Client(self.address) as client:
            client.wait_for_workers(2, timeout=60)
            info = client.scheduler_info(n_workers=-1)["workers"]
        self.workers = {str(worker["name"]): address for address, worker in info.items()}
        """Name → address."""

    def behave(self, **modes: str) -> None:
        """Each worker named `_0`/`_1` as its mode says; the others honest."""
        for name in ("0", "1"):
            (self.modes / name).write_text(modes.get(f"_{name}", ""))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    modes = tmp_path_factory.mktemp("modes")
    os.environ["ARENA_TEST_MODES"] = str(modes)  # the workers' processes inherit it
    try:
        made = Cluster(modes)
    finally:
        del os.environ["ARENA_TEST_MODES"]
    try:
        yield made
    finally:
        made.behave()  # a hung task ends
        made.cluster.close()


@pytest.fixture
def league(cluster: Cluster, tmp_path: Path) -> Iterator[Path]:
    file = tmp_path / "cup.toml"
    file.write_text(HOUSE_LEAGUE.format(scheduler=cluster.address))
    yield file
    cluster.behave()


@contextlib.contextmanager
def serving(league: Path) -> Iterator[Running]:
    """`arena serve` of `league` in its own process (where the coordinator plays games itself:
    its bots are reaped with it), stopped at the block's end."""
    served = Running(league)
    try:
        yield served
    finally:
        served.stop()


def rows(file: Path) -> dict[str, Any]:
    """`arena workers --json`'s rows, by worker."""
    store = file.with_suffix(".sqlite")
    if not store.exists():
        return {}
    with Store(store, readonly=True) as opened:
        return {row.worker: row for row in opened.workers()}


def listed(file: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """`arena workers`'s table, by worker: what an organiser reads."""
    capsys.readouterr()
    assert main(["workers", str(file)]) == 0
    lines = capsys.readouterr().out.splitlines()[2:]
    return {line.split()[0]: line.split()[1:] for line in lines if line.startswith("tcp://")}


def refusals(file: Path) -> list[tuple[str, str, bytes]]:
    store = file.with_suffix(".sqlite")
    if not store.exists():
        return []
    with Store(store, readonly=True) as opened:
        return opened.refused_games()


def played(file: Path, worker: str) -> int:
    row = rows(file).get(worker)
    return 0 if row is None else int(row.games)


async def test_a_worker_whose_tasks_raise_is_blocked_and_its_units_played_elsewhere(
    cluster: Cluster, league: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.behave(_0="raise")
    bad, good = cluster.workers["0"], cluster.workers["1"]
    async with in_process(league):  # the league stops this test if its ladder fails
        await until(
            lambda: (
                rows(league).get(bad) is not None
                and rows(league)[bad].failed >= ondask.MAX_FAILURES
                and played(league, good) >= 12
            ),
            "the raising worker blocked, and games from the other",
        )
        stored = played(league, good)
        await until(lambda: played(league, good) >= stored + 8, "more games, elsewhere")
        # blocked: sent no more units (those in flight when it was blocked came back failed)
        assert rows(league)[bad].failed <= ondask.MAX_FAILURES + 2 * ondask.PER_THREAD
    logged = capsys.readouterr().err  # the organiser's log
    assert f"{bad} was refused: its unit of seat-set" in logged
    assert "its task failed: RuntimeError: a broken machine" in logged
    assert "it gets no more games" in logged and "played again elsewhere" in logged
    assert played(league, bad) == 0
    assert listed(league, capsys)[bad][-2:] == [str(rows(league)[bad].failed), "yes"]
    assert listed(league, capsys)[good][-1] == "0"  # neither failed nor blocked


async def test_units_every_worker_fails_are_played_by_the_coordinator(
    cluster: Cluster, league: Path
) -> None:
    cluster.behave(_0="raise", _1="raise")
    with serving(league):
        await until(lambda: played(league, COORDINATOR) >= 8, "games played by the coordinator")
    for worker in cluster.workers.values():
        assert played(league, worker) == 0 and rows(league)[worker].failed >= 1


async def test_a_worker_that_plays_a_stand_in_is_not_believed(
    cluster: Cluster, league: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.behave(_0="standin")
    bad, good = cluster.workers["0"], cluster.workers["1"]

    def counted() -> bool:
        return played(league, COORDINATOR) >= 1

    reasons = await refused_of(cluster, league, "the coordinator's games counted", counted)
    assert all(why.startswith("not confirmed: the worker reports the faults") for why in reasons)
    with Store(league.with_suffix(".sqlite"), readonly=True) as opened:
        games = opened.games()
    assert games and not [game for game in games if game.played.faults]  # no forfeit counts
    assert listed(league, capsys)[bad][-1] == "yes"
    assert listed(league, capsys)[good][-1] == "0"  # neither failed nor blocked


async def test_a_record_that_names_the_seats_otherwise_than_the_store_is_refused(
    cluster: Cluster, league: Path
) -> None:
    cluster.behave(_0="swap")
    reasons = await refused_of(cluster, league, "the swapped records refused")
    assert all("its record names the seats" in reason for reason in reasons), reasons
    with Store(league.with_suffix(".sqlite"), readonly=True) as opened:
        for game_id, game in opened.games_as_stored():
            record = opened.game_record(game_id)
            assert record is not None
            header = msgspec.json.decode(record.partition(b"\n")[0])
            assert header["names"] == list(game.bots)  # the store's seats, in its order


async def test_a_refused_game_keeps_a_bounded_excerpt_of_its_record(
    cluster: Cluster, league: Path
) -> None:
    cluster.behave(_0=f"bloat {1 << 20}")  # 2 MiB more per record, incompressible
    bad = cluster.workers["0"]
    async with in_process(league):
        await until(
            lambda: sum(worker == bad for worker, _, _ in refusals(league)) >= 2,
            "the bloated games refused",
        )
    with Store(league.with_suffix(".sqlite"), readonly=True) as opened:
        kept = opened._db.execute("SELECT reason, length(record) FROM refused").fetchall()
    assert kept and all(size <= REFUSED_KEPT + 1024 for _, size in kept), kept
    assert all(f"its first {REFUSED_KEPT} kept" in reason for reason, _ in kept)


async def test_results_over_their_cap_are_refused_unread(
    cluster: Cluster, league: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ondask, "GAME_BYTES", 64 << 10)  # the coordinator's cap, lowered
    cluster.behave(_0=f"bloat {1 << 20}")  # 2 MiB + the logs' 2 MiB: over
    reasons = await failures_of(cluster, league, "the oversized results refused")
    assert all("bytes, over" in reason for reason in reasons), reasons
    assert not refusals(league)  # nothing of it decoded, so no game of it to refuse


async def test_a_unit_whose_worker_never_answers_goes_elsewhere_at_its_deadline(
    cluster: Cluster, league: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ondask, "SLACK_S", 2.0)
    monkeypatch.setattr(ondask, "DECISIONS_PER_GAME", 0)  # deadline: 2 s + the bots' startup
    monkeypatch.setattr(ondask, "LOOK_S", 0.5)
    cluster.behave(_0="hang")
    reasons = await failures_of(cluster, league, "the hung units sent elsewhere")
    assert all("not back within its deadline (8 s)" in reason for reason in reasons), reasons


async def refused_of(
    cluster: Cluster, league: Path, what: str, also: Callable[[], bool] = lambda: True
) -> list[str]:
    """Run the league until a game of worker 0 is refused, worker 1 played 12 games and `also`;
    the reasons of worker 0's refused games (it stored no game)."""
    bad, good = cluster.workers["0"], cluster.workers["1"]
    with serving(league):
        await until(
            lambda: (
                any(worker == bad for worker, _, _ in refusals(league))
                and played(league, good) >= 12
                and also()
            ),
            what,
        )
    assert played(league, bad) == 0
    return [reason for worker, reason, _ in refusals(league) if worker == bad]


async def failures_of(cluster: Cluster, league: Path, what: str) -> list[str]:
    """Run the league until worker 0 has failed a unit and worker 1 played 12 games; the
    reasons of worker 0's failures (it stored no game)."""
    bad, good = cluster.workers["0"], cluster.workers["1"]
    async with in_process(league):
        await until(
            lambda: (
                rows(league).get(bad) is not None
                and rows(league)[bad].failed >= 1
                and played(league, good) >= 12
            ),
            what,
        )
    assert played(league, bad) == 0
    with Store(league.with_suffix(".sqlite"), readonly=True) as opened:
        reasons = [reason for worker, reason in opened.failed_units() if worker == bad]
    assert reasons
    return reasons


def scheduler_process(top: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A Dask scheduler in a process of its own, and its address."""
    file = top / "scheduler.json"
    command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
               "--port", "0", "--no-dashboard", "--scheduler-file", str(file)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = Deadline(60)
    while not file.exists():
        assert not deadline.passed(), "the scheduler did not start"
        time.sleep(0.1)
    return process, str(json.loads(file.read_text())["address"])


def stored(store: Path) -> int:
    """Games in the store now."""
    if not store.exists():
        return 0
    with Store(store, readonly=True) as opened:
        return len(opened.game_keys())


def test_a_server_whose_scheduler_was_killed_stops_at_once_on_sigterm(tmp_path: Path) -> None:
    """Units in flight on a worker, then the scheduler killed: SIGTERM stops the server within
    seconds (before, 28 s here; the issue's needed SIGKILL)."""
    scheduler, address = scheduler_process(tmp_path)
    command = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
               "--no-nanny", "--no-dashboard"]  # fmt: skip
    worker = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    file = tmp_path / "cup.toml"
    file.write_text(HOUSE_LEAGUE.format(scheduler=address))
    served = Running(file)
    try:
        deadline = Deadline(120)
        while stored(file.with_suffix(".sqlite")) < 1:  # the ladder plays on the worker
            assert not deadline.passed(), "no game stored"
            time.sleep(0.2)
        scheduler.kill()
        scheduler.wait()
        time.sleep(1)
        began = time.monotonic()
        code = served.stop()
        took = time.monotonic() - began
    finally:
        for process in (served.process, scheduler, worker):
            process.kill()
            process.wait()
    assert took < 8, f"arena serve took {took:.1f} s to stop on SIGTERM"
    assert code == EXIT_TERMINATED, "".join(served.log)
