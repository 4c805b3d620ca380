"""The league's web front: pages for everyone, the JSON API for uploads, the leaderboard and the
organisers' actions — routes and rendering over `tournaments.league.service.LeagueService`.

Starlette, because it is a small ASGI toolkit that runs on trio through anyio (Hypercorn's trio
worker serves it in the same trio program as the ladder) and needs nothing else; Quart-Trio
would bring Flask's request globals along. Pages are Jinja2 templates with autoescaping on:
every bot-controlled string (names, reasons, logs) is text, never markup. Nothing is loaded
from another site, and the league's own pages run no script.

Cookies, sessions, CSRF values, request bodies and the error family's HTTP answers are
`server.front`'s; this module is the endpoints, their routes and what they render.
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated, Any, Literal
from urllib.parse import quote

import msgspec
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Route

from protocol.errors import ArenaError, RequestError
from tournaments.league.answers import BotAnswer, VersionAnswer, VersionRow
from tournaments.league.board import MIN_REFRESH_S, head_to_head
from tournaments.league.files import bot_of
from tournaments.league.final import SETTLED_LOS
from tournaments.league.grades import as_table
from tournaments.league.registry import Author, NotFound, Scrimmage, Version
from tournaments.league.service import (
    LADDER,
    MAX_GAME_ID,
    SCRIMMAGES,
    BotView,
    Forbidden,
    Leaderboard,
    LeagueService,
    Standing,
    Where,
    public_record,
)
from tournaments.output import render_csv
from tournaments.report.page import game_page
from tournaments.server import library
from tournaments.server.front import (
    EXPIRED,
    FORM_BYTES,
    NO_TOKEN,
    SAFE_HEADERS,
    SESSION_COOKIE,
    SIGN_IN,
    SIGN_IN_OR_TOKEN,
    Front,
    Unauthorized,
    api,
    csrf_value,
    from_this_site,
    front,
    html,
    over_tls,
    read_form,
    refusal,
    session_form,
    with_csrf,
)
from tournaments.server.history import svg_line
from tournaments.store.store import GameChoice

WAITING = frozenset({"queued", "building", "checking"})
WAITING_REFRESH_S = 3
"""A bot page reloads itself this often while a version of it waits for its check."""
REFRESH_S = 2 * int(MIN_REFRESH_S)
"""The leaderboard page reloads itself this often (a meta refresh: the pages run no script)."""


def make_app(service: LeagueService) -> Starlette:
    """The ASGI app of the running league `service`."""
    app = Starlette(routes=ROUTES)
    app.state.front = Front(service)
    return app


# ---- pages ----------------------------------------------------------------------------------


@html
async def leaderboard_page(request: Request) -> Response:
    f = front(request)
    board = f.service.leaderboard()
    viewer = f.signed_in(request)
    browser = None if viewer is None else (viewer, csrf_value(request))  # its sign-out form
    final = f.service.final
    shows = (board.generation, browser, f.league.season, final and final.games)
    body = f.leaderboard_shown.get(shows, lambda: _leaderboard(f, request, board).encode())
    return with_csrf(HTMLResponse(body, headers=SAFE_HEADERS), request)


def _leaderboard(f: Front, request: Request, board: Leaderboard) -> str:
    return f.rendered(
        "leaderboard.html",
        request,
        rows=[(standing, _change(standing, board.first)) for standing in board.standings],
        unplaced=board.unplaced,
        games=board.games,
        made=_clock(board.made),
        refresh=REFRESH_S,
        players=f.league.tournament.players,
        waiting=board.waiting,
        season=f.league.season,
        final=f.service.final,
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
    scrimmages = f.service.scrimmages(view.name, viewer)
    waiting = not view.disabled and any(v.status in WAITING for v in view.versions)
    waiting = waiting or any(s.scrimmage.status in ("queued", "playing") for s in scrimmages)
    return with_csrf(
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
            scrimmages=scrimmages,
            scrimmage=_scrimmage_choices(f, view, viewer),
        ),
        request,
    )


def _scrimmage_choices(f: Front, view: BotView, viewer: Author | None) -> dict[str, Any] | None:
    """What the bot's author may ask a scrimmage of: its versions that passed their check and
    the other bots playing (None for anyone else)."""
    found = f.league.registry.bot(view.name)
    if viewer is None or found is None or found.author != viewer.id:
        return None
    others = [*f.league.tournament.participants, *(v.bot for v in f.league.registry.playing())]
    return {
        "versions": [v.number for v in view.versions if v.status in ("playing", "superseded")],
        "opponents": [name for name in dict.fromkeys(others) if name != view.name],
        "most": f.league.settings.scrimmage_games,
        "per_hour": f.league.settings.scrimmages_per_hour,
    }


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


class GamesQuery(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`GET /api/bots/NAME/games?…`: which of the bot's games to list."""

    opponent: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    version: Annotated[int, msgspec.Meta(ge=1)] | None = None
    faulted: bool = False
    result: Literal["win", "draw", "loss"] | None = None
    before: Annotated[int, msgspec.Meta(ge=0, le=MAX_GAME_ID)] | None = None
    count: Annotated[int, msgspec.Meta(ge=1, le=500)] = 50
    season: Annotated[int, msgspec.Meta(ge=1)] | None = None


@api
async def games_api(request: Request) -> Response:
    """A bot's games, filtered, newest first, with their downloads (`GamesAnswer`)."""
    f = front(request)
    try:
        query = msgspec.convert(dict(request.query_params), GamesQuery, strict=False)
    except msgspec.ValidationError as exc:
        raise RequestError(f"the query is wrong: {exc}") from None
    chosen = msgspec.structs.asdict(query)
    version, where = chosen.pop("version"), Where(season=chosen.pop("season"))
    bot = request.path_params["bot"]
    answer = f.service.games_of(bot, f.viewer(request), GameChoice(**chosen), version, where)
    return Response(msgspec.json.encode(answer), media_type="application/json")


@html
async def game_view(request: Request) -> Response:
    """The game's viewer (the report's, with its scripts: served without the league pages'
    policy), with links back and to its downloads."""
    f = front(request)
    viewer, where = f.signed_in(request), _where(request)
    game = f.service.game(request.path_params["game"], where)
    own = f.service.own_seats(game.names, viewer)
    pages = where.pages
    links = [("leaderboard", "/")]
    for bot in dict.fromkeys(map(bot_of, game.names)):
        links.append((bot, f"/bots/{quote(bot)}"))
    links.append(("record (JSON lines)", f"{pages}/{game.id}/record.jsonl"))
    for seat in own:
        links.append((f"seat {seat}'s observations", f"{pages}/{game.id}/seat{seat}.jsonl"))
    kind = "scrimmage game" if where.scrimmages else "game"
    title = f"{f.league.file.stem}: {kind} {game.id}"
    return HTMLResponse(game_page(public_record(game.record, own), title, links))


@api
async def game_record(request: Request) -> Response:
    """The game's record to download: the public one, with the reasons of the viewer's own
    seats' faults (signed in, or with a bearer token)."""
    f = front(request)
    game_id = request.path_params["game"]
    record = f.service.record_for(game_id, f.viewer(request), _where(request))
    return _jsonl(record, f"{_file_stem(request)}-{game_id}.jsonl")


@api
async def seat_record(request: Request) -> Response:
    """The game's record with one seat's observations, for that seat's author."""
    f = front(request)
    game_id, seat = request.path_params["game"], request.path_params["seat"]
    viewer = f.viewer(request)
    if viewer is None:
        raise Unauthorized(SIGN_IN_OR_TOKEN)
    record = await f.service.seat_record(game_id, seat, viewer, _where(request))
    return _jsonl(record, f"{_file_stem(request)}-{game_id}-seat{seat}.jsonl")


def _where(request: Request) -> Where:
    """The store of the game an address names: `/games/…` (this season's ladder),
    `/seasons/N/games/…` or `/scrimmage-games/…`."""
    if "season" in request.path_params:
        return Where(season=request.path_params["season"])
    return SCRIMMAGES if request.url.path.startswith(SCRIMMAGES.pages) else LADDER


def _file_stem(request: Request) -> str:
    where = _where(request)
    return (
        "scrimmage"
        if where.scrimmages
        else f"season-{where.season}-game"
        if where.season
        else "game"
    )


@api
async def scrimmage_api(request: Request) -> Response:
    """`POST /api/bots/NAME/scrimmages` (form: version, opponent, games) by the bot's author."""
    f = front(request)
    author = f.token_author(request)
    async with read_form(request, FORM_BYTES) as form:
        asked = _ask_scrimmage(f, author, request.path_params["bot"], form)
    return Response(msgspec.json.encode(asked), 201, media_type="application/json")


@html
async def scrimmage_form(request: Request) -> Response:
    """The scrimmage form on the author's bot page."""
    bot = request.path_params["bot"]
    async with session_form(request) as (author, form):
        _ask_scrimmage(front(request), author, bot, form)
    return RedirectResponse(f"/bots/{quote(bot)}#scrimmages", status_code=303)


def _ask_scrimmage(f: Front, author: Author, bot: str, form: FormData) -> Scrimmage:
    values = {key: form.get(key) for key in ("version", "games")}
    numbers = {}
    for key, value in values.items():
        if not isinstance(value, str) or not value.strip().isdigit():
            raise RequestError(f"{key}: give a whole number")
        numbers[key] = int(value)
    opponent = form.get("opponent")
    if not isinstance(opponent, str) or not opponent:
        raise RequestError("opponent: name the bot to play against")
    return f.service.ask_scrimmage(author, bot, numbers["version"], opponent, numbers["games"])


def _jsonl(data: bytes, filename: str) -> Response:
    disposition = f'attachment; filename="{filename}"'
    headers = {"Content-Disposition": disposition, "X-Content-Type-Options": "nosniff"}
    return Response(data, media_type="application/x-ndjson", headers=headers)


@html
async def benchmarks_page(request: Request) -> Response:
    """Every author's bot against the staff's benchmark bots, with the grades the viewer may
    see."""
    f = front(request)
    settings = f.league.settings
    return f.page(
        "benchmarks.html",
        request,
        benchmarks=settings.benchmarks,
        grades=settings.grades,
        rows=f.service.grades(f.signed_in(request)),
    )


@api
async def benchmarks_csv(request: Request) -> Response:
    """The benchmarks page as CSV (a grade where the asker may see it), for a gradebook."""
    f = front(request)
    table = as_table(f.service.grades(f.viewer(request)), f.league.settings)
    headers = {"Content-Disposition": f'attachment; filename="{f.league.file.stem}-grades.csv"'}
    return Response(render_csv(table.keys, table.rows), media_type="text/csv", headers=headers)


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
        season=f.league.season,
    )


@html
async def seasons_page(request: Request) -> Response:
    f = front(request)
    return f.page("seasons.html", request, seasons=f.service.seasons(), now=f.league.season)


@html
async def season_page(request: Request) -> Response:
    """A season's final: its standings (so far, while it plays) and their downloads."""
    f = front(request)
    result = f.service.season_result(request.path_params["number"])
    return f.page("season.html", request, result=result, los=SETTLED_LOS)


@api
async def season_api(request: Request) -> Response:
    result = front(request).service.season_result(request.path_params["number"])
    return Response(msgspec.json.encode(result), media_type="application/json")


@api
async def season_csv(request: Request) -> Response:
    """The season's final standings as CSV (`arena table`'s standings of its games)."""
    number = request.path_params["number"]
    final = front(request).service.season_result(number).final
    if final is None:
        raise NotFound(f"season {number} has no final yet")
    keys = list(final.standings[0]) if final.standings else ["rank", "bot"]
    rows = [[row.get(key) for key in keys] for row in final.standings]
    disposition = f'attachment; filename="season-{number}-final.csv"'
    return Response(
        render_csv(keys, rows), media_type="text/csv", headers={"Content-Disposition": disposition}
    )


@api
async def season_report(request: Request) -> Response:
    """A file of the static report of a season's final (its page runs its own scripts: served
    as the game viewer is, without the league pages' policy)."""
    f = front(request)
    number, path = request.path_params["number"], request.path_params["path"] or "index.html"
    f.service.season_result(number)  # NotFound for no such season
    folder = f.league.report_dir(number).resolve()
    target = (folder / path).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        raise NotFound(f"season {number}'s report has no {path!r}")
    return FileResponse(target, headers={"X-Content-Type-Options": "nosniff"})


@html
async def freeze_form(request: Request) -> Response:
    """An organiser's button on /league: freeze the season for its final."""
    async with session_form(request) as (viewer, form):
        budget = _budget(form.get("budget"))
    front(request).service.freeze(viewer, budget)
    return RedirectResponse("/", status_code=303)


@api
async def freeze_api(request: Request) -> Response:
    f = front(request)
    actor = front(request).token_author(request)
    async with read_form(request, FORM_BYTES) as form:
        budget = _budget(form.get("budget"))
    season = f.service.freeze(actor, budget)
    return Response(msgspec.json.encode(season), media_type="application/json")


def _budget(value: object) -> int:
    if not isinstance(value, str) or not value.strip().isdigit():
        raise RequestError("budget: give the final's most games, a whole number")
    return int(value)


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
    return with_csrf(page, request)


async def submit_post(request: Request) -> Response:
    f = front(request)
    base = str(request.base_url).rstrip("/")
    name = ""
    try:
        author = f.signed_in(request)
        if author is None:
            raise Unauthorized(SIGN_IN)
        async with read_form(request, f.upload_bytes) as form:
            name = str(form.get("name", ""))
            if not from_this_site(request, form):
                raise Forbidden(EXPIRED)
            version = await _upload(f, author, form)
    except ArenaError as exc:
        return f.page(
            "submit.html", request, exc.http_status, base_url=base, error=refusal(exc), name=name
        )
    return RedirectResponse(f"/bots/{version.bot}", status_code=303)


@api
async def submit_api(request: Request) -> Response:
    f = front(request)
    author = f.token_author(request)
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
    return with_csrf(front(request).page("signin.html", request), request)


async def signin_post(request: Request) -> Response:
    f = front(request)
    try:
        async with read_form(request, FORM_BYTES) as form:
            same_site, token = from_this_site(request, form), form.get("token", "")
        if not same_site:
            raise Forbidden(EXPIRED)
        author = f.league.registry.author_for(token if isinstance(token, str) else "")
        if author is None:
            raise Unauthorized(NO_TOKEN)
    except ArenaError as exc:
        return f.page("signin.html", request, exc.http_status, error=refusal(exc))
    session = secrets.token_urlsafe(32)
    f.sessions[session] = (author.id, author.sessions)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(
        SESSION_COOKIE, session, httponly=True, samesite="strict", secure=over_tls(request)
    )
    return response


@html
async def signout_post(request: Request) -> Response:
    f = front(request)
    async with read_form(request, FORM_BYTES) as form:
        if not from_this_site(request, form):
            raise Forbidden(EXPIRED)
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
    async with session_form(request) as (viewer, form):
        what = form.get("what")
    bot, disabled = request.path_params["bot"], _action(request)
    if what == "author":
        view = f.service.bot_view(bot, viewer)
        if view.author is None:
            raise NotFound(f"{bot!r} has no author: it is a house bot")
        f.service.set_author_disabled(viewer, view.author, disabled)
    else:
        f.service.set_bot_disabled(viewer, bot, disabled)
    return RedirectResponse(f"/bots/{bot}", status_code=303)


@api
async def bot_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    bot = request.path_params["bot"]
    f.service.set_bot_disabled(front(request).token_author(request), bot, disabled)
    return JSONResponse({"bot": bot, "disabled": disabled})


@api
async def author_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    author = f.service.set_author_disabled(
        front(request).token_author(request), request.path_params["author"], disabled
    )
    return JSONResponse({"author": author.name, "disabled": author.disabled})


async def no_content(request: Request) -> Response:
    return Response(status_code=204)


ROUTES = [
    Route("/", leaderboard_page),
    Route("/league", league_page),
    Route("/benchmarks", benchmarks_page),
    Route("/seasons", seasons_page),
    Route("/seasons/{number:int}", season_page),
    Route("/seasons/{number:int}.csv", season_csv),
    Route("/seasons/{number:int}/report/{path:path}", season_report),
    Route("/api/seasons/{number:int}", season_api),
    Route("/league/freeze", freeze_form, methods=["POST"]),
    Route("/api/league/freeze", freeze_api, methods=["POST"]),
    Route("/benchmarks.csv", benchmarks_csv),
    Route("/docs/{which:str}", document),
    Route("/kits/{name:str}.zip", kit),
    Route("/submit", submit_form, methods=["GET"]),
    Route("/submit", submit_post, methods=["POST"]),
    Route("/bots/{bot}", bot_page),
    *(
        Route(f"{pages}/{{game:int}}{tail}", endpoint)
        for pages in ("/games", "/seasons/{season:int}/games", SCRIMMAGES.pages)
        for tail, endpoint in (
            ("", game_view),
            ("/record.jsonl", game_record),
            ("/seat{seat:int}.jsonl", seat_record),
        )
    ),
    Route("/bots/{bot}/scrimmages", scrimmage_form, methods=["POST"]),
    Route("/api/bots/{bot}/scrimmages", scrimmage_api, methods=["POST"]),
    Route("/api/leaderboard", leaderboard_api),
    Route("/api/bots/{bot}", bot_api),
    Route("/api/bots/{bot}/games", games_api),
    Route("/api/versions", submit_api, methods=["POST"]),
    Route("/favicon.ico", no_content),
    Route("/signin", signin_form, methods=["GET"]),
    Route("/signin", signin_post, methods=["POST"]),
    Route("/signout", signout_post, methods=["POST"]),
    Route("/bots/{bot}/{action}", bot_action_form, methods=["POST"]),
    Route("/api/bots/{bot}/{action}", bot_action_api, methods=["POST"]),
    Route("/api/authors/{author}/{action}", author_action_api, methods=["POST"]),
]


def _change(standing: Standing, first: bool) -> str:
    """The bot's Elo move since the board before ("+12", "−3", "new", or "")."""
    if standing.change is None:
        return "" if first else "new"
    moved = round(standing.change)
    return "" if moved == 0 else f"{moved:+d}".replace("-", "−")


def _clock(made: float) -> str:
    """When a board was made, as the server's local time of day (empty before the first)."""
    return time.strftime("%H:%M:%S", time.localtime(made)) if made else ""
