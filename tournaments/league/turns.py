"""The authors' turns at what the league does for them one request at a time (checking their
versions, playing their scrimmages): the next is the oldest queued request of the author served
longest ago (or never), so that an author's next request waits behind every other author's first
one however many they queued."""

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
    """The authors' turns at one kind of request."""

    def __init__(self) -> None:
        self._served: dict[int, int] = {}
        """Author id → the turn they were last served."""
        self._turn = 0

    def next(self, queued: list[R]) -> R | None:
        """The one of `queued` to serve now, taking its author's turn."""
        if not queued:
            return None
        chosen = min(queued, key=lambda request: (self._served.get(request.author, -1), request.id))
        self._turn += 1
        self._served[chosen.author] = self._turn
        return chosen
