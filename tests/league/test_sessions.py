"""Browser sessions and their forms: a CSRF value bound to the session (a cookie someone else
set does not pass), sessions that expire and that an author holds a few of, and sign-ins
limited per client address and per author — in-process, over a league whose ladder is not
running."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2 as httpx
import pytest

from tournaments.league.files import League
from tournaments.league.service import LeagueService
from tournaments.league.sessions import PER_AUTHOR, SESSION_S
from tournaments.server.app import make_app
from tournaments.server.front import SIGNINS_PER_ADDRESS, SIGNINS_PER_AUTHOR, Front

LEAGUE = """
game = "azul"
players = 2
sandbox = "none"

[participants]
house = "random"

[league]
uploads_per_hour = 10
"""


class Browsers:
    """The app of a league with an organiser (`boss`) and an author (`alice`) who uploaded the
    bot `mine`, and a way to make browsers of it."""

    def __init__(self, front: Front, transport: httpx.ASGITransport) -> None:
        self.front, self.transport = front, transport
        self.boss = front.league.registry.new_token("boss", organiser=True)
        self.alice = front.league.registry.new_token("alice")

    def browser(self, address: str = "192.0.2.1") -> httpx.AsyncClient:
        """A browser at `address` (as a proxy on this machine names it)."""
        headers = {"X-Forwarded-For": address}
        return httpx.AsyncClient(
            transport=self.transport, base_url="http://league", headers=headers
        )

    async def sign_in(self, browser: httpx.AsyncClient, token: str) -> httpx.Response:
        return await browser.post(
            "/signin", data={"csrf": await form_csrf(browser), "token": token}
        )


async def form_csrf(browser: httpx.AsyncClient, path: str = "/signin") -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', (await browser.get(path)).text)
    assert found is not None
    return found[1]


@pytest.fixture
async def browsers(tmp_path: Path) -> AsyncIterator[Browsers]:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        service = LeagueService(league)
        app = make_app(service)
        made = Browsers(app.state.front, httpx.ASGITransport(app=app))
        async with made.browser() as author:
            answer = await author.post(
                "/api/versions",
                data={"name": "mine"},
                files={"file": ("bot.py", b"print('a bot')\n")},
                headers={"Authorization": f"Bearer {made.alice}"},
            )
            assert answer.status_code == 201, answer.text
        yield made


async def test_a_csrf_cookie_of_someone_elses_choosing_passes_no_form_beside_a_session(
    browsers: Browsers,
) -> None:
    registry = browsers.front.league.registry
    async with browsers.browser() as boss, browsers.browser() as alice:
        assert (await browsers.sign_in(boss, browsers.boss)).status_code == 303
        assert (await browsers.sign_in(alice, browsers.alice)).status_code == 303
        # Someone who can set cookies for the host sets `arena_csrf` and sends its value.
        for browser, path in ((boss, "/bots/mine/disable"), (alice, "/bots/mine/scrimmages")):
            session = browser.cookies["arena_session"]
            cookies = f"arena_session={session}; arena_csrf=chosen-by-someone-else"
            async with browsers.browser() as forger:
                fields = {"csrf": "chosen-by-someone-else", "version": "1", "opponent": "house"}
                forged = await forger.post(path, data=fields, headers={"Cookie": cookies})
            assert forged.status_code == 403 and "another site" in forged.text, path
        assert not registry.bot("mine").disabled
        # The value the session's page shows passes, whatever the cookie says.
        done = await boss.post("/bots/mine/disable", data={"csrf": await form_csrf(boss, "/")})
        assert done.status_code == 303 and registry.bot("mine").disabled
        # A session's value is its own: another session's does not pass.
        theirs = await form_csrf(alice, "/")
        refused = await boss.post("/bots/mine/enable", data={"csrf": theirs})
        assert refused.status_code == 403 and registry.bot("mine").disabled


async def test_sessions_end_with_age_and_an_author_keeps_the_newest_few(
    browsers: Browsers,
) -> None:
    sessions = browsers.front.sessions
    cookies = []
    for n in range(PER_AUTHOR + 2):
        async with browsers.browser(f"192.0.2.{n + 1}") as browser:
            assert (await browsers.sign_in(browser, browsers.alice)).status_code == 303
            cookies.append(browser.cookies["arena_session"])
    assert len(sessions) == PER_AUTHOR

    async def signed_in(cookie: str) -> bool:
        async with browsers.browser() as browser:
            page = await browser.get("/", headers={"Cookie": f"arena_session={cookie}"})
            return "Signed in as alice" in page.text

    assert not await signed_in(cookies[0])  # the oldest ended
    assert await signed_in(cookies[-1])
    later = sessions.clock() + SESSION_S + 1
    sessions.clock = lambda: later
    assert not await signed_in(cookies[-1])  # too old
    async with browsers.browser("198.51.100.7") as browser:
        assert (await browsers.sign_in(browser, browsers.boss)).status_code == 303
    assert len(sessions) == 1  # the expired ones are gone


async def test_sessions_outlive_a_restart_and_only_their_cookies_hashes_are_stored(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        app = make_app(LeagueService(league))
        made = Browsers(app.state.front, httpx.ASGITransport(app=app))
        async with made.browser() as browser:
            assert (await made.sign_in(browser, made.alice)).status_code == 303
            cookie = browser.cookies["arena_session"]
            csrf = await form_csrf(browser, "/")
    assert cookie.encode() not in league.registry.path.read_bytes()  # hashed
    with League(file) as league:  # the server started again
        app = make_app(LeagueService(league))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://league"
        ) as browser:
            headers = {"Cookie": f"arena_session={cookie}"}
            page = (await browser.get("/", headers=headers)).text
            assert "Signed in as alice" in page and 'id="signed-out"' not in page
            browser.cookies.set("arena_session", cookie)
            assert await form_csrf(browser, "/") == csrf  # the session's own, as before
            assert (await browser.post("/signout", data={"csrf": csrf})).status_code == 303
            assert len(app.state.front.sessions) == 0


async def test_sign_ins_are_limited_per_address_and_per_author(browsers: Browsers) -> None:
    async with browsers.browser("192.0.2.9") as guesser:
        for _ in range(SIGNINS_PER_ADDRESS):
            tried = await browsers.sign_in(guesser, "arena_guess")
            assert tried.status_code == 401
        limited = await browsers.sign_in(guesser, browsers.alice)
        assert limited.status_code == 429 and "try again in" in limited.text
        assert 1 <= int(limited.headers["Retry-After"]) <= 60
    for n in range(SIGNINS_PER_AUTHOR):  # alice from many addresses
        async with browsers.browser(f"203.0.113.{n + 1}") as browser:
            assert (await browsers.sign_in(browser, browsers.alice)).status_code == 303
    async with browsers.browser("203.0.113.200") as browser:
        limited = await browsers.sign_in(browser, browsers.alice)
        assert limited.status_code == 429 and "too many sign-ins as alice" in limited.text
        assert int(limited.headers["Retry-After"]) >= 1
        assert (await browsers.sign_in(browser, browsers.boss)).status_code == 303  # not boss
