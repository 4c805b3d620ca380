"""The league's tests' helpers: `arena serve` in its own process (as this user or another),
signed-in clients, tokens, uploads; hand-made finished games."""

from __future__ import annotations

import contextlib
import http.cookiejar
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from packaging.requirements import Requirement
from patience import Deadline

from tournaments.league.files import League
from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.store.results import FinishedGame, Played
from tournaments.store.store import Store


@contextlib.asynccontextmanager
async def front_of(
    folder: Path, text: str
) -> AsyncIterator[tuple[LeagueService, httpx.AsyncClient]]:
    """The web front of the league file `text` (written into `folder`) on an HTTP client (the
    app's ASGI interface, in the test's trio run), its ladder not running: pages and the API
    alone, fast."""
    file = folder / "cup.toml"
    file.write_text(text)
    with League(file) as league:
        service = LeagueService(league)
        transport = httpx.ASGITransport(app=make_app(service))
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            yield service, client


async def sign_in(client: httpx.AsyncClient, token: str) -> None:
    """Sign `client` in with `token` through the sign-in form (its CSRF value included)."""
    page = (await client.get("/signin")).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    answer = await client.post("/signin", data={"csrf": csrf[1], "token": token})
    assert answer.status_code == 303


def finished(bots: list[str], ranks: list[int]) -> FinishedGame:
    """A game of `bots` (by seat) that ended in `ranks`."""
    played = Played(
        scores=[10 * (len(ranks) - rank) for rank in ranks],
        ranks=ranks,
        tiebreak=None,
        moves=[1] * len(bots),
        think_ms=[1.0] * len(bots),
        faults=[],
        wall_ms=1.0,
    )
    return FinishedGame(
        seat_set=",".join(bots), deal=0, rotation=0, bots=tuple(bots), played=played
    )


CLI = "import sys; from tournaments.cli import main; sys.exit(main())"
ARENA = [sys.executable, "-c", CLI]
LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "none"                # bots in pytest's private tmp dirs

[participants]
random = "random"

[time]
move_ms = 3000

[league]
batch = 1
uploads_per_hour = 50
"""
DASK_LEAGUE = """
game = "azul"
players = 2
concurrency = 2
sandbox = "none"
executor = "dask"
scheduler = "{scheduler}"
"""
"""The head of a league on the Dask scheduler at `{scheduler}` (its bots are the test's)."""
BOT = "from bots.sdk import run\nrun(lambda observation, legal, context: {pick}, name='{name}')\n"


def children() -> set[int]:
    """This process's children now (from /proc)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                    found.add(int(entry))
    return found


def reap_orphans(before: set[int], timeout: float = 30) -> None:
    """Wait for and reap the children this process gained since `before`: importing the
    referee makes it a child subreaper, so the processes of a server (or a browser) that ended
    are reparented here; left unreaped, they would be zombies that the next test in this
    worker counts as its own."""
    deadline = Deadline(timeout)
    while orphans := children() - before:
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        assert not deadline.passed(), f"processes {sorted(orphans)} outlive their parent"
        time.sleep(0.02)


class Running:
    """A league served by `arena serve` in its own process; as the user `uid` when given (this
    process is root: the server drops to it through setpriv, as a normal user's would run)."""

    def __init__(self, file: Path, uid: int | None = None, python: str = sys.executable) -> None:
        self.file = file
        drop = [] if uid is None else as_user(uid)
        env = None if uid is None else {**os.environ, "HOME": str(file.parent)}
        self.process = subprocess.Popen(
            [*drop, python, "-c", CLI, "serve", str(file), "--port", "0"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert self.process.stderr is not None
        deadline, said = Deadline(30), []
        for line in self.process.stderr:
            found = re.search(r"serving .* on (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.url = found[1]
                break
            said.append(line)
            if deadline.passed():
                break
        else:
            self.process.wait()
        if not hasattr(self, "url"):
            self.process.kill()
            self.process.wait()
            self.process.stderr.close()
            raise AssertionError("arena serve did not listen; it said:\n" + "".join(said))
        self.log: list[str] = []  # drained, so that a full pipe never blocks the server
        self.drain = threading.Thread(target=self.log.extend, args=(self.process.stderr,))
        self.drain.start()

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode()

    def upload(self, token: str | None, name: str, filename: str, data: bytes) -> tuple[int, Any]:
        """Through the JSON API: (HTTP status, its JSON)."""
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        code, text = self.post("/api/versions", {"name": name}, filename, data, headers)
        return code, json.loads(text)

    def post(
        self,
        path: str,
        fields: dict[str, str],
        filename: str,
        data: bytes,
        headers: dict[str, str],
        opener: urllib.request.OpenerDirector | None = None,
    ) -> tuple[int, str]:
        boundary = "arena-test-boundary"
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'
            for key, value in fields.items()
        ]
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        )
        body = ("".join(parts) + head).encode() + data + f"\r\n--{boundary}--\r\n".encode()
        headers = {**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"}
        request = urllib.request.Request(self.url + path, body, headers, method="POST")
        try:
            with (opener or urllib.request.build_opener()).open(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.read().decode()

    def form_upload(self, token: str, name: str, filename: str, data: bytes) -> tuple[int, str]:
        """Through the web form, as a browser does: signed in, its page (CSRF cookie and field
        kept)."""
        opener = signed_in(self, token)
        with opener.open(self.url + "/submit", timeout=30) as response:
            csrf = re.search(r'name="csrf" value="([^"]+)"', response.read().decode())
        assert csrf is not None
        fields = {"csrf": csrf[1], "name": name}
        return self.post("/submit", fields, filename, data, {}, opener)

    def status(self, bot: str, until: set[str], timeout: float = 90) -> dict[str, Any]:
        """The bot's newest version once its status is one of `until`."""
        deadline = Deadline(timeout)
        while True:
            code, text = self.get(f"/api/bots/{bot}")
            if code == 200:
                newest: dict[str, Any] = json.loads(text)["versions"][-1]
                if newest["status"] in until:
                    return newest
            assert not deadline.passed(), text
            time.sleep(0.2)

    def stop(self, how: int = signal.SIGTERM) -> int:
        """Stop the server, then reap its bots (they die with it, by PDEATHSIG, and are
        reparented here: `reap_orphans`)."""
        before = children()
        self.process.send_signal(how)
        code = self.process.wait(timeout=60)
        reap_orphans(before)
        self.drain.join()
        assert self.process.stderr is not None
        self.process.stderr.close()
        return code


SERVERS = ["root", "normal user"]
"""Who a league test's server runs as (a fixture's params: `server_uid`)."""


def server_uid(who: str) -> int | None:
    """The uid a server runs as for `who` (one of `SERVERS`): None for this process's user
    (root, or the normal user the tests run as), nobody's for a normal user under a root test
    run; a root server where the tests are not root is skipped."""
    root = os.geteuid() == 0
    if who == "root" and not root:
        pytest.skip("the tests run as a normal user: a root server cannot be started")
    return 65534 if who == "normal user" and root else None


def as_user(uid: int) -> list[str]:
    """The argv prefix that runs a command as `uid` (and its group), with no capability."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
            "--inh-caps=-all"]  # fmt: skip


def token(league: Path, name: str) -> str:
    with League(league) as opened:
        return opened.registry.new_token(name)


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def signed_in(served: Running, token: str) -> urllib.request.OpenerDirector:
    """A browser-like client signed in with `token` (the sign-in form's CSRF kept)."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    with opener.open(served.url + "/signin", timeout=30) as response:
        csrf = re.search(r'name="csrf" value="([^"]+)"', response.read().decode())
    assert csrf is not None
    form = urllib.parse.urlencode({"csrf": csrf[1], "token": token}).encode()
    with opener.open(served.url + "/signin", form, timeout=30) as response:
        assert response.status == 200  # redirected to the leaderboard
    return opener


def page_as(served: Running, opener: urllib.request.OpenerDirector | None, path: str) -> str:
    with (opener or urllib.request.build_opener()).open(served.url + path, timeout=30) as response:
        return str(response.read().decode())


def stored_games(path: Path) -> list[FinishedGame]:
    """The games of the store at `path` (none before it exists)."""
    if not path.exists():
        return []
    with Store(path, readonly=True) as store:
        return store.games()


def python_for(uid: int, top: Path, extras: str = "server") -> str:
    """An interpreter the user `uid` can run the project with its `extras`: this one, or (when
    this one, the project or its packages live where the user cannot reach: a root-only home,
    a 0700 clone) a virtual environment of the system's Python of the same version, given a
    copy in `top` of the project and of the packages the extras need."""
    modules = {"server": "tournaments.server.app", "dask": "distributed"}
    imports = ", ".join(modules[extra] for extra in extras.split(","))
    itself = (
        f"import subprocess, sys, {imports}; subprocess.run([sys.executable, '-c', ''], check=True)"
    )
    done = subprocess.run([*as_user(uid), sys.executable, "-c", itself], capture_output=True)
    if done.returncode == 0:  # it can import the server, and start itself as its children do
        return sys.executable
    system = shutil.which(f"python{sys.version_info[0]}.{sys.version_info[1]}", path="/usr/bin")
    assert system is not None, "no system Python of this version for the normal user's server"
    shim = top / "python"
    subprocess.run([system, "-m", "venv", "--without-pip", str(shim)], check=True)
    (site,) = shim.glob("lib/python*/site-packages")
    copied = top / "packages"
    for dist in distributions(f"tile-arena[{extras}]"):
        for file in dist.files or []:
            source = Path(str(dist.locate_file(file)))
            if ".." not in file.parts and file.suffix != ".pth" and source.is_file():
                (copied / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, copied / file)
    for package in PACKAGES:  # from wherever they are found: an editable install's checkout
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations is not None
        shutil.copytree(spec.submodule_search_locations[0], copied / package, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    (site / "arena-tests.pth").write_text(f"{copied}\n")
    return str(shim / "bin" / "python3")


PACKAGES = ("protocol", "referee", "bots", "tournaments")


def distributions(requirement: str) -> list[importlib.metadata.Distribution]:
    """The distribution `requirement` names and every one it requires, transitively."""
    found: dict[str, importlib.metadata.Distribution] = {}
    wanted = [Requirement(requirement)]
    while wanted:
        requirement = wanted.pop()
        dist = importlib.metadata.distribution(requirement.name)
        key = f"{dist.metadata['Name'].lower()}{sorted(requirement.extras)}"
        if key in found:
            continue
        found[key] = dist
        for text in dist.requires or []:
            needed = Requirement(text)
            extras = requirement.extras or {""}
            if needed.marker is None or any(needed.marker.evaluate({"extra": e}) for e in extras):
                wanted.append(needed)
    return list(found.values())
