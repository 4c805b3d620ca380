"""Scrimmages: an author's unranked games of one of their versions (an older one too) against a
chosen playing bot, in a store of their own that no rating reads, on fresh deals each time,
rate-limited, listed on the author's page alone, viewable and downloadable."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from leaguehelp import stored_games

from referee import replay
from tournaments.league.service import LeagueService
from tournaments.server.testing import until

pytestmark = pytest.mark.slow  # a ladder and scrimmages of real games

LEAGUE = """
game = "azul"
players = 2
concurrency = 2
sandbox = "none"

[participants]
greedy = "greedy"

[league]
batch = 2
scrimmages_per_hour = 3
scrimmage_games = 6
"""
BOT = "from bots.sdk import run\nrun(lambda observation, legal, context: {pick}, name='mine')\n"


def stored(path: Path) -> list[tuple[tuple[str, ...], int]]:
    return [(game.bots, game.deal) for game in stored_games(path)]


async def test_scrimmages_play_apart_on_fresh_deals_for_their_author_alone(
    running: tuple[LeagueService, httpx.AsyncClient],
) -> None:
    service, client = running
    registry = service.league.registry
    alice = {"Authorization": f"Bearer {registry.new_token('alice')}"}
    bob = {"Authorization": f"Bearer {registry.new_token('bob')}"}

    async def upload(pick: str, who: dict[str, str] = alice, name: str = "mine") -> None:
        data = BOT.format(pick=pick).encode()
        answer = await client.post(
            "/api/versions", data={"name": name}, files={"file": ("bot.py", data)}, headers=who
        )
        assert answer.status_code == 201, answer.text

    def checked() -> bool:
        return registry.versions("mine")[-1].status in ("playing", "rejected")

    await upload("0")
    await until(checked, "version 1's check")
    await upload("len(legal) - 1")  # version 2 supersedes version 1, which may still scrimmage
    await until(checked, "version 2's check")
    assert [v.status for v in registry.versions("mine")] == ["superseded", "playing"]
    await upload("0", bob, "theirs")

    async def ask(fields: dict[str, str], who: dict[str, str] = alice) -> httpx.Response:
        return await client.post("/api/bots/mine/scrimmages", data=fields, headers=who)

    first = await ask({"version": "1", "opponent": "greedy", "games": "3"})
    assert first.status_code == 201, first.text
    asked = first.json()
    follow = f"/api/bots/mine/scrimmages/{asked['id']}"
    assert (asked["bot"], asked["number"], asked["opponent"], asked["games"]) == (
        "mine",
        1,
        "greedy",
        3,
    )
    assert asked["url"] == follow and asked["page"] == "/bots/mine#scrimmages"
    assert "version" not in asked and "author" not in asked  # no ids where a person reads
    assert (await ask({"version": "1", "opponent": "greedy", "games": "3"}, bob)).status_code == 403
    assert (await ask({"version": "9", "opponent": "greedy", "games": "3"})).status_code == 404
    assert (await ask({"version": "1", "opponent": "mine", "games": "3"})).status_code == 404
    assert (await ask({"version": "1", "opponent": "nobody", "games": "3"})).status_code == 404
    too_many = await ask({"version": "1", "opponent": "greedy", "games": "7"})
    assert too_many.status_code == 400 and "from 1 to 6" in too_many.json()["error"]
    second = await ask({"version": "1", "opponent": "greedy", "games": "2"})
    assert second.status_code == 201
    await ask({"version": "2", "opponent": "greedy", "games": "1"})
    limited = await ask({"version": "1", "opponent": "greedy", "games": "1"})
    assert limited.status_code == 429 and "3 scrimmages an hour" in limited.json()["error"]

    def done() -> bool:
        return all(s.status in ("done", "failed") for s in registry.scrimmages())

    await until(done, "the scrimmages")
    assert [s.status for s in registry.scrimmages()] == ["done"] * 3
    now = await client.get(follow, headers=alice)  # followed without a browser
    assert now.status_code == 200 and now.json()["status"] == "done"
    assert len(now.json()["played"]) == 4 and now.json()["number"] == 1
    assert all(row["record"].startswith("/scrimmage-games/") for row in now.json()["played"])
    assert (await client.get(follow, headers=bob)).status_code == 404  # not his
    assert (await client.get(follow)).status_code == 401
    boss = {"Authorization": f"Bearer {registry.new_token('boss', organiser=True)}"}
    assert (await client.get(follow, headers=boss)).status_code == 200
    played = stored(service.league.scrimmage_store)
    first_row, second_row, _ = registry.scrimmages()
    assert (first_row.first_deal, first_row.deals) == (0, 2)  # 3 games: 2 deals, 2 rotations
    assert (second_row.first_deal, second_row.deals) == (2, 1)  # fresh deals
    deals = sorted(deal for _, deal in played)
    assert len(played) == 4 + 2 + 2 and deals.count(0) == 4  # version 1's and version 2's
    ladder = stored(service.league.store_path)
    await service.board.refresh()
    board: dict[str, Any] = (await client.get("/api/leaderboard")).json()
    assert len(ladder) <= board["games"] <= len(stored(service.league.store_path))  # ladder's only

    page = (await client.get("/bots/mine", headers=alice)).text
    assert 'id="scrimmage-list"' in page  # a bearer token is honoured on the pages too
    signed = (await client.get("/signin")).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', signed)
    assert csrf is not None
    token = alice["Authorization"].split()[1]
    assert (await client.post("/signin", data={"csrf": csrf[1], "token": token})).status_code == 303
    page = (await client.get("/bots/mine")).text
    assert 'id="scrimmage-list"' in page and 'id="scrimmage-form"' in page
    game = int(re.findall(r'href="/scrimmage-games/(\d+)"', page)[0])
    assert (await client.get(f"/scrimmage-games/{game}")).status_code == 200
    record = await client.get(f"/scrimmage-games/{game}/record.jsonl")
    assert record.status_code == 200 and replay(record.content).identical
    seat = await client.get(f"/scrimmage-games/{game}/seat0.jsonl")
    assert seat.status_code in (200, 403)  # hers, or greedy's seat in this rotation
    client.cookies.clear()
    assert 'id="scrimmage-list"' not in (await client.get("/bots/mine")).text
