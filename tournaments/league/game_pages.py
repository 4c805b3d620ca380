"""The league's game pages as the server holds them: made in the viewers child (`viewers`), the
newest kept, and browsers asking for one page at once waiting for the one being made.
"""

from __future__ import annotations

import collections
import hashlib

import trio

from tournaments.league.kept import Kept
from tournaments.league.viewers import Page, Shown, made

KEPT_PAGES = 64
"""Pages kept made: a stored game never changes, and a game in the news is asked for often."""


class Viewers:
    """Game pages made in the child (`Kept.open` while the league runs; outside, in a thread),
    the `KEPT_PAGES` newest kept by what they show."""

    def __init__(self) -> None:
        self.child: Kept[Shown, Page] = Kept(made.__module__, Page, made)
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
