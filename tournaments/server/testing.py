"""An in-process league for tests: its service and web front in the caller's trio run, with an
HTTP client on the front (httpx2, installed by `pip install 'tile-arena[test]'`).

    async with in_process(Path("cup.toml")) as (service, client):
        await client.post("/api/bots", ...)  # as an author would, with their token
        newest = lambda: service.league.registry.versions("mine")[-1]
        await until(lambda: newest().status == "playing", "its check")
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from tournaments.league.service import LeagueService
from tournaments.server.app import make_app
from tournaments.server.seasons import report_links

if TYPE_CHECKING:
    import httpx2


@contextlib.asynccontextmanager
async def in_process(file: Path) -> AsyncIterator[tuple[LeagueService, httpx2.AsyncClient]]:
    """The league of `file` running in this trio run (its checks, ladder, finals and
    scrimmages), with an HTTP client on its web front; all of it stops when the block ends."""
    try:
        import httpx2
    except ImportError as missing:
        raise ImportError(
            "the in-process league's client needs httpx2: pip install 'tile-arena[test]'"
        ) from missing
    with LeagueService.opened(file, report_links=report_links) as service:
        transport = httpx2.ASGITransport(app=make_app(service))
        async with (
            httpx2.AsyncClient(transport=transport, base_url="http://league") as client,
            trio.open_nursery() as nursery,
        ):
            nursery.start_soon(service.run)
            yield service, client
            nursery.cancel_scope.cancel()


async def until(condition: Callable[[], bool], what: str, timeout: float = 150) -> None:
    """Wait (in trio) for `condition`, failing with `what` after `timeout` seconds."""
    with trio.move_on_after(timeout) as waited:
        while not condition():
            await trio.sleep(0.1)
    if waited.cancelled_caught:
        raise TimeoutError(f"still waiting for {what} after {timeout:g} s")
