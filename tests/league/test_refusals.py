"""The app maps every endpoint's refusals once: an endpoint added without any wrapper answers
the error family with its status — JSON under /api/, the error page elsewhere — never a 500."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx2 as httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from protocol.errors import ArenaError
from tournaments.league.errors import Forbidden, NotFound, RateLimited, Unauthorized
from tournaments.league.files import League
from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.server.limits import Throttled
from tournaments.store.sqlitefile import StoreError

LEAGUE = 'game = "azul"\nplayers = 2\n[league]\n'
REFUSALS: dict[str, ArenaError] = {
    "unauthorized": Unauthorized("sign in first"),
    "forbidden": Forbidden("not your bot"),
    "missing": NotFound("no such thing"),
    "limited": RateLimited("too many of these"),
    "throttled": Throttled("too many pages", 2.5),
    "damaged": StoreError("/srv/league/cup.store is damaged"),
}


async def _refuse(request: Request) -> Response:
    raise REFUSALS[request.path_params["kind"]]


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE)
    with League(file) as league:
        app = make_app(LeagueService(league))
        app.router.routes += [Route("/api/new/{kind}", _refuse), Route("/new/{kind}", _refuse)]
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://league") as client:
            yield client


@pytest.mark.parametrize("kind", sorted(REFUSALS))
async def test_a_route_added_without_a_wrapper_answers_a_refusal_with_its_status(
    client: httpx.AsyncClient, kind: str
) -> None:
    error = REFUSALS[kind]
    told = str(error) if error.http_status < 500 else "could not answer this now"
    answer = await client.get(f"/api/new/{kind}")
    assert answer.status_code == error.http_status
    assert answer.headers["content-type"] == "application/json"
    assert told in answer.json()["error"]
    page = await client.get(f"/new/{kind}")
    assert page.status_code == error.http_status
    assert page.headers["content-type"].startswith("text/html")
    assert told in page.text and "/srv/league" not in page.text + answer.text
    retry = "3" if kind == "throttled" else None
    assert answer.headers.get("retry-after") == page.headers.get("retry-after") == retry
