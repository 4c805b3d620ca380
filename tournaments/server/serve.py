"""`arena serve`'s trio program: the web server (Hypercorn's trio worker) beside the running
league (`LeagueService.run`: the leaderboard's refreshes, the checks of new versions and the
ladder), in one nursery; cancelled together (Ctrl-C, SIGTERM), they stop with every game
finished before stored and every version's status kept: started again, the league goes on where
it was (checks left unfinished are queued again). One server per league (`ServeLock`)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as serve_asgi

from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.server.seasons import report_links


async def serve(file: Path, host: str, port: int, on_ready: Callable[[list[str]], None]) -> None:
    """Serve the league of `file` on host:port until cancelled; `on_ready` gets the addresses
    once the server listens (port 0: the one the system chose)."""
    with LeagueService.opened(file, report_links=report_links) as service:
        config = Config()
        config.bind = [f"{host}:{port}"]
        config.accesslog = None  # request lines may carry what an author typed; never tokens
        config.errorlog = "-"
        async with trio.open_nursery() as nursery:
            app = make_app(service)
            service.views.leaderboard()  # its read of every playing version, not a reader's
            settle_heap()
            addresses = await nursery.start(serve_asgi, app, config)
            on_ready(addresses)
            nursery.start_soon(service.run)


def settle_heap() -> None:
    """Move what the server has made before it listens (its modules, templates, the league
    opened) out of the cyclic collector's reach: each full collection would otherwise walk
    them all again, a pause of the server's one thread that every page waits out."""
    gc.collect()
    gc.freeze()
