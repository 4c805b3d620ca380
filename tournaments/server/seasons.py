"""The seasons: their list, and each one's final standings as a page, JSON and CSV, with the
static report of its final and, for whom may see them, its grades (`server.leaderboard` has
their pages)."""

from __future__ import annotations

import datetime

import msgspec
from starlette.requests import Request
from starlette.responses import FileResponse, Response

from tournaments.league.errors import NotFound
from tournaments.output import render_csv
from tournaments.server.front import front


def when(stamp: str | None) -> str:
    """A registry's time (ISO 8601, UTC, to the millisecond) as people read it:
    "2026-11-29 10:03 UTC" (empty for None)."""
    if stamp is None:
        return ""
    moment = datetime.datetime.fromisoformat(stamp).astimezone(datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


async def seasons_page(request: Request) -> Response:
    f = front(request)
    seasons = f.service.views.seasons()
    return f.page("seasons.html", request, seasons=seasons, now=f.league.season, when=when)


async def season_page(request: Request) -> Response:
    """A season's final: its standings (so far, while it plays) and their downloads."""
    f = front(request)
    result = f.service.views.season_result(request.path_params["number"])
    benchmarks = f.league.settings.benchmarks
    return f.page("season.html", request, result=result, when=when, benchmarks=benchmarks)


async def season_api(request: Request) -> Response:
    """A season and its final (`SeasonResult`), with the grades the asker may see (their own
    bots'; an organiser's: every finalist's)."""
    f = front(request)
    number = request.path_params["number"]
    result = f.service.views.season_result(number)
    grades = await f.service.views.season_grades(number, f.viewer(request))
    answer = {**msgspec.structs.asdict(result), "grades": grades}
    return Response(msgspec.json.encode(answer), media_type="application/json")


async def season_csv(request: Request) -> Response:
    """The season's final standings as CSV (`arena table`'s standings of its games), with a
    `grade` column for whom may see grades (the league has some and the asker signed in: their
    own bots' filled in; an organiser's: every bot's)."""
    f = front(request)
    number = request.path_params["number"]
    final = f.service.views.season_result(number).final
    if final is None:
        raise NotFound(f"season {number} has no final yet")
    keys = list(final.standings[0]) if final.standings else ["rank", "bot"]
    rows = [[row.get(key) for key in keys] for row in final.standings]
    viewer = f.viewer(request)
    if f.league.settings.grades and viewer is not None:
        seen = await f.service.views.season_grades(number, viewer)
        grade = {row.bot: row.grade or "" for row in seen}
        rows = [[*row, grade.get(str(row[keys.index("bot")]), "")] for row in rows]
        keys.append("grade")
    disposition = f'attachment; filename="season-{number}-final.csv"'
    return Response(
        render_csv(keys, rows), media_type="text/csv", headers={"Content-Disposition": disposition}
    )


async def season_certificate_csv(request: Request) -> Response:
    """The certificate of a season's final as CSV: a row per finalist, strongest first, with
    its place interval and whether it is proven above the next."""
    number = request.path_params["number"]
    final = front(request).service.views.season_result(number).final
    if final is None or final.certificate is None:
        raise NotFound(f"season {number}'s final has no games yet")
    certificate = final.certificate
    keys = ["place", "bot", "elo", "low", "high", "above_next"]
    rows = [
        [place.place, place.bot, place.elo, place.low, place.high, above]
        for place, above in zip(certificate.places, [*certificate.separated, None], strict=True)
    ]
    disposition = f'attachment; filename="season-{number}-certificate.csv"'
    return Response(
        render_csv(keys, rows), media_type="text/csv", headers={"Content-Disposition": disposition}
    )


async def season_report(request: Request) -> Response:
    """A file of the static report of a season's final (its page runs its own scripts: served
    as the game viewer is, without the league pages' policy)."""
    f = front(request)
    number, path = request.path_params["number"], request.path_params["path"] or "index.html"
    f.service.views.season_result(number)  # NotFound for no such season
    folder = f.league.report_dir(number).resolve()
    target = folder if "\0" in path else (folder / path).resolve()  # no file names hold a NUL
    if not target.is_relative_to(folder) or not target.is_file():
        raise NotFound(f"season {number}'s report has no {path!r}")
    return FileResponse(target, headers={"X-Content-Type-Options": "nosniff"})


def report_links(season: int) -> list[tuple[str, str]]:
    """What a season's published report links back to: the leaderboard and the season."""
    return [("the league", "/"), (f"season {season}", f"/seasons/{season}")]
