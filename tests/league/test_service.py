"""The league as a library (`LeagueService`): a headless league — no pages — is one call, and
holds its league alone while it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from tournaments.league.files import League
from tournaments.league.service import LeagueService, run_headless
from tournaments.plan.config import ConfigError
from tournaments.store.store import Store

LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "none"

[participants]
random = "random"
greedy = "greedy"

[league]
batch = 1
"""


def stored(store_path: Path) -> int:
    if not store_path.exists():
        return 0
    with Store(store_path, readonly=True) as store:
        return len(store.games())


async def test_a_headless_league_plays_its_ladder_and_holds_its_league_alone(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        store_path = league.store_path
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_headless, file)
            while stored(store_path) < 2:
                await trio.sleep(0.05)
            with (
                pytest.raises(ConfigError, match="another `arena serve`"),
                LeagueService.opened(file),
            ):
                pass
            nursery.cancel_scope.cancel()
    with Store(store_path, readonly=True) as store:
        assert {tuple(sorted(game.bots)) for game in store.games()} == {("greedy", "random")}
    with LeagueService.opened(file) as service:  # let go when it stopped
        assert service.league.file == file
