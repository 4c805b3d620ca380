"""What the league page hands its authors: the game's rules page, the protocol and the starter
kits — the project's own `docs/` and `examples/starter-*`, never a copy kept by hand.

A regular install carries them inside the package (`setup.py` copies them into
`tournaments/server/shipped/` at build time); a checkout (an editable install) reads them where
they are.
"""

from __future__ import annotations

import io
import shlex
import tomllib
import zipfile
from functools import cache
from pathlib import Path

from tournaments.league.views import ASKED

SHIPPED = "shipped"
"""The package folder a build copies the documents and kits into."""
DOCUMENTS = ("docs/protocol.md", "docs/games/*.md")
KITS = "examples/starter-*"


def root() -> Path | None:
    """The folder holding `docs/` and `examples/`: the shipped copy, else the checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / SHIPPED, here.parent.parent):
        if (candidate / "docs" / "protocol.md").is_file():
            return candidate
    return None


def _markdown(path: Path) -> str:
    """A Markdown page as HTML (raw HTML in it stays text). markdown-it is loaded by the first
    page rendered, not by the server's start: 4 MiB a league holds for as long as it runs,
    whether its guide is read or not."""
    from markdown_it import MarkdownIt

    return str(MarkdownIt("commonmark", {"html": False}).enable("table").render(path.read_text()))


@cache
def protocol_html() -> str | None:
    found = root()
    return None if found is None else _markdown(found / "docs" / "protocol.md")


@cache
def rules_html(game_id: str) -> str | None:
    """The game's page for bot authors (docs/games/<id>.md), or None."""
    found = root()
    page = None if found is None else found / "docs" / "games" / f"{game_id}.md"
    return None if page is None or not page.is_file() else _markdown(page)


def kits() -> list[str]:
    """The starter kits' names (`starter-node`, ...), each a folder with a `bot.toml`."""
    found = root()
    if found is None:
        return []
    return sorted(path.name for path in found.glob(KITS) if (path / "bot.toml").is_file())


@cache
def kit_needs(name: str) -> frozenset[str]:
    """The runtimes (`runtimes.ASKED`'s names) the kit `name` builds or runs with: those its
    `bot.toml`'s `build` and `command` name as a word (`node`, `g++`, `go`, `java`)."""
    found = root()
    if found is None:
        return frozenset()
    manifest = tomllib.loads((found / "examples" / name / "bot.toml").read_text())
    words = [
        word
        for key in ("build", "command")
        if isinstance(manifest.get(key), str)
        for word in shlex.split(manifest[key])
    ]
    return frozenset(word for word in words if word in ASKED)


@cache
def kit_zip(name: str) -> bytes | None:
    """The kit `name` as a .zip an author can upload as it is (None: no such kit)."""
    found = root()
    if found is None or name not in kits():
        return None
    folder = found / "examples" / name
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, f"{name}/{path.relative_to(folder)}")
    return buffer.getvalue()
