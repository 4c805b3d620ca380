"""The executor seam: the in-process and local executors store the very games the runner stored
before the seam; the local executor's referee processes stream back the bots' stderr, survive a
dead worker, and leave nothing behind when the coordinator is stopped or killed."""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import trio
from executorhelp import BOTS, GAMES, GOLDEN, digest, games, stored, tournament
from patience import Deadline
from tourhelp import ARENA, run

from tournaments.executors import Executor
from tournaments.executors.inprocess import InProcess
from tournaments.executors.local import Local
from tournaments.executors.work import (
    LOGS_PREFIX,
    GameDone,
    GameUnplayed,
    Result,
    UnitWork,
    sweep_log_dirs,
)
from tournaments.plan.config import ConfigError, decode
from tournaments.plan.prepare import prepare
from tournaments.play.runner import Runner
from tournaments.store.results import FinishedGame

LONG_MS = 3_600_000
"""A move time no decision held by a test reaches."""


def pids_running(needle: str) -> list[int]:
    """Processes whose command line holds `needle`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as file:
                    if needle.encode() in file.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def children(parent: int, needle: str) -> list[int]:
    """The child processes of `parent` whose command line holds `needle` (one that ends
    meanwhile is none of them)."""

    def parent_of(pid: int) -> bool:
        try:
            return f"PPid:\t{parent}\n" in Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False

    return [pid for pid in pids_running(needle) if parent_of(pid)]


def alive(pid: int) -> bool:
    """The process runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] != b"Z"


def wait_gone(pids: list[int], timeout: float = 15.0) -> list[int]:
    """Wait until none of `pids` runs; those still running at the timeout."""
    deadline = Deadline(timeout)
    while (left := [pid for pid in pids if alive(pid)]) and not deadline.passed():
        time.sleep(0.05)
    return left


@pytest.mark.parametrize("executor", [InProcess(2), Local(2)], ids=["inprocess", "local"])
def test_every_executor_stores_the_games_the_runner_stored_before_the_seam(
    tmp_path: Path, executor: Executor
) -> None:
    file = tournament(tmp_path)
    report = run(file, executor)
    assert report.total == report.played == GAMES
    assert len(games(file.with_suffix(".sqlite"))) == GAMES
    assert digest(file.with_suffix(".sqlite")) == GOLDEN


def test_local_workers_send_back_the_stderr_of_the_bots_that_wrote_any(tmp_path: Path) -> None:
    file = tournament(tmp_path)
    text = file.read_text().replace(
        "last = ", f'crasher = "{sys.executable} {BOTS}/broken.py crash_mid after=3"\nlast = '
    )
    file.write_text(text)
    report = run(file, Local(2))
    assert report.played == 36  # 6 seat-sets now
    logs = sorted((tmp_path / "cup.logs").iterdir())
    assert logs, "the crasher's stderr must reach the coordinator's log directory"
    assert all(log.name.endswith("-crasher.log") for log in logs)  # the others wrote nothing
    assert all("fatal: the bot broke at decision" in log.read_text() for log in logs)


@pytest.mark.parametrize("executor", [InProcess(2), Local(2)], ids=["inprocess", "local"])
def test_every_line_a_bot_writes_to_stderr_reaches_a_log_once(
    tmp_path: Path, executor: Executor
) -> None:
    """Also its words on `end` (after its game's log is closed: they open the next game's log)
    and on `quit` (the unit's last game keeps its log until the bots are gone)."""
    file = tournament(tmp_path)
    talker = f'talker = "{sys.executable} {BOTS}/healthy.py talk=1"\nlast = '
    file.write_text(file.read_text().replace("last = ", talker))
    report = run(file, executor)
    assert report.played == 36 and report.voided == []
    lines = [
        line
        for log in (tmp_path / "cup.logs").iterdir()
        for line in log.read_text().splitlines()
        if not line.startswith("[arena: ")
    ]
    said = {kind: [line for line in lines if line.startswith(kind)] for kind in ("start", "end")}
    assert len(said["start"]) == len(said["end"]) == 18  # the talker's games: 3 pairings x 6
    processes = {line.split()[1] for line in said["start"]}
    quits = [line for line in lines if line.startswith("quit")]
    assert sorted(quit.split()[1] for quit in quits) == sorted(processes)
    assert len(lines) == 18 + 18 + len(processes)


def test_the_log_directory_is_there_to_hide_before_any_bot_starts(tmp_path: Path) -> None:
    """A sandbox masks a hidden path only if it exists when the sandbox is made: the
    coordinator's log directory, written by the local workers' results, must be made before the
    first bot starts, else a bot started earlier sees the other bots' logs appear (it did, in
    `test_deal_secrecy`, one run in several)."""
    file = tournament(tmp_path)
    logs = tmp_path / "cup.logs"
    seen: list[bool] = []
    report = run(file, Local(2), on_start=lambda total, stored: seen.append(logs.is_dir()))
    assert seen == [True] and report.played == GAMES


def test_hostile_stderr_reaches_the_coordinator_capped_and_as_text(tmp_path: Path) -> None:
    """A bot's stderr is the one thing of a bot's that crosses from a worker to the coordinator:
    3 MB of bytes that are not UTF-8 arrive as capped text, the run unharmed."""
    file = tournament(tmp_path)
    flooder = f'flooder = "{sys.executable} {BOTS}/broken.py flood mb=3 bytes=invalid"\nlast = '
    file.write_text(file.read_text().replace("last = ", flooder))
    report = run(file, Local(2))
    assert report.played == 36 and report.voided == []
    logs = sorted((tmp_path / "cup.logs").iterdir())
    assert logs and all(log.name.endswith("-flooder.log") for log in logs)
    for log in logs:
        text = log.read_text(encoding="utf-8")  # valid UTF-8: the bytes were replaced
        assert "\ufffd" in text and "the log is capped" in text
        assert len(text) < (1 << 20) + 200  # the 1 MiB cap (and its note), not the 3 MB sent


@pytest.mark.slow
def test_the_bots_of_a_local_worker_are_sandboxed_away_from_the_store_and_the_host(
    tmp_path: Path,
) -> None:
    file = tournament(tmp_path, settings='sandbox = "bwrap"')
    db = file.with_suffix(".sqlite")
    attack = f"attack victim=999999999 referee={os.getpid()} secret={db} store={db}"
    file.write_text(file.read_text() + f'spy = "{sys.executable} {BOTS}/hostile.py {attack}"\n')
    report = run(file, Local(2))
    assert report.played == 36  # 6 seat-sets: the spy played (index 0) without a fault
    [line] = {
        line
        for log in (tmp_path / "cup.logs").glob("*-spy.log")
        for line in log.read_text().splitlines()
        if line.startswith("attacks: ")
    }
    results = dict(item.split("=") for item in line.split()[1:])
    for attack in ("secret", "store", "shadow", "environ", "cgroup"):
        assert results[attack] != "ok", line
    assert len(games(db)) == 36 and all(faults == [] for *_, faults, _ in games(db))


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_every_game_is_stored_once(tmp_path: Path) -> None:
    file = tournament(tmp_path)
    killed: list[int] = []

    def kill_a_worker(game: FinishedGame) -> None:
        if not killed:
            [victim, *_] = children(os.getpid(), "tournaments.executors.worker")
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    report = run(file, Local(2), on_game=kill_a_worker)
    assert killed and report.played == GAMES
    assert digest(file.with_suffix(".sqlite")) == GOLDEN


@pytest.mark.slow
def test_a_kept_local_executor_plays_run_after_run_on_the_same_workers(tmp_path: Path) -> None:
    """The league's ladder plays a short run after another: its referee processes are started
    once, serve every run, and stop when the executor's `kept` block ends."""
    executor = Local(2)
    seen: list[set[int]] = []

    def note_workers(game: FinishedGame) -> None:
        seen[-1].update(children(os.getpid(), "tournaments.executors.worker"))

    async def two_runs() -> None:
        async with executor.kept():
            for name in ("first", "second"):
                (tmp_path / name).mkdir()
                prepared = prepare(tournament(tmp_path / name))
                seen.append(set())
                try:
                    runner = Runner(
                        prepared.tournament,
                        prepared.store,
                        prepared.players,
                        limits=prepared.limits,
                        executor=executor,
                        on_game=note_workers,
                    )
                    assert (await runner.run()).played == GAMES
                finally:
                    prepared.close()
        assert children(os.getpid(), "tournaments.executors.worker") == []

    trio.run(two_runs)
    assert len(seen[0]) == 2 and seen[1] == seen[0]  # the same two processes, both runs
    for name in ("first", "second"):
        assert digest(tmp_path / name / "cup.sqlite") == GOLDEN


ENDED = """
game = "azul"
deals = 60
concurrency = 1
sandbox = "none"

[participants]
a = "random"
b = "random"
"""


@pytest.mark.parametrize("executor", [InProcess(1), Local(1)], ids=["inprocess", "local"])
def test_a_unit_ends_between_two_games_once_its_event_is_set(
    tmp_path: Path, executor: Executor
) -> None:
    """A league's ladder ends its units at once for a new version: the game in play is
    stored, the rest come back unplayed, unclaimed and uncounted, and a later run plays them."""
    file = tmp_path / "cup.toml"
    file.write_text(ENDED)
    prepared = prepare(file)
    try:
        runner = Runner(
            prepared.tournament, prepared.store, prepared.players, limits=prepared.limits
        )
        ends = trio.Event()
        results: list[Result] = []

        def deliver(work: UnitWork, result: Result) -> None:
            results.append(result)
            runner.deliver(work, result)
            ends.set()  # after its first game

        first = itertools.islice(runner.work(), 1)  # rotation 0 of all 60 deals
        trio.run(executor.run, first, deliver, lambda unit: ends)
        assert sorted(result.deal for result in results) == list(range(60))
        done = [result.deal for result in results if isinstance(result, GameDone)]
        assert 1 <= len(done) < 60 and done == list(range(len(done)))  # the first, in order
        assert all(isinstance(result, GameUnplayed) for result in results[len(done) :])
        assert runner.claimed == set() and runner.played == len(done)
    finally:
        prepared.close()
    assert stored(file.with_suffix(".sqlite")) == len(done)
    assert run(file, executor).played == 2 * 60 - len(done)  # the rest, none twice


def test_a_unit_ended_before_it_begins_starts_no_bot(tmp_path: Path) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(ENDED)
    prepared = prepare(file)
    ended = trio.Event()
    ended.set()
    results: list[Result] = []
    workers: set[int] = set()

    def deliver(work: UnitWork, result: Result) -> None:
        results.append(result)
        workers.update(children(os.getpid(), "tournaments.executors.worker"))

    try:
        runner = Runner(
            prepared.tournament, prepared.store, prepared.players, limits=prepared.limits
        )
        trio.run(Local(1).run, runner.work(), deliver, lambda unit: ended)
    finally:
        prepared.close()
    assert len(results) == 2 * 60 and all(isinstance(r, GameUnplayed) for r in results)
    assert workers == set()


def stop_mid_run(directory: Path, how: signal.Signals) -> tuple[Path, int, bytes]:
    """Start `arena run` on the local executor, send it `how` once a game is stored; check that
    it leaves no worker or bot behind. The tournament file, the exit code, the stderr.

    The healthy bots (in every game) hold their bot process's second game until the test lets
    them go (each unit is one seat-set's 3 deals in one rotation, in one process): the run
    cannot end before the signal however slow the machine, nor a held decision time out."""
    marker = f"--marker=arena-executors-{uuid.uuid4().hex}"
    gate = Path(tempfile.mkdtemp(prefix="arena-gate-"))  # any uid may look: sandboxed bots do
    gate.chmod(0o755)
    held = f"hold_from=2 {gate}"
    file = tournament(directory, first=held, last=held, marker=marker, move_ms=LONG_MS)
    db = file.with_suffix(".sqlite")
    coordinator = subprocess.Popen(
        [*ARENA, "run", str(file), "--executor", "local", "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = Deadline(120)
        while not stored(db):  # the deadline only ends a test that would hang
            assert coordinator.poll() is None and not deadline.passed(), "no game stored"
            time.sleep(0.05)
        bots = pids_running(marker)
        workers = children(coordinator.pid, "tournaments.executors.worker")
        coordinator.send_signal(how)
        _, errors = coordinator.communicate(timeout=30)
    finally:
        coordinator.kill()
        coordinator.communicate()
        (gate / "release").mkdir()  # later runs of the file play to the end
    assert len(workers) == 2 and bots, errors
    assert 0 < stored(db) < GAMES  # stopped mid-run, with its games kept
    assert wait_gone(workers + bots) == []  # no worker outlives the coordinator, no bot its worker
    assert pids_running(marker) == []
    return file, coordinator.returncode, errors


@pytest.mark.slow
def test_sigterm_stops_the_workers_and_their_bots(tmp_path: Path) -> None:
    _, code, errors = stop_mid_run(tmp_path, signal.SIGTERM)
    assert code == 143, errors
    assert b"terminated (SIGTERM)" in errors and b"again to resume" in errors


@pytest.mark.slow
def test_after_kill_9_of_the_coordinator_nothing_is_left_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    (tmp_path / "stopped").mkdir()
    file, code, _ = stop_mid_run(tmp_path / "stopped", signal.SIGKILL)
    assert code == -signal.SIGKILL
    report = run(file, Local(2))
    assert 0 < report.played < GAMES and report.stored_before + report.played == GAMES
    # The same games as without the kill: the move time is in every record, so not `GOLDEN`.
    (tmp_path / "whole").mkdir()
    whole = tournament(tmp_path / "whole", move_ms=LONG_MS)
    assert run(whole, InProcess(2)).played == GAMES
    assert digest(file.with_suffix(".sqlite")) == digest(whole.with_suffix(".sqlite"))


def test_the_tournament_file_says_where_its_games_run() -> None:
    base = 'game = "azul"\n[participants]\na = "random"\nb = "random"\n'
    assert decode(base).executor == "local"
    on_dask = decode('executor = "dask"\nscheduler = "tcp://10.0.0.1:8786"\n' + base)
    assert (on_dask.executor, on_dask.scheduler) == ("dask", "tcp://10.0.0.1:8786")
    with pytest.raises(ConfigError, match='scheduler is only for executor = "dask"'):
        decode('scheduler = "tcp://10.0.0.1:8786"\n' + base)
    with pytest.raises(ConfigError, match="did you mean `executor`"):
        decode('executer = "dask"\n' + base)


def test_the_log_directories_of_dead_referees_are_swept() -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    top = Path(tempfile.gettempdir())
    left = top / f"{LOGS_PREFIX}{dead.pid}-{uuid.uuid4().hex}"
    live = top / f"{LOGS_PREFIX}{os.getpid()}-{uuid.uuid4().hex}"
    for directory in (left, live):
        directory.mkdir()
        (directory / "x.log").write_text("a killed worker's log")
    sweep_log_dirs.cache_clear()
    try:
        sweep_log_dirs()
        assert not left.exists() and live.exists()
    finally:
        shutil.rmtree(live)
