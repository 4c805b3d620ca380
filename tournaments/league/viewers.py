"""A game's page — the report's viewer of its public record — made in the league's kept child
(`child.Kept`: `python -m tournaments.league.viewers`), below the server's priority, and the
newest pages kept (`Viewers`): replaying a game for its viewer is tens of milliseconds of Python
that in the server's process would hold every other page (in a thread, through the GIL).
"""

from __future__ import annotations

import collections
import hashlib
import sys

import msgspec
import trio

from tournaments.league.child import Kept, serve
from tournaments.report.public import public_record
from tournaments.report.shell import game_page

VIEWERS_NICE = 2
"""How far below the server's priority the child makes pages: below the server's thread,
above the ladder's bots (as the reads child: `reads.READS_NICE`)."""
KEPT_PAGES = 64
"""Pages kept made: a stored game never changes, and a game in the news is asked for often."""


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


class Viewers:
    """Game pages made in the child (`Kept.open` while the league runs; outside, in a thread),
    the `KEPT_PAGES` newest kept by what they show."""

    def __init__(self) -> None:
        self.child: Kept[Shown, Page] = Kept(__name__, Page, made)
        self._kept: collections.OrderedDict[tuple[object, ...], str] = collections.OrderedDict()
        self._making: dict[tuple[object, ...], trio.Lock] = {}

    async def page(self, shown: Shown) -> str:
        """The page of `shown` (kept by its record's digest: a store's game ids begin again
        with each season); browsers asking for one page at once wait for the one being made,
        not each in the child's queue behind the others."""
        digest = hashlib.blake2b(shown.record, digest_size=16).digest()
        kept = (digest, tuple(shown.own), shown.title, tuple(shown.links))
        making = self._making.setdefault(kept, trio.Lock())
        try:
            async with making:
                html = self._kept.get(kept)
                if html is None:
                    html = (await self.child.ask(shown)).html
                    self._kept[kept] = html
                    if len(self._kept) > KEPT_PAGES:
                        self._kept.popitem(last=False)
        finally:
            if not making.locked() and not making.statistics().tasks_waiting:
                self._making.pop(kept, None)
        self._kept.move_to_end(kept)
        return html


if __name__ == "__main__":
    sys.exit(serve(made, Shown, VIEWERS_NICE))
