"""What only an organiser may do or see (the league service refuses anyone else): freeze the
season for its final, disable or enable a bot or an author, from their pages' buttons or the
API, and the bots that play like copies of each other (/organiser/clones, its CSV and API)."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from tournaments.league.errors import NotFound
from tournaments.league.views import CSV_HEADERS, MIN_SHARED, clusters, rows
from tournaments.output import render_csv
from tournaments.server.fields import whole_number
from tournaments.server.front import FORM_BYTES, front, read_form, session_form


async def freeze_form(request: Request) -> Response:
    """An organiser's button on /league: freeze the season for its final."""
    async with session_form(request) as (viewer, form):
        budget = _budget(form.get("budget"))
    front(request).service.freeze(viewer, budget)
    return RedirectResponse("/", status_code=303)


async def freeze_api(request: Request) -> Response:
    f = front(request)
    actor = front(request).token_author(request)
    async with read_form(request, FORM_BYTES) as form:
        budget = _budget(form.get("budget"))
    season = f.service.freeze(actor, budget)
    return Response(msgspec.json.encode(season), media_type="application/json")


def _budget(value: object) -> int:
    return whole_number(value, "budget (the final's most games)")


_ACTIONS = {"disable": True, "enable": False}


def _action(request: Request) -> bool:
    action = request.path_params["action"]
    if action not in _ACTIONS:
        raise NotFound(f"no action {action!r}: disable or enable")
    return _ACTIONS[action]


async def bot_action_form(request: Request) -> Response:
    """An organiser's disable/enable buttons on a bot's page (for the bot, or its author)."""
    f = front(request)
    async with session_form(request) as (viewer, form):
        what = form.get("what")
    bot, disabled = request.path_params["bot"], _action(request)
    if what == "author":
        view = await f.service.views.bot_view(bot, viewer)
        if view.author is None:
            raise NotFound(f"{bot!r} has no author: it is a house bot")
        f.service.set_author_disabled(viewer, view.author, disabled)
    else:
        f.service.set_bot_disabled(viewer, bot, disabled)
    return RedirectResponse(f"/bots/{bot}", status_code=303)


async def bot_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    bot = request.path_params["bot"]
    f.service.set_bot_disabled(front(request).token_author(request), bot, disabled)
    return JSONResponse({"bot": bot, "disabled": disabled})


async def author_action_api(request: Request) -> Response:
    f, disabled = front(request), _action(request)
    author = f.service.set_author_disabled(
        front(request).token_author(request), request.path_params["author"], disabled
    )
    return JSONResponse({"author": author.name, "disabled": author.disabled})


async def clones_page(request: Request) -> Response:
    """The flagged pairs with their evidence, and every other pair compared below them."""
    f = front(request)
    pairs = f.service.views.clones(f.viewer(request))
    flagged = [pair for pair in pairs if pair.flagged]
    others = [pair for pair in pairs if not pair.flagged]
    joined = clusters((p.a, p.b) for p in flagged if p.verdict.startswith("copy"))
    return f.page(
        "clones.html",
        request,
        flagged=flagged,
        others=others,
        clusters=[members for members in joined if len(members) > 2],
        min_shared=MIN_SHARED,
    )


async def clones_csv(request: Request) -> Response:
    f = front(request)
    pairs = f.service.views.clones(f.viewer(request))
    name = f"{f.league.file.stem}-clones.csv"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(render_csv(CSV_HEADERS, rows(pairs)), media_type="text/csv", headers=headers)


async def clones_api(request: Request) -> Response:
    f = front(request)
    pairs = f.service.views.clones(f.token_author(request))
    return Response(msgspec.json.encode({"pairs": pairs}), media_type="application/json")
