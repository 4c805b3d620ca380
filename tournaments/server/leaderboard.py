"""The leaderboard and the benchmarks: the standings of this season's ladder, as pages that
reload themselves, as JSON, and against the staff's benchmark bots (as CSV for a gradebook)."""

from __future__ import annotations

import time

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from tournaments.league.board import MIN_REFRESH_S
from tournaments.league.grades import as_table
from tournaments.league.service import Leaderboard, Standing
from tournaments.output import render_csv
from tournaments.server.front import (
    SAFE_HEADERS,
    Front,
    api,
    csrf_value,
    front,
    html,
    was_signed_out,
    with_csrf,
)

REFRESH_S = 2 * int(MIN_REFRESH_S)
"""The leaderboard page reloads itself this often (a meta refresh: the pages run no script)."""


@html
async def leaderboard_page(request: Request) -> Response:
    f = front(request)
    board = f.service.leaderboard()
    viewer = f.signed_in(request)
    # What the page shows of its browser: its sign-out form, or the note that it was signed out.
    browser = was_signed_out(request, viewer) if viewer is None else (viewer, csrf_value(request))
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


def _change(standing: Standing, first: bool) -> str:
    """The bot's Elo move since the board before ("+12", "−3", "new", or "")."""
    if standing.change is None:
        return "" if first else "new"
    moved = round(standing.change)
    return "" if moved == 0 else f"{moved:+d}".replace("-", "−")


def _clock(made: float) -> str:
    """When a board was made, as the server's local time of day (empty before the first)."""
    return time.strftime("%H:%M:%S", time.localtime(made)) if made else ""


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
