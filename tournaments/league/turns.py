"""The authors' turns at what the league does for them one request at a time (checking their
versions, playing their scrimmages): the next is the oldest queued request of the author served
longest ago (or never), so that an author's next request waits behind every other author's first
one however many they queued.

Authors who wait alike (a class's first uploads: each author's one version, none served yet)
may take turns from both ends (`newest_too`): the oldest of their requests, then the newest,
and so on. A request made behind a long queue of others' is then served among the next few,
and none waits more than twice as many turns as oldest first would make it wait."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar


class Request(Protocol):
    """A queued request: its author's id, and its own (in the order they were made)."""

    @property
    def author(self) -> int: ...

    @property
    def id(self) -> int: ...


R = TypeVar("R", bound=Request)


class Turns(Generic[R]):
    """The authors' turns at one kind of request (`newest_too`: from both ends among authors
    who wait alike)."""

    def __init__(self, newest_too: bool = False) -> None:
        self.newest_too = newest_too
        self._served: dict[int, int] = {}
        """Author id → the turn they were last served."""
        self._turn = 0

    def next(self, queued: list[R]) -> R | None:
        """The one of `queued` to serve now, taking its author's turn."""
        if not queued:
            return None
        firsts: dict[int, R] = {}
        for request in sorted(queued, key=lambda request: -request.id):
            firsts[request.author] = request  # each author's oldest
        longest = min(self._served.get(author, -1) for author in firsts)
        due = [r for r in firsts.values() if self._served.get(r.author, -1) == longest]
        newest = self.newest_too and self._turn % 2 == 1
        chosen = (max if newest else min)(due, key=lambda request: request.id)
        self._turn += 1
        self._served[chosen.author] = self._turn
        return chosen
