"""What /league tells an author before they write a bot: only the starter kits whose runtimes
its own runtimes table lists, and the time limits that apply (the time per decision, the time
mode, and in cpu time mode the wall-clock limits that remain) — in-process, its ladder not
running."""

from __future__ import annotations

import re
from pathlib import Path

from leaguehelp import front_of

from referee import CPU_MODE_WALL_CAP, CPU_MODE_WALL_FACTOR
from tournaments.league.runtimes import Runtime

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"
time = {{move_ms = 400}}
time_mode = "{mode}"

[league]
"""


async def test_league_offers_the_kits_it_can_run_and_states_the_time_limits(
    tmp_path: Path,
) -> None:
    async with front_of(tmp_path, LEAGUE.format(mode="cpu")) as (service, client):
        service._runtimes = [Runtime("node", "/usr/bin/node", "v20"), Runtime("python3", "", "")]
        page = (await client.get("/league")).text
        kits = re.findall(r'href="/kits/([^"]+)\.zip"', page)
        assert kits == ["starter-node"]  # no go, g++ or java in its runtimes table
        assert "starter-go" not in page and "starter-node.zip --name my-node-bot" in page
        assert (await client.get("/kits/starter-node.zip")).status_code == 200
        time = re.sub(r"\s+", " ", page[page.index('id="time"') :].split("</p>")[0])
        assert "400 ms per decision" in time and "CPU time" in time
        assert (
            f"{CPU_MODE_WALL_FACTOR} times the decision's limit ({400 * CPU_MODE_WALL_FACTOR} ms"
            in time
        )
        assert (
            f"{CPU_MODE_WALL_CAP} times the limit of wall-clock time ({400 * CPU_MODE_WALL_CAP} ms)"
            in time
        )
        assert "the same priority" in time
        service._runtimes = [*service._runtimes, Runtime("go", "/usr/bin/go", "go1.22")]
        page = (await client.get("/league")).text
        assert re.findall(r'href="/kits/([^"]+)\.zip"', page) == ["starter-go", "starter-node"]
    async with front_of(tmp_path, LEAGUE.format(mode="wall")) as (service, client):
        service._runtimes = []
        page = (await client.get("/league")).text
        assert "wall-clock time" in page and "CPU time" not in page
        assert 'href="/kits/' not in page
