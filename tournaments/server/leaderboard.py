"""The leaderboard and the benchmarks: the standings of this season's ladder, as pages that
reload themselves, as JSON, and against the staff's benchmark bots (as CSV for a gradebook)."""

from __future__ import annotations

import time

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from tournaments.league.errors import NotFound
from tournaments.league.views import MIN_REFRESH_S, Leaderboard, Standing, as_table
from tournaments.output import render_csv
from tournaments.server.fields import whole_number
from tournaments.server.front import (
    SAFE_HEADERS,
    Front,
    Kept,
    csrf_value,
    front,
    was_signed_out,
    with_csrf,
)
from tournaments.server.seasons import when

REFRESH_S = 2 * int(MIN_REFRESH_S)
"""The leaderboard page reloads itself this often (a meta refresh: the pages run no script)."""
ROWS = 100
"""The standings a page of the leaderboard shows (its HTML and its JSON): a league of a
thousand bots is ten pages, and the first, which every browser polls, costs what it shows."""


def _page(request: Request, rows: int) -> int:
    """The page of the leaderboard the request asks for (`?page=N`, from 1): `NotFound` past
    the last (a board of no rows has one page, empty)."""
    asked = request.query_params.get("page")
    page = 1 if asked is None else whole_number(asked, "page")
    pages = _pages(rows)
    if page > pages:
        raise NotFound(f"the leaderboard has {pages} page{'s' if pages > 1 else ''}")
    return page


def _pages(rows: int) -> int:
    return max(1, -(-rows // ROWS))


async def leaderboard_page(request: Request) -> Response:
    f = front(request)
    board = f.service.views.leaderboard()
    page = _page(request, len(board.standings))
    viewer = f.signed_in(request)
    # What the page shows of its browser: its sign-out form, or the note that it was signed out.
    browser = was_signed_out(request, viewer) if viewer is None else (viewer, csrf_value(request))
    final = f.service.final
    shows = (board.number, browser, f.league.season, final and final.games)
    kept = f.leaderboard_shown.setdefault(page, Kept())
    body = kept.get(shows, lambda: _leaderboard(f, request, board, page).encode())
    return with_csrf(HTMLResponse(body, headers=SAFE_HEADERS), request)


def _leaderboard(f: Front, request: Request, board: Leaderboard, page: int) -> str:
    first = (page - 1) * ROWS
    shown = board.standings[first : first + ROWS]
    return f.rendered(
        "leaderboard.html",
        request,
        rows=[(standing, _change(standing, board.first)) for standing in shown],
        first=first,
        page=page,
        pages=_pages(len(board.standings)),
        unplaced=board.unplaced,
        games=board.games,
        made=_clock(board.made),
        refresh=REFRESH_S,
        players=f.league.tournament.players,
        waiting=board.waiting,
        earlier=board.earlier,
        apart=board.apart,
        season=f.league.season,
        final=f.service.final,
    )


def _change(standing: Standing, first: bool) -> str:
    """The bot's Elo move since the board before ("+12", "−3", "new", or "")."""
    if standing.change is None:
        return "" if first else "new"
    moved = round(standing.change)
    return "" if moved == 0 else f"{moved:+d}".replace("-", "−")


def _clock(made: float) -> str:
    """When a board was made, as the server's local time of day (empty before the first)."""
    return time.strftime("%H:%M:%S", time.localtime(made)) if made else ""


async def leaderboard_api(request: Request) -> Response:
    """The standings as JSON, `ROWS` a page (`?page=N`; `pages` says how many)."""
    f = front(request)
    generation, shown = f.service.views.ladder_board()
    page = _page(request, len(shown.standings))

    def encoded() -> bytes:
        first = (page - 1) * ROWS
        return msgspec.json.encode(
            {
                "games": shown.games,
                "made": shown.made,
                "standings": shown.standings[first : first + ROWS],
                "page": page,
                "pages": _pages(len(shown.standings)),
            }
        )

    body = f.leaderboard_sent.setdefault(page, Kept()).get(generation, encoded)
    return Response(body, media_type="application/json")


def _season(f: Front, request: Request) -> int:
    """The season whose grades a request asks for: `/seasons/N/…`, or `?season=N`, or this
    season (a season there is not: `NotFound`, from `LeagueService.season_grades`)."""
    if "number" in request.path_params:
        return int(request.path_params["number"])
    asked = request.query_params.get("season")
    return f.league.season.number if asked is None else whole_number(asked, "season")


async def benchmarks_page(request: Request) -> Response:
    """Every author's bot against the staff's benchmark bots, with the grades the viewer may
    see: this season's, or an ended season's as it was frozen."""
    f = front(request)
    settings = f.league.settings
    season = _season(f, request)
    viewer = f.signed_in(request)
    rows = await f.service.views.season_grades(season, viewer)
    return f.page(
        "benchmarks.html",
        request,
        benchmarks=settings.benchmarks,
        grades=settings.grades,
        rows=rows,
        season=f.service.views.season(season),
        when=when,
    )


async def benchmarks_csv(request: Request) -> Response:
    """The benchmarks page as CSV (a grade where the asker may see it), for a gradebook."""
    f = front(request)
    season = _season(f, request)
    rows = await f.service.views.season_grades(season, f.viewer(request))
    table = as_table(rows, f.league.settings)
    name = f"{f.league.file.stem}-season-{season}-grades.csv"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(render_csv(table.keys, table.rows), media_type="text/csv", headers=headers)


async def benchmarks_api(request: Request) -> Response:
    """A season's benchmarks, grade thresholds and the grades the asker may see, as JSON."""
    f = front(request)
    season = _season(f, request)
    rows = await f.service.views.season_grades(season, f.viewer(request))
    settings = f.league.settings
    answer = {
        "season": season,
        "benchmarks": settings.benchmarks,
        "thresholds": settings.grades,
        "grades": rows,
    }
    return Response(msgspec.json.encode(answer), media_type="application/json")
