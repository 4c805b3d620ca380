"""A league on Dask workers that are machines of their own: separate processes, each in its own
folder, as a user that cannot read the league's folder. Uploaded versions reach them as
bundles through the cluster, play and are stored; a worker killed mid-unit loses nothing; a
worker that alters the scores or the actions it sends has its games refused and is sent no more
units; a worker without the uploads' runtime is sent none of their games."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from leaguehelp import DASK_LEAGUE, as_user, python_for
from patience import Deadline

from tournaments.executors.work import TAMPER
from tournaments.server.testing import in_process, until
from tournaments.store.store import Store

NAMES = ["good0", "good1", "bad", "worse", "bare"]
TAMPERING = {"bad": "score", "worse": "action"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.needs("setpriv"),
    # the workers' Python is the system's (the same minor version), and they lack numpy
    pytest.mark.filterwarnings("ignore:Mismatched versions found"),
]

NOBODY = 65534

LEAGUE = (
    DASK_LEAGUE
    + """
[participants]
house = "random"

[league]
batch = 2
"""
)

BOT = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "name": "{name}"}}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({{"type": "action", "id": message["id"], "index": 0}}), flush=True)
    elif message["type"] == "quit":
        break
"""
"""An uploaded bot of the standard library alone (a worker has Python, not the league's files)."""


class Cluster:
    """A scheduler and five workers as processes: `good0` and `good1`; `bad`, which alters
    every score it sends, and `worse`, which alters an action of every record (`TAMPER`);
    `bare`, without the `python3` the uploads run with; each as user nobody in its own
    folder."""

    def __init__(self, top: Path) -> None:
        self.top = top
        file = top / "scheduler.json"
        scheduler = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                     "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(file)]  # fmt: skip
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.processes = [subprocess.Popen(scheduler, **quiet)]
        deadline = Deadline(60)
        while not file.exists() and not deadline.passed():
            time.sleep(0.1)
        self.address = json.loads(file.read_text())["address"]
        self.python = python = python_for(NOBODY, top, "server,dask")
        self.folders: dict[str, Path] = {}
        for name in NAMES:
            folder = top / name
            folder.mkdir()
            os.chown(folder, NOBODY, NOBODY)
            self.folders[name] = folder
            env = {"PATH": os.environ["PATH"], "HOME": str(folder)}
            if name in TAMPERING:
                env[TAMPER] = TAMPERING[name]
            if name == "bare":  # no `python3` for the uploaded bots' command
                env["PATH"] = str(folder)
            worker = [*as_user(NOBODY), python, "-m", "distributed.cli.dask_worker", self.address,
                      "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name,
                      "--local-directory", str(folder)]  # fmt: skip
            worker[0] = shutil.which(worker[0]) or worker[0]  # found on this PATH, not `env`'s
            self.processes.append(subprocess.Popen(worker, cwd=folder, env=env, **quiet))

    def workers(self) -> dict[str, str]:
        """Name → address of each worker the scheduler knows now."""
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            info = client.scheduler_info(n_workers=-1)["workers"]
        return {str(worker["name"]): address for address, worker in info.items()}

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.kill()
            process.wait()


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    if os.geteuid() != 0:
        pytest.skip("the workers run as another user: the tests must run as root")
    top = Path(tempfile.mkdtemp(prefix="arena-workers-", dir="/opt"))
    top.chmod(0o755)
    made = Cluster(top)
    try:
        yield made
    finally:
        made.stop()
        shutil.rmtree(top, ignore_errors=True)


def played_by(store_path: Path) -> dict[str, int]:
    """Stored games per worker address."""
    if not store_path.exists():
        return {}
    with Store(store_path, readonly=True) as store:
        return {row.worker: row.games for row in store.workers()}


def refused_from(store_path: Path) -> dict[str, int]:
    if not store_path.exists():
        return {}
    with Store(store_path, readonly=True) as store:
        return {row.worker: row.refused for row in store.workers() if row.refused}


async def test_uploads_reach_workers_that_cannot_read_the_league_and_bad_ones_are_refused(
    cluster: Cluster, tmp_path: Path
) -> None:
    await until(lambda: len(cluster.workers()) == len(NAMES), "the workers to join")
    workers = cluster.workers()
    file = tmp_path / "cup.toml"  # in pytest's folder, which only root can enter
    file.write_text(LEAGUE.format(scheduler=cluster.address))
    reading = subprocess.run(
        [*as_user(NOBODY), cluster.python, "-c", f"open({str(file)!r})"], capture_output=True
    )
    assert b"PermissionError" in reading.stderr  # a worker's user cannot read the league's files
    async with in_process(file) as (service, client):
        registry = service.league.registry
        store = service.league.store_path
        for author in ("alice", "bob"):
            token = registry.new_token(author)
            data = BOT.format(name=author).encode()
            answer = await client.post(
                "/api/versions",
                data={"name": f"{author}bot"},
                files={"file": ("bot.py", data)},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert answer.status_code == 201, answer.text
        for bot in ("alicebot", "bobbot"):
            await until(lambda bot=bot: registry.versions(bot)[-1].status == "playing", bot)
        good = {workers["good0"], workers["good1"]}

        def both_good_played() -> bool:
            counts = played_by(store)
            return all(counts.get(worker, 0) >= 4 for worker in good)

        await until(both_good_played, "games stored from both good workers", timeout=240)
        bad = [workers[name] for name in TAMPERING]
        await until(lambda: set(bad) <= set(refused_from(store)), "both bad workers refused")
        assert all(played_by(store)[worker] == 0 for worker in bad)  # none of their games stored
        stored = sum(played_by(store).values())
        await until(lambda: sum(played_by(store).values()) >= stored + 10, "ten more games")
        refused = {worker: refused_from(store)[worker] for worker in bad}  # in flight: back

        # kill a good worker in the middle of a unit: the others play on, nothing is lost
        victim = cluster.processes[1 + NAMES.index("good0")]
        await until(lambda: busy(cluster, workers["good0"]), "good0 to be playing")
        victim.send_signal(signal.SIGKILL)
        assert victim.wait(timeout=10) == -signal.SIGKILL
        before = sum(played_by(store).values())
        await until(
            lambda: (
                played_by(store).get(workers["good1"], 0) >= 4 + 10
                and sum(played_by(store).values()) >= before + 10
            ),
            "ten more games once good0 is gone",
            timeout=240,
        )
        assert {worker: refused_from(store)[worker] for worker in bad} == refused  # no more units
        assert workers["bare"] not in played_by(store)  # asked first, sent nothing it lacks
        with Store(store, readonly=True) as opened:
            reasons = {worker: reason for worker, reason, _ in opened.refused_games()}
        assert "replays to" in reasons[workers["bad"]]  # the score it altered
        assert "does not replay" in reasons[workers["worse"]]  # the action it altered
        with Store(store, readonly=True) as opened:
            games = opened.games()
        keys = [(game.seat_set, game.deal, game.rotation) for game in games]
        assert len(keys) == len(set(keys))
        uploaded = [game for game in games if {"alicebot", "bobbot"} & set(game.bots)]
        assert uploaded  # the uploads played on the workers
    cached = {
        entry.name
        for name in ("good0", "good1")
        for entry in (cluster.folders[name] / ".cache/tile-arena/bundles").iterdir()
    }
    assert len(cached) >= 2  # both uploads, in the workers' caches by content hash


def busy(cluster: Cluster, address: str) -> bool:
    from distributed import Client

    with Client(cluster.address, timeout=30) as client:
        return bool(client.processing().get(address))
