"""What an author does: signs in and out (a browser session for the forms; scripts send their
token), uploads a bot (the form and the API) and asks for scrimmages of it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

import msgspec
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from protocol.errors import ArenaError, RequestError
from tournaments.league.api_answers import ScrimmageAnswer, VersionAnswer
from tournaments.league.errors import Forbidden, NotFound, Unauthorized
from tournaments.league.views import ScrimmageView
from tournaments.server.fields import whole_number
from tournaments.server.front import (
    EXPIRED,
    FORM_BYTES,
    NO_TOKEN,
    SESSION_COOKIE,
    SIGN_IN,
    SIGN_IN_OR_TOKEN,
    Front,
    from_this_site,
    front,
    over_tls,
    read_form,
    refusal,
    session_form,
    with_csrf,
)
from tournaments.server.games import game_row
from tournaments.server.limits import client_address, retry_headers

if TYPE_CHECKING:
    from tournaments.league.registry import Author, Version

# ---- signing in ---------------------------------------------------------------------------


async def signin_form(request: Request) -> Response:
    return with_csrf(front(request).page("signin.html", request), request)


async def signin_post(request: Request) -> Response:
    """Sign in with a token, within the attempts an address and the sign-ins an author may
    make a minute (429 over them)."""
    f = front(request)
    try:
        f.signins_by_address.take(client_address(request), "too many sign-ins from your address")
        async with read_form(request, FORM_BYTES) as form:
            same_site, token = from_this_site(request, form), form.get("token", "")
        if not same_site:
            raise Forbidden(EXPIRED)
        author = f.service.author_of_token(token if isinstance(token, str) else "")
        if author is None:
            raise Unauthorized(NO_TOKEN)
        f.signins_by_author.take(str(author.id), f"too many sign-ins as {author.name}")
    except ArenaError as exc:
        page = f.page("signin.html", request, exc.http_status, error=refusal(exc))
        page.headers.update(retry_headers(exc))
        return page
    f.sessions.close(request.cookies.get(SESSION_COOKIE, ""))  # a browser has one session
    session = f.sessions.open(author.id, author.sessions)
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(
        SESSION_COOKIE, session, httponly=True, samesite="strict", secure=over_tls(request)
    )
    return response


async def signout_post(request: Request) -> Response:
    f = front(request)
    async with read_form(request, FORM_BYTES) as form:
        if not from_this_site(request, form):
            raise Forbidden(EXPIRED)
    f.sessions.close(request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response


# ---- uploads ------------------------------------------------------------------------------


async def _upload(f: Front, author: Author, form: FormData) -> Version:
    name, file = form.get("name"), form.get("file")
    if not isinstance(name, str) or not name:
        raise RequestError("the form has no bot name (field `name`)")
    if not isinstance(file, UploadFile):
        raise RequestError("the form has no file (field `file`)")
    return await f.service.upload(author, name, file.filename or "upload", file.file)


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


async def submit_api(request: Request) -> Response:
    f = front(request)
    author = f.token_author(request)
    async with read_form(request, f.upload_bytes) as form:
        version = await _upload(f, author, form)
    answer = VersionAnswer(
        bot=version.bot,
        version_id=version.id,
        number=version.number,
        hash=version.hash,
        status=version.status,
        url=f"/bots/{version.bot}",
    )
    return Response(msgspec.json.encode(answer), 201, media_type="application/json")


# ---- scrimmages ---------------------------------------------------------------------------


async def scrimmage_api(request: Request) -> Response:
    """`POST /api/bots/NAME/scrimmages` (form: version, opponent, games) by the bot's author:
    the scrimmage asked for, by its version's number, with where to follow it."""
    f = front(request)
    author = f.token_author(request)
    bot = request.path_params["bot"]
    async with read_form(request, FORM_BYTES) as form:
        asked = _ask_scrimmage(f, author, bot, form)
    answer = scrimmage_answer(bot, asked)
    return Response(msgspec.json.encode(answer), 201, media_type="application/json")


async def scrimmage_status_api(request: Request) -> Response:
    """`GET /api/bots/NAME/scrimmages/ID`: the scrimmage now, with its games so far, for the
    bot's author and the organisers (signed in, or by token)."""
    f = front(request)
    viewer = f.viewer(request)
    if viewer is None:
        raise Unauthorized(SIGN_IN_OR_TOKEN)
    await f.spend(request)
    bot, wanted = request.path_params["bot"], request.path_params["scrimmage"]
    found = await f.service.views.scrimmages(bot, viewer, only=wanted)
    if not found:
        raise NotFound(f"{bot} has no scrimmage {wanted} that you may see")
    answer = scrimmage_answer(bot, found[0])
    return Response(msgspec.json.encode(answer), media_type="application/json")


def scrimmage_answer(bot: str, view: ScrimmageView) -> ScrimmageAnswer:
    """A scrimmage as the API answers it: its version by number, its address and its games."""
    scrimmage = view.scrimmage
    return ScrimmageAnswer(
        id=scrimmage.id,
        bot=bot,
        number=view.number,
        opponent=scrimmage.opponent,
        games=scrimmage.games,
        status=scrimmage.status,
        reason=scrimmage.reason,
        url=f"/api/bots/{quote(bot)}/scrimmages/{scrimmage.id}",
        page=f"/bots/{quote(bot)}#scrimmages",
        played=[game_row(game) for game in view.games],
    )


async def scrimmage_form(request: Request) -> Response:
    """The scrimmage form on the author's bot page."""
    bot = request.path_params["bot"]
    async with session_form(request) as (author, form):
        _ask_scrimmage(front(request), author, bot, form)
    return RedirectResponse(f"/bots/{quote(bot)}#scrimmages", status_code=303)


def _ask_scrimmage(f: Front, author: Author, bot: str, form: FormData) -> ScrimmageView:
    numbers = {key: whole_number(form.get(key), key) for key in ("version", "games")}
    opponent = form.get("opponent")
    if not isinstance(opponent, str) or not opponent:
        raise RequestError("opponent: name the bot to play against")
    return f.service.ask_scrimmage(author, bot, numbers["version"], opponent, numbers["games"])
