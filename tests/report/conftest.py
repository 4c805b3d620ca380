"""The report tests' stores: one small tournament per registered game and variant."""

from __future__ import annotations

from pathlib import Path

import pytest
from reporthelp import TOURNAMENTS, make_store


@pytest.fixture(scope="session")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("stores")
    return {name: make_store(directory, name) for name in TOURNAMENTS}
