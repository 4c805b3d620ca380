"""The HTML report: one self-contained page plus the games' steps in blocks of scripts.

The page inlines its CSS, its code, every game's drawing hook (`assets/viewers/<game id>.js`,
after the SVG helpers they share, `assets/svg.js`) and the data: the tables exactly as `arena
table` builds them, each bot's rating over time and a compact index of the games, each naming
its block. The games' steps go
to `games/<block>.js`, a block loaded when one of its games is opened, so the page stays small
and opens fast however many games the store holds (see `viewer`), and a block once written is
kept (see `blocks`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from tournaments.rank.ratings import mu_series
from tournaments.rank.tables import TABLE_NAMES, build
from tournaments.report.blocks import Block, packing, remove_stale, write_file
from tournaments.report.public import public_game
from tournaments.report.shell import render_page
from tournaments.report.stored import keyed_games
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame, GameKey
from tournaments.store.store import Store

HISTORY_POINTS = 200
"""Most points of a bot's rating over time: its line is drawn about 640 pixels wide."""


def thinned(values: Sequence[float]) -> list[list[float]]:
    """At most `HISTORY_POINTS` of `values` as [games played, value], evenly spaced, the last
    one always kept (a page of 20,000 games must not carry every game's rating)."""
    step = max(1, math.ceil(len(values) / (HISTORY_POINTS - 1)))
    kept = [*range(0, len(values), step)]
    if kept and kept[-1] != len(values) - 1:
        kept.append(len(values) - 1)
    return [[at + 1, round(values[at], 2)] for at in kept]


def rating_history(games: Sequence[FinishedGame]) -> dict[str, list[list[float]]]:
    """Each bot's openskill mu after each game it sat in (`games` in the order they were
    stored), `thinned`: how its rating moved as games came in, which the Elo of the standings,
    fitted to all games at once, does not show."""
    return {bot: thinned(values) for bot, values in sorted(mu_series(games).items())}


def overview_data(games: Sequence[FinishedGame], bootstrap: int) -> dict[str, Any]:
    """The page's tables (`arena table`'s, with the standings' notes) and ratings over time."""
    if not games:
        return {"tables": [], "history": {}}
    built = build(TABLE_NAMES, games, bootstrap=bootstrap)
    return {
        "tables": [msgspec.to_builtins(table) for table in built],
        "history": rating_history(games),
    }


INDEX_FIELDS = ("id", "bots", "scores", "ranks", "deal", "rotation", "seed", "decisions", "faults")


def _index(keyed: list[tuple[GameKey, FinishedGame]], blocks: list[Block]) -> dict[str, Any]:
    """The page's index of the games by column (each field's list over the games: a list of
    thousands of objects would repeat every key), each game's bots by their number in `bots`
    and its block by its number in `blocks`."""
    bots = sorted({bot for _, game in keyed for bot in game.bots})
    number = {bot: index for index, bot in enumerate(bots)}
    block_of = {game_id: index for index, block in enumerate(blocks) for game_id in block.ids}
    rows = [
        (
            key.id,
            [number[bot] for bot in game.bots],
            game.played.scores,
            game.played.ranks,
            game.deal,
            game.rotation,
            str(key.seed),  # beyond 2**53: a JavaScript number would round it
            key.decisions,
            [[f.seat, f.kind, f.reason, f.decision] for f in game.played.faults],
        )
        for key, game in keyed
    ]
    games = {field: [row[at] for row in rows] for at, field in enumerate(INDEX_FIELDS)}
    games["block"] = [block_of[key.id] for key, _ in keyed]
    return {"bots": bots, "games": games, "blocks": [block.name for block in blocks]}


def write_report(
    path: Path,
    out: Path,
    *,
    bootstrap: int = 200,
    workers: int = 0,
    public: bool = False,
    title: str | None = None,
    links: Sequence[tuple[str, str]] = (),
) -> Path:
    """Write the report of the store at `path`: `out/index.html` and `out/games/`, or, when
    `out` ends in .html, that file and `<its stem>-games/` beside it. The page's path.

    Games of removed bots are left out, as in `arena table`. A game whose record does not
    replay gets a viewer that says why (the rest of the report is unaffected). Re-playing the
    games is most of the work: it is done once per game (`blocks`: what the games directory
    already holds is kept), shared among `workers` processes (0: one per core) while the tables
    are built. A `public` report (a league's published final) holds what the league's public
    pages hold: each fault's kind and decision, not its reason, and each seat by its name
    (`report.public`). `title` (default: the store's file name and its game) heads it, and
    `links` (text, address) are shown under the title (a league's: back to its pages)."""
    if out.suffix == ".html":
        index, games_dir = out, out.with_name(out.stem + "-games")
    else:
        index, games_dir = out / "index.html", out / "games"
    games_dir.mkdir(parents=True, exist_ok=True)
    with Store(path, readonly=True) as store:
        keyed = visible(keyed_games(store), hidden(store, []))
        settings = store.settings() or {}
    if public:
        keyed = [(key, public_game(game)) for key, game in keyed]
    ids = [key.id for key, _ in keyed]
    with packing(path, games_dir, ids, workers or os.cpu_count() or 1, public) as packed:
        overview = overview_data([game for _, game in keyed], bootstrap)
        blocks = packed()
    data = {
        "mode": "report",
        "title": title or f"{path.name}: {settings.get('game', '?')} tournament",
        "links": [list(link) for link in links],
        "settings": settings,
        **overview,
        **_index(keyed, blocks),
        "games_dir": games_dir.name,
    }
    write_file(index, render_page(data))
    remove_stale(games_dir, blocks)  # only now: the page before named them
    return index
