"""The league at the size of a course and of a public competition, driven as its organiser and
its authors drive it: `arena serve` in a process of its own, HTTP clients on loopback.

- `roster_seconds`: one `arena league token --roster` for a class.
- `first_uploads`: a class uploads its first versions at once (clients in threads, each an
  author of its own); from the last upload until every one plays, and a version uploaded behind
  them until it plays.
- `coverage`: a league of uploaded bots, all playing (written to the registry as their checks
  would leave them), and its ladder from the start: when every bot has played, and after ten
  times as many games as bots, how many opponents each met and the largest share of the games
  one pair holds.
- `pages`: a league of playing bots over a store of many games written by
  `tournaments.bench.synthetic` (one bot seated five times as often as the others: a bot page
  of many games), served while its ladder plays; readers poll the leaderboard's page and JSON,
  that bot's page and a game's page once the leaderboard is of every stored game, and the
  memory of the server and its children is sampled from the server's start.
"""

from __future__ import annotations

import collections
import contextlib
import csv
import hashlib
import json
import math
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from tournaments.bench.clockcheck import THINKER
from tournaments.bench.league_server import (
    ARENA,
    Memory,
    Readers,
    connect,
    league_memory,
    percentile,
    read_registry,
    request,
    serving,
    stored,
    upload,
    write_files,
)
from tournaments.bench.league_server import (
    reading as reading_store,
)
from tournaments.bench.synthetic import synthetic_store
from tournaments.league.files import League
from tournaments.league.folders import identity

Progress = Callable[[str], None]
COMMAND = "python3 bot.py"
"""How the league runs an uploaded single `.py` file."""


def quick_bot(name: str) -> str:
    """A Python bot that answers at once (the first legal action), its files its own."""
    return THINKER + f"# {name}\n"


def roster_seconds(folder: Path, authors: int) -> float:
    """Wall seconds of one `arena league token --roster` giving `authors` new tokens."""
    roster = folder / "roster.txt"
    roster.write_text("".join(f"student{n:04d}\n" for n in range(authors)))
    began = time.perf_counter()
    subprocess.run(
        [*ARENA, "league", "token", "league.toml", "--roster", "roster.txt", "--out", "t.csv"],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - began


def tokens(folder: Path, names: list[str]) -> dict[str, str]:
    """New tokens for `names` from one roster command."""
    (folder / "names.txt").write_text("".join(f"{name}\n" for name in names))
    out = folder / "tokens.csv"
    out.unlink(missing_ok=True)
    subprocess.run(
        [*ARENA, "league", "token", "league.toml", "--roster", "names.txt", "--out", out.name],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    with out.open(newline="") as file:
        return {row[0]: row[1] for row in csv.reader(file) if row and row[0] != "name"}


def playing_bots(folder: Path, bots: int) -> list[str]:
    """`bots` quick bots, each its own author's, playing in the league of `folder`: written
    to the registry and the bots' folder as their checks would leave them (no check games)."""
    names = [f"bot{n:04d}" for n in range(bots)]
    with League(folder / "league.toml") as league:
        registry = league.registry
        registry.new_tokens([f"author-{name}" for name in names])
        for name in names:
            author = registry.author(f"author-{name}")
            assert author is not None
            text = quick_bot(name)
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            version = registry.add_version(author.id, name, digest, COMMAND, None)
            home = league.version_dir(version)
            home.mkdir(parents=True, exist_ok=True)
            (home / "bot.py").write_text(text)
            registry.set_status(version.id, "checking")
            registry.set_identity(version.id, identity(COMMAND, home, league.upload_limits))
            registry.set_status(version.id, "playing")
    return names


def statuses(registry: Path) -> collections.Counter[str]:
    """The versions of the registry at `registry`, counted by status."""
    with read_registry(registry) as league:
        return collections.Counter(version.status for version in league.versions())


def status_of(registry: Path, bot: str) -> str | None:
    """The status of the newest version of `bot` (None before its first)."""
    with read_registry(registry) as league:
        versions = league.versions(bot)
    return versions[-1].status if versions else None


class FirstUploads(NamedTuple):
    uploads: int
    upload_s: float
    """From the first upload sent to the last one answered."""
    all_playing_s: float
    """From the last upload answered until every version plays."""
    behind_s: float
    """A version uploaded behind them: from its upload until it plays."""
    rejected: int


def first_uploads(
    folder: Path, uploads: int, clients: int, concurrency: int, progress: Progress
) -> FirstUploads:
    """`uploads` first versions of quick bots, each its own author's, sent by `clients`
    threads to a league with no house bots, then one more author's version behind them."""
    write_files(folder, concurrency=concurrency, house={})
    names = [f"s{n:04d}" for n in range(uploads)]
    secrets = tokens(folder, [*names, "late"])
    registry = folder / "league.league.sqlite"
    refused: list[str] = []
    with serving(folder) as server:
        queue = collections.deque(names)
        lock = threading.Lock()

        def client() -> None:
            while True:
                with lock:
                    if not queue:
                        return
                    name = queue.popleft()
                status, body = upload(server.url, secrets[name], name, quick_bot(name))
                if status != 201:
                    refused.append(f"{name}: {status} {body!r}")

        progress(f"league-scale: {uploads} first uploads from {clients} clients")
        began = time.perf_counter()
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        uploaded = time.perf_counter()
        if refused:
            raise RuntimeError(f"uploads were refused: {refused[:3]}")
        status, body = upload(server.url, secrets["late"], "late", quick_bot("late"))
        if status != 201:
            raise RuntimeError(f"the late upload was refused ({status}): {body!r}")
        late = time.perf_counter()
        behind = all_playing = None
        while behind is None or all_playing is None:
            if server.process.poll() is not None:
                raise RuntimeError(f"arena serve ended: {server.exited()}")
            now = time.perf_counter()
            if behind is None and status_of(registry, "late") in ("playing", "rejected"):
                behind = now - late
            counted = statuses(registry)
            if not (counted["queued"] + counted["building"] + counted["checking"]):
                all_playing = now - uploaded
            time.sleep(0.2)
        progress(f"league-scale: every first upload checked {all_playing:.0f} s after the last")
    return FirstUploads(
        uploads, uploaded - began, all_playing, behind, statuses(registry)["rejected"]
    )


class Coverage(NamedTuple):
    bots: int
    every_bot_s: float
    """From the server's start until every bot has a stored game."""
    games: int
    """Games stored when the rest was counted (at least ten times the bots)."""
    fewest_opponents: int
    """The fewest distinct opponents a bot has met."""
    largest_pair_share: float
    """The largest fraction of the games one pair of bots played against each other."""
    board_behind_s: float
    """The longest the leaderboard lagged the store: from the first game the store held
    beyond the leaderboard's count to the leaderboard seen (polled once a second)."""


def coverage(
    folder: Path, bots: int, concurrency: int, progress: Progress, timeout_s: float = 1800
) -> Coverage:
    """The ladder of `bots` playing quick bots from its first game until it has stored ten
    times as many games as bots."""
    write_files(folder, concurrency=concurrency, house={})
    playing_bots(folder, bots)
    db = folder / "league.sqlite"
    every_bot = None
    seen: dict[int, list[str]] = {}
    """The bots of each game stored so far."""
    counts: list[tuple[float, int]] = []
    """(when, games stored then), once a second."""
    behind = 0.0
    with serving(folder) as server, contextlib.closing(connect(server.url)) as connection:
        began = time.perf_counter()
        while True:
            if server.process.poll() is not None:
                raise RuntimeError(f"arena serve ended: {server.exited()}")
            time.sleep(1.0)
            seen.update(seated(db, max(seen, default=0)))
            elapsed = time.perf_counter() - began
            counts.append((elapsed, len(seen)))
            board = json.loads(request(connection, "GET", "/api/leaderboard")[1])["games"]
            first_beyond = next((when for when, n in counts if n > board), None)
            if first_beyond is not None:
                behind = max(behind, time.perf_counter() - began - first_beyond)
            if every_bot is None and len({bot for game in seen.values() for bot in game}) >= bots:
                every_bot = elapsed
                progress(f"league-scale: every one of {bots} bots played within {elapsed:.0f} s")
            if every_bot is not None and len(seen) >= 10 * bots:
                break
            if elapsed > timeout_s:
                raise RuntimeError(f"the ladder of {bots} bots stored {len(seen)} games in time")
    pairs: collections.Counter[tuple[str, str]] = collections.Counter()
    met: dict[str, set[str]] = collections.defaultdict(set)
    for names in seen.values():
        for a in names:
            for b in names:
                if a < b:
                    pairs[a, b] += 1
                if a != b:
                    met[a].add(b)
    return Coverage(
        bots,
        every_bot,
        len(seen),
        min(len(met[name]) for name in met),
        max(pairs.values()) / len(seen),
        behind,
    )


def seated(db: Path, after: int = 0) -> dict[int, list[str]]:
    """The bots (their names, not their versions' labels) of every game stored after the
    game `after`, by game id."""
    with reading_store(db) as store:
        if store is None:
            return {}
        with store.snapshot():
            labels = store.labels()
            names = {labels[row.id]: row.name for row in store.bots()}
            return {
                game_id: [names[label] for label in game.bots]
                for game_id, game in store.games_as_stored(after)
            }


HEAVY = 5.0
"""The first bot of a synthetic store takes a seat this many times as often as any other."""


BOARD_WAIT_S = 900.0
"""The longest a served league may take to show a leaderboard of every stored game."""


class Pages(NamedTuple):
    bots: int
    games: int
    heavy_games: int
    """The games of the bot whose page is read."""
    fill_s: float
    """Writing the synthetic store."""
    p99_ms: dict[str, float]
    """By page: the leaderboard, its JSON, the bot's page, a game's page."""
    answers: int
    errors: list[str]
    board_s: float
    """From the server's start until its leaderboard is of every stored game."""
    resident_mb: dict[str, float]
    """The server's and each of its league children's resident memory (`Memory`), the most
    sampled."""
    together_mb: float
    """`Memory.together_mb`, the most sampled."""


def pages(
    folder: Path,
    bots: int,
    games: int,
    *,
    readers: int,
    seconds: float,
    concurrency: int,
    progress: Progress,
) -> Pages:
    """`readers` polling four pages for `seconds` of a league of `bots` playing bots over a
    store of `games` synthetic games, its ladder playing."""
    write_files(folder, concurrency=concurrency, house={})
    names = playing_bots(folder, bots)
    db = folder / "league.sqlite"
    progress(f"league-scale: a store of {games:,} games among {bots:,} bots")
    began = time.perf_counter()
    heavy_games = synthetic_store(db, names, games, weights=[HEAVY, *[1.0] * (bots - 1)])[0]
    fill_s = time.perf_counter() - began
    adopt(db, folder)
    kinds = {
        "leaderboard": "/",
        "leaderboard JSON": "/api/leaderboard",
        f"a bot page ({heavy_games:,} games)": f"/bots/{names[0]}",
        "a game page": f"/games/{games // 2}",
    }
    peaks = Peaks()
    with serving(folder) as server:
        started = time.perf_counter()
        connection = connect(server.url)
        board = 0
        while stored(db) <= games or board < games:  # the ladder plays, the board is made
            if server.process.poll() is not None:
                raise RuntimeError(f"arena serve ended: {server.exited()}")
            if time.perf_counter() - started > BOARD_WAIT_S:
                raise RuntimeError(f"no leaderboard of {games:,} games in {BOARD_WAIT_S:g} s")
            peaks.note(league_memory(server.process.pid))
            board = json.loads(request(connection, "GET", "/api/leaderboard")[1])["games"]
            time.sleep(0.5)
        board_s = time.perf_counter() - started
        connection.close()
        progress(f"league-scale: {readers} readers on four pages, {seconds:g} s")
        with Readers(server.url, readers, 0.5, tuple(kinds.values()), apart=True) as reading:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                peaks.note(league_memory(server.process.pid))
                time.sleep(1.0)
    p99 = {  # a page never answered in the window: no latency, an error
        kind: percentile(reading.by_path[path], 0.99) * 1000 if reading.by_path[path] else math.inf
        for kind, path in kinds.items()
    }
    silent = [
        f"no answer to {path} in {seconds:g} s"
        for path in kinds.values()
        if not reading.by_path[path]
    ]
    errors = [*reading.errors, *silent]
    return Pages(
        bots,
        games,
        heavy_games,
        fill_s,
        p99,
        len(reading.latencies),
        errors,
        board_s,
        peaks.resident_mb,
        peaks.together_mb,
    )


class Peaks:
    """The most memory sampled, of each process and of them together."""

    def __init__(self) -> None:
        self.resident_mb: dict[str, float] = {}
        self.together_mb = 0.0

    def note(self, memory: Memory) -> None:
        for name, mb in memory.resident_mb.items():
            self.resident_mb[name] = max(self.resident_mb.get(name, 0.0), mb)
        self.together_mb = max(self.together_mb, memory.together_mb)


def adopt(db: Path, folder: Path) -> None:
    """The synthetic store's bots made the league's playing versions: each bot's content hash
    set to its version's identity, as the league registers a version it plays."""
    with League(folder / "league.toml") as league:
        identities = {v.bot: v.identity for v in league.registry.playing()}
    with contextlib.closing(sqlite3.connect(db)) as con, con:
        con.executemany(
            "UPDATE bots SET hash = ? WHERE name = ?",
            [(identity, bot) for bot, identity in identities.items()],
        )
