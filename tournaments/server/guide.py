"""What the league tells an author before they write a bot: the /league page (its game, limits,
runtimes, how to submit), the rules and protocol pages and the starter kits (`server.library`)."""

from __future__ import annotations

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from referee import CPU_MODE_WALL_CAP, CPU_MODE_WALL_FACTOR
from tournaments.league.errors import NotFound
from tournaments.server import library
from tournaments.server.front import front


async def league_page(request: Request) -> Response:
    f = front(request)
    t, s = f.league.tournament, f.league.settings
    found = await f.service.runtimes()
    here = {runtime.name for runtime in found}
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
        time_mode=t.time_mode,
        idle_ms=t.time.move_ms * CPU_MODE_WALL_FACTOR,
        cap_ms=t.time.move_ms * CPU_MODE_WALL_CAP,
        idle_factor=CPU_MODE_WALL_FACTOR,
        cap_factor=CPU_MODE_WALL_CAP,
        upload_mb=s.upload_mb,
        unpacked_mb=s.unpacked_mb,
        files=s.files,
        per_hour=s.uploads_per_hour,
        limits=t.limits,
        build_s=s.build_s,
        log_kb=s.log_kb,
        runtimes=found,
        kits=[kit for kit in library.kits() if library.kit_needs(kit) <= here],
        has_rules=library.rules_html(f.game.id) is not None,
        has_protocol=library.protocol_html() is not None,
        base_url=str(request.base_url).rstrip("/"),
        season=f.league.season,
    )


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
