"""Browser sessions, in memory (a restart signs everyone out): who each session cookie signs in,
and the CSRF value of its forms.

A session's CSRF value is its own, made with it and never sent as a cookie: a form is from this
site when it carries the value of the session it comes with, which only a page of this site
shows (a cookie someone else set cannot match it). Sessions end after `SESSION_S`, and an
author keeps at most `PER_AUTHOR` of them (signing in again drops the oldest): however often
anyone signs in, the sessions held stay bounded.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

import msgspec

SESSION_S = 7 * 24 * 3600.0
"""A session's age limit: then its browser signs in again."""
PER_AUTHOR = 8
"""Sessions an author keeps at once (browsers, machines); a newer one ends the oldest."""


class Session(msgspec.Struct, frozen=True):
    author: int
    count: int
    """The author's session count when signed in (`Author.sessions`): another has ended it."""
    made: float
    csrf: str


class Sessions:
    """The sessions by cookie, oldest first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._by_cookie: dict[str, Session] = {}

    def open(self, author: int, count: int) -> str:
        """A new session of `author` (its cookie); the expired ones and the author's oldest
        beyond `PER_AUTHOR` end."""
        self._prune()
        own = [cookie for cookie, session in self._by_cookie.items() if session.author == author]
        for cookie in own[: max(0, len(own) - PER_AUTHOR + 1)]:
            del self._by_cookie[cookie]
        cookie = secrets.token_urlsafe(32)
        self._by_cookie[cookie] = Session(author, count, self.clock(), secrets.token_urlsafe(24))
        return cookie

    def get(self, cookie: str) -> Session | None:
        """The session of `cookie`, unless none or expired."""
        session = self._by_cookie.get(cookie)
        if session is None or self.clock() - session.made > SESSION_S:
            return None
        return session

    def close(self, cookie: str) -> None:
        self._by_cookie.pop(cookie, None)

    def _prune(self) -> None:
        """End the expired sessions (the oldest come first: stop at the first alive)."""
        now = self.clock()
        for cookie, session in list(self._by_cookie.items()):
            if now - session.made <= SESSION_S:
                break
            del self._by_cookie[cookie]

    def __len__(self) -> int:
        return len(self._by_cookie)
