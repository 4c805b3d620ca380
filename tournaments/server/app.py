"""The league's web front: pages for everyone, the JSON API for uploads and the leaderboard.

Starlette, because it is a small ASGI toolkit that runs on trio through anyio (Hypercorn's trio
worker serves it in the same trio program as the ladder) and needs nothing else; Quart-Trio
would bring Flask's request globals along. Pages are Jinja2 templates with autoescaping on:
every bot-controlled string (names, reasons) is text, never markup. Nothing is loaded from
another site.
"""

from __future__ import annotations

import hmac
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import trio
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from protocol.errors import ArenaError, RequestError
from referee.games import find_game
from tournaments.exclusion import hidden
from tournaments.league.league import League
from tournaments.league.registry import Author, Taken, Version
from tournaments.league.submissions import RateLimited, TooLarge, submit
from tournaments.report.page import game_page
from tournaments.results import FinishedGame
from tournaments.runner import Voided
from tournaments.server import library
from tournaments.server.board import MIN_REFRESH_S, BoardKeeper
from tournaments.server.history import svg_line
from tournaments.store import Store

CSRF_COOKIE = "arena_csrf"
SESSION_COOKIE = "arena_session"
STATUS_OF: list[tuple[type[Exception], int]] = [
    (TooLarge, 413),
    (RateLimited, 429),
    (Taken, 403),
    (RequestError, 400),
]
"""HTTP status of an upload's refusal, most specific first."""
REFRESH_S = 2 * int(MIN_REFRESH_S)
"""The leaderboard page reloads itself this often (a meta refresh: the pages run no script)."""


class LeagueServer:
    """The running league as the pages see it; also the ladder's `GameListener` and the source of
    the change events the ladder and the checks wait on."""

    def __init__(self, league: League) -> None:
        self.league = league
        self._change = trio.Event()
        self.board = BoardKeeper(league.store_path)
        self.sessions: dict[str, int] = {}
        """Signed-in browsers: session cookie → author id (in memory: a restart signs out)."""

    # ---- changes and the ladder's listener ----------------------------------------------

    def changes(self) -> trio.Event:
        """The event the next change (an upload, a checked version) sets."""
        return self._change

    def notify(self) -> None:
        self._change.set()
        self._change = trio.Event()

    def on_game(self, game: FinishedGame) -> None:
        self.board.on_game()

    def on_void(self, voided: Voided) -> None:
        """A referee error (not a bot's): the organiser's log says how to play it again; the
        next round plays the game again (it was not stored)."""
        print(
            f"arena serve: a game was voided by an error of the referee ({voided.error}); "
            f"to reproduce it: {voided.command}",
            file=sys.stderr,
            flush=True,
        )

    def on_probation(self, label: str, fault: str) -> None:
        """A bot faulting game after game plays on; its page shows its faults."""

    # ---- what the pages read ------------------------------------------------------------

    def recent_games(self, bot: str, count: int = 50) -> list[tuple[int, FinishedGame]]:
        """The newest games any version of `bot` sat in (removed bots' games left out)."""
        if not self.league.store_path.exists():
            return []
        with Store(self.league.store_path, readonly=True) as store:
            recent = store.recent_games(bot, count)
            hide = hidden(store, [])
        return [(game_id, game) for game_id, game in recent if hide.isdisjoint(game.bots)]

    def signed_in(self, request: Request) -> Author | None:
        """The author whose session the request carries, unless disabled since."""
        author_id = self.sessions.get(request.cookies.get(SESSION_COOKIE, ""))
        found = [a for a in self.league.registry.authors() if a.id == author_id]
        return found[0] if found and not found[0].disabled else None

    def may_see_logs(self, author: Author | None, bot: str) -> bool:
        """An author sees only their own bots' logs; an organiser sees every bot's."""
        if author is None:
            return False
        return author.organiser or self.league.registry.owner(bot) == author.id

    def stderr_logs(self, bot: str, count: int = 5) -> list[tuple[str, str]]:
        """The bot's newest non-empty stderr logs of ladder games: (file name, last 8 KiB)."""
        folder = self.league.store_path.with_suffix(".logs")
        if not folder.is_dir():
            return []
        mine = [
            path
            for path in folder.iterdir()
            if path.name.endswith(f"-{bot}.log") and path.is_file() and path.stat().st_size
        ]
        mine.sort(key=lambda path: path.stat().st_mtime, reverse=True)
        return [(path.name, _tail(path, 8192)) for path in mine[:count]]


def make_app(server: LeagueServer) -> Starlette:
    """The ASGI app of `server`'s league."""
    league = server.league
    templates = Environment(
        loader=PackageLoader("tournaments.server", "templates"),
        autoescape=select_autoescape(["html"]),
    )
    game = find_game(league.tournament.game)
    common = {"league_name": league.file.stem, "game_title": game.title}

    def rendered(name: str, **values: Any) -> str:
        return templates.get_template(name).render(**common, **values)

    def page(name: str, status: int = 200, **values: Any) -> HTMLResponse:
        return HTMLResponse(rendered(name, **values), status_code=status, headers=_SAFE_HEADERS)

    leaderboard_shown, leaderboard_sent = _Kept(), _Kept()

    def leaderboard_text(waiting: list[Version]) -> str:
        board, previous = server.board.board, server.board.previous
        rows = [
            {
                **row,
                "base": str(row["bot"]).split("@")[0],
                "change": _change(row, previous),
            }
            for row in board.standings
        ]
        return rendered(
            "leaderboard.html",
            rows=rows,
            games=board.games,
            made=_clock(board.made),
            refresh=REFRESH_S,
            players=league.tournament.players,
            waiting=waiting,
        )

    async def leaderboard_page(request: Request) -> Response:
        waiting = league.registry.waiting()
        shows = (server.board.generation, tuple((v.bot, v.status) for v in waiting))
        body = leaderboard_shown.get(shows, lambda: leaderboard_text(waiting).encode())
        return HTMLResponse(body, headers=_SAFE_HEADERS)

    def leaderboard_json() -> bytes:
        board = server.board.board
        return msgspec.json.encode(
            {"games": board.games, "made": board.made, "standings": board.standings}
        )

    async def leaderboard_api(request: Request) -> Response:
        body = leaderboard_sent.get(server.board.generation, leaderboard_json)
        return Response(body, media_type="application/json")

    async def bot_page(request: Request) -> Response:
        bot = request.path_params["bot"]
        versions = league.registry.versions(bot)
        if not versions and bot not in league.tournament.participants:
            return page("bot.html", status=404, bot=bot, missing=True)
        mine = [
            {
                "id": game_id,
                "seats": ", ".join(played.bots),
                "scores": " ".join(map(str, played.played.scores)),
                "faults": [
                    {"decision": f.decision, "text": f"{played.bots[f.seat]} {f.kind}: {f.reason}"}
                    for f in played.played.faults
                ],
            }
            for game_id, played in server.recent_games(bot)
        ]
        history = server.board.board.history.get(bot)
        viewer = server.signed_in(request)
        logs = None
        if server.may_see_logs(viewer, bot):
            logs = {
                "versions": [(v.id, league.registry.logs(v.id)) for v in versions],
                "stderr": server.stderr_logs(bot),
            }
        return page(
            "bot.html",
            bot=bot,
            versions=versions,
            history=Markup(svg_line(history.points, history.games)) if history else "",
            games=mine,
            logs=logs,
            viewer=viewer,
            organiser=viewer is not None and viewer.organiser,
            csrf=request.cookies.get(CSRF_COOKIE, ""),
        )

    async def bot_api(request: Request) -> Response:
        bot = request.path_params["bot"]
        versions = league.registry.versions(bot)
        if not versions:
            return JSONResponse({"error": f"no bot {bot!r}"}, status_code=404)
        return JSONResponse(
            {
                "bot": bot,
                "versions": [
                    {"version": v.id, "hash": v.hash, "status": v.status, "reason": v.reason}
                    for v in versions
                ],
            }
        )

    async def game_view(request: Request) -> Response:
        game_id = request.path_params["game"]
        if not league.store_path.exists():
            return HTMLResponse("no such game", status_code=404)
        with Store(league.store_path, readonly=True) as store:
            record = store.game_record(game_id)
        if record is None:
            return HTMLResponse("no such game", status_code=404)
        title = f"{league.file.stem}: game {game_id}"
        return HTMLResponse(game_page(record, title))

    async def league_page(request: Request) -> Response:
        t, s = league.tournament, league.settings
        return page(
            "league.html",
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
            kits=library.kits(),
            has_rules=library.rules_html(game.id) is not None,
            has_protocol=library.protocol_html() is not None,
            base_url=str(request.base_url).rstrip("/"),
        )

    async def document(request: Request) -> Response:
        """The rules page of the league's game, or the protocol, as HTML."""
        which = request.path_params["which"]
        documents = {
            "rules": (f"{game.title}: the rules for bots", library.rules_html(game.id)),
            "protocol": ("The bot protocol", library.protocol_html()),
        }
        title, body = documents.get(which, ("this", None))
        if body is None:
            return page("document.html", status=404, title=title, body="")
        return page("document.html", title=title, body=Markup(body))

    async def kit(request: Request) -> Response:
        data = library.kit_zip(request.path_params["name"])
        if data is None:
            return JSONResponse({"error": "no such starter kit"}, status_code=404)
        name = request.path_params["name"]
        return Response(
            data,
            media_type="application/zip",
            headers={"Content-Disposition": f'attachment; filename="{name}.zip"'},
        )

    async def submit_form(request: Request) -> Response:
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        response = page("submit.html", csrf=csrf, base_url=str(request.base_url).rstrip("/"))
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    async def submit_post(request: Request) -> Response:
        form = await request.form()
        cookie = request.cookies.get(CSRF_COOKIE, "")
        base = str(request.base_url).rstrip("/")
        if not _same_site(request, form):
            return page("submit.html", status=403, csrf=cookie, base_url=base, error=_EXPIRED)
        author = league.registry.author_for(str(form.get("token", "")))
        try:
            version = await _upload(server, author, form.get("name"), form.get("file"))
        except _Refusal as refusal:
            return page(
                "submit.html",
                status=refusal.status,
                csrf=cookie,
                base_url=base,
                error=refusal.reason,
            )
        return RedirectResponse(f"/bots/{version}", status_code=303)

    async def submit_api(request: Request) -> Response:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        author = league.registry.author_for(token.strip()) if scheme.lower() == "bearer" else None
        form = await request.form()
        try:
            bot = await _upload(server, author, form.get("name"), form.get("file"))
        except _Refusal as refusal:
            return JSONResponse({"error": refusal.reason}, status_code=refusal.status)
        version = league.registry.versions(bot)[-1]
        return JSONResponse(
            {
                "bot": bot,
                "version": version.id,
                "hash": version.hash,
                "status": version.status,
                "url": f"/bots/{bot}",
            },
            status_code=201,
        )

    async def signin_form(request: Request) -> Response:
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(24)
        response = page("signin.html", csrf=csrf)
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    async def signin_post(request: Request) -> Response:
        form = await request.form()
        if not _same_site(request, form):
            return page("signin.html", status=403, csrf="", error=_EXPIRED)
        author = league.registry.author_for(str(form.get("token", "")))
        if author is None:
            csrf = request.cookies.get(CSRF_COOKIE, "")
            return page("signin.html", status=401, csrf=csrf, error=_NO_TOKEN)
        session = secrets.token_urlsafe(32)
        server.sessions[session] = author.id
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
        return response

    async def disable_form(request: Request) -> Response:
        """An organiser's "disable this bot" button on its page."""
        bot = request.path_params["bot"]
        form = await request.form()
        viewer = server.signed_in(request)
        if not _same_site(request, form) or viewer is None or not viewer.organiser:
            return JSONResponse({"error": "only a signed-in organiser may disable a bot"}, 403)
        league.registry.disable_bot(bot)
        server.notify()
        return RedirectResponse(f"/bots/{bot}", status_code=303)

    def organiser(request: Request) -> Author | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        author = league.registry.author_for(token.strip()) if scheme.lower() == "bearer" else None
        return author if author is not None and author.organiser else None

    async def disable_bot_api(request: Request) -> Response:
        if organiser(request) is None:
            return JSONResponse({"error": "an organiser's token is needed"}, status_code=403)
        bot = request.path_params["bot"]
        count = league.registry.disable_bot(bot)
        server.notify()
        return JSONResponse({"bot": bot, "disabled_versions": count})

    async def disable_author_api(request: Request) -> Response:
        if organiser(request) is None:
            return JSONResponse({"error": "an organiser's token is needed"}, status_code=403)
        name = request.path_params["author"]
        try:
            league.registry.disable_author(name)
        except ArenaError as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)
        server.sessions = {
            key: value
            for key, value in server.sessions.items()
            if value not in {a.id for a in league.registry.authors() if a.name == name}
        }
        return JSONResponse({"author": name, "disabled": True})

    routes = [
        Route("/", leaderboard_page),
        Route("/league", league_page),
        Route("/docs/{which:str}", document),
        Route("/kits/{name:str}.zip", kit),
        Route("/submit", submit_form, methods=["GET"]),
        Route("/submit", submit_post, methods=["POST"]),
        Route("/bots/{bot}", bot_page),
        Route("/games/{game:int}", game_view),
        Route("/api/leaderboard", leaderboard_api),
        Route("/api/bots/{bot}", bot_api),
        Route("/api/versions", submit_api, methods=["POST"]),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/signin", signin_form, methods=["GET"]),
        Route("/signin", signin_post, methods=["POST"]),
        Route("/bots/{bot}/disable", disable_form, methods=["POST"]),
        Route("/api/bots/{bot}/disable", disable_bot_api, methods=["POST"]),
        Route("/api/authors/{author}/disable", disable_author_api, methods=["POST"]),
    ]
    return Starlette(routes=routes)


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


def _same_site(request: Request, form: Any) -> bool:
    """The form carries the CSRF value its page set as a cookie (another site's page cannot
    read the cookie, so cannot send the value)."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    sent = str(form.get("csrf", ""))
    return bool(cookie) and hmac.compare_digest(sent.encode(), cookie.encode())


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


def _tail(path: Path, size: int) -> str:
    """The last `size` bytes of a log, as text (a bot's bytes: shown escaped by the page)."""
    with path.open("rb") as file:
        file.seek(max(0, path.stat().st_size - size))
        return file.read().decode("utf-8", "replace")


class _Refusal(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


async def _upload(server: LeagueServer, author: Author | None, name: Any, file: Any) -> str:
    """Take an upload from a form; the bot's name, or `_Refusal` with the HTTP status."""
    if author is None:
        raise _Refusal(401, _NO_TOKEN)
    if not isinstance(name, str) or not name:
        raise _Refusal(400, "the form has no bot name (field `name`)")
    if not isinstance(file, UploadFile):
        raise _Refusal(400, "the form has no file (field `file`)")
    limit = server.league.settings.upload_mb * 1024 * 1024
    data = await file.read(limit + 1)  # one byte over is enough for `submit` to refuse it
    try:
        version = submit(server.league, author, name, file.filename or "upload", data)
    except ArenaError as exc:
        status = next((code for kind, code in STATUS_OF if isinstance(exc, kind)), 500)
        raise _Refusal(status, str(exc)) from None
    server.notify()
    return version.bot
