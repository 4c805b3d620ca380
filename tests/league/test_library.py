"""What the league page hands its authors: every game's rules page, the protocol and the starter
kits, from a checkout (a regular install's wheel carries them too: tests/games/test_install.py)."""

from __future__ import annotations

import io
import tomllib
import zipfile

import pytest

from referee.games import GAME_IDS
from tournaments.server import library


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_has_its_rules_page(game_id: str) -> None:
    page = library.rules_html(game_id)
    assert page is not None and f"<code>{game_id}</code>" in page
    assert "<h2>" in page and "<table>" in page  # its headings and tables are HTML


def test_the_protocol_page_renders_and_unknown_games_have_none() -> None:
    page = library.protocol_html()
    assert page is not None and "The bot protocol" in page and "<h3>" in page
    assert library.rules_html("no-such-game") is None


def test_every_kit_is_an_uploadable_zip_with_its_manifest() -> None:
    assert library.kits() == ["starter-cpp", "starter-go", "starter-java", "starter-node"]
    for kit in library.kits():
        data = library.kit_zip(kit)
        assert data is not None
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            manifest = tomllib.loads(archive.read(f"{kit}/bot.toml").decode())
        assert all(name.startswith(f"{kit}/") for name in names)
        assert manifest["command"]  # what the league runs after the optional build
        assert len(names) >= 3  # the program, its README and its manifest
    assert library.kit_zip("../docs") is None and library.kit_zip("starter-none") is None
