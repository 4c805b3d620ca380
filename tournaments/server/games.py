"""A game's viewer and its downloads (the public record, a seat's observations for its author),
for the games of this season's ladder, of a past season and of scrimmages alike; and their
addresses, which are the front's: the league names a game by its store (`Where`) and id."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from tournaments.league.api_answers import GameFacts, GameRow
from tournaments.league.errors import Unauthorized
from tournaments.league.views import LADDER, SCRIMMAGES, ListedGame, Where, bot_of
from tournaments.server.front import SIGN_IN_OR_TOKEN, front

SCRIMMAGE_GAMES = "/scrimmage-games"
"""Where the scrimmages' games are shown and downloaded."""


def pages(where: Where) -> str:
    """Where the games of `where` are shown and downloaded (`…/ID`, `…/ID/record.jsonl`,
    `…/ID/seatN.jsonl`)."""
    if where.scrimmages:
        return SCRIMMAGE_GAMES
    return "/games" if where.season is None else f"/seasons/{where.season}/games"


def game_row(game: ListedGame) -> GameRow:
    """A game of a bot's list as the API answers it, with the addresses of its downloads: a
    ladder's game under its season's (its id names another game next season)."""
    at = f"{pages(SCRIMMAGES if game.season is None else Where(season=game.season))}/{game.id}"
    facts = {name: getattr(game, name) for name in GameFacts.__struct_fields__}
    return GameRow(
        **facts,
        record=f"{at}/record.jsonl",
        observations={seat: f"{at}/seat{seat}.jsonl" for seat in game.own},
        season=game.season,
    )


async def game_view(request: Request) -> Response:
    """The game's viewer (the report's, with its scripts: served without the league pages'
    policy), with links back and to the downloads of whom asks (signed in, or by token)."""
    f = front(request)
    await f.spend(request)
    viewer, where = f.viewer(request), _where(request)
    game = f.service.views.game(request.path_params["game"], viewer, where)
    own = f.service.views.access.own_seats(game.names, viewer)
    at = pages(where)
    links = [("leaderboard", "/")]
    for bot in dict.fromkeys(map(bot_of, game.names)):
        links.append((bot, f"/bots/{quote(bot)}"))
    links.append(("record (JSON lines)", f"{at}/{game.id}/record.jsonl"))
    for seat in own:
        links.append((f"seat {seat}'s observations", f"{at}/{game.id}/seat{seat}.jsonl"))
    season = where.season or f.league.season.number
    kind = "scrimmage game" if where.scrimmages else f"season {season}, game"
    title = f"{f.league.file.stem}: {kind} {game.id}"
    return HTMLResponse(await f.service.views.game_page(game, viewer, title, links))


async def game_record(request: Request) -> Response:
    """The game's record to download: the public one, with the reasons of the viewer's own
    seats' faults (signed in, or with a bearer token)."""
    f = front(request)
    await f.spend(request)
    game_id = request.path_params["game"]
    record = f.service.views.record_for(game_id, f.viewer(request), _where(request))
    return _jsonl(record, f"{_file_stem(request)}-{game_id}.jsonl")


async def seat_record(request: Request) -> Response:
    """The game's record with one seat's observations, for that seat's author."""
    f = front(request)
    game_id, seat = request.path_params["game"], request.path_params["seat"]
    viewer = f.viewer(request)
    if viewer is None:
        raise Unauthorized(SIGN_IN_OR_TOKEN)
    await f.spend(request)
    record = await f.service.views.seat_record(game_id, seat, viewer, _where(request))
    return _jsonl(record, f"{_file_stem(request)}-{game_id}-seat{seat}.jsonl")


def _where(request: Request) -> Where:
    """The store of the game an address names: `/games/…` (this season's ladder),
    `/seasons/N/games/…` or `/scrimmage-games/…`."""
    if "season" in request.path_params:
        return Where(season=request.path_params["season"])
    return SCRIMMAGES if request.url.path.startswith(SCRIMMAGE_GAMES) else LADDER


def _file_stem(request: Request) -> str:
    """A download's name: its season's (game ids start again each season), or a
    scrimmage's."""
    where = _where(request)
    if where.scrimmages:
        return "scrimmage"
    return f"season-{where.season or front(request).league.season.number}-game"


def _jsonl(data: bytes, filename: str) -> Response:
    disposition = f'attachment; filename="{filename}"'
    headers = {"Content-Disposition": disposition, "X-Content-Type-Options": "nosniff"}
    return Response(data, media_type="application/x-ndjson", headers=headers)
