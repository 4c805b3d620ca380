"""A version's check runs its bot as the ladder runs it: at the ladder's priority
(`LADDER_NICE` below the server's), so a bot that keeps to its time in its check under load
keeps to it in the ladder's games too."""

from __future__ import annotations

import os
from pathlib import Path

from leaguehelp import zipped

from tournaments.league.checks import check_version
from tournaments.league.files import League
from tournaments.league.ladder import LADDER_NICE
from tournaments.league.season import OpenSeason
from tournaments.league.submissions import submit

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[league]
"""
BOT = """\
import json, os, sys

if os.nice(0) != {nice}:
    sys.exit(f"my priority is nice {{os.nice(0)}}, not the ladder's {nice}")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "name": "nice"}}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({{"type": "action", "id": message["id"], "index": 0}}), flush=True)
    elif message["type"] == "quit":
        break
"""


async def test_a_check_runs_the_bot_at_the_ladders_priority(tmp_path: Path) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    ladder = os.nice(0) + LADDER_NICE
    with League(file) as league:
        author = league.registry.author_for(league.registry.new_token("alice"))
        assert author is not None
        for name, nice in (("at-ladder", ladder), ("at-server", os.nice(0))):
            files = {
                "bot.toml": b'command = "python3 bot.py"',
                "bot.py": BOT.format(nice=nice).encode(),
            }
            version = await submit(league, author, name, "bot.zip", zipped(files))
            with OpenSeason(league) as season:
                checked = await check_version(league, season.limits, version)
            expected = "playing" if nice == ladder else "rejected"
            assert checked.status == expected, (
                name,
                checked.reason,
                league.registry.logs(version.id),
            )
        log = league.registry.logs(checked.id)["check"]
        assert f"my priority is nice {ladder}, not the ladder's {os.nice(0)}" in log
