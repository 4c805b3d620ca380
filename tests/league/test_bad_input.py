"""What a request's fields and paths may hold, refused with a 4xx that says what was wrong —
never a 500: numbers that are not plain ASCII digits (`²`, `①` pass `str.isdigit`), numbers
too large to store, a NUL in a path; and a bot the organisers disabled, refused for a
scrimmage. Over the app's ASGI interface, with a `LeagueService` whose ladder is not running."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2 as httpx
import pytest
from leaguehelp import front_of

from protocol.errors import RequestError
from tournaments.league.scrimmages import scrimmage_entrants
from tournaments.league.service import LeagueService

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"
participants = { house = "random", other = "greedy" }
league = { scrimmage_games = 4 }
"""
BAD_NUMBERS = ["²", "①", "٣", "1²", " ", "-1", "1.5", "0x10", "9" * 30]


class Served:
    """The app on an HTTP client, with the tokens of an author (alice) and an organiser."""

    def __init__(self, client: httpx.AsyncClient, service: LeagueService) -> None:
        self.client, self.service, self.registry = client, service, service.league.registry
        self.alice = {"Authorization": f"Bearer {self.registry.new_token('alice')}"}
        self.alice_token = self.alice["Authorization"].split()[1]
        self.boss = {"Authorization": f"Bearer {self.registry.new_token('boss', True)}"}

    async def playing_bot(self, name: str = "mine") -> None:
        """alice's bot `name` with a version 1 that passed its check (set as the ladder would)."""
        answer = await self.client.post(
            "/api/versions",
            data={"name": name},
            files={"file": ("bot.py", b"print('a bot')\n")},
            headers=self.alice,
        )
        assert answer.status_code == 201, answer.text
        for status in ("checking", "playing"):
            self.registry.set_status(answer.json()["version_id"], status)

    async def sign_in(self, token: str) -> None:
        page = (await self.client.get("/signin")).text
        answer = await self.client.post("/signin", data={"csrf": csrf(page), "token": token})
        assert answer.status_code == 303, answer.text

    async def form(self, page: str, action: str, fields: dict[str, str]) -> httpx.Response:
        """Post `fields` to `action` as the form of `page` does, with its CSRF value."""
        shown = (await self.client.get(page)).text
        return await self.client.post(action, data={**fields, "csrf": csrf(shown)})


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, page
    return found[1]


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async with front_of(tmp_path, LEAGUE) as (service, client):
        yield Served(client, service)


def refused(answer: httpx.Response, field: str) -> None:
    """A 400 whose message names the field and asks for a whole number."""
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert f"{field}: give a whole number" in answer.text


@pytest.mark.parametrize("bad", BAD_NUMBERS)
async def test_a_scrimmages_numbers_must_be_plain_whole_numbers(served: Served, bad: str) -> None:
    await served.playing_bot()
    for field in ("version", "games"):
        fields = {"version": "1", "games": "1", "opponent": "house", field: bad}
        answer = await served.client.post(
            "/api/bots/mine/scrimmages", data=fields, headers=served.alice
        )
        refused(answer, field)
    await served.sign_in(served.alice_token)
    fields = {"version": bad, "games": "1", "opponent": "house"}
    refused(await served.form("/bots/mine", "/bots/mine/scrimmages", fields), "version")


@pytest.mark.parametrize("bad", [*BAD_NUMBERS, "0"])
async def test_a_freezes_budget_must_be_a_plain_whole_number(served: Served, bad: str) -> None:
    answer = await served.client.post(
        "/api/league/freeze", data={"budget": bad}, headers=served.boss
    )
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert "budget" in answer.json()["error"]
    await served.sign_in(served.boss["Authorization"].split()[1])
    answer = await served.form("/league", "/league/freeze", {"budget": bad})
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert "budget" in answer.text
    assert served.registry.season().budget is None  # nothing frozen


async def test_a_freeze_within_bounds_still_freezes(served: Served) -> None:
    answer = await served.client.post(
        "/api/league/freeze", data={"budget": " 12 "}, headers=served.boss
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["budget"] == 12


async def test_a_content_length_that_is_not_plain_digits_is_refused(served: Served) -> None:
    for bad in (b"\xb2", b"1\xb2", b"9" * 30):
        answer = await served.client.post(
            "/api/league/freeze",
            content=b"budget=3",
            headers={
                **served.boss,
                "Content-Type": "application/x-www-form-urlencoded",
                "Content-Length": bad,
            },
        )
        assert answer.status_code in (400, 413), (bad, answer.status_code, answer.text)
        assert "error" in answer.json()


@pytest.mark.parametrize(
    "path",
    [
        "/seasons/1/report/%00",
        "/seasons/1/report/a%00b.html",
        "/seasons/1/report/%00/index.html",
        "/seasons/99999999999999999999999/report/index.html",
        "/seasons/99999999999999999999999",
        "/api/seasons/99999999999999999999999",
        "/seasons/99999999999999999999999.csv",
        "/seasons/99999999999999999999999/games/1",
        "/scrimmage-games/99999999999999999999999",
        "/games/1/seat99999999999999999999.jsonl",
    ],
)
async def test_a_path_with_a_nul_or_a_huge_number_is_not_found(served: Served, path: str) -> None:
    answer = await served.client.get(path, headers=served.boss)  # who may see anything
    assert answer.status_code == 404, (path, answer.status_code, answer.text)


@pytest.mark.parametrize("query", ["count=²", "count=①", "before=" + "9" * 30, "season=٣"])
async def test_a_games_listings_numbers_must_be_plain_whole_numbers(
    served: Served, query: str
) -> None:
    await served.playing_bot()
    answer = await served.client.get(f"/api/bots/mine/games?{query}")
    assert answer.status_code == 400, (query, answer.status_code, answer.text)
    assert "the query is wrong" in answer.json()["error"]


@pytest.mark.parametrize(
    "path",
    [
        "/?page=²",
        "/?page=-1",
        "/?page=" + "9" * 30,
        "/api/leaderboard?page=①",
        "/api/leaderboard?page=" + "9" * 30,
        "/bots/mine?before=²",
        "/bots/mine?before=" + "9" * 30,
    ],
)
async def test_a_pages_page_number_must_be_a_plain_whole_number_in_range(
    served: Served, path: str
) -> None:
    await served.playing_bot()
    answer = await served.client.get(path)
    assert answer.status_code in (400, 404), (path, answer.status_code, answer.text)


async def test_a_disabled_bot_plays_no_scrimmage(served: Served) -> None:
    await served.playing_bot()
    fields = {"version": "1", "games": "1", "opponent": "house"}
    ask = served.client.post  # the API, as its author
    assert (await served.client.post("/api/bots/mine/disable", headers=served.boss)).is_success
    answer = await ask("/api/bots/mine/scrimmages", data=fields, headers=served.alice)
    assert answer.status_code == 403, answer.text
    assert "disabled by the organisers" in answer.json()["error"]
    await served.sign_in(served.alice_token)
    answer = await served.form("/bots/mine", "/bots/mine/scrimmages", fields)
    assert answer.status_code == 403 and "disabled by the organisers" in answer.text
    assert served.registry.scrimmages(bot="mine") == []
    assert (await served.client.post("/api/bots/mine/enable", headers=served.boss)).is_success
    answer = await ask("/api/bots/mine/scrimmages", data=fields, headers=served.alice)
    assert answer.status_code == 201, answer.text


async def test_a_scrimmage_queued_before_its_bot_was_disabled_does_not_play(
    served: Served,
) -> None:
    await served.playing_bot()
    fields = {"version": "1", "games": "1", "opponent": "house"}
    answer = await served.client.post(
        "/api/bots/mine/scrimmages", data=fields, headers=served.alice
    )
    assert answer.status_code == 201, answer.text
    (queued,) = served.registry.scrimmages("queued")
    assert len(scrimmage_entrants(served.service.league, queued)) == 2  # it would play
    assert (await served.client.post("/api/bots/mine/disable", headers=served.boss)).is_success
    with pytest.raises(RequestError, match="disabled by the organisers"):
        scrimmage_entrants(served.service.league, queued)


async def test_a_disabled_authors_bot_plays_no_scrimmage(served: Served) -> None:
    """A disabled author signs nothing in; a scrimmage they asked for before is not asked for
    them again, and the service refuses one on their behalf."""
    await served.playing_bot()
    alice = served.registry.author("alice")
    assert alice is not None
    assert (await served.client.post("/api/authors/alice/disable", headers=served.boss)).is_success
    fields = {"version": "1", "games": "1", "opponent": "house"}
    answer = await served.client.post(
        "/api/bots/mine/scrimmages", data=fields, headers=served.alice
    )
    assert answer.status_code == 401, answer.text
    disabled = served.registry.author("alice")
    assert disabled is not None and disabled.disabled
    with pytest.raises(Exception, match="disabled by the organisers") as refusal:
        served.service.ask_scrimmage(disabled, "mine", 1, "house", 1)
    assert getattr(refusal.value, "http_status", None) == 403
    assert served.registry.scrimmages(bot="mine") == []
