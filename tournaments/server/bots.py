"""A bot's page (its versions, rating, games, head to head and scrimmages), its JSON, and the
API listing its games: what each viewer may see of it is `ReadModels.bot_view`'s."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from protocol.errors import RequestError
from tournaments.league.api_answers import BotAnswer, GamesAnswer, VersionRow
from tournaments.league.errors import NotFound
from tournaments.league.views import (
    MAX_GAME_ID,
    MAX_NAME,
    WAITING,
    BotView,
    Where,
    bot_of,
    numbers_by_label,
)
from tournaments.server.fields import whole_number
from tournaments.server.front import (
    SAFE_HEADERS,
    Front,
    front,
    was_signed_out,
    with_csrf,
)
from tournaments.server.games import game_row
from tournaments.server.history import svg_line
from tournaments.server.seasons import when
from tournaments.store.store import GameChoice

if TYPE_CHECKING:
    from tournaments.league.registry import Author

LISTED_PER_READ = 100
"""A list of a bot's games costs one read of the client's budget, and one more each this many
games it asks for."""
WAITING_REFRESH_S = 3
"""A bot page reloads itself this often while a version of it waits for its check."""
OPPONENTS_SHOWN = 50
"""A bot page's head to head shows this many opponents (by their place), and links to the
next ones."""


async def bot_page(request: Request) -> Response:
    f = front(request)
    await f.spend(request)
    viewer = f.viewer(request)
    before = request.query_params.get("before")
    older = None if before is None else whole_number(before, "before", least=0, most=MAX_GAME_ID)
    start = request.query_params.get("opponents")
    first = 0 if start is None else whole_number(start, "opponents", least=0)
    opponents = range(first, first + OPPONENTS_SHOWN)
    made = functools.partial(_bot_page, f, request, viewer, older, opponents)
    if viewer is None and not was_signed_out(request, viewer):  # as every such browser sees it
        key = (request.path_params["bot"], older, first)
        status, body = await f.public_bot_pages.get(key, made)
    else:
        status, body = await made()
    return with_csrf(HTMLResponse(body, status, headers=SAFE_HEADERS), request)


async def _bot_page(
    f: Front, request: Request, viewer: Author | None, older: int | None, opponents: range
) -> tuple[int, bytes]:
    """The bot page's status and body for `viewer`."""
    try:
        view = await f.service.views.bot_view(
            request.path_params["bot"], viewer, before=older, opponents=opponents
        )
    except NotFound:
        missing = f.rendered("bot.html", request, bot=request.path_params["bot"], missing=True)
        return 404, missing.encode()
    history = view.history
    board = f.service.views.leaderboard()  # its bots ranked among themselves, older versions apart
    standing = next((s.row for s in board.standings if s.row["bot"] == view.name), None)
    scrimmages = await f.service.views.scrimmages(view.name, viewer)
    waiting = not view.disabled and any(v.status in WAITING for v in view.versions)
    waiting = waiting or any(s.scrimmage.status in ("queued", "playing") for s in scrimmages)
    return 200, f.rendered(
        "bot.html",
        request,
        bot=view.name,
        view=view,
        versions=view.versions,
        numbers={v.id: v.number for v in view.versions},
        season=f.league.season.number,
        when=when,
        named=_named(view),
        history=Markup(svg_line(history.points, history.games)) if history else "",
        games=_games(view),
        older=older,
        organiser=viewer is not None and viewer.organiser,
        author_disabled=view.author_disabled,
        standing=standing,
        ranked=len(board.standings),
        head_to_head=[
            {**row, "opponent_bot": bot_of(row["opponent"])} for row in view.opponents.rows
        ],
        opponents=opponents,
        more_opponents=view.opponents.more,
        players=f.league.tournament.players,
        refresh=WAITING_REFRESH_S if waiting else None,
        scrimmages=scrimmages,
        scrimmage=f.service.views.scrimmage_choices(view, viewer),
    ).encode()


def _named(view: BotView) -> Callable[[str], str]:
    """A store label as the bot's page shows it: an older version of the bot by its number
    ("mine v1", not "mine@0a1b2c3")."""
    older = numbers_by_label(view.versions)
    return lambda label: f"{view.name} v{older[label]}" if label in older else label


def _games(view: BotView) -> list[dict[str, Any]]:
    """The bot's recent games; a fault's reason (it quotes the bot's stderr) only for the
    bot's own seats, and only to whom may see its logs."""
    named = _named(view)

    def own(label: str) -> bool:
        return bot_of(label) == view.name

    return [
        {
            "id": game_id,
            "seats": ", ".join(map(named, played.bots)),
            "scores": " ".join(map(str, played.played.scores)),
            "result": ", ".join(
                f"{_ordinal(played.played.ranks[seat])} of {len(played.bots)}"
                for seat, label in enumerate(played.bots)
                if own(label)
            ),
            "faults": [
                {
                    "decision": f.decision,
                    "text": f"{named(played.bots[f.seat])} {f.kind}",
                    "reason": f.reason if view.private and own(played.bots[f.seat]) else "",
                }
                for f in played.played.faults
            ],
        }
        for game_id, played in view.games
    ]


def _ordinal(rank: int) -> str:
    return f"{rank}{'st' if rank == 1 else 'nd' if rank == 2 else 'rd' if rank == 3 else 'th'}"


async def bot_api(request: Request) -> Response:
    f = front(request)
    view = await f.service.views.bot_view(request.path_params["bot"], f.bearer(request), games=0)
    logs = dict(view.private.version_logs) if view.private else {}
    versions = [
        VersionRow(v.id, v.number, v.hash, v.status, v.reason, logs.get(v.id) if logs else None)
        for v in view.versions
    ]
    season = f.league.season
    frozen = season.number if season.frozen is not None else None
    answer = BotAnswer(view.name, view.author, view.disabled, versions, frozen)
    return Response(msgspec.json.encode(answer), media_type="application/json")


class GamesQuery(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`GET /api/bots/NAME/games?…`: which of the bot's games to list."""

    opponent: Annotated[str, msgspec.Meta(max_length=MAX_NAME)] | None = None
    version: Annotated[int, msgspec.Meta(ge=1)] | None = None
    faulted: bool = False
    result: Literal["win", "draw", "loss"] | None = None
    before: Annotated[int, msgspec.Meta(ge=0, le=MAX_GAME_ID)] | None = None
    count: Annotated[int, msgspec.Meta(ge=1, le=500)] = 50
    season: Annotated[int, msgspec.Meta(ge=1)] | None = None


async def games_api(request: Request) -> Response:
    """A bot's games, filtered, newest first, with their downloads (`GamesAnswer`)."""
    f = front(request)
    try:
        query = msgspec.convert(dict(request.query_params), GamesQuery, strict=False)
    except msgspec.ValidationError as exc:
        raise RequestError(f"the query is wrong: {exc}") from None
    await f.spend(request, 1 + query.count // LISTED_PER_READ)
    chosen = msgspec.structs.asdict(query)
    version, where = chosen.pop("version"), Where(season=chosen.pop("season"))
    bot = request.path_params["bot"]
    listed = await f.service.views.games_of(
        bot, f.viewer(request), GameChoice(**chosen), version, where
    )
    answer = GamesAnswer(listed.bot, [game_row(game) for game in listed.games], listed.more)
    return Response(msgspec.json.encode(answer), media_type="application/json")
