"""The league server under load, driven as an organiser and its authors drive it: `arena serve`
in a process of its own on a copy of a store of real games, HTTP clients on loopback, and
`arena run` of the same bots on the same store for comparison.

- `upload_to_playing`: a Python single-file bot uploaded through the JSON API, its status polled
  until `playing`; the figure is that wait minus the check game itself (which the server logs as
  it passes: "passed in X s").
- `placements`: versions uploaded one after another while the ladder of five quick house bots
  fills every core: from each one's `playing` (the registry's time) to its first stored game
  (the store's), and how many of its games it took to meet every other bot from every seat.
- `ladder_and_readers`: windows of `arena run` and of the ladder, interleaved, each counting the
  games its store gains per second once the first game is in; during the ladder's windows,
  readers poll the leaderboard (its page and its JSON in turn) and every answer's latency is
  kept.
- `memory`: the server's resident memory sampled while the ladder plays a number of games.
- `final_of`: a league of eight quick house bots frozen with `arena league freeze`, then
  served: the time until its final is published, hands off, and whether the published
  standings are `arena table`'s of the final's store.
- `hostile_upload`: while the ladder plays and readers poll the leaderboard, an author uploads a
  version whose command names a 90 MB folder of the host and an endless file: the readers'
  latencies from the upload until the version plays or is rejected.
- `pages_under_load`: while the ladder plays on a store of real games and readers poll the
  leaderboard, their latencies alone, then while an author uploads hostile archives one after
  another, then while four other clients poll a bot's page and its 500 newest games.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import datetime
import http.client
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import msgspec

from tournaments.bench.clockcheck import THINKER
from tournaments.league.registry import Registry, Version
from tournaments.store.results import FinishedGame
from tournaments.store.sqlitefile import StoreError
from tournaments.store.store import GameChoice, Store

ARENA = [sys.executable, "-m", "tournaments"]
BOTS = {"greedy": "greedy", "random": "random", "random-twin": "random"}
TOURNAMENT = """game = "azul"
players = 2
concurrency = {concurrency}
sandbox = "none"
seed = 7
deals = {deals}
db = "{db}"

[participants]
{participants}

[time]
move_ms = 1000
"""
RUN_DEALS = 2000
"""Deals `arena run` may add in a window: more than it can play in one (6 games a deal)."""
LEAGUE = "\n[league]\nuploads_per_hour = 1000\n"  # batch: the default
Progress = Callable[[str], None]


def _die_with_us() -> None:
    """In a child before it runs: SIGTERM when this process dies (a benchmark killed by a
    timeout must not leave a ladder or a tournament playing on)."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


PR_SET_PDEATHSIG = 1


def start(argv: list[str], folder: Path, **kwargs: Any) -> subprocess.Popen[str]:
    """`argv` in `folder`, dying with this process."""
    return subprocess.Popen(argv, cwd=folder, preexec_fn=_die_with_us, text=True, **kwargs)


def write_files(folder: Path, concurrency: int, house: dict[str, str] = BOTS) -> None:
    """`league.toml` (the league) and `run.toml` (the same bots as a round-robin tournament on
    `run.sqlite`, `deals` to be raised by `fill`)."""
    participants = "\n".join(f'{name} = "{bot}"' for name, bot in house.items())
    common = {"concurrency": concurrency, "participants": participants}
    league = TOURNAMENT.format(deals=1, db="league.sqlite", **common) + LEAGUE
    (folder / "league.toml").write_text(league)
    (folder / "run.toml").write_text(TOURNAMENT.format(deals=RUN_DEALS, db="run.sqlite", **common))


def fill(folder: Path, games: int, progress: Progress) -> Path:
    """A store of about `games` games of the house bots (a round-robin, every deal in both seat
    orders), made by `arena run`: `base.sqlite`."""
    pairings = math.comb(len(BOTS), 2)
    deals = round(games / (2 * pairings))
    if not deals:  # an empty store: the ladder and `arena run` start from nothing
        return folder / "base.sqlite"
    run = (folder / "run.toml").read_text()
    text = run.replace(f"deals = {RUN_DEALS}", f"deals = {deals}")
    (folder / "fill.toml").write_text(text.replace('db = "run.sqlite"', 'db = "base.sqlite"'))
    # `arena run` in a window goes on from the store's deals (a unit holds the deals it lacks)
    (folder / "run.toml").write_text(
        run.replace(f"deals = {RUN_DEALS}", f"deals = {deals + RUN_DEALS}")
    )
    progress(f"league: playing a store of {2 * pairings * deals:,} games with `arena run`")
    filling = start([*ARENA, "run", "fill.toml", "-q"], folder, stdout=subprocess.DEVNULL)
    if filling.wait():
        raise RuntimeError(f"arena run fill.toml failed (exit {filling.returncode})")
    return folder / "base.sqlite"


def copy_store(base: Path, db: Path) -> None:
    """`db` as a copy of `base` (none when `base` is none: an empty store)."""
    if base.exists():
        shutil.copy(base, db)


def stored(db: Path) -> int:
    """Games in the store `db` now (0 before it exists or has its tables): its newest game's
    id, since a store numbers its games from 1 and removes none."""
    with reading(db) as store:
        return 0 if store is None else store.last_game()


def read_registry(path: Path) -> Registry:
    """The league registry at `path`, read beside its server: never written, unchecked (read
    again and again while the server runs)."""
    return Registry(path, readonly=True, check=False)


@contextlib.contextmanager
def reading(db: Path) -> Iterator[Store | None]:
    """The store `db`, read-only and unchecked (None before it exists or has its tables)."""
    try:
        store = Store(db, readonly=True, check=False)
    except StoreError:  # none yet, or made a moment ago: its tables not yet
        yield None
        return
    with store:
        yield store


def _kib(pid: int, file: str, field: str) -> float:
    """Field `field` (in kB) of `/proc/pid/file`, MiB."""
    text = Path(f"/proc/{pid}/{file}").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found[1]) / 1024 if found else math.nan


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid`, MiB."""
    return _kib(pid, "status", "VmRSS")


class Memory(NamedTuple):
    resident_mb: dict[str, float]
    """Each process's resident memory (`server`, and its league children by module: `board`,
    `reads`, …), MiB."""
    together_mb: float
    """Their proportional set sizes added up: the pages they share (the interpreter, the
    libraries' code) counted once, what the machine holds for the league."""


def league_memory(pid: int, package: str = "tournaments.league.") -> Memory:
    """The memory of the server `pid` and of its children that run a module of `package` (a
    league's board, reads, viewers and staging children)."""
    processes = {"server": pid}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rpartition(")")[2].split()[1]) != pid:
                continue
            command = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
            module = next(arg for arg in command.split("\0") if arg.startswith(package))
            processes[module.removeprefix(package)] = int(stat.parent.name)
        except (OSError, ValueError, IndexError, StopIteration):  # ended meanwhile, or no child
            continue
    resident: dict[str, float] = {}
    together = 0.0
    for name, each in processes.items():
        try:
            resident[name] = resident.get(name, 0.0) + rss_mb(each)
            together += _kib(each, "smaps_rollup", "Pss")
        except OSError:  # it ended meanwhile
            continue
    return Memory(resident, together)


def _ended(what: str, code: int | None) -> str | None:
    return None if code is None else f"{what} exited ({code})"


SAID_LINES = 40
"""Lines of a served league's stderr kept to show why it stopped."""


class Server(NamedTuple):
    process: subprocess.Popen[str]
    url: str
    said: collections.deque[str]
    """Its last lines on stderr (what it says when it stops)."""

    def exited(self) -> str | None:
        """None while it serves; else how it ended, with its last lines."""
        ended = _ended("arena serve", self.process.poll())
        if ended is None:
            return None
        time.sleep(0.2)  # the drain's last lines
        return f"{ended}; its last lines:\n" + "".join(self.said)


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[Server]:
    """`arena serve league.toml --port 0` until the block ends (then SIGTERM, as an organiser
    stops it)."""
    process = start(
        [*ARENA, "serve", "league.toml", "--port", "0"],
        folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        url = ""
        for line in process.stderr:
            found = re.search(r" on (http://\S+)", line)
            if found:
                url = found[1]
                break
        if not url:
            raise RuntimeError(f"arena serve did not start (exit {process.wait()})")
        said: collections.deque[str] = collections.deque(maxlen=SAID_LINES)
        threading.Thread(target=said.extend, args=(process.stderr,), daemon=True).start()
        yield Server(process, url, said)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def request(
    connection: http.client.HTTPConnection,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, bytes]:
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return response.status, response.read()


def connect(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    return http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=60)


def upload(
    url: str, token: str, name: str, text: str | bytes, filename: str = "bot.py"
) -> tuple[int, bytes]:
    """POST a bot (a single file, or an archive's bytes) to the JSON API as `arena submit` does
    (a multipart form)."""
    boundary = "arena-bench-boundary"
    data = text.encode() if isinstance(text, str) else text
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n{name}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"'
            "\r\nContent-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    }
    with contextlib.closing(connect(url)) as connection:
        return request(connection, "POST", "/api/versions", body, headers)


class Upload(NamedTuple):
    wait_s: float
    """From sending the upload to reading `playing` from the API."""
    check_s: float
    """The check game's own time, as the server logged it."""


def make_token(folder: Path, author: str = "bench") -> str:
    """`author`'s token for the league of `folder` (`arena league token`, as an organiser)."""
    made = subprocess.run(
        [*ARENA, "league", "token", "league.toml", author],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    )
    return made.stdout.split()[-1]


def upload_to_playing(folder: Path, uploads: int, progress: Progress) -> list[Upload]:
    """Upload `uploads` versions of a Python single-file bot to an idle league with no house
    bots (nothing else runs) and time each one's way to `playing`."""
    write_files(folder, concurrency=1, house={})
    token = make_token(folder)
    found = []
    with serving(folder) as server:
        for n in range(uploads):
            progress(f"league: upload {n + 1} of {uploads}")
            began = time.perf_counter()
            version = upload_playing(server.url, token, f"# version {n}\n")
            wait = time.perf_counter() - began
            found.append(Upload(wait, check_seconds(folder / "league.league.sqlite", version)))
    return found


def upload_playing(url: str, token: str, comment: str) -> int:
    """Upload a version of the bot `up` (a thinker, its files made new by `comment`) and poll
    its status until it is `playing`; its version id."""
    # The standard library only, as an author's bot may be: the league runs an uploaded `.py`
    # with the `python3` on its PATH, which need not have this framework.
    status, body = upload(url, token, "up", THINKER + comment)
    if status != 201:
        raise RuntimeError(f"the upload was refused ({status}): {body!r}")
    version = int(json.loads(body)["version_id"])
    with contextlib.closing(connect(url)) as connection:
        while status_of(connection, version) != "playing":
            time.sleep(0.005)
    return version


def status_of(connection: http.client.HTTPConnection, version: int) -> str:
    """The status of `version` of the bot `up`, as the JSON API gives it."""
    versions = json.loads(request(connection, "GET", "/api/bots/up")[1])["versions"]
    status = next(v["status"] for v in versions if v["version_id"] == version)
    if status in ("rejected", "disabled"):
        raise RuntimeError(f"version {version} was {status}: {versions!r}")
    return str(status)


def check_seconds(registry: Path, version: int) -> float:
    """The check time the server logged for `version` ("passed in X s")."""
    with read_registry(registry) as league:
        log = league.logs(version).get("check", "")
    found = re.search(r"passed in ([\d.]+) s", log)
    if found:
        return float(found[1])
    raise RuntimeError(f"version {version}'s check log holds no time: {log!r}")


PLACEMENT_HOUSE = {
    "greedy": "greedy",
    "greedy-twin": "greedy",
    "random": "random",
    "random-twin": "random",
    "random-third": "random",
}
"""The quick bots of the league the placements are measured in."""
BUSY_GAMES = 200
"""Games the ladder stores before the first upload: its units in hand are then long ones."""


class Placement(NamedTuple):
    first_s: float
    """From the version's `playing` to its first stored ladder game."""
    to_meet: int
    """Its games until it had met every other bot from every seat (0: it never did)."""
    pairs: int
    """Other bots × seats."""


def placements(folder: Path, uploads: int, concurrency: int, progress: Progress) -> list[Placement]:
    """Upload `uploads` versions of a bot, one after another, to a league of the quick bots of
    `PLACEMENT_HOUSE` whose ladder fills `concurrency` cores, and time each one's placement."""
    write_files(folder, concurrency=concurrency, house=PLACEMENT_HOUSE)
    token = make_token(folder)
    pairs = len(PLACEMENT_HOUSE) * 2
    found = []
    with serving(folder) as server:
        while stored(folder / "league.sqlite") < BUSY_GAMES:
            if server.process.poll() is not None:
                raise RuntimeError("arena serve ended before the ladder was busy")
            time.sleep(0.1)
        for n in range(uploads):
            progress(f"league: a new version placed while the ladder plays, {n + 1} of {uploads}")
            version = upload_playing(server.url, token, f"# placed {n}\n")
            found.append(placement(folder, version, pairs))
    return found


def placement(folder: Path, version: int, pairs: int, timeout: float = 300) -> Placement:
    """Wait for the first `2 × pairs` ladder games of `version` (playing): its placement."""
    with read_registry(folder / "league.league.sqlite") as league:
        placed = league.version(version)
    if placed is None:
        raise RuntimeError(f"the registry has no version {version}")
    deadline = time.monotonic() + timeout
    while len(games := version_games(folder / "league.sqlite", placed)) < 2 * pairs:
        if time.monotonic() > deadline:
            raise RuntimeError(f"version {version} played {len(games)} games in {timeout} s")
        time.sleep(0.05)
    playing = datetime.datetime.fromisoformat(placed.updated)
    waited = (games[0][0] - playing).total_seconds()
    seen: set[tuple[int, str]] = set()
    to_meet = 0
    for count, (_, seat, opponent) in enumerate(games, 1):
        seen.add((seat, opponent))
        if len(seen) == pairs:
            to_meet = count
            break
    return Placement(waited, to_meet, pairs)


def version_games(db: Path, version: Version) -> list[tuple[datetime.datetime, int, str]]:
    """The ladder games of `version` in the order stored: when each finished, its seat and
    its opponent's label (two players)."""
    content = version.identity or version.hash
    with reading(db) as store:
        if store is None:
            return []
        with store.snapshot():
            labels = store.labels()
            rows = [row for row in store.bots() if (row.name, row.hash) == (version.bot, content)]
            if not rows:  # not yet in the store
                return []
            label = labels[rows[0].id]
            games: list[tuple[int, FinishedGame]] = []
            choice = GameChoice(content_hash=content)
            while page := store.games_of(version.bot, choice):  # newest first, a page at a time
                games += page
                choice = msgspec.structs.replace(choice, before=page[-1][0])
            finished = store.finish_times([game_id for game_id, _ in games])
    found = []
    for game_id, game in reversed(games):
        seat = game.bots.index(label)
        found.append((finished[game_id], seat, game.bots[1 - seat]))
    return found


class Window(NamedTuple):
    games_per_s: float
    games: list[tuple[str, float]]
    """Each game stored in the window: its seat-set and its wall time (ms)."""


def rate(db: Path, seconds: float, stopped: Callable[[], str | None]) -> Window:
    """Games per second the store `db` gains over `seconds`, counted from its first new game,
    and the games of those seconds; `stopped` says how the process playing them ended (None
    while it plays)."""
    start = stored(db)
    deadline = time.monotonic() + 600
    while stored(db) == start:
        ended = stopped()
        if ended is not None or time.monotonic() > deadline:
            raise RuntimeError(f"no game was stored in {db}: {ended or 'not in 10 minutes'}")
        time.sleep(0.05)
    began, first = time.monotonic(), stored(db)
    time.sleep(seconds)
    last, took = stored(db), time.monotonic() - began
    with reading(db) as store:
        assert store is not None  # it has games
        games = [game for _, game in store.games_as_stored(first, last)]
    return Window(len(games) / took, [(game.seat_set, game.played.wall_ms) for game in games])


def at_run_mix(ladder: Window, run: Window) -> float:
    """The ladder's games/s ÷ what `arena run` would make of the ladder's mix of pairings.

    A game's cost depends on its pairing (a greedy bot thinks, a random one does not), and the
    ladder chooses its pairings (the least certain bot's): its raw games/s measures that choice
    as well as its own cost. Each seat-set's mean wall time per game in `arena run`'s window
    prices the ladder's games; `arena run` at the ladder's mix makes its own games/s times its
    mean price over the ladder's. The ladder's games of seat-sets `arena run`'s window did not
    reach (a short window, or a new bot's laps over all its seat-sets) are not priced; none
    priced, the ratio is the raw one."""
    costs: dict[str, list[float]] = {}
    for key, ms in run.games:
        costs.setdefault(key, []).append(ms)
    price = {key: sum(values) / len(values) for key, values in costs.items()}
    run_price = sum(price[key] for key, _ in run.games) / len(run.games)
    priced = [price[key] for key, _ in ladder.games if key in price]
    ladder_price = sum(priced) / len(priced) if priced else run_price
    return ladder.games_per_s / (run.games_per_s * run_price / ladder_price)


def run_rate(folder: Path, base: Path, seconds: float) -> Window:
    """`arena run` of the house bots on a copy of `base`: its games per second."""
    db = folder / "run.sqlite"
    copy_store(base, db)
    process = start(
        [*ARENA, "run", "run.toml", "-q"],
        folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return rate(db, seconds, lambda: _ended("arena run", process.poll()))
    finally:
        process.send_signal(signal.SIGINT)
        process.wait()
        db.unlink()


LEADERBOARD = ("/", "/api/leaderboard")


class Readers:
    """`count` threads, each asking for `paths` in turn (the leaderboard's page and JSON unless
    told) every `period_s`, keeping each answer's latency; a failed or non-200 answer is an
    error. With `apart`, each reader is a client at an address of its own (as a proxy on this
    machine names them), with its own budget of expensive reads."""

    def __init__(
        self,
        url: str,
        count: int,
        period_s: float,
        paths: tuple[str, ...] = LEADERBOARD,
        apart: bool = False,
    ) -> None:
        self.url, self.period_s, self.paths, self.apart = url, period_s, paths, apart
        self.latencies: list[float] = []
        self.by_path: dict[str, list[float]] = {path: [] for path in paths}
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._read, args=(n,), daemon=True) for n in range(count)
        ]

    def __enter__(self) -> Readers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _read(self, reader: int) -> None:
        connection = connect(self.url)
        headers = {"X-Forwarded-For": f"198.51.100.{reader + 1}"} if self.apart else {}
        n = 0
        while not self._stop.is_set():
            began = time.perf_counter()
            path = self.paths[n % len(self.paths)]
            try:
                status, _ = request(connection, "GET", path, headers=headers)
            except (OSError, http.client.HTTPException) as exc:
                self.errors.append(repr(exc))
                connection.close()
                connection = connect(self.url)
            else:
                latency = time.perf_counter() - began
                self.latencies.append(latency)
                self.by_path[path].append(latency)
                if status != 200:
                    self.errors.append(f"HTTP {status} for {path}")
            n += 1
            self._stop.wait(max(0.0, self.period_s - (time.perf_counter() - began)))
        connection.close()


class Load(NamedTuple):
    runs: list[Window]
    ladders: list[Window]
    latencies_s: list[float]
    errors: list[str]
    store_games: int


def ladder_and_readers(
    folder: Path,
    base: Path,
    *,
    windows: int,
    seconds: float,
    readers: int,
    period_s: float,
    progress: Progress,
) -> Load:
    """`windows` pairs of windows of `seconds`: `arena run`, then the ladder with `readers`
    polling the leaderboard — each on a fresh copy of `base`."""
    runs, ladders, latencies, errors = [], [], [], []
    for n in range(windows):
        progress(f"league: `arena run`, window {n + 1} of {windows}")
        runs.append(run_rate(folder, base, seconds))
        progress(f"league: the ladder with {readers} readers, window {n + 1} of {windows}")
        db = folder / "league.sqlite"
        copy_store(base, db)
        with serving(folder) as server, Readers(server.url, readers, period_s) as reading:
            ladders.append(rate(db, seconds, server.exited))
        latencies += reading.latencies
        errors += reading.errors
        _remove_league_files(folder)
    return Load(runs, ladders, latencies, errors, stored(base))


def ladder_by_executor(
    folder: Path, base: Path, *, windows: int, seconds: float, progress: Progress
) -> list[tuple[Window, Window]]:
    """`windows` pairs of windows of `seconds` of the ladder on a copy of `base`: on the local
    executor, then on a Dask `LocalCluster` of as many workers (its start excluded: a window
    counts from the first new game)."""
    text = (folder / "league.toml").read_text()
    pairs = []
    try:
        for n in range(windows):
            pair = []
            for executor in ("local", "dask"):
                progress(f"league: the ladder on the {executor} executor, {n + 1} of {windows}")
                line = f'sandbox = "none"\nexecutor = "{executor}"\n'
                (folder / "league.toml").write_text(text.replace('sandbox = "none"\n', line))
                db = folder / "league.sqlite"
                copy_store(base, db)
                with serving(folder) as server:
                    pair.append(rate(db, seconds, server.exited))
                _remove_league_files(folder)
            pairs.append((pair[0], pair[1]))
    finally:
        (folder / "league.toml").write_text(text)
    return pairs


def _remove_league_files(folder: Path) -> None:
    """What a served league left beside its file (its store, registry, bots and logs)."""
    for leftover in folder.glob("league.*"):
        if leftover.suffix != ".toml":
            shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()


def memory(folder: Path, base: Path, games: int, progress: Progress) -> list[tuple[int, float]]:
    """(games played, the server's resident MiB) sampled while the ladder plays `games` games
    on a copy of `base`; the first sample is taken once the first game is in."""
    db = folder / "league.sqlite"
    copy_store(base, db)
    start = stored(db)
    samples: list[tuple[int, float]] = []
    with serving(folder) as server:
        while (played := stored(db) - start) < games:
            if server.process.poll() is not None:
                raise RuntimeError("arena serve ended during the memory run")
            if played:
                samples.append((played, rss_mb(server.process.pid)))
                if len(samples) % 30 == 0:
                    progress(f"league: memory, {played:,} of {games:,} games")
            time.sleep(2)
        samples.append((stored(db) - start, rss_mb(server.process.pid)))
    return samples


class Hostile(NamedTuple):
    latencies_s: list[float]
    errors: list[str]
    status: str
    """What became of the hostile version: playing (it plays, its named paths unread)."""


def hostile_upload(
    folder: Path, readers: int, period_s: float, concurrency: int, progress: Progress
) -> Hostile:
    """The leaderboard's latencies for `readers` while the ladder plays and a version naming a
    90 MB host folder and `/proc/self/pagemap` (an endless file) is uploaded and checked."""
    write_files(folder, concurrency=concurrency)
    named = folder / "ninety"
    named.mkdir()
    for n in range(90):
        (named / f"{n}.bin").write_bytes(bytes(1024 * 1024))
    token = make_token(folder)
    manifest = f'command = "python3 bot.py 0 spin {named} /proc/self/pagemap"\n'
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("bot.toml", manifest)
        zipped.writestr("bot.py", THINKER)
    with serving(folder) as server, Readers(server.url, readers, period_s) as reading:
        while stored(folder / "league.sqlite") == 0:  # the ladder plays
            time.sleep(0.05)
        progress("league: a version naming a 90 MB folder and an endless file, with readers")
        began = len(reading.latencies)
        status, body = upload(server.url, token, "up", archive.getvalue(), "bot.zip")
        if status != 201:
            raise RuntimeError(f"the upload was refused ({status}): {body!r}")
        with contextlib.closing(connect(server.url)) as connection:
            while (now := newest_status(connection)) not in ("playing", "rejected"):
                time.sleep(0.05)
        while len(reading.latencies) - began < readers:  # each answered once since, at least
            time.sleep(0.05)
        latencies = reading.latencies[began:]
    return Hostile(latencies, reading.errors, now)


def newest_status(connection: http.client.HTTPConnection) -> str:
    """The status of the newest version of the bot `up`, as the JSON API gives it."""
    return str(json.loads(request(connection, "GET", "/api/bots/up")[1])["versions"][-1]["status"])


def p99(values: list[float]) -> float:
    """The 99th percentile (nearest rank)."""
    return percentile(values, 0.99)


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


FINAL_HOUSE = {
    "greedy": "greedy",
    "greedy-twin": "greedy",
    **{f"random-{n}": "random" for n in range(1, 7)},
}
"""The eight quick bots of the final measured: twins never tell apart, so it may spend its
budget rather than settle."""


class FinalRun(NamedTuple):
    seconds: float
    """From `arena serve` starting on the frozen league to the final's standings published
    (or to `final_of`'s time limit)."""
    games: int
    settled: bool
    equal_to_table: bool
    """The published standings are `arena table`'s of the final's store (bots, Elo, games)."""
    certificate: dict[str, Any] | None = None
    """The final's certificate as the season's JSON has it: published, or at its last look
    when the time limit came first."""
    published: bool = True
    cpu_s: float = 0.0
    """CPU time of the server and every process it started (bots included), reaped when it
    stopped: what the final cost, whatever else the machine was running."""
    played: int = 0
    """Games in the final's store when the server stopped (a final cut at the time limit has
    played more than its last look's `games`)."""


def final_of(
    folder: Path,
    budget: int,
    concurrency: int,
    progress: Progress,
    house: dict[str, str] = FINAL_HOUSE,
    league: str = "",
    seconds: float = math.inf,
) -> FinalRun:
    """Freeze a league of `house` (as an organiser does, the server stopped; `league`: lines
    added to its `[league]` table), serve it, and wait, hands off, for its final to be
    published, or `seconds` at most (then the final as it stood at its last look)."""
    write_files(folder, concurrency=concurrency, house=house)
    with (folder / "league.toml").open("a") as file:
        file.write(league)
    subprocess.run(
        [*ARENA, "league", "freeze", "league.toml", "--budget", str(budget)],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    progress(f"league: a final of {len(house)} quick bots, at most {budget} games")
    began, before = time.monotonic(), os.times()
    with serving(folder) as server:
        connection = connect(server.url)
        while True:
            if server.process.poll() is not None:
                raise RuntimeError("arena serve ended during the final")
            result = json.loads(request(connection, "GET", "/api/seasons/1")[1])
            published = bool(result["season"]["published"])
            if published or time.monotonic() - began > seconds:
                break
            time.sleep(0.2)
        took = time.monotonic() - began
    after = os.times()
    cpu = sum(after[2:4]) - sum(before[2:4])
    final = result["final"] or {"games": 0, "settled": False, "standings": []}
    table = subprocess.run(
        [*ARENA, "table", "league.season-1-final.sqlite", "-t", "standings", "--json"],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    )
    shown = json.loads(table.stdout)
    rows = shown[0]["rows"] if isinstance(shown, list) else shown["standings"]
    keys = ("bot", "elo", "games")
    standing = [tuple(row[key] for key in keys) for row in final["standings"]]
    tabled = [tuple(row[key] for key in keys) for row in rows]
    return FinalRun(
        took,
        int(final["games"]),
        bool(final["settled"]),
        standing == tabled,
        final.get("certificate"),
        published,
        cpu,
        stored(folder / "league.season-1-final.sqlite"),
    )


def hostile_archives(files: int = 2000, unpacked_mb: int = 100) -> list[tuple[str, bytes]]:
    """Archives an author could upload to cost the server the most, each refused only once
    unpacked (none has a `bot.toml`): as many files as the league allows, nearly its unpacked
    size of zeros (a bomb within the caps), and a tar.gz of incompressible bytes."""
    many = io.BytesIO()
    with zipfile.ZipFile(many, "w") as zipped:
        for n in range(files - 1):
            zipped.writestr(f"f/{n}.txt", b"x")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped:
        with zipped.open("zeros.bin", "w") as member:
            for _ in range(unpacked_mb - 2):
                member.write(bytes(1024 * 1024))
        zipped.writestr("notes.txt", b"no manifest")
    noise = io.BytesIO()
    with tarfile.open(fileobj=noise, mode="w:gz", compresslevel=1) as tarred:
        for n in range(4):
            data = os.urandom(4 * 1024 * 1024)
            info = tarfile.TarInfo(f"noise/{n}.bin")
            info.size = len(data)
            tarred.addfile(info, io.BytesIO(data))
    return [
        ("many.zip", many.getvalue()),
        ("bomb.zip", bomb.getvalue()),
        ("noise.tar.gz", noise.getvalue()),
    ]


POLLED = "greedy"
"""The bot whose page and games the polling clients ask for (it has the store's games)."""
POLLS = (f"/bots/{POLLED}", f"/api/bots/{POLLED}/games?count=500")


class UnderLoad(NamedTuple):
    baseline_s: list[float]
    """The readers' latencies with nothing else asking."""
    hostile_s: list[float]
    """… while an author uploads hostile archives, one after another."""
    polling_s: list[float]
    """… while other clients poll a bot's page and its 500 newest games."""
    errors: list[str]
    uploads: collections.Counter[int]
    """The hostile uploads' answers, by HTTP status."""
    polls: collections.Counter[int]
    """The polling clients' answers, by HTTP status."""


def pages_under_load(
    folder: Path, base: Path, *, readers: int, period_s: float, seconds: float, progress: Progress
) -> UnderLoad:
    """The leaderboard's latencies for `readers` on a copy of `base` while the ladder plays:
    `seconds` with nothing else, `seconds` of an author uploading `hostile_archives` one after
    another, and `seconds` of four clients polling a bot's page and its 500 newest games
    without pause (one with an author's token, three signed out, each from an address of its
    own, as a proxy on this machine names them). The uploader and the pollers are processes of
    their own: in the readers' process, their work would hold up the readers' own threads."""
    copy_store(base, folder / "league.sqlite")
    token, other = make_token(folder), make_token(folder, "poller")
    with serving(folder) as server, Readers(server.url, readers, period_s) as reading:
        while stored(folder / "league.sqlite") == stored(base):  # the ladder plays
            if server.process.poll() is not None:
                raise RuntimeError(f"arena serve ended: {server.exited()}")
            time.sleep(0.05)
        progress(f"league: the leaderboard's readers alone, {seconds:g} s")
        began = len(reading.latencies)
        time.sleep(seconds)
        baseline = reading.latencies[began:]
        progress(f"league: readers while an author uploads hostile archives, {seconds:g} s")
        begin = time.time() + CLIENTS_READY_S
        uploader = on_its_own(folder, "hostile_uploads", server.url, token, seconds, begin=begin)
        time.sleep(max(0.0, begin - time.time()))
        began = len(reading.latencies)
        uploads = uploader.answers()
        hostile = reading.latencies[began:]
        progress(f"league: readers while four clients poll a bot's page and games, {seconds:g} s")
        begin = time.time() + CLIENTS_READY_S
        pollers = [
            on_its_own(folder, "poll", server.url, who, f"192.0.2.{n + 1}", seconds, begin=begin)
            for n, who in enumerate([other, None, None, None])
        ]
        time.sleep(max(0.0, begin - time.time()))
        began = len(reading.latencies)
        polls = sum((poller.answers() for poller in pollers), collections.Counter[int]())
        latencies = reading.latencies[began:]
    return UnderLoad(baseline, hostile, latencies, reading.errors, uploads, polls)


CLIENTS_READY_S = 3.0
"""A phase's clients are started this long before it: interpreters starting at once on the
server's cores would be measured, not the server under their requests."""


class Client(NamedTuple):
    """A client of the league in a process of its own (`on_its_own`)."""

    process: subprocess.Popen[str]

    def answers(self) -> collections.Counter[int]:
        """The statuses of its answers, once it ends."""
        out, _ = self.process.communicate()
        if self.process.returncode:
            raise RuntimeError(f"a client of the league failed (exit {self.process.returncode})")
        return collections.Counter({int(code): n for code, n in json.loads(out).items()})


def on_its_own(folder: Path, client: str, *args: object, begin: float = 0.0) -> Client:
    """This module's `client(*args)` (a function returning a `Counter` of statuses) run in a
    process of its own, from `begin` (a `time.time()`; at once if past)."""
    code = (
        "import json, sys, time; from tournaments.bench import league_server as bench; "
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); "
        f"print(json.dumps(bench.{client}(*json.loads(sys.argv[1]))))"
    )
    argv = [sys.executable, "-c", code, json.dumps(args), repr(begin)]
    return Client(start(argv, folder, stdout=subprocess.PIPE))


def hostile_uploads(url: str, token: str, seconds: float) -> collections.Counter[int]:
    """Upload `hostile_archives` in turn for `seconds` (each once answered): their statuses."""
    archives = hostile_archives()
    answers: collections.Counter[int] = collections.Counter()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        filename, data = archives[answers.total() % len(archives)]
        answers[upload(url, token, "hostile", data, filename)[0]] += 1
    return answers


def poll(url: str, token: str | None, address: str, seconds: float) -> collections.Counter[int]:
    """Ask for `POLLS` in turn for `seconds`, without pause, as a client at `address` (with
    `token`, if given): the answers' statuses."""
    headers = {"X-Forwarded-For": address}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    answers: collections.Counter[int] = collections.Counter()
    deadline = time.monotonic() + seconds
    with contextlib.closing(connect(url)) as connection:
        while time.monotonic() < deadline:
            path = POLLS[answers.total() % len(POLLS)]
            answers[request(connection, "GET", path, headers=headers)[0]] += 1
    return answers
