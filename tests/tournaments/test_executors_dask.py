"""The Dask executor on a `LocalCluster` of 2 worker processes: the same games as the runner
before the seam (and so as the local executor: `test_executors`), a worker killed mid-run, the
coordinator killed and resumed, a bot that differs on a worker, and Dask missing."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import msgspec
import pytest
import trio
from distributed import Client
from executorhelp import BOTS, GAMES, GOLDEN, digest, stored, tournament
from patience import Deadline
from tourhelp import ARENA, play, run

from referee import Limits
from tournaments.executors import ExecutorError, ondask
from tournaments.executors.ondask import OnDask, _play, local_cluster, require_dask
from tournaments.executors.work import GameUnplayed, UnitFailed
from tournaments.plan.prepare import prepare
from tournaments.store.results import FinishedGame


@contextlib.contextmanager
def cluster_client() -> Iterator[Client]:
    """A client of a cluster of 2 single-threaded worker processes on this machine."""
    with (
        local_cluster(2) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with cluster_client() as client:
        yield client


def address(client: Client) -> str:
    return str(client.scheduler.address)


@pytest.mark.slow
def test_a_local_cluster_of_its_own_stores_the_games_of_the_runner(tmp_path: Path) -> None:
    file = tournament(tmp_path)
    report = run(file, OnDask(None, 2))
    assert report.played == GAMES
    assert digest(file.with_suffix(".sqlite")) == GOLDEN


@pytest.mark.slow
def test_a_local_cluster_starts_whatever_became_of_dasks_dashboard_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once in the suite, Dask's own attempt at its dashboard (bokeh is not installed) failed a
    cluster's start: "module 'distributed.dashboard' has no attribute 'scheduler'". A half-made
    module in its place fails that attempt the same way: `local_cluster` never makes it."""
    monkeypatch.setitem(
        sys.modules,
        "distributed.dashboard.scheduler",
        ModuleType("distributed.dashboard.scheduler"),
    )
    with local_cluster(1) as cluster, Client(cluster) as client:
        assert client.submit(sum, [1, 2]).result(timeout=60) == 3


def test_a_killed_worker_has_its_unit_played_elsewhere_and_every_game_stored_once(
    tmp_path: Path,
) -> None:
    with cluster_client() as client:  # its own: a restarted worker may be slow to come back
        file = tournament(tmp_path)
        pids = client.run(os.getpid)
        killed: list[int] = []

        def kill_a_busy_worker(game: FinishedGame) -> None:
            if not killed:
                busy = [worker for worker, tasks in client.processing().items() if tasks]
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(pids[busy[0]])

        report = run(file, OnDask(address(client), 2), on_game=kill_a_busy_worker)
        assert killed and report.played == GAMES
        assert digest(file.with_suffix(".sqlite")) == GOLDEN


@pytest.mark.slow
def test_a_killed_coordinator_loses_nothing_and_resumes(tmp_path: Path, client: Client) -> None:
    file = tournament(tmp_path)
    db = file.with_suffix(".sqlite")
    command = [*ARENA, "run", str(file), "--dask", address(client), "-q"]
    coordinator = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = Deadline(60)
        while not busy(client) and coordinator.poll() is None and not deadline.passed():
            time.sleep(0.01)
    finally:
        coordinator.kill()  # mid-run: its games in play and its batch not committed are lost
        _, errors = coordinator.communicate()
    assert coordinator.returncode == -signal.SIGKILL and stored(db) < GAMES, errors
    report = run(file, OnDask(address(client), 2))  # resumed
    assert report.stored_before + report.played == GAMES
    assert digest(db) == GOLDEN  # complete, every game once, the same games


def busy(client: Client) -> bool:
    """Whether a task is being played on the cluster."""
    return any(client.processing().values())


def test_a_worker_refuses_a_bot_whose_files_differ_from_the_coordinators(
    tmp_path: Path, client: Client
) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text((BOTS / "healthy.py").read_text())
    file = tournament(tmp_path)
    file.write_text(file.read_text() + f'mine = "{sys.executable} {bot}"\n')
    prepared = prepare(file)  # the coordinator hashes mine.py as it is now
    bot.write_text(bot.read_text() + "# what the workers see: another version\n")
    try:
        with pytest.raises(
            ExecutorError, match=r"bot 'mine' on .*: its bundle hashes to"
        ) as raised:
            play(prepared, OnDask(address(client), 2))
    finally:
        prepared.close()
    assert "its files changed after the run identified it" in str(raised.value)


def test_without_dask_the_error_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    with pytest.raises(ExecutorError, match=r"pip install 'tile-arena\[dask\]'"):
        require_dask()


class _Task:
    """A stand-in for a Dask future whose task has ended: `result()` plays `script` step by
    step — the deals of the unplayed games to return (encoded as a task returns them), or an
    exception to raise and the status that follows it — and a "lost" status turns "finished"
    again after two looks (the scheduler computed it again)."""

    def __init__(self, key: str, *script: object) -> None:
        self.key = key
        self.script = list(script)
        self._status = "finished"
        self.looks = 0
        self.fetches = 0

    @property
    def status(self) -> str:
        if self._status == "lost":
            self.looks += 1
            if self.looks > 2:
                self._status = "finished"
        return self._status

    def result(self, timeout: float) -> object:
        self.fetches += 1
        step = self.script.pop(0)
        if isinstance(step, tuple):
            error, self._status = step
            raise error
        assert isinstance(step, list)
        return msgspec.msgpack.encode([GameUnplayed(deal, 0) for deal in step])

    def exception(self) -> BaseException:
        return RuntimeError("the bot file vanished")


class _Cluster:
    """A stand-in for a Dask client: its workers (each with what it lacks) and its tasks."""

    def __init__(self, tasks: list[_Task], lacks: dict[str, list[str]] | None = None) -> None:
        self.tasks = iter(tasks)
        self.lacks = {"worker": []} if lacks is None else lacks
        self.sent_to: list[object] = []
        self.asked: list[str] = []
        self.submitted: dict[str, object] = {}
        self.states: dict[str, str] = {}
        """The scheduler's state of each task (default: "erred")."""
        self.cancelled: list[str] = []

    def submit(self, function: object, unit: object, **options: object) -> _Task:
        self.sent_to.append(options["workers"])
        task = next(self.tasks)
        self.submitted[task.key] = options["workers"]
        return task

    def run_on_scheduler(
        self, function: object, keys: list[str]
    ) -> dict[str, tuple[str, str, list[str]]]:
        """Each task's state (`ondask._task_states`), where it erred: the first worker it was
        sent to."""
        return {
            key: (self.states.get(key, "erred"), "", [self.submitted[key][0]])  # type: ignore[index]
            for key in keys
        }

    def cancel(self, futures: list[_Task]) -> None:
        self.cancelled += [future.key for future in futures]

    def nthreads(self) -> dict[str, int]:
        return dict.fromkeys(self.lacks, 1)

    def run(self, function: Any, need: Any, workers: list[str], on_error: str) -> dict[str, Any]:
        self.asked += workers
        return {worker: self.lacks[worker] for worker in workers}

    def who_has(self, futures: list[_Task]) -> dict[str, tuple[str, ...]]:
        """The first worker each task was sent to (the only worker in most of these tests)."""
        return {future.key: (self.submitted[future.key][0],) for future in futures}  # type: ignore[index]


def _units(count: int) -> Iterator[Any]:
    return iter(
        [
            SimpleNamespace(tag=f"{n},{n + 1}", rotation=0, seats=[], limits=Limits(), deals=[n])
            for n in range(count)
        ]
    )


def test_a_worker_is_asked_once_what_it_lacks_and_sent_only_what_it_can_play() -> None:
    """Before any unit goes to a worker, the worker is asked (once for units of the same needs)
    whether it has them; one that lacks them is sent none, and with no worker left the run
    stops naming what each lacks."""
    cluster = _Cluster([_Task(f"t{n}", [n]) for n in range(3)], {"has": [], "bare": ["x"]})
    delivered: list[Any] = []
    trio.run(_play, cluster, _units(3), lambda unit, game: delivered.append(game), set(), set())
    assert sorted(game.deal for game in delivered) == [0, 1, 2]
    assert cluster.sent_to == [["has"], ["has"], ["has"]] and sorted(cluster.asked) == [
        "bare",
        "has",
    ]
    nobody = _Cluster([], {"bare": ["'node'"]})
    with pytest.raises(ExecutorError, match="seat-set 0,1: the worker bare lacks 'node'"):
        trio.run(_play, nobody, _units(1), lambda unit, game: None, set(), set())


def test_results_lost_while_being_fetched_are_waited_for_and_stored_once() -> None:
    """A worker that dies between the task's end and the fetch: the results are computed
    again and delivered once, with every other unit's."""
    lost = _Task("a", (TimeoutError(), "lost"), [1, 2])
    tasks = [lost, _Task("b", [3])]
    delivered: list[tuple[str, int]] = []
    trio.run(
        _play,
        _Cluster(tasks),
        _units(2),
        lambda unit, game: delivered.append((unit.tag, game.deal)),
        set(),
        set(),
    )
    assert sorted(delivered) == [("0,1", 1), ("0,1", 2), ("1,2", 3)]
    assert lost.fetches == 2


def test_a_failed_task_or_results_that_never_come_send_the_unit_to_another_worker() -> None:
    """A task that fails, results that cannot be fetched, results too large or not results:
    each is counted against its worker (blocked at `MAX_FAILURES`) and the unit goes to a
    worker that has not failed it."""
    failed = _Task("a", [0])
    failed._status = "error"
    stuck = _Task("b", (TimeoutError(), "finished"))
    garbage = _Task("c", [0])
    garbage.result = lambda timeout: b"\xc1 not results"  # type: ignore[method-assign]
    good = _Task("d", [7])
    cluster = _Cluster([failed, stuck, garbage, good], {"w1": [], "w2": [], "w3": [], "w4": []})
    delivered: list[Any] = []
    failures: Counter[str] = Counter()
    refused: set[str] = set()
    play = _play(
        cluster, _units(1), lambda unit, got: delivered.append(got), refused, set(), failures
    )
    trio.run(lambda: play)
    reasons = [got.reason for got in delivered if isinstance(got, UnitFailed)]
    assert "its task failed: RuntimeError: the bot file vanished" in reasons[0]
    assert "could not be fetched in 60 s" in reasons[1]
    assert "its results are unreadable" in reasons[2]
    assert [got.deal for got in delivered if isinstance(got, GameUnplayed)] == [7]
    # each time to the workers that have not failed it (the scheduler picks the first here)
    assert cluster.sent_to == [["w1", "w2", "w3", "w4"], ["w2", "w3", "w4"], ["w3", "w4"], ["w4"]]
    assert failures == {"w1": 1, "w2": 1, "w3": 1} and not refused  # none failed 3: none blocked


def test_a_unit_whose_workers_left_is_sent_again_to_those_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A task the scheduler holds as `no-worker` (every worker it may go to left) is cancelled
    and its unit sent again, with nobody counted against."""
    monkeypatch.setattr(ondask, "LOOK_S", 0.0)
    stranded = _Task("a", [0])
    stranded._status = "pending"
    cluster = _Cluster([stranded, _Task("b", [5])], {"w1": [], "w2": []})
    cluster.states["a"] = "no-worker"
    delivered: list[Any] = []
    trio.run(_play, cluster, _units(1), lambda unit, got: delivered.append(got), set(), set())
    assert cluster.cancelled == ["a"] and len(cluster.sent_to) == 2
    assert [type(got).__name__ for got in delivered] == ["GameUnplayed"]  # no UnitFailed
