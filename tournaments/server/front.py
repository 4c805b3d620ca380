"""The web front's state and request handling, shared by the endpoints of every area (the
modules beside it that `server.app` routes): templates, browser sessions, cookies and CSRF
values, request bodies (read only once the request is authenticated, and never past their size
limit), and the one mapping from the error family to HTTP answers (`answer_refusal`: each error's
`http_status`, beside its exit code).
"""

from __future__ import annotations

import hmac
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Message

from protocol.errors import ArenaError, RequestError
from referee.games import find_game
from tournaments.league.errors import Forbidden, TooLarge, Unauthorized
from tournaments.league.service import LeagueService
from tournaments.server.fields import whole_number
from tournaments.server.limits import Buckets, Throttled, client_address, retry_headers

if TYPE_CHECKING:
    from tournaments.league.registry import Author
    from tournaments.league.sessions import Session

CSRF_COOKIE = "arena_csrf"
SESSION_COOKIE = "arena_session"
SIGNINS_PER_ADDRESS = 30
"""Sign-in attempts a client address may make a minute (as many at once): enough for a class
behind one address to sign in, too few to pile up sessions or to keep the server hashing."""
SIGNINS_PER_AUTHOR = 30
"""Sign-ins an author may make a minute (as many at once)."""
READS_PER_MINUTE = 120
"""What a client (an author, else an address) may read a minute of the pages that cost the
server work — a bot's page, a list of its games (a long one costs more), a game's viewer and
records — and as many at once: a browser's pages reload far less often; a client polling them
without pause is refused (429) rather than served before everyone else."""
THROTTLED_S = 1.0
"""How long an expensive read over its client's budget waits for its 429."""
PUBLIC_PAGE_S = 1.0
"""A bot's page as signed-out browsers see it is made at most this often (`Fresh`): its
games and rating move by the game, not by the millisecond."""
FORM_BYTES = 64 * 1024
"""The largest form that is not an upload (sign in, an organiser's button), and the room an
upload's form takes beyond its file."""


SAFE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""The league's own pages run no script at all, so none may run there (an injected one
included); the game viewer (the report's, with its inline scripts) is served without them."""

EXPIRED = "the form expired or came from another site: reload this page and submit again"
NO_TOKEN = "no such token (or it was disabled): ask the organiser for yours"
SIGN_IN = "sign in with your token first (Sign in, at the top of the page)"
SIGN_IN_OR_TOKEN = "sign in, or send your token (Authorization: Bearer …)"


def refusal(error: ArenaError) -> str:
    """What a client is told of `error`: its message when the request was wrong (a 4xx);
    otherwise the league's own trouble (a damaged store), whose message names the server's
    files: that goes to the organiser's log, the client learns only that it failed."""
    if error.http_status < 500:
        return str(error)
    print(f"arena serve: a request failed: {error}", file=sys.stderr, flush=True)
    return "the league could not answer this now: its organiser's log says why"


class Front:
    """What the web front keeps beside the league: templates, browser sessions (in the
    league's registry: a restart signs no one out) and the leaderboard's last bodies."""

    def __init__(self, service: LeagueService) -> None:
        self.service = service
        self.league = service.league
        self.templates = Environment(
            loader=PackageLoader("tournaments.server", "templates"),
            autoescape=select_autoescape(["html"]),
        )
        for template in self.templates.list_templates():  # compiled now, not by a first visitor
            self.templates.get_template(template)  # while every other page waits behind it
        self.game = find_game(self.league.tournament.game)
        self.sessions = service.sessions
        self.signins_by_address = Buckets(SIGNINS_PER_ADDRESS, SIGNINS_PER_ADDRESS)
        self.signins_by_author = Buckets(SIGNINS_PER_AUTHOR, SIGNINS_PER_AUTHOR)
        self.reads = Buckets(READS_PER_MINUTE, READS_PER_MINUTE)
        self.leaderboard_shown: dict[int, Kept] = {}
        """The leaderboard's pages by number (`server.leaderboard.ROWS` rows each)."""
        self.leaderboard_sent: dict[int, Kept] = {}
        """The leaderboard's JSON pages by number."""
        self.public_bot_pages = Fresh(PUBLIC_PAGE_S, most=1000)
        """Bots' pages as signed-out browsers see them (`bots.bot_page`)."""

    def rendered(self, template: str, request: Request, **values: Any) -> str:
        viewer = self.viewer(request)
        common = {
            "league_name": self.league.file.stem,
            "game_title": self.game.title,
            "viewer": viewer,
            "signed_out": was_signed_out(request, viewer),
            "csrf": csrf_value(request),
        }
        return self.templates.get_template(template).render(**{**common, **values})

    def page(
        self, template: str, request: Request, status: int = 200, **values: Any
    ) -> HTMLResponse:
        body = self.rendered(template, request, **values)
        return HTMLResponse(body, status_code=status, headers=SAFE_HEADERS)

    def signed_in(self, request: Request) -> Author | None:
        """The author whose session the request carries, unless disabled, or re-issued a
        token, since."""
        session = self.session(request)
        if session is None:
            return None
        return self.sessions.author(session)

    def session(self, request: Request) -> Session | None:
        """The live session the request's cookie names, if any."""
        return self.sessions.get(request.cookies.get(SESSION_COOKIE, ""))

    async def spend(self, request: Request, cost: int = 1) -> None:
        """Count an expensive read against its client's budget (`READS_PER_MINUTE`):
        `Throttled` over it, after `THROTTLED_S` (a client asking without pause then costs
        the server a sleeping task, not a page a millisecond)."""
        viewer = self.viewer(request)
        key = client_address(request) if viewer is None else f"author {viewer.id}"
        try:
            self.reads.take(key, "too many pages of bots and games asked for", cost)
        except Throttled:
            await trio.sleep(THROTTLED_S)
            raise

    def viewer(self, request: Request) -> Author | None:
        """Who asks: the request's bearer token's author, else its session's."""
        return self.bearer(request) or self.signed_in(request)

    def token_author(self, request: Request) -> Author:
        """The author of the request's bearer token: `Unauthorized` without a valid one."""
        author = self.bearer(request)
        if author is None:
            raise Unauthorized(NO_TOKEN)
        return author

    def bearer(self, request: Request) -> Author | None:
        """The author of the request's bearer token, if any and valid."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        return self.service.author_of_token(token.strip())

    @property
    def upload_bytes(self) -> int:
        return self.league.settings.upload_mb * 1024 * 1024 + FORM_BYTES


def front(request: Request) -> Front:
    found: Front = request.app.state.front
    return found


# ---- reading requests ---------------------------------------------------------------------


@asynccontextmanager
async def read_form(request: Request, limit: int) -> AsyncIterator[FormData]:
    """The request's form, its body read only up to `limit` bytes: `TooLarge` when its
    Content-Length says more, or as soon as what arrives goes past it. Its files are closed
    when the block ends."""
    declared = request.headers.get("content-length")
    length = "the Content-Length header"
    too_large = f"the request is over the limit of {limit // 1024} KiB"
    if declared is not None and whole_number(declared, length, least=0, most=10**18) > limit:
        raise TooLarge(too_large)
    size = 0

    async def receive() -> Message:
        nonlocal size
        message = await request.receive()
        size += len(message.get("body", b""))
        if size > limit:
            raise TooLarge(too_large)
        return message

    try:  # parsed as it arrives: each part of the body a step of its own
        form = await Request(request.scope, receive).form(max_files=1, max_fields=10)
    except HTTPException as exc:
        raise RequestError(f"the form cannot be read: {exc.detail}") from None
    try:
        yield form
    finally:
        await form.close()


@asynccontextmanager
async def session_form(
    request: Request, limit: int = FORM_BYTES
) -> AsyncIterator[tuple[Author, FormData]]:
    """A signed-in browser's form with its page's CSRF value: (who, the form); `Unauthorized`
    without a session, `Forbidden` for a form from another site."""
    author = front(request).signed_in(request)
    if author is None:
        raise Unauthorized(SIGN_IN)
    async with read_form(request, limit) as form:
        if not from_this_site(request, form):
            raise Forbidden(EXPIRED)
        yield author, form


def from_this_site(request: Request, form: FormData) -> bool:
    """The form carries the CSRF value of the session it comes with, which only this site's
    pages show; without a session (signing in), the value its page set as a cookie (another
    site's page cannot read the cookie, so cannot send the value)."""
    session = front(request).session(request)
    expected = session.csrf if session else request.cookies.get(CSRF_COOKIE, "")
    sent = form.get("csrf", "")
    return isinstance(sent, str) and bool(expected) and hmac.compare_digest(sent, expected)


def was_signed_out(request: Request, viewer: Author | None) -> bool:
    """The browser carries a session that signs no one in (it expired, or its
    author's token was re-issued or disabled): its pages say so."""
    return viewer is None and bool(request.cookies.get(SESSION_COOKIE))


def csrf_value(request: Request) -> str:
    """The CSRF value the forms of this page carry: its session's, or, signed out, the
    browser's (`with_csrf`)."""
    session = front(request).session(request)
    return session.csrf if session else _browser_csrf(request)


def _browser_csrf(request: Request) -> str:
    """The CSRF value of a signed-out browser: its cookie's, or a new one for this page
    (`with_csrf` sets it as the cookie)."""
    token = request.cookies.get(CSRF_COOKIE) or getattr(request.state, "csrf", None)
    if token is None:
        token = request.state.csrf = secrets.token_urlsafe(24)
    return str(token)


def over_tls(request: Request) -> bool:
    """The browser reached the league over TLS: directly, or through a proxy that says so
    (`X-Forwarded-Proto: https`, docs/server.md). Its cookies are then `Secure`: never sent
    over plain HTTP. (A client that claims it falsely only keeps its own cookies from itself.)"""
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def with_csrf(response: Response, request: Request) -> Response:
    """Set the CSRF cookie the forms on this page carry back, unless it is set already."""
    if not request.cookies.get(CSRF_COOKIE):
        response.set_cookie(
            CSRF_COOKIE,
            _browser_csrf(request),
            httponly=True,
            samesite="strict",
            secure=over_tls(request),
        )
    return response


async def answer_refusal(request: Request, exc: Exception) -> Response:
    """The app's one answer to a refusal (the error family) of any endpoint: JSON
    `{"error": reason}` under `/api/`, an error page elsewhere, with its status (and a
    `Throttled`'s `Retry-After`)."""
    assert isinstance(exc, ArenaError)  # the app maps this family alone here
    headers = retry_headers(exc)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": refusal(exc)}, exc.http_status, headers=headers)
    page = front(request).page("error.html", request, exc.http_status, error=refusal(exc))
    page.headers.update(headers)
    return page


class Kept:
    """A page's last body and what it showed: the leaderboard is polled by every open browser
    and script, and between two boards (and two changes of the versions being checked) it is
    the same bytes, rendered once."""

    def __init__(self) -> None:
        self._shows: object = None
        self._body = b""

    def get(self, shows: object, render: Callable[[], bytes]) -> bytes:
        """The body for what the page `shows` now, rendered only if that changed."""
        if shows != self._shows:
            self._body, self._shows = render(), shows
        return self._body


class Fresh:
    """Pages every signed-out browser sees alike, by what they show (their key), each made at
    most once every `seconds`: the browsers of a popular bot asking for its page at once wait
    for the one being made rather than each making it (a read of its games and a render)."""

    def __init__(self, seconds: float, most: int) -> None:
        self.seconds, self.most = seconds, most
        self._kept: dict[Hashable, tuple[float, int, bytes]] = {}
        self._making: dict[Hashable, trio.Lock] = {}

    async def get(
        self, key: Hashable, make: Callable[[], Awaitable[tuple[int, bytes]]]
    ) -> tuple[int, bytes]:
        """The page (status, body) of `key`, made by `make` unless made in the last
        `seconds`."""
        if len(self._kept) >= self.most:  # keys come from addresses: keep their number small
            self._kept.clear()
            self._making = {k: lock for k, lock in self._making.items() if lock.locked()}
        async with self._making.setdefault(key, trio.Lock()):
            kept = self._kept.get(key)
            if kept is None or trio.current_time() - kept[0] >= self.seconds:
                status, body = await make()
                kept = self._kept[key] = (trio.current_time(), status, body)
        return kept[1], kept[2]
