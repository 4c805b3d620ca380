"""Browser sessions: who each session cookie signs in, and the CSRF value of its forms, kept in
the league's registry (`Registry.add_session`), so that a restart signs no one out.

A cookie is never stored: only its SHA-256, as for tokens, so a copy of the registry signs no
one in. A session's CSRF value is its own, made with it and never sent as a cookie: a form is
from this site when it carries the value of the session it comes with, which only a page of
this site shows (a cookie someone else set cannot match it). Sessions end after `SESSION_S`
(by the wall clock, which a restart keeps), and an author keeps at most `PER_AUTHOR` of them
(signing in again drops the oldest): however often anyone signs in, the sessions held stay
bounded, and the expired ones are pruned at each sign-in.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

import msgspec

from tournaments.league.registry import Author, Registry, SessionRow, token_hash

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
    """The league's sessions by cookie, in its registry; `clock` is the wall clock (Unix
    time: a session's age outlives the server's process)."""

    def __init__(self, registry: Registry, clock: Callable[[], float] = time.time) -> None:
        self.registry, self.clock = registry, clock

    def open(self, author: int, count: int) -> str:
        """A new session of `author` (its cookie); the expired ones and the author's oldest
        beyond `PER_AUTHOR` end."""
        now = self.clock()
        self.registry.end_sessions(made_before=now - SESSION_S)
        own = self.registry.sessions_of(author)
        ended = own[: max(0, len(own) - PER_AUTHOR + 1)]
        cookie = secrets.token_urlsafe(32)
        row = SessionRow(token_hash(cookie), author, count, now, secrets.token_urlsafe(24))
        self.registry.add_session(row, ended)
        return cookie

    def get(self, cookie: str) -> Session | None:
        """The session of `cookie`, unless none or expired."""
        row = self.registry.session(token_hash(cookie)) if cookie else None
        if row is None or self.clock() - row.made > SESSION_S:
            return None
        return Session(row.author, row.sessions, row.made, row.csrf)

    def author(self, session: Session) -> Author | None:
        """The author `session` signs in, unless disabled, or re-issued a token, since."""
        author = self.registry.author_by_id(session.author)
        if author is None or author.disabled or author.sessions != session.count:
            return None
        return author

    def close(self, cookie: str) -> None:
        if cookie:
            self.registry.end_sessions(token_hash(cookie))

    def __len__(self) -> int:
        return self.registry.session_count()
