"""The web front in-process (an HTTP client on the app's ASGI interface, in the test's trio
loop): routes, statuses, authentication, CSRF and what signed-out visitors see, over a
`LeagueService` whose ladder is not running — fast, where `test_server.py` and
`test_security.py` use a real server."""

from __future__ import annotations

import base64
import io
import json
import re
import tarfile
import zlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import trio
from leaguehelp import front_of, zipped

from referee import replay
from tournaments.league.ladder import run_ladder
from tournaments.league.season import OpenSeason
from tournaments.league.service import LeagueService
from tournaments.store.store import Store

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"

[league]
uploads_per_hour = 4
upload_mb = 1
benchmarks = ["house"]

[[league.grades]]
grade = "took part"
beats = { house = 0 }
"""
BOT = b"print('a bot')\n"


class Front:
    def __init__(self, client: httpx.AsyncClient, service: LeagueService) -> None:
        self.service, self.league, self.client = service, service.league, client
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
    async with front_of(tmp_path, LEAGUE) as (service, client):
        yield Front(client, service)


async def test_uploading_an_earlier_versions_files_again_answers_that_version(
    front: Front,
) -> None:
    first = (await front.upload(front.alice, "mine", b"print(1)\n"))[1]
    second = (await front.upload(front.alice, "mine", b"print(2)\n"))[1]
    again = (await front.upload(front.alice, "mine", b"print(1)\n"))[1]
    assert (first["number"], second["number"]) == (1, 2)
    assert again["version_id"] == first["version_id"] and again["number"] == 1
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
    assert "4 uploads an hour" in (await front.upload(front.bob, "r9"))[1]["error"]
    assert (await client.get("/games/99999999999999999999")).status_code == 404


async def test_uploads_the_unpacker_refuses_are_answered_with_the_reason(front: Front) -> None:
    bot = b"print(1)\n"
    refused = {
        "traversal": ("evil.zip", zipped({"bot.toml": b'command = "x"', "../escape.py": bot})),
        "no-manifest": ("plain.zip", zipped({"main.py": bot})),
        "garbage": ("bot.tar.gz", b"not a tar at all"),
        "linked": ("bot.tar.gz", linked_tar("main.py", "/etc/passwd")),
    }
    errors = {}
    for name, (filename, data) in refused.items():
        answer = await front.client.post(
            "/api/versions",
            data={"name": name},
            files={"file": (filename, data)},
            headers={"Authorization": f"Bearer {front.alice}"},
        )
        assert answer.status_code == 400, (name, answer.text)
        errors[name] = answer.json()["error"]
    assert "'..'" in errors["traversal"] and "link" in errors["linked"]
    assert "bot.toml" in errors["no-manifest"]
    code, answer = await front.upload(front.alice, "big", b"#" * (1024 * 1024 + 1))
    assert code == 413 and "1 MB" in answer["error"]
    assert front.league.registry.versions() == []


def linked_tar(name: str, target: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo(name)
        link.type, link.linkname = tarfile.SYMTYPE, target
        archive.addfile(link)
    return buffer.getvalue()


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


CRASH = b"""import sys
from bots.sdk import run
decisions = 0
def act(observation, legal, context):
    global decisions
    decisions += 1
    if decisions > 3:
        for line in range(8):
            sys.stderr.write(f"SECRET-REASON, line {line} of a long traceback of the crash\\n")
        sys.exit(3)
    return 0
run(act, name="mine")
"""
"""A bot that plays three decisions, then crashes: its fault's reason quotes its stderr (a
long reason, its first and last lines), which only its author may read."""


async def play_one_game(front: Front) -> tuple[int, int]:
    """alice's crashing bot `mine` (its check skipped: it would be rejected) plays the ladder
    until one game is stored: that game's id and `mine`'s seat in it."""
    code, answer = await front.upload(front.alice, "mine", CRASH)
    assert code == 201, answer
    registry = front.league.registry
    for status in ("checking", "playing"):
        registry.set_status(answer["version_id"], status)
    service, store_path = front.service, front.league.store_path
    with trio.fail_after(60), OpenSeason(front.league) as season:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_ladder, season, service, service.changes)
            while not store_path.exists() or not _games(store_path):
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    game_id = min(_games(store_path))
    with Store(store_path, readonly=True) as store:
        record = store.game_record(game_id)
    assert record is not None
    names = json.loads(record.split(b"\n")[0])["names"]
    return game_id, names.index("mine")


def _games(store_path: Path) -> list[int]:
    with Store(store_path, readonly=True) as store:
        return [game_id for game_id, _ in store.games_as_stored()]


async def test_a_game_page_links_back_and_offers_its_records_to_whom_may_have_them(
    front: Front,
) -> None:
    game, seat = await play_one_game(front)
    client = front.client
    page = (await client.get(f"/games/{game}")).text
    assert page_data(page)["title"] == f"cup: season 1, game {game}"
    links = dict(page_data(page)["links"])
    assert links == {
        "leaderboard": "/",
        "mine": "/bots/mine",
        "house": "/bots/house",
        "record (JSON lines)": f"/games/{game}/record.jsonl",
    }
    assert "SECRET-REASON" not in inline_game(page)

    public = await client.get(f"/games/{game}/record.jsonl")
    assert public.status_code == 200 and "attachment" in public.headers["content-disposition"]
    assert b"SECRET-REASON" not in public.content and replay(public.content).identical

    alice = {"Authorization": f"Bearer {front.alice}"}
    own = await client.get(f"/games/{game}/record.jsonl", headers=alice)
    assert b"SECRET-REASON" in own.content  # the reason of her own seat's fault
    bundle = await client.get(f"/games/{game}/seat{seat}.jsonl", headers=alice)
    assert bundle.status_code == 200 and replay(bundle.content).identical
    lines = [json.loads(line) for line in bundle.content.splitlines()]
    observed = [line["observations"] for line in lines if line["type"] == "decision"]
    assert observed and all(set(seen) <= {str(seat)} for seen in observed), observed[:2]
    assert any(seen for seen in observed)

    other = f"/games/{game}/seat{1 - seat}.jsonl"
    assert (await client.get(other, headers=alice)).status_code == 403  # the house bot's
    bob = {"Authorization": f"Bearer {front.bob}"}
    assert (await client.get(f"/games/{game}/seat{seat}.jsonl", headers=bob)).status_code == 403
    assert b"SECRET" not in (await client.get(f"/games/{game}/record.jsonl", headers=bob)).content
    assert (await client.get(f"/games/{game}/seat{seat}.jsonl")).status_code == 401
    assert (await client.get(f"/games/{game}/seat7.jsonl", headers=alice)).status_code == 404
    assert (await client.get("/games/999999/record.jsonl")).status_code == 404
    boss = {"Authorization": f"Bearer {front.boss}"}
    assert (await client.get(other, headers=boss)).status_code == 200

    await front.service.board.refresh()
    mine = (await client.get("/bots/mine")).text
    assert 'id="head-to-head"' not in mine  # against a benchmark: for its author alone
    mine = (await (await front.signed_in(front.alice)).get("/bots/mine")).text
    head = mine.split('id="head-to-head"')[1].split("</table>")[0]
    assert '<a href="/bots/house">house</a>' in head
    client.cookies.clear()
    assert re.search(r"<td>(1st|2nd) of 2</td>", mine)  # its own result in the game
    assert (await client.post("/api/bots/mine/disable", headers=boss)).status_code == 200
    board = (await client.get("/")).text
    assert '>mine</a> <span class="disabled">(disabled' in board  # its games' row stays, marked

    signed = await front.signed_in(front.alice)
    page = (await signed.get(f"/games/{game}")).text
    links = dict(page_data(page)["links"])
    assert links[f"seat {seat}'s observations"] == f"/games/{game}/seat{seat}.jsonl"
    assert "SECRET-REASON" in inline_game(page)


def page_data(page: str) -> dict[str, Any]:
    """A one-game page's `ARENA_DATA`."""
    found = re.search(r"const ARENA_DATA = (.*?);\n", page)
    assert found is not None
    data: dict[str, Any] = json.loads(found[1])
    return data


def inline_game(page: str) -> str:
    """The game a one-game page carries (packed: `arenaGames(name, base64 of zlib)`), as text."""
    found = re.search(r'arenaGames\("\w+","([A-Za-z0-9+/=]+)"\)', page)
    assert found is not None
    return zlib.decompress(base64.b64decode(found[1])).decode()


async def test_cookies_are_secure_when_a_tls_proxy_says_the_browser_came_over_tls(
    front: Front,
) -> None:
    client = front.client
    plain = await client.get("/signin")
    assert "secure" not in plain.headers["set-cookie"].lower()
    client.cookies.clear()
    behind = await client.get("/signin", headers={"X-Forwarded-Proto": "https"})
    assert "; secure" in behind.headers["set-cookie"].lower()
    csrf = re.search(r'name="csrf" value="([^"]+)"', behind.text)
    assert csrf is not None
    data = {"csrf": csrf[1], "token": front.alice}
    # A browser sends a Secure cookie back over TLS only: to the proxy, which passes it on.
    headers = {"X-Forwarded-Proto": "https", "Cookie": f"arena_csrf={csrf[1]}"}
    client.cookies.clear()
    signed = await client.post("/signin", data=data, headers=headers)
    assert signed.status_code == 303
    assert "arena_session=" in signed.headers["set-cookie"]
    assert "; secure" in signed.headers["set-cookie"].lower()


async def test_the_remaining_routes_answer_and_the_pages_run_no_script(front: Front) -> None:
    client = front.client
    board = await client.get("/api/leaderboard")
    assert board.status_code == 200 and board.json() == {
        "games": 0,
        "made": 0.0,
        "standings": [],
        "page": 1,
        "pages": 1,
    }
    assert (await client.get("/favicon.ico")).status_code == 204
    for path in ("/", "/league", "/docs/rules", "/docs/protocol", "/signin", "/submit"):
        page = await client.get(path)
        assert page.status_code == 200, path
        assert "script-src" not in page.headers["content-security-policy"]
        assert "default-src 'none'" in page.headers["content-security-policy"]
    assert (await client.get("/docs/nothing")).status_code == 404
    assert (await client.get("/kits/starter-none.zip")).status_code == 404
    assert "Being checked" not in (await client.get("/")).text
    assert (await front.upload(front.alice, "mine"))[0] == 201
    listed = (await client.get("/")).text.split("Being checked")[1]  # not the page kept before
    assert '<a href="/bots/mine">mine</a>: queued' in listed


async def test_an_organisers_buttons_disable_and_enable_a_bot_and_its_author(
    front: Front,
) -> None:
    assert (await front.upload(front.alice, "mine"))[0] == 201
    client = await front.signed_in(front.alice)
    page = (await client.get("/bots/mine")).text
    assert 'id="bot-action"' not in page  # an author has no organiser's buttons
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    refused = await client.post("/bots/mine/disable", data={"csrf": csrf[1]})
    assert refused.status_code == 403 and "only an organiser" in refused.text
    client.cookies.clear()
    client = await front.signed_in(front.boss)
    page = (await client.get("/bots/mine")).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None and 'id="bot-action"' in page
    assert (await client.post("/bots/mine/disable", data={})).status_code == 403  # no CSRF
    done = await client.post("/bots/mine/disable", data={"csrf": csrf[1]})
    assert done.status_code == 303 and front.league.registry.bot("mine").disabled
    assert 'id="disabled"' in (await client.get("/bots/mine")).text
    data = {"csrf": csrf[1], "what": "author"}
    assert (await client.post("/bots/mine/disable", data=data)).status_code == 303
    assert front.league.registry.author("alice").disabled
    assert (await front.upload(front.alice, "other"))[0] == 401  # a disabled author's token
    assert (await client.post("/bots/mine/enable", data=data)).status_code == 303
    assert (await client.post("/bots/mine/enable", data={"csrf": csrf[1]})).status_code == 303
    assert not front.league.registry.bot("mine").disabled
    assert (await client.post("/bots/house/disable", data=data)).status_code == 404


async def test_an_organisers_bot_page_says_the_authors_state_and_shortens_fault_reasons(
    front: Front,
) -> None:
    game, _ = await play_one_game(front)
    boss = {"Authorization": f"Bearer {front.boss}"}  # a page honours a bearer token

    async def page() -> str:
        return (await front.client.get("/bots/mine", headers=boss)).text

    shown = await page()
    assert "Its author, alice, is <strong>enabled</strong>" in shown
    assert "Disable its author, alice" in shown and "Enable its author" not in shown
    reasons = re.findall(r'<div class="reason">(.*?)</div>', shown, re.S)
    assert reasons, "the organiser sees the reason of the crash"
    for reason in reasons:
        text = re.sub(r"<a .*?</a>", "", reason)
        assert len(text) <= 165 and "SECRET-REASON" in text
        assert (
            re.search(r'href="/seasons/\d+/games/\d+#decision-\d+"', reason)
            and "whole reason" in reason
        )
    record = await front.client.get(f"/games/{game}/record.jsonl", headers=boss)
    faults = [json.loads(line) for line in record.content.splitlines()]
    whole = [line["reason"] for line in faults if line.get("type") == "fault"]
    assert any(len(reason) > 165 and "line 7 of a long" in reason for reason in whole)
    public = await front.client.get(f"/games/{game}/record.jsonl")
    lines = [json.loads(line) for line in public.content.splitlines()]
    said = {line["reason"] for line in lines if line.get("type") == "fault"}
    assert said == {"the process exited"}  # short: no note on what the private reason holds

    assert (await front.client.post("/api/authors/alice/disable", headers=boss)).is_success
    shown = await page()
    assert "Its author, alice, is <strong>disabled</strong>" in shown
    assert "Enable its author, alice" in shown and "Disable its author" not in shown
    assert ">playing</td>" in shown  # a disabled author's bot plays on
    assert (await front.client.post("/api/bots/mine/disable", headers=boss)).is_success
    shown = await page()
    assert "held: its bot is disabled" in shown and ">playing</td>" not in shown


async def test_a_bots_games_are_listed_filtered_with_the_downloads_the_asker_may_have(
    front: Front,
) -> None:
    game, seat = await play_one_game(front)
    client = front.client
    alice = {"Authorization": f"Bearer {front.alice}"}

    async def listed(query: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        answer = await client.get(f"/api/bots/mine/games?{query}", headers=headers or {})
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    every = await listed("", alice)
    ids = [row["id"] for row in every["games"]]
    assert game in ids and ids == sorted(ids, reverse=True) and every["more"] is None
    first = next(row for row in every["games"] if row["id"] == game)
    pages = f"/seasons/1/games/{game}"  # the season's address: the same game next season
    assert first["seats"][seat] == "mine" and first["record"] == f"{pages}/record.jsonl"
    assert (
        first["observations"] == {str(seat): f"{pages}/seat{seat}.jsonl"} and first["season"] == 1
    )
    assert any(f["seat"] == seat and f["kind"] == "crash" for f in first["faults"])
    assert (await listed(""))["games"][0]["observations"] == {}  # signed out: none
    assert [row["id"] for row in (await listed("opponent=house"))["games"]] == ids
    assert (await listed("opponent=nobody"))["games"] == []
    assert [row["id"] for row in (await listed("faulted=true&version=1"))["games"]] == ids
    results = {row["id"]: row["result"] for row in every["games"]}
    for result in ("win", "draw", "loss"):
        chosen = [row["id"] for row in (await listed(f"result={result}"))["games"]]
        assert chosen == [k for k in ids if results[k] == result]
    page = await listed("count=1")
    assert [row["id"] for row in page["games"]] == ids[:1] and page["more"] == ids[0]
    if len(ids) > 1:
        assert (await listed(f"count=1&before={ids[0]}"))["games"][0]["id"] == ids[1]
    for wrong in ("count=0", "count=x", "result=maybe", "junk=1", "before=-1"):
        answer = await client.get(f"/api/bots/mine/games?{wrong}")
        assert answer.status_code == 400 and "the query is wrong" in answer.json()["error"]
    assert (await client.get("/api/bots/mine/games?version=9")).status_code == 404
    assert (await client.get("/api/bots/nobody/games")).status_code == 404


async def test_the_benchmarks_page_and_csv_show_each_grade_to_its_author_alone(
    front: Front,
) -> None:
    await play_one_game(front)
    await front.service.board.refresh()
    client = front.client
    page = (await client.get("/benchmarks")).text
    assert "0% or more against house" in page and '<a href="/bots/mine">' not in page
    csv = await client.get("/benchmarks.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines() == ["bot,author,house %,house low,house high,house games,grade"]
    alice = {"Authorization": f"Bearer {front.alice}"}
    lines = (await client.get("/benchmarks.csv", headers=alice)).text.splitlines()
    assert lines[1].startswith("mine,alice,") and lines[1].endswith(",took part")
    bob = {"Authorization": f"Bearer {front.bob}"}
    assert len((await client.get("/benchmarks.csv", headers=bob)).text.splitlines()) == 1
    signed = await front.signed_in(front.alice)
    page = (await signed.get("/benchmarks")).text
    row = page.split('<a href="/bots/mine">mine</a>')[1].split("</tr>")[0]
    assert "<td>alice</td>" in row and "games" in row
    assert '<td class="grade">took part</td>' in row
