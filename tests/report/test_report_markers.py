"""The report template's markers in what bots send: the page must still be the page.

The page is `assets/report.html` with its markers (`/*ARENA:DATA*/`, ...) filled in. Text a bot
chose reaches the page's data: a participant's label, its `ready` name (the title of `arena
match --html`) and the reasons of its faults, which quote the line it sent. Filled one marker
after the other over the whole page, a marker inside that text was replaced too (the app's code
pasted into the middle of a JSON string): the data script no longer parsed, and the ladder,
the tables, the game list and the viewer were all empty, for every user of the report.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from reporthelp import MISSING, chromium, cli, console_errors, index_rows

from tournaments.report.shell import asset, viewer_scripts

MARKERS = (
    "/*ARENA:STYLE*/",
    "/*ARENA:DATA*/",
    "/*ARENA:VIEWERS*/",
    "/*ARENA:APP*/",
    "/*ARENA:GAMES*/",
)
EVERY_MARKER = "".join(MARKERS)

BOT = """\
import json, os, sys
name, line, played = sys.argv[1:4]
checked = os.path.exists(played)
open(played, "a").close()
for raw in sys.stdin:
    message = json.loads(raw)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "name": name}), flush=True)
    elif message["type"] == "act":
        answer = {"type": "action", "id": message["id"], "index": 0}
        print(line if checked else json.dumps(answer), flush=True)
"""
"""`bot.py NAME LINE FILE`: names itself NAME in `ready`, then answers its first `act` with LINE
(not JSON: a `malformed` fault whose reason quotes it) once FILE exists; the first process
(`arena run`'s check game) makes FILE and plays well."""

LABELS = ("/*ARENA:VIEWERS*//*ARENA:APP*/", "/*ARENA:GAMES*//*ARENA:STYLE*//*ARENA:DATA*/")
"""Participants' labels: together every marker (a label is at most 64 characters)."""


def bot_command(bot: Path, name: str, played: Path) -> str:
    return f"{sys.executable} {bot} '{name}' '{EVERY_MARKER}' {played}"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store where every bot-chosen string holds markers (each game ends at its first
    fault: one fault a game), and its report's page."""
    directory = tmp_path_factory.mktemp("markers")
    bot = directory / "bot.py"
    bot.write_text(BOT)
    participants = "".join(
        f'"{label}" = "{bot_command(bot, EVERY_MARKER[:40], directory / str(seat))}"\n'
        for seat, label in enumerate(LABELS)
    )
    toml = directory / "markers.toml"
    toml.write_text(
        'game = "azul"\nplayers = 2\ndeals = 1\nseed = 7\nsandbox = "none"\n'
        f"[participants]\n{participants}"
    )
    cli("run", toml, "-q")
    out = directory / "report"
    cli("report", toml.with_suffix(".sqlite"), "-o", out)
    return out / "index.html"


def scripts(page: str) -> list[str]:
    """The text of each <script> element (the template has four)."""
    return re.findall(r"<script>\n(.*?)\n</script>", page, flags=re.DOTALL)


def check_scripts_parse(page: str, directory: Path) -> list[str]:
    """Every script of the page passes `node --check`; their texts."""
    found = scripts(page)
    assert len(found) == 4
    for number, text in enumerate(found):
        script = directory / f"script{number}.js"
        script.write_text(text)
        done = subprocess.run(["node", "--check", script], capture_output=True, text=True)
        assert done.returncode == 0, f"script {number} does not parse: {done.stderr}"
    return found


def data_of(script: str) -> dict[str, Any]:
    assert script.startswith("const ARENA_DATA = ") and script.endswith(";")
    data: dict[str, Any] = json.loads(script[len("const ARENA_DATA = ") : -1])
    return data


@pytest.mark.needs("node")
def test_markers_in_labels_and_fault_reasons_leave_the_report_whole(
    report: Path, tmp_path: Path
) -> None:
    data_script, viewers, app, games = check_scripts_parse(report.read_text(), tmp_path)
    assert viewers == viewer_scripts() and app == asset("report.js") and games == ""
    data = data_of(data_script)
    games = index_rows(data)
    assert [game["bots"] for game in games] == [list(LABELS), list(LABELS[::-1])]
    reasons = [fault[2] for game in games for fault in game["faults"]]
    assert len(reasons) == 2 and all(EVERY_MARKER in reason for reason in reasons)
    standings = next(table for table in data["tables"] if table["name"] == "standings")
    assert {row[1] for row in standings["rows"]} == set(LABELS)


@pytest.mark.needs("node")
def test_markers_in_ready_names_leave_the_one_game_page_whole(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    names = ("/*ARENA:VIEWERS*//*ARENA:APP*/", "/*ARENA:GAMES*//*ARENA:STYLE*/", "/*ARENA:DATA*/")
    page = tmp_path / "game.html"
    commands = [bot_command(bot, name, bot) for name in names]  # it exists: each faults
    cli(
        "match",
        "--game",
        "azul",
        *commands,
        "--seed",
        "3",
        "--sandbox",
        "none",
        "--html",
        page,
        code=3,
    )
    data_script, viewers, app, games = check_scripts_parse(page.read_text(), tmp_path)
    assert viewers == viewer_scripts() and app == asset("report.js")
    assert games.startswith('arenaGames("game",')
    assert data_of(data_script)["title"] == f"azul: {' vs '.join(names)} (seed 3)"


@pytest.mark.slow
@pytest.mark.skipif(MISSING is not None, reason=str(MISSING))
def test_the_ladder_renders_with_markers_in_every_bot_string(report: Path) -> None:
    with chromium() as browser:
        browser.get(report.as_uri())
        assert browser.execute_script("return document.getElementById('games-table') !== null;")
        circles = browser.execute_script(
            "return document.querySelectorAll('#ladder-plot circle').length;"
        )
        assert circles == len(LABELS)
        rows = browser.execute_script(
            "return document.querySelectorAll('#games-table tbody tr').length;"
        )
        assert rows == 2
        assert LABELS[0] in browser.find_element("id", "overview").text
        assert console_errors(browser) == []
