"""The league's web front: pages for everyone, the JSON API for uploads, the leaderboard and the
organisers' actions — routes and rendering over `tournaments.league.service.LeagueService`.

Starlette, because it is a small ASGI toolkit that runs on trio through anyio (Hypercorn's trio
worker serves it in the same trio program as the ladder) and needs nothing else; Quart-Trio
would bring Flask's request globals along. Pages are Jinja2 templates with autoescaping on:
every bot-controlled string (names, reasons, logs) is text, never markup. Nothing is loaded
from another site, and the league's own pages run no script.

What is here and nowhere else: cookies, CSRF values, browser sessions, request bodies (read
only once the request is authenticated, and never past their size limit), and the one mapping
from the error family to HTTP answers (`refusal`: each error's `http_status`, beside its exit
code).
"""

from __future__ import annotations

import hmac
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, ClassVar
from urllib.parse import quote

import msgspec
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from protocol.errors import ArenaError, RequestError
from referee.games import find_game
from tournaments.league.answers import BotAnswer, VersionAnswer, VersionRow
from tournaments.league.board import MIN_REFRESH_S, head_to_head
from tournaments.league.league import bot_of
from tournaments.league.registry import Author, NotFound, Version
from tournaments.league.service import BotView, Forbidden, LeagueService, public_record
from tournaments.league.submissions import TooLarge
from tournaments.report.page import game_page
from tournaments.server import library
from tournaments.server.history import svg_line

CSRF_COOKIE = "arena_csrf"
SESSION_COOKIE = "arena_session"
FORM_BYTES = 64 * 1024
"""The largest form that is not an upload (sign in, an organiser's button), and the room an
upload's form takes beyond its file."""


class Unauthorized(RequestError):
    """No token, an unknown or old one, a disabled author, or no session (HTTP 401)."""

    http_status: ClassVar[int] = 401


WAITING = frozenset({"queued", "building", "checking"})
WAITING_REFRESH_S = 3
"""A bot page reloads itself this often while a version of it waits for its check."""
REFRESH_S = 2 * int(MIN_REFRESH_S)
"""The leaderboard page reloads itself this often (a meta refresh: the pages run no script)."""

_SAFE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""The league's own pages run no script at all, so none may run there (an injected one
included); the game viewer (the report's, with its inline scripts) is served without them."""

_EXPIRED = "the form expired or came from another site: reload this page and submit again"
_NO_TOKEN = "no such token (or it was disabled): ask the organiser for yours"
_SIGN_IN = "sign in with your token first (Sign in, at the top of the page)"
_SIGN_IN_OR_TOKEN = "sign in, or send your token (Authorization: Bearer …)"


def refusal(error: ArenaError) -> str:
    """What a client is told of `error`: its message when the request was wrong (a 4xx);
    otherwise the league's own trouble (a damaged store), whose message names the server's
    files: that goes to the organiser's log, the client learns only that it failed."""
    if error.http_status < 500:
        return str(error)
    print(f"arena serve: a request failed: {error}", file=sys.stderr, flush=True)
    return "the league could not answer this now: its organiser's log says why"


class Front:
    """What the web front keeps beside the league: templates, browser sessions (in memory: a
    restart signs everyone out) and the leaderboard's last bodies."""

    def __init__(self, service: LeagueService) -> None:
        self.service = service
        self.league = service.league
        self.templates = Environment(
            loader=PackageLoader("tournaments.server", "templates"),
            autoescape=select_autoescape(["html"]),
        )
        self.game = find_game(self.league.tournament.game)
        self.sessions: dict[str, tuple[int, int]] = {}
        """Session cookie → (author id, the author's session count when signed in)."""
        self.leaderboard_shown = _Kept()
        self.leaderboard_sent = _Kept()

    def rendered(self, template: str, request: Request, **values: Any) -> str:
        viewer = self.signed_in(request)
        common = {
            "league_name": self.league.file.stem,
            "game_title": self.game.title,
            "viewer": viewer,
            "signed_out": viewer is None and bool(request.cookies.get(SESSION_COOKIE)),
            "csrf": _csrf(request),
        }
        return self.templates.get_template(template).render(**{**common, **values})

    def page(
        self, template: str, request: Request, status: int = 200, **values: Any
    ) -> HTMLResponse:
        body = self.rendered(template, request, **values)
        return HTMLResponse(body, status_code=status, headers=_SAFE_HEADERS)

    def signed_in(self, request: Request) -> Author | None:
        """The author whose session the request carries, unless disabled, or re-issued a
        token, since."""
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE, ""))
        if session is None:
            return None
        author = self.league.registry.author_by_id(session[0])
        if author is None or author.disabled or author.sessions != session[1]:
            return None
        return author

    def viewer(self, request: Request) -> Author | None:
        """Who asks: the request's bearer token's author, else its session's."""
        return self.bearer(request) or self.signed_in(request)

    def bearer(self, request: Request) -> Author | None:
        """The author of the request's bearer token, if any and valid."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        return self.league.registry.author_for(token.strip())

    @property
    def upload_bytes(self) -> int:
        return self.league.settings.upload_mb * 1024 * 1024 + FORM_BYTES


def front(request: Request) -> Front:
    found: Front = request.app.state.front
    return found


def make_app(service: LeagueService) -> Starlette:
    """The ASGI app of the running league `service`."""
    app = Starlette(routes=ROUTES)
    app.state.front = Front(service)
    return app


# ---- reading requests ---------------------------------------------------------------------


@asynccontextmanager
async def read_form(request: Request, limit: int) -> AsyncIterator[FormData]:
    """The request's form, its body read only up to `limit` bytes: `TooLarge` when its
    Content-Length says more, or as soon as what arrives goes past it. Its files are closed
    when the block ends."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise RequestError("the Content-Length header is not a number")
        if int(declared) > limit:
            raise TooLarge(f"the request is over the limit of {limit // 1024} KiB")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the request is over the limit of {limit // 1024} KiB")
        chunks.append(chunk)
    body = b"".join(chunks)

    async def replay() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        form = await Request(request.scope, replay).form(max_files=1, max_fields=10)
    except HTTPException as exc:
        raise RequestError(f"the form cannot be read: {exc.detail}") from None
    try:
        yield form
    finally:
        await form.close()


def _same_site(request: Request, form: FormData) -> bool:
    """The form carries the CSRF value its page set as a cookie (another site's page cannot
    read the cookie, so cannot send the value)."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = form.get("csrf", "")
    return isinstance(sent, str) and bool(cookie) and hmac.compare_digest(sent, cookie)


def _csrf(request: Request) -> str:
    """The CSRF value of the request's browser: its cookie's, or a new one for this page
    (`_with_csrf` sets it as the cookie)."""
    token = request.cookies.get(CSRF_COOKIE) or getattr(request.state, "csrf", None)
    if token is None:
        token = request.state.csrf = secrets.token_urlsafe(24)
    return str(token)


def _over_tls(request: Request) -> bool:
    """The browser reached the league over TLS: directly, or through a proxy that says so
    (`X-Forwarded-Proto: https`, docs/server.md). Its cookies are then `Secure`: never sent
    over plain HTTP. (A client that claims it falsely only keeps its own cookies from itself.)"""
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def _with_csrf(response: Response, request: Request) -> Response:
    """Set the CSRF cookie the forms on this page carry back, unless it is set already."""
    if not request.cookies.get(CSRF_COOKIE):
        response.set_cookie(
            CSRF_COOKIE, _csrf(request), httponly=True, samesite="strict", secure=_over_tls(request)
        )
    return response


def api(
    endpoint: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """An API endpoint whose refusals (the error family) are JSON `{"error": reason}` with
    their status."""

    async def answer(request: Request) -> Response:
        try:
            return await endpoint(request)
        except ArenaError as exc:
            return JSONResponse({"error": refusal(exc)}, status_code=exc.http_status)

    return answer


def html(
    endpoint: Callable[[Request], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """A page whose refusals (the error family) are an error page with their status."""

    async def answer(request: Request) -> Response:
        try:
            return await endpoint(request)
        except ArenaError as exc:
            page = front(request).page
            return page("error.html", request, exc.http_status, error=refusal(exc))

    return answer


# ---- pages ----------------------------------------------------------------------------------


@html
async def leaderboard_page(request: Request) -> Response:
    f = front(request)
    registry = f.league.registry
    waiting, playing = registry.waiting(), registry.playing()
    viewer = f.signed_in(request)
    browser = None if viewer is None else (viewer, _csrf(request))  # its sign-out form
    versions = tuple((v.bot, v.status, v.number) for v in (*waiting, *playing))
    shows = (f.service.board.generation, versions, browser)
    body = f.leaderboard_shown.get(
        shows, lambda: _leaderboard(f, request, waiting, playing).encode()
    )
    return _with_csrf(HTMLResponse(body, headers=_SAFE_HEADERS), request)


def _leaderboard(f: Front, request: Request, waiting: list[Version], playing: list[Version]) -> str:
    board, previous = f.service.board.board, f.service.board.previous
    registry = f.league.registry
    authors = {author.id: author.name for author in registry.authors()}
    uploaded, numbers = registry.bots(), {version.bot: version.number for version in playing}
    rows = []
    for row in board.standings:
        base = bot_of(str(row["bot"]))
        bot = uploaded.get(base)
        rows.append(
            {
                **row,
                "base": base,
                "change": _change(row, previous),
                "author": authors.get(bot.author, "") if bot else "",
                "number": numbers.get(base, "") if base == row["bot"] else "",
                "disabled": bot is not None and bot.disabled,
            }
        )
    ranked = {row["bot"] for row in rows}
    house = [name for name in f.league.tournament.participants if name not in ranked]
    unplaced = [
        (v.bot, authors.get(v.author, ""), v.number) for v in playing if v.bot not in ranked
    ]
    return f.rendered(
        "leaderboard.html",
        request,
        rows=rows,
        unplaced=[*((name, "house", "") for name in house), *unplaced],
        games=board.games,
        made=_clock(board.made),
        refresh=REFRESH_S,
        players=f.league.tournament.players,
        waiting=waiting,
    )


@api
async def leaderboard_api(request: Request) -> Response:
    f = front(request)
    board = f.service.board

    def encoded() -> bytes:
        shown = board.board
        return msgspec.json.encode(
            {"games": shown.games, "made": shown.made, "standings": shown.standings}
        )

    body = f.leaderboard_sent.get(board.generation, encoded)
    return Response(body, media_type="application/json")


@html
async def bot_page(request: Request) -> Response:
    f = front(request)
    viewer = f.signed_in(request)
    try:
        view = f.service.bot_view(request.path_params["bot"], viewer)
    except NotFound:
        return f.page("bot.html", request, 404, bot=request.path_params["bot"], missing=True)
    history = view.history
    board = f.service.board.board
    standing = next((row for row in board.standings if row["bot"] == view.name), None)
    waiting = not view.disabled and any(v.status in WAITING for v in view.versions)
    return _with_csrf(
        f.page(
            "bot.html",
            request,
            bot=view.name,
            view=view,
            versions=view.versions,
            history=Markup(svg_line(history.points, history.games)) if history else "",
            games=_games(view),
            organiser=viewer is not None and viewer.organiser,
            standing=standing,
            ranked=len(board.standings),
            head_to_head=[
                {**row, "opponent_bot": bot_of(row["opponent"])}
                for row in head_to_head(board, view.name)
            ],
            players=f.league.tournament.players,
            refresh=WAITING_REFRESH_S if waiting else None,
        ),
        request,
    )


def _games(view: BotView) -> list[dict[str, Any]]:
    """The bot's recent games; a fault's reason (it quotes the bot's stderr) only for the
    bot's own seats, and only to whom may see its logs."""

    def own(label: str) -> bool:
        return bot_of(label) == view.name

    return [
        {
            "id": game_id,
            "seats": ", ".join(played.bots),
            "scores": " ".join(map(str, played.played.scores)),
            "result": ", ".join(
                f"{_ordinal(played.played.ranks[seat])} of {len(played.bots)}"
                for seat, label in enumerate(played.bots)
                if own(label)
            ),
            "faults": [
                {
                    "decision": f.decision,
                    "text": f"{played.bots[f.seat]} {f.kind}",
                    "reason": f.reason if view.private and own(played.bots[f.seat]) else "",
                }
                for f in played.played.faults
            ],
        }
        for game_id, played in view.games
    ]


def _ordinal(rank: int) -> str:
    return f"{rank}{'st' if rank == 1 else 'nd' if rank == 2 else 'rd' if rank == 3 else 'th'}"


@api
async def bot_api(request: Request) -> Response:
    f = front(request)
    view = f.service.bot_view(request.path_params["bot"], f.bearer(request))
    logs = dict(view.private.version_logs) if view.private else {}
    versions = [
        VersionRow(v.id, v.number, v.hash, v.status, v.reason, logs.get(v.id) if logs else None)
        for v in view.versions
    ]
    answer = BotAnswer(view.name, view.author, view.disabled, versions)
    return Response(msgspec.json.encode(answer), media_type="application/json")


@html
async def game_view(request: Request) -> Response:
    """The game's viewer (the report's, with its scripts: served without the league pages'
    policy), with links back and to its downloads."""
    f = front(request)
    viewer = f.signed_in(request)
    game = f.service.game(request.path_params["game"])
    own = f.service.own_seats(game, viewer)
    links = [("leaderboard", "/")]
    for bot in dict.fromkeys(map(bot_of, game.names)):
        links.append((bot, f"/bots/{quote(bot)}"))
    links.append(("record (JSON lines)", f"/games/{game.id}/record.jsonl"))
    for seat in own:
        links.append((f"seat {seat}'s observations", f"/games/{game.id}/seat{seat}.jsonl"))
    title = f"{f.league.file.stem}: game {game.id}"
    return HTMLResponse(game_page(public_record(game.record, own), title, links))


@api
async def game_record(request: Request) -> Response:
    """The game's record to download: the public one, with the reasons of the viewer's own
    seats' faults (signed in, or with a bearer token)."""
    f = front(request)
    game_id = request.path_params["game"]
    record = f.service.record_for(game_id, f.viewer(request))
    return _jsonl(record, f"game-{game_id}.jsonl")


@api
async def seat_record(request: Request) -> Response:
    """The game's record with one seat's observations, for that seat's author."""
    f = front(request)
    game_id, seat = request.path_params["game"], request.path_params["seat"]
    viewer = f.viewer(request)
    if viewer is None:
        raise Unauthorized(_SIGN_IN_OR_TOKEN)
    record = await f.service.seat_record(game_id, seat, viewer)
    return _jsonl(record, f"game-{game_id}-seat{seat}.jsonl")


def _jsonl(data: bytes, filename: str) -> Response:
    disposition = f'attachment; filename="{filename}"'
    headers = {"Content-Disposition": disposition, "X-Content-Type-Options": "nosniff"}
    return Response(data, media_type="application/x-ndjson", headers=headers)


@html
async def league_page(request: Request) -> Response:
    f = front(request)
    t, s = f.league.tournament, f.league.settings
    return f.page(
        "league.html",
        request,
        game_id=t.game,
        players=t.players,
        options=t.options,
        move_ms=t.time.move_ms,
        bank_ms=t.time.bank_ms,
        increment_ms=t.time.increment_ms,
        startup_ms=t.time.startup_ms,
        upload_mb=s.upload_mb,
        unpacked_mb=s.unpacked_mb,
        files=s.files,
        per_hour=s.uploads_per_hour,
        limits=t.limits,
        build_s=s.build_s,
        log_kb=s.log_kb,
        runtimes=await f.service.runtimes(),
        kits=library.kits(),
        has_rules=library.rules_html(f.game.id) is not None,
        has_protocol=library.protocol_html() is not None,
        base_url=str(request.base_url).rstrip("/"),
    )


@html
async def document(request: Request) -> Response:
    """The rules page of the league's game, or the protocol, as HTML."""
    f = front(request)
    documents = {
        "rules": (f"{f.game.title}: the rules for bots", library.rules_html(f.game.id)),
        "protocol": ("The bot protocol", library.protocol_html()),
    }
    title, body = documents.get(request.path_params["which"], ("this", None))
    if body is None:
        raise NotFound("no such document")
    return f.page("document.html", request, title=title, body=Markup(body))


@api
async def kit(request: Request) -> Response:
    name = request.path_params["name"]
    data = library.kit_zip(name)
    if data is None:
        raise NotFound("no such starter kit")
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}.zip"'},
    )


# ---- uploads ------------------------------------------------------------------------------


async def _upload(f: Front, author: Author, form: FormData) -> Version:
    name, file = form.get("name"), form.get("file")
    if not isinstance(name, str) or not name:
        raise RequestError("the form has no bot name (field `name`)")
    if not isinstance(file, UploadFile):
        raise RequestError("the form has no file (field `file`)")
    data = await file.read()
    return await f.service.upload(author, name, file.filename or "upload", data)


@html
async def submit_form(request: Request) -> Response:
    f = front(request)
    page = f.page("submit.html", request, base_url=str(request.base_url).rstrip("/"))
    return _with_csrf(page, request)


async def submit_post(request: Request) -> Response:
    f = front(request)
    base = str(request.base_url).rstrip("/")
    name = ""
    try:
        author = f.signed_in(request)
        if author is None:
            raise Unauthorized(_SIGN_IN)
        async with read_form(request, f.upload_bytes) as form:
            name = str(form.get("name", ""))
            if not _same_site(request, form):
                raise Forbidden(_EXPIRED)
            version = await _upload(f, author, form)
    except ArenaError as exc:
        return f.page(
            "submit.html", request, exc.http_status, base_url=base, error=refusal(exc), name=name
        )
    return RedirectResponse(f"/bots/{version.bot}", status_code=303)


@api
async def submit_api(request: Request) -> Response:
    f = front(request)
    author = f.bearer(request)
    if author is None:
        raise Unauthorized(_NO_TOKEN)
    async with read_form(request, f.upload_bytes) as form:
        version = await _upload(f, author, form)
    answer = VersionAnswer(
        bot=version.bot,
        version=version.id,
        number=version.number,
        hash=version.hash,
        status=version.status,
        url=f"/bots/{version.bot}",
    )
    return Response(msgspec.json.encode(answer), 201, media_type="application/json")


# ---- signing in ---------------------------------------------------------------------------


@html
async def signin_form(request: Request) -> Response:
    return _with_csrf(front(request).page("signin.html", request), request)


async def signin_post(request: Request) -> Response:
    f = front(request)
    try:
        async with read_form(request, FORM_BYTES) as form:
            same_site, token = _same_site(request, form), form.get("token", "")
        if not same_site:
            raise Forbidden(_EXPIRED)
        author = f.league.registry.author_for(token if isinstance(token, str) else "")
        if author is None:
            raise Unauthorized(_NO_TOKEN)
    except ArenaError as exc:
        return f.page("signin.html", request, exc.http_status, error=refusal(exc))
    session = secrets.token_urlsafe(32)
    f.sessions[session] = (author.id, author.sessions)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(
        SESSION_COOKIE, session, httponly=True, samesite="strict", secure=_over_tls(request)
    )
    return response


@html
async def signout_post(request: Request) -> Response:
    f = front(request)
    async with read_form(request, FORM_BYTES) as form:
        if not _same_site(request, form):
            raise Forbidden(_EXPIRED)
    f.sessions.pop(request.cookies.get(SESSION_COOKIE, ""), None)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


# ---- organisers ---------------------------------------------------------------------------

_ACTIONS = {"disable": True, "enable": False}


def _action(request: Request) -> bool:
    action = request.path_params["action"]
    if action not in _ACTIONS:
        raise NotFound(f"no action {action!r}: disable or enable")
    return _ACTIONS[action]


@html
async def bot_action_form(request: Request) -> Response:
    """An organiser's disable/enable buttons on a bot's page (for the bot, or its author)."""
    f = front(request)
    viewer = f.signed_in(request)
    if viewer is None:
        raise Unauthorized(_SIGN_IN)
    async with read_form(request, FORM_BYTES) as form:
        same_site, what = _same_site(request, form), form.get("what")
    if not same_site:
        raise Forbidden(_EXPIRED)
    bot, disabled = request.path_params["bot"], _action(request)
    if what == "author":
        view = f.service.bot_view(bot, viewer)
        if view.author is None:
            raise NotFound(f"{bot!r} has no author: it is a house bot")
        f.service.set_author_disabled(viewer, view.author, disabled)
    else:
        f.service.set_bot_disabled(viewer, bot, disabled)
    return RedirectResponse(f"/bots/{bot}", status_code=303)


def _organiser(request: Request) -> Author:
    author = front(request).bearer(request)
    if author is None:
        raise Unauthorized(_NO_TOKEN)
    return author


@api
async def bot_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    bot = request.path_params["bot"]
    f.service.set_bot_disabled(_organiser(request), bot, disabled)
    return JSONResponse({"bot": bot, "disabled": disabled})


@api
async def author_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    author = f.service.set_author_disabled(
        _organiser(request), request.path_params["author"], disabled
    )
    return JSONResponse({"author": author.name, "disabled": author.disabled})


async def no_content(request: Request) -> Response:
    return Response(status_code=204)


ROUTES = [
    Route("/", leaderboard_page),
    Route("/league", league_page),
    Route("/docs/{which:str}", document),
    Route("/kits/{name:str}.zip", kit),
    Route("/submit", submit_form, methods=["GET"]),
    Route("/submit", submit_post, methods=["POST"]),
    Route("/bots/{bot}", bot_page),
    Route("/games/{game:int}", game_view),
    Route("/games/{game:int}/record.jsonl", game_record),
    Route("/games/{game:int}/seat{seat:int}.jsonl", seat_record),
    Route("/api/leaderboard", leaderboard_api),
    Route("/api/bots/{bot}", bot_api),
    Route("/api/versions", submit_api, methods=["POST"]),
    Route("/favicon.ico", no_content),
    Route("/signin", signin_form, methods=["GET"]),
    Route("/signin", signin_post, methods=["POST"]),
    Route("/signout", signout_post, methods=["POST"]),
    Route("/bots/{bot}/{action}", bot_action_form, methods=["POST"]),
    Route("/api/bots/{bot}/{action}", bot_action_api, methods=["POST"]),
    Route("/api/authors/{author}/{action}", author_action_api, methods=["POST"]),
]


class _Kept:
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


def _change(row: dict[str, Any], previous: dict[str, float]) -> str:
    """The bot's Elo move since the board before ("+12", "−3", "new", or "")."""
    before = previous.get(str(row["bot"]))
    if before is None:
        return "new" if previous else ""
    moved = round(float(row["elo"]) - before)
    return "" if moved == 0 else f"{moved:+d}".replace("-", "−")


def _clock(made: float) -> str:
    """When a board was made, as the server's local time of day (empty before the first)."""
    return time.strftime("%H:%M:%S", time.localtime(made)) if made else ""
