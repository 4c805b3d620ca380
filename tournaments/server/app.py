"""The league's web front: pages for everyone, the JSON API for uploads, the leaderboard and the
organisers' actions over `tournaments.league.service.LeagueService`. This module is its app and
its routes; the endpoints and what they render are in the modules of their area beside it.

Starlette, because it is a small ASGI toolkit that runs on trio through anyio (Hypercorn's trio
worker serves it in the same trio program as the ladder) and needs nothing else; Quart-Trio
would bring Flask's request globals along. Pages are Jinja2 templates with autoescaping on:
every bot-controlled string (names, reasons, logs) is text, never markup. Nothing is loaded
from another site, and the league's own pages run no script.

The areas: `leaderboard` (and the benchmarks), `bots`, `games`, `seasons`, `guide` (the /league
page, the documents and the kits), `authors` (signing in, uploads, scrimmages) and
`organisers`. Cookies, sessions, CSRF values, request bodies and the error family's HTTP answers
are `server.front`'s: the app maps every endpoint's refusals once (`answer_refusal`), so an
endpoint raises them and never catches them to answer.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from protocol.errors import ArenaError
from tournaments.league.service import LeagueService
from tournaments.server.authors import (
    scrimmage_api,
    scrimmage_form,
    scrimmage_status_api,
    signin_form,
    signin_post,
    signout_post,
    submit_api,
    submit_form,
    submit_post,
)
from tournaments.server.bots import bot_api, bot_page, games_api
from tournaments.server.front import Front, answer_refusal
from tournaments.server.games import SCRIMMAGE_GAMES, game_record, game_view, seat_record
from tournaments.server.guide import document, kit, league_page
from tournaments.server.leaderboard import (
    benchmarks_api,
    benchmarks_csv,
    benchmarks_page,
    leaderboard_api,
    leaderboard_page,
)
from tournaments.server.organisers import (
    author_action_api,
    bot_action_api,
    bot_action_form,
    clones_api,
    clones_csv,
    clones_page,
    freeze_api,
    freeze_form,
)
from tournaments.server.seasons import (
    season_api,
    season_certificate_csv,
    season_csv,
    season_page,
    season_report,
    seasons_page,
)


def make_app(service: LeagueService) -> Starlette:
    """The ASGI app of the running league `service`."""
    app = Starlette(routes=ROUTES, exception_handlers={ArenaError: answer_refusal})
    app.state.front = Front(service)
    return app


async def no_content(request: Request) -> Response:
    return Response(status_code=204)


ROUTES = [
    Route("/", leaderboard_page),
    Route("/league", league_page),
    Route("/benchmarks", benchmarks_page),
    Route("/seasons", seasons_page),
    Route("/seasons/{number:int}", season_page),
    Route("/seasons/{number:int}.csv", season_csv),
    Route("/seasons/{number:int}/certificate.csv", season_certificate_csv),
    Route("/seasons/{number:int}/report/{path:path}", season_report),
    Route("/api/seasons/{number:int}", season_api),
    Route("/seasons/{number:int}/benchmarks", benchmarks_page),
    Route("/seasons/{number:int}/benchmarks.csv", benchmarks_csv),
    Route("/api/seasons/{number:int}/benchmarks", benchmarks_api),
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
        for pages in ("/games", "/seasons/{season:int}/games", SCRIMMAGE_GAMES)
        for tail, endpoint in (
            ("", game_view),
            ("/record.jsonl", game_record),
            ("/seat{seat:int}.jsonl", seat_record),
        )
    ),
    Route("/bots/{bot}/scrimmages", scrimmage_form, methods=["POST"]),
    Route("/api/bots/{bot}/scrimmages", scrimmage_api, methods=["POST"]),
    Route("/api/bots/{bot}/scrimmages/{scrimmage:int}", scrimmage_status_api),
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
    Route("/organiser/clones", clones_page),
    Route("/organiser/clones.csv", clones_csv),
    Route("/api/organiser/clones", clones_api),
]
