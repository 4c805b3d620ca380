"""A game's page — the report's viewer of its public record — made in the league's kept child
(`kept.Kept`: `python -m tournaments.league.viewers`), below the server's priority; the server
keeps the newest (`game_pages.Viewers`). Replaying a game for its viewer is tens of
milliseconds of Python that in the server's process would hold every other page (in a thread,
through the GIL).
"""

from __future__ import annotations

import sys

import msgspec

from tournaments.league.child import serve
from tournaments.report.public import public_record
from tournaments.report.shell import game_page

VIEWERS_NICE = 2
"""How far below the server's priority the child makes pages: below the server's thread,
above the ladder's bots (as the reads child: `reads.READS_NICE`)."""


class Shown(msgspec.Struct, frozen=True):
    """A game's page for a viewer: its stored `record`, the seats whose fault reasons the
    viewer may read (`own`), the page's title and its links (text, address)."""

    record: bytes
    own: list[int]
    title: str
    links: list[tuple[str, str]]


class Page(msgspec.Struct, frozen=True, tag=True):
    html: str


def made(shown: Shown) -> Page:
    """The page of `shown` (its record made public but for the viewer's own seats)."""
    return Page(game_page(public_record(shown.record, shown.own), shown.title, shown.links))


if __name__ == "__main__":
    sys.exit(serve(made, Shown, VIEWERS_NICE))
