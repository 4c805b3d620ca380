"""The HTML report: one self-contained page plus one small script per game.

The page inlines its CSS, its code, every game's drawing hook (`assets/viewers/<game id>.js`,
after the SVG helpers they share, `assets/svg.js`) and the data: the tables exactly as `arena
table` builds them and a compact index of the games. Each game's steps go to `games/<id>.js`,
loaded when the game is opened, so the page stays small and opens fast however many games the
store holds (see `viewer`).
"""

from __future__ import annotations

import importlib.resources
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

from referee import BadRecord
from tournaments.exclusion import hidden
from tournaments.report.stored import keyed_games
from tournaments.report.viewer import game_data, game_script
from tournaments.results import FinishedGame, GameKey
from tournaments.store import Store
from tournaments.tables import TABLE_NAMES, build

ASSETS = importlib.resources.files("tournaments.report") / "assets"
MARKER = re.compile(r"/\*ARENA:(STYLE|DATA|VIEWERS|APP|GAMES)\*/")
"""Where `assets/report.html` is filled in (see `render_page`)."""


def asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def viewer_scripts() -> str:
    """Every game's drawing hook: `assets/viewers/*.js`, each registering itself by game id,
    after the SVG helpers they share (`assets/svg.js`)."""
    hooks = sorted(
        (entry for entry in (ASSETS / "viewers").iterdir() if entry.name.endswith(".js")),
        key=lambda entry: entry.name,
    )
    return "\n".join([asset("svg.js"), *(entry.read_text(encoding="utf-8") for entry in hooks)])


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "</script>" or "<!--" in it (a bot's name or a
    fault's reason is text from outside). A "<" occurs only inside JSON strings, where
    "\\u003c" means the same."""
    return msgspec.json.encode(data).decode().replace("<", "\\u003c")


def render_page(data: dict[str, Any], inline_games: str = "") -> str:
    """The page for `data` (the report's tables and game index, or one game's header);
    `inline_games` is script text calling the game callback (a one-game page carries its game
    inside, so it is a single file)."""
    fills = {
        "STYLE": asset("report.css"),
        "DATA": f"const ARENA_DATA = {_script_json(data)};",
        "VIEWERS": viewer_scripts(),
        "APP": asset("report.js"),
        "GAMES": inline_games.replace("</", "<\\/"),
    }
    # One pass over the template only: what is filled in is never searched for markers (a bot
    # may name itself "/*ARENA:APP*/"; replacing marker after marker over the whole page would
    # paste the code into its name and break the page's data for every reader).
    return MARKER.sub(lambda found: fills[found.group(1)], asset("report.html"))


def _index_entry(key: GameKey, game: FinishedGame) -> dict[str, Any]:
    played = game.played
    return {
        "id": key.id,
        "bots": list(game.bots),
        "scores": played.scores,
        "ranks": played.ranks,
        "deal": game.deal,
        "rotation": game.rotation,
        "seed": str(key.seed),  # beyond 2**53: a JavaScript number would round it
        "decisions": key.decisions,
        "faults": [[f.seat, f.kind, f.reason, f.decision] for f in played.faults],
    }


PARALLEL_FROM = 400
"""Below this many games one process writes them all (starting workers costs more)."""


def write_report(path: Path, out: Path, *, bootstrap: int = 200, workers: int = 0) -> Path:
    """Write the report of the store at `path`: `out/index.html` and `out/games/`, or, when
    `out` ends in .html, that file and `<its stem>-games/` beside it. The page's path.

    Games of removed bots are left out, as in `arena table`. A game whose record does not
    replay gets a viewer that says why (the rest of the report is unaffected). Re-playing the
    games is most of the work: from PARALLEL_FROM games on it is shared among `workers`
    processes (0: one per core)."""
    if out.suffix == ".html":
        index, games_dir = out, out.with_name(out.stem + "-games")
    else:
        index, games_dir = out / "index.html", out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    with Store(path, readonly=True) as store:
        hide = hidden(store, [])
        keyed = [(key, game) for key, game in keyed_games(store) if hide.isdisjoint(game.bots)]
        settings = store.settings() or {}
    ids = [key.id for key, _ in keyed]
    workers = workers or os.cpu_count() or 1
    if workers > 1 and len(ids) >= PARALLEL_FROM:
        chunks = [ids[start :: workers * 4] for start in range(workers * 4)]
        context = multiprocessing.get_context("spawn")  # no fork of a process holding SQLite
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            list(pool.map(write_games, [path] * len(chunks), [games_dir] * len(chunks), chunks))
    else:
        write_games(path, games_dir, ids)
    tables = []
    if keyed:
        built = build(TABLE_NAMES, [game for _, game in keyed], bootstrap=bootstrap)
        tables = [msgspec.to_builtins(table) for table in built]
    data = {
        "mode": "report",
        "title": f"{path.name}: {settings.get('game', '?')} tournament",
        "settings": settings,
        "tables": tables,
        "games": [_index_entry(key, game) for key, game in keyed],
        "games_dir": games_dir.name,
    }
    _write(index, render_page(data))
    return index


def write_games(path: Path, games_dir: Path, ids: list[int]) -> None:
    """Write `games_dir/<id>.js` for each game id of the store at `path` (in a worker too)."""
    with Store(path, readonly=True) as store:
        for game_id in ids:
            try:
                record = store.game_record(game_id)
                assert record is not None, "the ids come from this store"
                data = game_data(record)
            except BadRecord as exc:
                data = {"error": str(exc), "steps": []}
            _write(games_dir / f"{game_id}.js", game_script(game_id, data))


def game_page(record: bytes, title: str) -> str:
    """A single-file viewer of one game (`arena match --html`)."""
    try:
        data = game_data(record)
    except BadRecord as exc:
        data = {"error": str(exc), "steps": []}
    return render_page({"mode": "game", "title": title}, game_script(0, data))


def _write(path: Path, text: str) -> None:
    """Write whole or not at all: a report being rewritten is never seen half-written."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
