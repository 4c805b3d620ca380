"""Sharing the machine: the authors take turns at the scrimmages (one author's queue does not
hold another's), and the ladder and the scrimmages together play at most `concurrency` games at
once — counted from the outside, as referee processes with bots under them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import httpx2 as httpx
import pytest
import trio

from tournaments.league.service import LeagueService
from tournaments.server.testing import until

pytestmark = pytest.mark.slow  # a ladder and scrimmages of real games

LEAGUE = """
game = "azul"
players = 2
concurrency = 1
sandbox = "none"

[participants]
greedy = "greedy"
random = "random"

[league]
batch = 2
scrimmages_per_hour = 4
scrimmage_games = 6
"""
BOT = "from bots.sdk import run\nrun(lambda observation, legal, context: 0, name='{name}')\n"


async def authors_with_bots(
    service: LeagueService, client: httpx.AsyncClient, *names: str
) -> list[dict[str, str]]:
    """Each of `names` an author with a bot of that name, playing: their bearer headers."""
    registry = service.league.registry
    headers = []
    for name in names:
        bearer = {"Authorization": f"Bearer {registry.new_token(name)}"}
        data = BOT.format(name=name).encode()
        answer = await client.post(
            "/api/versions", data={"name": name}, files={"file": ("bot.py", data)}, headers=bearer
        )
        assert answer.status_code == 201, answer.text
        headers.append(bearer)
    for name in names:
        await until(lambda name=name: registry.versions(name)[-1].status == "playing", name)
    return headers


async def ask(client: httpx.AsyncClient, bot: str, who: dict[str, str]) -> int:
    fields = {"version": "1", "opponent": "greedy", "games": "6"}
    answer = await client.post(f"/api/bots/{bot}/scrimmages", data=fields, headers=who)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def test_an_authors_next_scrimmage_waits_behind_another_authors_first(
    running: tuple[LeagueService, httpx.AsyncClient],
) -> None:
    service, client = running
    registry = service.league.registry
    anna, ben = await authors_with_bots(service, client, "anna", "ben")
    annas = [await ask(client, "anna", anna) for _ in range(3)]
    bens = await ask(client, "ben", ben)
    started: list[int] = []

    def bens_started() -> bool:
        for scrimmage in registry.scrimmages():
            if scrimmage.status != "queued" and scrimmage.id not in started:
                started.append(scrimmage.id)
        return bens in started

    await until(bens_started, "ben's scrimmage", timeout=120)
    assert started.index(bens) <= 1, started  # behind anna's first at most
    assert not {annas[1], annas[2]} & set(started[: started.index(bens)])


def children(pid: int) -> list[int]:
    """The processes `pid` started (each of its threads'), from /proc."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                found += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def games_in_play() -> int:
    """This process's referee processes (the local executor's) that have bots running now."""
    busy = 0
    for child in children(os.getpid()):
        with contextlib.suppress(OSError):
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"tournaments.executors.worker" in command and children(child):
                busy += 1
    return busy


async def test_the_ladder_and_the_scrimmages_share_concurrency_games_at_once(
    running: tuple[LeagueService, httpx.AsyncClient],
) -> None:
    service, client = running
    registry = service.league.registry
    (cleo,) = await authors_with_bots(service, client, "cleo")
    most, samples = 0, 0
    scrimmages = [await ask(client, "cleo", cleo) for _ in range(2)]

    def done() -> bool:
        return all(s.status in ("done", "failed") for s in registry.scrimmages())

    with trio.move_on_after(120):
        while not done():
            most = max(most, games_in_play())
            samples += 1
            await trio.sleep(0.02)
    assert done(), "the scrimmages did not end in 120 s"
    assert [s.status for s in registry.scrimmages()] == ["done"] * len(scrimmages)
    assert samples > 20
    assert 1 <= most <= service.league.tournament.workers == 1
