"""The league tests' fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx2 as httpx
import pytest

from tournaments.league.service import LeagueService
from tournaments.server.testing import in_process


@pytest.fixture
async def running(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[LeagueService, httpx.AsyncClient]]:
    """The league of the test module's `LEAGUE` running in the test's trio loop, with an HTTP
    client on its web front."""
    file = tmp_path / "cup.toml"
    file.write_text(request.module.LEAGUE)
    async with in_process(file) as running:
        yield running
