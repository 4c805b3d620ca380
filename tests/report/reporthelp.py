"""Small tournaments to report on, and a headless Chromium (selenium) to open the report.

Chromium and its driver come from the distribution's packages (`apt-get install chromium
chromium-driver`), never downloaded at run time; the flags keep it off the network entirely
(on a closed network its background services would otherwise log errors to the console).
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tourhelp import cli

TOURNAMENTS = {
    "azul": ('game = "azul"\nplayers = 2\n', ["greedy", "random"]),
    "azul-grey": (
        'game = "azul"\nplayers = 2\noptions = {variant = "grey", special_factories = true}\n',
        ["greedy", "random"],
    ),
    "5211": ('game = "5211"\nplayers = 3\n', ["greedy", "random", "random2"]),
    "alhambra": ('game = "alhambra"\nplayers = 3\n', ["greedy", "random", "random2"]),
    "summer-pavilion": ('game = "summer-pavilion"\nplayers = 2\n', ["greedy", "random"]),
    "summer-pavilion-grey": (
        'game = "summer-pavilion"\nplayers = 2\noptions = {variant = "grey"}\n',
        ["greedy", "random"],
    ),
}
"""One small tournament per registered game and variant: (settings, built-in bots)."""


def make_store(directory: Path, name: str, deals: int = 1) -> Path:
    """Play tournament `name` of TOURNAMENTS (trusted built-in bots, unsandboxed): its store."""
    settings, bots = TOURNAMENTS[name]
    participants = "".join(f'{bot} = "{bot.rstrip("0123456789")}"\n' for bot in bots)
    toml = directory / f"{name}.toml"
    toml.write_text(
        f'{settings}deals = {deals}\nseed = 7\nsandbox = "none"\n[participants]\n{participants}'
    )
    cli("run", toml, "-q")
    return toml.with_suffix(".sqlite")


def page_data(index: Path) -> dict[str, Any]:
    """The data a report's page (or a one-game page) holds: `ARENA_DATA`."""
    found = re.search(r"const ARENA_DATA = (.*?);\n", index.read_text())
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def index_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The page's game index (by column, bots by number) as one entry per game, as the page
    makes it."""
    columns = data["games"]
    return [
        {
            key: [data["bots"][bot] for bot in column[i]] if key == "bots" else column[i]
            for key, column in columns.items()
        }
        for i in range(len(columns["id"]))
    ]


def unpack_block(script: str) -> tuple[str, dict[str, Any]]:
    """A block's script (`arenaGames(name, packed)`): its name and its data."""
    found = re.fullmatch(r'arenaGames\("(\w+)","([A-Za-z0-9+/=]+)"\);\n', script)
    assert found is not None, script[:200]
    return found.group(1), json.loads(zlib.decompress(base64.b64decode(found.group(2))))


def patched(base: Any, patch: Any) -> Any:
    """The page's `patched` (assets/report.js) in Python: `base` with a step's changes."""
    if not isinstance(patch, dict | list):
        return patch
    if isinstance(patch, list):
        return patch[0]
    copy = list(base) if isinstance(base, list) else dict(base)
    for key, change in patch.items():
        at = int(key) if isinstance(base, list) else key
        copy[at] = patched(base[at], change)
    return copy


def game_of(block: dict[str, Any], index: int) -> dict[str, Any]:
    """The page's `gameOf`: game `index` of a block with its steps whole again."""
    fields = {name: values[index] for name, values in block.items()}
    state: Any = None
    hidden: Any = None
    steps = []
    for k, n in enumerate(fields["n"]):
        state = patched(state, fields["state"][k])
        if fields["private"] is not None:
            hidden = patched(hidden, fields["private"][k])
        plain = ("scores", "to_act", "actions", "ms", "fallback")
        steps.append(
            {"n": n, "state": state, "private": hidden, **{f: fields[f][k] for f in plain}}
        )
    return {**fields["game"], "steps": steps}


def report_games(index: Path) -> dict[int, dict[str, Any]]:
    """Every game of a written report, by id, as its page rebuilds it from the blocks."""
    data = page_data(index)
    games = {}
    for name in data["blocks"]:
        script = (index.parent / data["games_dir"] / f"{name}.js").read_text()
        called, block = unpack_block(script)
        assert called == name
        for number, game_id in enumerate(block["ids"]):
            games[game_id] = game_of(block, number)
    return games


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = (
    None
    if CHROMIUM and CHROMEDRIVER
    else "Chromium and its driver are not installed (apt-get install -y chromium chromium-driver)"
)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A fresh headless Chromium (its own profile directory) that keeps the console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    assert CHROMIUM and CHROMEDRIVER, MISSING
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        try:
            yield driver
        finally:
            driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The console's errors and warnings since the last call."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] in ("SEVERE", "WARNING")
    ]
