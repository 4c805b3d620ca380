"""The web front in-process (an HTTP client on the app's ASGI interface, in the test's trio
loop): routes, statuses, authentication, CSRF and what signed-out visitors see, over a
`LeagueService` whose ladder is not running — fast, where `test_server.py` and
`test_security.py` use a real server."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2 as httpx
import pytest

from tournaments.league.league import League
from tournaments.league.service import LeagueService
from tournaments.server.app import make_app

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"

[league]
uploads_per_hour = 4
upload_mb = 1
"""
BOT = b"print('a bot')\n"


class Front:
    def __init__(self, file: Path, client: httpx.AsyncClient, league: League) -> None:
        self.league, self.client = league, client
        self.alice = self.league.registry.new_token("alice")
        self.bob = self.league.registry.new_token("bob")
        self.boss = self.league.registry.new_token("boss", organiser=True)

    async def upload(self, token: str | None, name: str, data: bytes = BOT) -> tuple[int, dict]:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        answer = await self.client.post(
            "/api/versions", data={"name": name}, files={"file": ("bot.py", data)}, headers=headers
        )
        return answer.status_code, answer.json()

    async def signed_in(self, token: str) -> httpx.AsyncClient:
        page = (await self.client.get("/signin")).text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert csrf is not None
        answer = await self.client.post("/signin", data={"csrf": csrf[1], "token": token})
        assert answer.status_code == 303
        return self.client


@pytest.fixture
async def front(tmp_path: Path) -> AsyncIterator[Front]:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        transport = httpx.ASGITransport(app=make_app(LeagueService(league)))
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            yield Front(file, client, league)


async def test_uploading_an_earlier_versions_files_again_answers_that_version(
    front: Front,
) -> None:
    first = (await front.upload(front.alice, "mine", b"print(1)\n"))[1]
    second = (await front.upload(front.alice, "mine", b"print(2)\n"))[1]
    again = (await front.upload(front.alice, "mine", b"print(1)\n"))[1]
    assert (first["number"], second["number"]) == (1, 2)
    assert again["version"] == first["version"] and again["number"] == 1
    assert again["hash"] == first["hash"] != second["hash"]


async def test_each_status_of_the_api(front: Front) -> None:
    client = front.client
    assert (await front.upload(front.alice, "mine"))[0] == 201
    assert (await front.upload(None, "x"))[0] == 401
    assert (await front.upload("arena_nope", "x"))[0] == 401
    code, answer = await front.upload(front.bob, "mine")
    assert code == 403 and "another author" in answer["error"]
    code, answer = await front.upload(front.bob, "House")
    assert code == 403 and "house bot 'house'" in answer["error"]
    code, answer = await front.upload(front.alice, "bad name!")
    assert code == 400 and "bot name" in answer["error"]
    code, answer = await front.upload(front.alice, "big", b"#" * (2 * 1024 * 1024))
    assert code == 413
    assert (await client.get("/api/bots/nobody")).status_code == 404
    bearer = {"Authorization": f"Bearer {front.alice}"}
    assert (await client.post("/api/bots/mine/disable", headers=bearer)).status_code == 403
    boss = {"Authorization": f"Bearer {front.boss}"}
    assert (await client.post("/api/bots/mine/explode", headers=boss)).status_code == 404
    done = await client.post("/api/bots/mine/disable", headers=boss)
    assert done.json() == {"bot": "mine", "disabled": True}
    assert (await client.post("/api/authors/carol/disable", headers=boss)).status_code == 404
    codes = [(await front.upload(front.bob, f"r{n}"))[0] for n in range(5)]
    assert codes == [201, 201, 201, 201, 429]
    assert (await client.get("/games/99999999999999999999")).status_code == 404


async def test_signed_out_pages_show_no_private_output(front: Front) -> None:
    client = front.client
    assert (await front.upload(front.alice, "mine"))[0] == 201
    registry = front.league.registry
    (version,) = registry.versions("mine")
    registry.append_log(version.id, "check", "SECRET-OUTPUT /srv/league/path\n")
    registry.set_status(version.id, "rejected", "rejected: crash during the handshake")
    for path in ("/bots/mine", "/api/bots/mine"):
        page = (await client.get(path)).text
        assert "SECRET-OUTPUT" not in page and "crash during the handshake" in page
    own = await client.get("/api/bots/mine", headers={"Authorization": f"Bearer {front.alice}"})
    assert "SECRET-OUTPUT" in own.text
    other = await client.get("/api/bots/mine", headers={"Authorization": f"Bearer {front.bob}"})
    assert "SECRET-OUTPUT" not in other.text
    signed = await front.signed_in(front.alice)
    assert "SECRET-OUTPUT" in (await signed.get("/bots/mine")).text


async def test_forms_need_their_csrf_value_and_a_session(front: Front) -> None:
    client = front.client
    assert (await client.post("/signin", data={"token": front.alice})).status_code == 403
    file = {"file": ("bot.py", BOT)}
    answer = await client.post("/submit", files=file, data={"name": "x"})
    assert answer.status_code == 401 and "sign in" in answer.text
    await front.signed_in(front.alice)
    assert "Signed in as alice" in (await client.get("/")).text
    answer = await client.post("/submit", files=file, data={"name": "x"})
    assert answer.status_code == 403 and "another site" in answer.text
    assert (await client.post("/signout", data={})).status_code == 403
    csrf = re.search(r'name="csrf" value="([^"]+)"', (await client.get("/submit")).text)
    assert csrf is not None
    answer = await client.post("/submit", files=file, data={"name": "formed", "csrf": csrf[1]})
    assert answer.status_code == 303 and answer.headers["location"] == "/bots/formed"
    answer = await client.post("/submit", files=file, data={"name": "bad name", "csrf": csrf[1]})
    assert answer.status_code == 400 and 'value="bad name"' in answer.text  # the name is kept
    assert (await client.post("/signout", data={"csrf": csrf[1]})).status_code == 303
    assert "Signed in as" not in (await client.get("/")).text
