"""The league's JSON answers, as msgspec Structs: what the server encodes and what a client
(`arena submit`) decodes with `type=`, one definition for both sides."""

from __future__ import annotations

import msgspec


class VersionAnswer(msgspec.Struct, frozen=True):
    """`POST /api/versions`: the version uploaded (the same files again: that same version)."""

    bot: str
    version: int
    """Its id in the league (the API and the logs name versions by it)."""
    number: int
    """The bot's 1, 2, ... in upload order."""
    hash: str
    status: str
    url: str
    """The bot's page, relative to the server's address."""


class VersionRow(msgspec.Struct, frozen=True):
    version: int
    number: int
    hash: str
    status: str
    reason: str | None
    """Public: what failed and where, never the bot's output."""
    logs: dict[str, str] | None = None
    """Its build and check logs: for its author and the organisers only."""


class BotAnswer(msgspec.Struct, frozen=True):
    """`GET /api/bots/NAME`: the bot and its versions, oldest first."""

    bot: str
    author: str | None
    disabled: bool
    versions: list[VersionRow]
