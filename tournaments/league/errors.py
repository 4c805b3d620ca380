"""The league's refusals, each with the HTTP status the web front answers it with (the front
maps the whole `ArenaError` family once, by `http_status`: `server.front.answer_refusal`)."""

from __future__ import annotations

from typing import ClassVar

from protocol.errors import RequestError


class Unauthorized(RequestError):
    """No token, an unknown or old one, a disabled author, or no session (HTTP 401)."""

    http_status: ClassVar[int] = 401


class Forbidden(RequestError):
    """The author asking may not do this (HTTP 403)."""

    http_status: ClassVar[int] = 403


class Taken(RequestError):
    """The bot name (or one it looks like) belongs to another author, or to a house bot: the
    upload must use another name (HTTP 403)."""

    http_status: ClassVar[int] = 403


class NotFound(RequestError):
    """No author, bot, version, season, game or page of that name (HTTP 404)."""

    http_status: ClassVar[int] = 404


class TooLarge(RequestError):
    """An upload or a form over the league's size limit (HTTP 413)."""

    http_status: ClassVar[int] = 413


class RateLimited(RequestError):
    """An author over the league's uploads or scrimmages per hour, or a client over one of the
    front's budgets (HTTP 429)."""

    http_status: ClassVar[int] = 429
