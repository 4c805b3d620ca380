"""The page every report and game viewer is made in: `assets/report.html` filled in with its CSS,
its code, every game's drawing hook and the data. Apart from the report's tables (`page`), so
that a game's page (the league's viewers child, `arena match --html`) loads no ratings.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Sequence
from typing import Any

import msgspec

from tournaments.report.viewer import block_script, game_fields, viewer_data

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
    `inline_games` is a block's script (a one-game page carries its game inside, so it is a
    single file)."""
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


def game_page(record: bytes, title: str, links: Sequence[tuple[str, str]] = ()) -> str:
    """A single-file viewer of one game (`arena match --html`, the league's game pages);
    `links` (text, address) are shown above it."""
    page = {
        "mode": "game",
        "title": title,
        "games": {"id": [0], "block": [0]},
        "blocks": ["game"],
        "links": [list(link) for link in links],
    }
    return render_page(page, block_script("game", [0], [game_fields(viewer_data(record))]))
