"""The pages while others make the server work: a client over its budget of expensive reads is
refused (429, `Retry-After`) while another is served, and the leaderboard answers while a long
list of games is read or an upload is unpacked — in-process, the requests in the test's trio
loop as the server's would be."""

from __future__ import annotations

import io
import sqlite3
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx2 as httpx
import pytest
import trio
from leaguehelp import finished

from tournaments.league.files import League
from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.server.front import READS_PER_MINUTE
from tournaments.store.store import Store

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"
rival = "random"

[league]
upload_mb = 4
unpacked_mb = 100
"""
GAMES = 3000
"""Games of `house` in the store: a list of 500 of them takes the server real work."""


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[LeagueService, httpx.ASGITransport]]:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        service = LeagueService(league)
        with Store(league.store_path) as store:
            ids = [store.bot(name, "random", name).id for name in ("house", "rival")]
            with store.batched():
                for deal in range(GAMES):
                    game = finished(["house", "rival"], [1, 2])
                    store.add_game(
                        seat_set=",".join(map(str, ids)),
                        deal=deal,
                        rotation=0,
                        seed=deal,
                        bots=ids,
                        played=game.played,
                        decisions=1,
                        record=b'{"type": "header", "names": ["house", "rival"]}\n',
                    )
        yield service, httpx.ASGITransport(app=make_app(service))


def client(transport: httpx.ASGITransport, address: str) -> httpx.AsyncClient:
    """A client at `address`, as a proxy on this machine names it."""
    headers = {"X-Forwarded-For": address}
    return httpx.AsyncClient(transport=transport, base_url="http://league", headers=headers)


async def test_a_client_over_its_budget_of_expensive_reads_is_refused_and_others_served(
    served: tuple[LeagueService, httpx.ASGITransport],
) -> None:
    _, transport = served
    listing = "/api/bots/house/games?count=500"
    async with client(transport, "192.0.2.1") as poller, client(transport, "192.0.2.2") as other:
        answers = []
        while 429 not in answers:  # each list of 500 costs 6 reads of the budget
            answers.append((await poller.get(listing)).status_code)
            assert len(answers) <= READS_PER_MINUTE
        assert answers[0] == 200
        refused = await poller.get(listing)
        assert refused.status_code == 429 and "try again in" in refused.text
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert (await poller.get("/api/leaderboard")).status_code == 200  # not an expensive read
        assert (await other.get(listing)).status_code == 200  # another client's own budget
        assert (await other.get("/bots/house")).status_code == 200


async def first_done(
    transport: httpx.ASGITransport,
    slow: Callable[[], Awaitable[httpx.Response]],
    started: trio.Event | None = None,
    answered: Callable[[], None] = lambda: None,
) -> list[str]:
    """Send the `slow` request; once it is under way (`started`, else at once), ask for the
    leaderboard (it must answer within 5 s), then call `answered`: which of the two requests
    ended first."""
    order: list[str] = []

    async def work() -> None:
        answer = await slow()
        assert answer.status_code < 500, answer.text
        order.append("work")

    async with client(transport, "192.0.2.9") as reader, trio.open_nursery() as nursery:
        nursery.start_soon(work)
        if started is None:
            await trio.sleep(0.005)
        else:
            with trio.fail_after(30):
                await started.wait()
        with trio.fail_after(5):
            assert (await reader.get("/api/leaderboard")).status_code == 200
        order.append("leaderboard")
        answered()
    return order


async def test_the_leaderboard_answers_while_a_long_list_is_read(
    served: tuple[LeagueService, httpx.ASGITransport],
) -> None:
    service, transport = served
    # The store held by another connection: reading it waits (up to the store's 10 s) — in
    # the server's trio thread, every page would wait with it. (The game pages' connection,
    # kept open, is closed first: an exclusive lock waits for every connection to go.)
    service.views.stores.close()
    holder = sqlite3.connect(service.league.store_path)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    async with client(transport, "192.0.2.3") as lister:
        order = await first_done(
            transport,
            lambda: lister.get("/api/bots/house/games?count=500"),
            answered=holder.close,
        )
    assert order == ["leaderboard", "work"]


async def test_the_leaderboard_answers_while_an_upload_is_unpacked(
    served: tuple[LeagueService, httpx.ASGITransport],
) -> None:
    service, transport = served
    bomb = io.BytesIO()
    with (
        zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zipped,
        zipped.open("zeros.bin", "w") as member,
    ):
        for _ in range(64):
            member.write(bytes(1024 * 1024))
    token = service.league.registry.new_token("alice")
    staging = service.league.bots_dir / ".staging"
    unpacking = trio.Event()

    async def watch() -> None:
        while not (staging.exists() and any(staging.iterdir())):
            await trio.sleep(0.001)
        unpacking.set()

    async with client(transport, "192.0.2.4") as author, trio.open_nursery() as nursery:
        nursery.start_soon(watch)
        order = await first_done(
            transport,
            lambda: author.post(
                "/api/versions",
                data={"name": "big"},
                files={"file": ("bot.zip", bomb.getvalue())},
                headers={"Authorization": f"Bearer {token}"},
            ),
            unpacking,
        )
    assert order == ["leaderboard", "work"]
    assert list(staging.iterdir()) == []  # the upload's saved bytes and its refused files
