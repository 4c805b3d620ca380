"""`arena submit --wait` tells what the league's answers say: a disabled bot at once (its
version waits unchecked: no use waiting out --wait-s), and a version that passed its check
while the season is frozen for its final as playing from the next season — on the answers of
an in-process league (its ladder not running), handed to the client in place of the network."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from leaguehelp import front_of

from tournaments.cli import main
from tournaments.commands import submit

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"

[league]
"""


async def test_submit_wait_says_a_disabled_bot_at_once_and_a_frozen_seasons_next_season(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text("print('a bot')\n")
    async with front_of(tmp_path, LEAGUE) as (service, client):
        registry = service.league.registry
        alice = {"Authorization": f"Bearer {registry.new_token('alice')}"}
        boss = {"Authorization": f"Bearer {registry.new_token('boss', organiser=True)}"}
        posted = await client.post(
            "/api/versions", data={"name": "mine"}, files={"file": ("bot.py", b"1")}, headers=alice
        )
        assert posted.status_code == 201
        answers = {"bot": b""}

        async def bot_answer() -> None:
            answer = await client.get("/api/bots/mine", headers=alice)
            assert answer.status_code == 200
            answers["bot"] = answer.content

        monkeypatch.setattr(submit, "send", lambda *args: (201, posted.content))
        monkeypatch.setattr(submit, "request_json", lambda *args: answers["bot"])
        monkeypatch.setenv("ARENA_TOKEN", "arena_unused")
        argv = ["submit", "http://league", str(bot), "--name", "mine", "--wait"]

        assert (await client.post("/api/bots/mine/disable", headers=boss)).status_code == 200
        await bot_answer()
        began = time.monotonic()
        assert main([*argv, "--wait-s", "600"]) == 1
        assert time.monotonic() - began < 5  # at once, not after --wait-s
        out = capsys.readouterr().out
        assert "mine is disabled by the organisers: version 1 waits" in out

        assert (await client.post("/api/bots/mine/enable", headers=boss)).status_code == 200
        version = registry.versions("mine")[0]
        registry.set_status(version.id, "checking")
        registry.set_status(version.id, "playing")
        await bot_answer()
        assert main(argv) == 0
        assert "mine version 1 plays: http://league/bots/mine" in capsys.readouterr().out
        organiser = registry.author("boss")
        assert organiser is not None
        service.freeze(organiser, 100)
        await bot_answer()
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "season 1 is frozen for its final, so it plays from season 2" in out
        assert "version 1 plays" not in out
