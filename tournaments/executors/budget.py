"""One budget of games at once for the executors of one process: a league's ladder (or final)
and its scrimmages each run an executor of their own, and together they must not play more
than `concurrency` units at once on this machine — its cores, which the pages need too.

Each unit is played holding one slot of the budget (`fanout`: the slot is taken before the
unit is, and let go when the worker asks for its next one). A freed slot goes to the first
class's waiters (`Share(first=True)`: the scrimmages, whose authors wait for them) before the
rest's (the ladder, which never ends); and when one of the first class must wait while the
rest hold slots, `on_wanted` is called: the league ends the ladder's units in hand after their
game in play, so that a scrimmage waits for a game, not for a unit of a thousand.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import trio


class Budget:
    """`slots` units at once, shared by whoever takes a `share` of it."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.on_wanted: Callable[[], None] = lambda: None
        """Called when a first-class taker waits while the rest hold slots."""
        self._free = slots
        self._held = {True: 0, False: 0}
        """Slots held by each class (first: True)."""
        self._waiting: dict[bool, deque[trio.Event]] = {True: deque(), False: deque()}

    def share(self, first: bool) -> Share:
        return Share(self, first)

    async def acquire(self, first: bool) -> None:
        """Take a slot, waiting behind the first class (and, of the rest, behind the rest);
        cancelled while waiting, it takes none."""
        if self._free and not self._waiting[True] and (first or not self._waiting[False]):
            self._free -= 1
            self._held[first] += 1
            return
        granted = trio.Event()
        self._waiting[first].append(granted)
        if first and self._held[False]:
            self.on_wanted()
        try:
            await granted.wait()
        except BaseException:
            if granted.is_set():  # handed over as it was cancelled: hand it on
                self.release(first)
            else:
                self._waiting[first].remove(granted)
            raise

    def release(self, first: bool) -> None:
        """Let a slot go: to the longest waiter of the first class, else of the rest."""
        self._held[first] -= 1
        for kind in (True, False):
            if self._waiting[kind]:
                self._held[kind] += 1
                self._waiting[kind].popleft().set()
                return
        self._free += 1


class Share:
    """One executor's way into a `Budget`: its class, first or not."""

    def __init__(self, budget: Budget, first: bool) -> None:
        self.budget, self.first = budget, first

    async def acquire(self) -> None:
        await self.budget.acquire(self.first)

    def release(self) -> None:
        self.budget.release(self.first)
