"""`arena serve`'s trio program: the web server (Hypercorn's trio worker), the leaderboard's
refreshes, the checks of new versions and the ladder, side by side in one nursery; cancelled
together (Ctrl-C, SIGTERM), they stop with every game finished before stored and every
version's status kept: started again, the league goes on where it was (checks left unfinished
are queued again)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio
from hypercorn.config import Config
from hypercorn.trio import serve as serve_asgi

from tournaments.league.ladder import run_checks, run_ladder
from tournaments.league.league import League
from tournaments.server.app import LeagueServer, make_app


async def serve(file: Path, host: str, port: int, on_ready: Callable[[list[str]], None]) -> None:
    """Serve the league of `file` on host:port until cancelled; `on_ready` gets the addresses
    once the server listens (port 0: the one the system chose)."""
    with League(file) as league:
        server = LeagueServer(league)
        config = Config()
        config.bind = [f"{host}:{port}"]
        config.accesslog = None  # request lines may carry what an author typed; never tokens
        config.errorlog = "-"
        async with trio.open_nursery() as nursery:
            addresses = await nursery.start(serve_asgi, make_app(server), config)
            on_ready(addresses)
            nursery.start_soon(server.board.run)
            nursery.start_soon(run_checks, league, server.notify, server.changes)
            nursery.start_soon(run_ladder, league, server, server.changes)
